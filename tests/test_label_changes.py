"""scripts/label_changes.py: what a judge change did to labels and pairs, counted against pairs written by hand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from pipeline.preferences import Preference
from pipeline.records import Label

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("label_changes", ROOT / "scripts" / "label_changes.py")
label_changes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(label_changes)


def pref(chosen: str, rejected: str, dimension: str, index: int = 0) -> Preference:
    return Preference("ctx", index, chosen, rejected, dimension)


def test_pairs_kept_reversed_dropped_and_new():
    old = [pref("a", "b", "faithfulness"), pref("c", "d", "faithfulness"), pref("e", "f", "correctness"),
           pref("g", "h", "refusal_answerable")]
    new = [pref("a", "b", "faithfulness"), pref("d", "c", "correctness"), pref("g", "h", "faithfulness"),
           pref("i", "j", "completeness")]
    out = label_changes.pair_changes(old, new)
    assert out["faithfulness"] == {"kept": 1, "reversed": 1}
    assert out["correctness"]["dropped"] == 1
    assert out["refusal_answerable"] == {"kept": 1, "kept, decided elsewhere": 1}
    assert out["completeness"]["new"] == 1


def test_label_changes_count_transitions_per_dimension():
    old = {"x": Label("x", "j", "attempted", "fully_supported", "correct", "complete", "ok"),
           "y": Label("y", "j", "attempted", "fully_supported", "correct", "complete", "ok")}
    new = {"x": Label("x", "j", "attempted", "unsupported", "correct", "complete", "ok"),
           "y": Label("y", "j", "attempted", "fully_supported", "correct", "complete", "ok")}
    out = label_changes.label_changes(old, new)
    assert out["faithfulness"] == {("fully_supported", "unsupported"): 1}
    assert sum(out["behaviour"].values()) == 0
