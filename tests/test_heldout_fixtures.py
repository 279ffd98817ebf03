"""The held-out judgments (tests/fixtures/zh_heldout*, en_heldout*) that the validation set's held-out batches were drawn
from: every reference span is its paragraph's own text, every record imports under `on_invalid: stop`, and
a question is left out only when its judgment gives it nothing to be made standalone with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.importers import Skips
from pipeline.importers.squad import load_squad
from pipeline.params import QaImportParams

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = (
    "zh_heldout", "zh_heldout_2", "zh_heldout_3", "zh_heldout_4", "zh_heldout_5", "zh_heldout_6",
    "zh_heldout_7", "zh_heldout_8", "zh_heldout_9", "zh_heldout_10", "zh_heldout_11", "zh_heldout_12",
    "zh_heldout_13", "zh_heldout_14", "zh_heldout_15", "zh_heldout_16", "zh_heldout_17", "zh_heldout_18",
    "zh_heldout_19",
    "en_heldout", "en_heldout_2", "en_heldout_3", "en_heldout_4", "en_heldout_5", "en_heldout_6",
    "en_heldout_7", "en_heldout_8", "en_heldout_9", "en_heldout_10", "en_heldout_11", "en_heldout_12",
    "en_heldout_13", "en_heldout_14", "en_heldout_15", "en_heldout_16", "en_heldout_17", "en_heldout_18",
)


def articles(name: str) -> list[dict]:
    return json.loads((ROOT / "tests" / "fixtures" / name / "judgments.json").read_text(encoding="utf-8"))["data"]


@pytest.mark.parametrize("name", FIXTURES)
def test_every_reference_is_its_paragraph_s_own_span(name):
    ids = []
    for article in articles(name):
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                ids.append(qa["id"])
                impossible = qa["is_impossible"] == "true"
                assert impossible == (not qa["answers"]), qa["id"]
                for answer in qa["answers"]:
                    if answer["answer_start"] == -1:
                        assert answer["text"] in ("YES", "NO"), qa["id"]
                    else:
                        start = answer["answer_start"]
                        assert paragraph["context"][start : start + len(answer["text"])] == answer["text"], qa["id"]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("name", FIXTURES)
def test_the_fixture_imports_whole_but_for_questions_with_no_identifier(name):
    path = f"tests/fixtures/{name}/judgments.json"
    language = "en" if name.startswith("en_") else "zh"
    cfg = QaImportParams(format="squad", path=path, language=language, on_invalid="stop", standalone="prefix")
    skips = Skips("corpus.qa_import", "stop")
    _, qas = load_squad(cfg, ROOT, skips)
    total = sum(len(p["qas"]) for a in articles(name) for p in a["paragraphs"])
    summary = skips.summary()
    assert len(qas) + summary["skipped"] == total
    # Only a judgment with neither title nor case number leaves questions out, and only bound ones.
    assert set(summary["by_reason"]) <= {"bound_no_identifier"}
    untitled = {q["id"] for a in articles(name) if not a["title"] for p in a["paragraphs"] for q in p["qas"]}
    every = {q["id"] for a in articles(name) for p in a["paragraphs"] for q in p["qas"]}
    left_out = every - {q.id.removeprefix("qa-") for q in qas}
    assert left_out <= untitled
    assert summary["references"]["failed"] == {"empty_reference": 0, "reference_not_in_passage": 0}
