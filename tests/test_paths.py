"""pipeline/paths.py is the one home of the pipeline's data paths: dvc.yaml names each of them, no other module
spells one out, and the split readers read what write_splits wrote."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from pipeline import paths
from pipeline.pairs_io import write_splits
from pipeline.records import SPLITS, Pair

ROOT = Path(__file__).resolve().parents[1]
# Not written by a stage, so dvc.yaml has no reason to name them (each is commented in pipeline/paths.py).
NOT_STAGE_PATHS = {paths.MODEL_CACHE, paths.REAL_BASE, paths.BENCH}


def _declared_paths() -> dict[str, Path]:
    return {name: value for name, value in vars(paths).items() if name.isupper() and isinstance(value, Path)}


def _dvc_paths(dvc_file: Path) -> set[str]:
    stages = yaml.safe_load(dvc_file.read_text(encoding="utf-8"))["stages"]
    named: set[str] = set()
    for stage in stages.values():
        stage = stage.get("do", stage)  # foreach/matrix stages keep their body under `do`
        for entry in [*stage.get("deps", []), *stage.get("outs", []), *stage.get("metrics", []),
                      *stage.get("plots", [])]:
            entry = entry if isinstance(entry, str) else next(iter(entry))
            # A profile in its own folder names the root's shared inputs as ../ (scripts/profile_pipeline.py).
            named.add(entry.removeprefix("../") if dvc_file.parent != ROOT else entry)
    return named


def _covered(path: Path, named: set[str]) -> bool:
    """dvc.yaml names the path itself, a folder holding it, or (for a folder) a file inside it; a templated
    entry (models/adapters/dpo-${item}) counts up to its first ${."""
    text = path.as_posix()
    for entry in named:
        entry = entry.split("${")[0].rstrip("/-")
        if entry and (text == entry or text.startswith(entry + "/") or entry.startswith(text + "/")):
            return True
    return False


# The real profile imports nothing, so its dvc.yaml (scripts/profile_pipeline.py) drops data/external.
@pytest.mark.parametrize(("dvc_file", "unused"), [("dvc.yaml", set()), ("real/dvc.yaml", {paths.EXTERNAL})])
def test_dvc_yaml_names_every_stage_path(dvc_file, unused):
    named = _dvc_paths(ROOT / dvc_file)
    missing = [name for name, path in _declared_paths().items()
               if path not in NOT_STAGE_PATHS | unused and not _covered(path, named)]
    assert not missing, f"{dvc_file} names none of {missing} (pipeline/paths.py)"


def test_the_check_sees_a_path_dvc_yaml_does_not_name():
    named = _dvc_paths(ROOT / "dvc.yaml")
    assert _covered(paths.LABELS, named) and _covered(paths.ADAPTERS, named)
    assert not _covered(Path("data/interim/nowhere.jsonl"), named)


def _path_literals(source: str) -> list[tuple[int, str]]:
    """String constants that start like a pipeline data path, docstrings and comments aside."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and node.value.startswith(("data/", "models/", "reports/"))]


def test_no_module_but_paths_spells_out_a_data_path():
    found = []
    for module in sorted((ROOT / "pipeline").rglob("*.py")):
        if module.name == "paths.py" and module.parent.name == "pipeline":
            continue
        for line, text in _path_literals(module.read_text(encoding="utf-8")):
            # A message may name a path for the reader; a path the code opens must come from pipeline.paths.
            if " " not in text:
                found.append(f"{module.relative_to(ROOT)}:{line}: {text!r}")
    assert not found, "data paths outside pipeline/paths.py:\n" + "\n".join(found)


def test_the_literal_scan_finds_a_path_and_skips_docstrings():
    source = '"""Reads data/interim/qa.jsonl."""\nOUT = "data/scores"\nNOTE = "reports/data.md has no rows."\n'
    assert _path_literals(source) == [(2, "data/scores"), (3, "reports/data.md has no rows.")]


def _pair(pid: str, split: str) -> Pair:
    return Pair(pid, f"q-{pid}", f"c-{pid}", "gold_only", True, split, "faithfulness", "Question?", "Yes.",
                "No.", "panel:a", "panel:b", 1, 1, False, "pairs")


def test_split_readers_read_what_write_splits_wrote(tmp_path):
    corpus = tmp_path / "pairs"
    written = [_pair("b", "test"), _pair("a", "train"), _pair("c", "val"), _pair("d", "train")]
    write_splits(corpus, written)
    assert paths.split_file(corpus, "val") == corpus / "val.jsonl"
    assert [p.id for p in paths.read_split(corpus, "train")] == ["a", "d"]
    # Split by split in SPLITS order, each sorted by id as write_splits sorts it.
    assert [p.id for p in paths.read_pairs(corpus)] == ["a", "d", "c", "b"]
    assert [p.id for p in paths.read_pairs(corpus, ("val", "test"))] == ["c", "b"]
    assert SPLITS == ("train", "val", "test")


def test_a_missing_split_stops_unless_missing_ok(tmp_path):
    corpus = tmp_path / "pairs"
    corpus.mkdir()
    (corpus / "train.jsonl").write_text("", encoding="utf-8")
    assert paths.read_pairs(corpus, missing_ok=True) == []
    with pytest.raises(Exception, match="val.jsonl"):
        paths.read_pairs(corpus)
