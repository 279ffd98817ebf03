"""Decisions counted by origin and language (pipeline/data_sources.py): one home for the IRAC stage and
the reports, and the IRAC package never reaching into reporting for it."""

from __future__ import annotations

import ast
from pathlib import Path

from pipeline import data_sources
from pipeline.data_sources import decision_sources, sources_text
from pipeline.irac import evaluate
from pipeline.records import Decision, Section
from pipeline.reporting import provenance

ROOT = Path(__file__).resolve().parents[1]


def make(i: int, source: str, language: str) -> Decision:
    text = "经查明，张某获利1元。" if language == "zh" else "The respondent gained $1."
    return Decision(f"d-{i}", source, language, "insider_trading", "t", "", text, [Section("s", "", text)])  # type: ignore[arg-type]


def test_decisions_are_counted_by_origin_and_language():
    decisions = [make(0, "synthetic", "en"), make(1, "csrc", "zh"), make(2, "synthetic", "en"),
                 make(3, "user", "en"), make(4, "messy", "zh")]
    counts = decision_sources(decisions)
    assert counts == {"synthetic_decisions": {"en": 2}, "imported_decisions": {"en": 1, "zh": 2}}
    assert sources_text(counts) == "synthetic decisions (en 2); imported decisions (en 1, zh 2)"


def test_only_imported_decisions_and_nothing_known():
    counts = decision_sources([make(0, "messy", "zh"), make(1, "messy", "zh")])
    assert counts == {"synthetic_decisions": {}, "imported_decisions": {"zh": 2}}
    assert sources_text(counts) == "imported decisions (zh 2)"
    assert sources_text(None) == sources_text({}) == ""


def test_irac_and_the_reports_count_with_the_one_function():
    assert evaluate.decision_sources is provenance.decision_sources is data_sources.decision_sources


def test_the_irac_package_imports_nothing_of_reporting():
    for path in sorted((ROOT / "pipeline" / "irac").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in imported if m.startswith("pipeline.reporting")], path.name
