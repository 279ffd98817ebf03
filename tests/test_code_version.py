"""The offline generators' cache version covers every line of this repo they run: an edit to a helper
several imports away re-answers instead of serving the old code's answers from the response cache."""

from __future__ import annotations

from pipeline.code_version import closure, source_version


def _package(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())


def test_version_follows_transitive_imports_only(tmp_path):
    _package(tmp_path, {
        "pipeline/__init__.py": "",
        "pipeline/gen.py": "from pipeline.helpers import words\n",
        "pipeline/helpers/__init__.py": "",
        "pipeline/helpers/words.py": "import pipeline.helpers.deep as deep\n",
        "pipeline/helpers/deep.py": "STOP = 'stop'\n",
        "pipeline/unrelated.py": "X = 1\n",
    })
    assert closure("pipeline.gen", tmp_path) == {
        "pipeline/__init__.py", "pipeline/gen.py", "pipeline/helpers/__init__.py", "pipeline/helpers/words.py",
        "pipeline/helpers/deep.py"}
    before = source_version("pipeline.gen", tmp_path)
    (tmp_path / "pipeline/unrelated.py").write_text("X = 2\n")
    source_version.cache_clear()
    assert source_version("pipeline.gen", tmp_path) == before
    (tmp_path / "pipeline/helpers/deep.py").write_text("STOP = 'stop prevent'\n")
    source_version.cache_clear()
    edited = source_version("pipeline.gen", tmp_path)
    assert edited != before
    # A checkout with CRLF line endings runs the same code.
    (tmp_path / "pipeline/helpers/deep.py").write_bytes(b"STOP = 'stop prevent'\r\n")
    source_version.cache_clear()
    assert source_version("pipeline.gen", tmp_path) == edited


def test_offline_panel_and_rewriter_versions_cover_the_english_and_chinese_helpers():
    """The regression: the panel's version once hashed pipeline/language/__init__.py alone, and the
    rewriter had none, so a fix to rewrite_en.py changed no cached answer or rewrite."""
    from pipeline.augment.rewriter import OfflineRewriter
    from pipeline.backends.offline import OfflineAnswerer

    for module, generator in (("pipeline.backends.offline", OfflineAnswerer),
                              ("pipeline.augment.rewriter", OfflineRewriter)):
        files = closure(module)
        assert {"pipeline/language/rewrite_en.py", "pipeline/language/zh_forms.py", "pipeline/text.py"} <= files
        assert generator.version == source_version(module)
