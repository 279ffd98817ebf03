"""The validation set machinery (pipeline/judges/validation.py, stage judge_eval): the set's checks, the
comparison of a judge with the reader, Cohen's kappa against scikit-learn, and the stage end to end on a
small set written here."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from pipeline.agreement import cohen
from pipeline.io import InputError
from pipeline.judges.validation import compare, evaluate, half_of, read_validation, source_group
from pipeline.records import Label

PASSAGES = [
    {"id": "p1", "decision_id": "d1", "family": "d1", "heading": "Penalty",
     "text": "The Tribunal ordered Chan Tai-man to pay a fine of HK$50,000.", "position": 0},
    {"id": "p2", "decision_id": "d2", "family": "d2", "heading": "Costs",
     "text": "Wong Siu-ming shall pay the costs of the Commission.", "position": 0},
]


def item(n: int, answer: str, gold: dict, qa_id: str | None = None, **over) -> dict:
    qa_id = qa_id or f"d1/q{n}"
    record = {
        "id": f"test/{qa_id}/gold_plus_random/c{n}", "source": "test", "language": "en", "half": half_of(qa_id),
        "qa": {"id": qa_id, "question": "What fine was Chan Tai-man ordered to pay?",
               "answer": "Chan Tai-man was ordered to pay a fine of HK$50,000.", "gold_passage_id": "p1",
               "family": "d1", "kind": "factual", "facts": ["HK$50,000"], "qualifiers": []},
        "context": {"id": f"{qa_id}/gold_plus_random", "qa_id": qa_id, "variant": "gold_plus_random",
                    "answerable": True, "passage_ids": ["p1", "p2"], "gold_slot": 0},
        "passages": PASSAGES,
        "candidate": {"id": f"{qa_id}/gold_plus_random/c{n}", "context_id": f"{qa_id}/gold_plus_random",
                      "generator": "offline:terse", "text": answer, "finish_reason": "stop", "meta": {}},
        "refusal": "The provided passages do not contain enough information to answer this question.",
        "gold": gold, "note": "",
    }
    record.update(over)
    return record


ATTEMPT_OK = {"behaviour": "attempted", "faithfulness": "fully_supported", "correctness": "correct",
              "completeness": "complete"}
ABSTAINED = {"behaviour": "abstained", "faithfulness": None, "correctness": None, "completeness": None}


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def label(cid: str, behaviour: str, faith=None, correct=None, complete=None, status="ok") -> Label:
    return Label(cid, "j", behaviour, faith, correct, complete, status)


def test_halves_are_by_question_and_fixed():
    assert half_of("d1/q1") == half_of("d1/q1")
    halves = {half_of(f"d{i}/q1") for i in range(40)}
    assert halves == {"dev", "test"}


def test_reads_a_valid_set(tmp_path):
    items = read_validation([write(tmp_path / "en.jsonl", [item(1, "HK$50,000.", ATTEMPT_OK),
                                                           item(2, "I cannot say.", ABSTAINED)])])
    assert [i.gold.behaviour for i in items] == ["attempted", "abstained"]
    assert items[0].passages[1].decision_id == "d2"


@pytest.mark.parametrize(("change", "field"), [
    ({"gold": {**ABSTAINED, "faithfulness": "unsupported"}}, "gold.faithfulness"),
    ({"gold": {**ATTEMPT_OK, "completeness": None}}, "gold.completeness"),
    ({"gold": {**ATTEMPT_OK, "faithfulness": "mostly_supported"}}, "gold.faithfulness"),
    ({"half": "other"}, "half"),
    ({"passages": list(reversed(PASSAGES))}, "passages"),
    ({"language": "fr"}, "language"),
])
def test_a_bad_item_stops_with_file_line_and_field(tmp_path, change, field):
    bad = item(2, "HK$50,000.", ATTEMPT_OK)
    if "half" in change:  # the other half than the question's
        change = {"half": "test" if bad["half"] == "dev" else "dev"}
    path = write(tmp_path / "en.jsonl", [item(1, "HK$50,000.", ATTEMPT_OK), {**bad, **change}])
    with pytest.raises(InputError) as err:
        read_validation([path])
    assert err.value.line == 2 and err.value.field == field


def test_duplicate_ids_across_files_stop(tmp_path):
    a = write(tmp_path / "a.jsonl", [item(1, "HK$50,000.", ATTEMPT_OK)])
    b = write(tmp_path / "b.jsonl", [item(1, "HK$50,000.", ATTEMPT_OK)])
    with pytest.raises(InputError, match="duplicate id"):
        read_validation([a, b])


def test_cohen_matches_scikit_learn():
    a = ["x", "x", "y", "z", "y", "x", "z", "z", "y", "x"]
    b = ["x", "y", "y", "z", "y", "x", "x", "z", "z", "x"]
    assert cohen(list(zip(a, b, strict=True)), ["x", "y", "z"]) == pytest.approx(cohen_kappa_score(a, b))
    assert math.isnan(cohen([("x", "x")] * 3, ["x", "y"]))


def test_compare_counts_second_stage_only_where_both_attempted(tmp_path):
    items = read_validation([write(tmp_path / "en.jsonl", [
        item(1, "HK$50,000.", ATTEMPT_OK),
        item(2, "HK$50,000.", {**ATTEMPT_OK, "faithfulness": "unsupported"}),
        item(3, "No idea.", ABSTAINED),
        item(4, "HK$50,000.", ATTEMPT_OK),
    ])])
    ids = [i.id for i in items]
    labels = {
        ids[0]: label(ids[0], "attempted", "fully_supported", "correct", "complete"),
        ids[1]: label(ids[1], "attempted", "fully_supported", "correct", "complete"),  # misses unsupported
        ids[2]: label(ids[2], "attempted", "unsupported", "incorrect", "incomplete"),  # reader: abstained
        ids[3]: label(ids[3], None, None, None, None, status="unparseable"),
    }
    behaviour = compare(items, labels, "behaviour")
    assert (behaviour["n"], behaviour["agree"]) == (4, 2)
    assert behaviour["confusion"] == {"abstained": {"attempted": 1},
                                      "attempted": {"attempted": 2, "unparseable": 1}}
    faith = compare(items, labels, "faithfulness")
    # item 3 is out (the reader says abstained); the unparseable label counts as a disagreement.
    assert (faith["n"], faith["agree"]) == (3, 1)
    assert faith["ci"][0] < 1 / 3 < faith["ci"][1]
    scopes = evaluate(items, labels)
    assert scopes["all/all"]["items"] == 4 and scopes["en/all"]["dimensions"]["behaviour"]["agree"] == 2
    # One source group per source; the published-style fixture before and after its fixes is one.
    assert scopes["source:test/all"]["dimensions"]["behaviour"]["agree"] == 2
    raw = [dataclasses.replace(i, source="zh_published_raw" if n % 2 else "zh_published") for n, i in enumerate(items)]
    by_group = evaluate(raw, labels)
    assert by_group["source:zh_published/all"]["items"] == 4 and not any("raw" in k for k in by_group)
    # A fixture's second and later runs are reported with its first.
    runs = ("zh_heldout_b", "messy_c", "zh_published_raw_d", "default", "real", "zh_heldout_2_b")
    assert [source_group(s) for s in runs] == [
        "zh_heldout", "messy", "zh_published", "default", "real", "zh_heldout_2"]


def _two_item_set(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "validation"
    folder.mkdir()
    write(folder / "en.jsonl", [
        item(1, "Chan Tai-man was ordered to pay a fine of HK$50,000.", ATTEMPT_OK),
        item(2, "The provided passages do not contain enough information to answer this question.", ABSTAINED),
    ])
    params = tmp_path / "params.yaml"
    params.write_text(Path("params/smoke.yaml").read_text(encoding="utf-8").replace(
        "validation: data/validation", f"validation: {folder.as_posix()}"), encoding="utf-8")
    return folder, params


def test_judge_eval_stage_writes_the_report(tmp_path, monkeypatch):
    from pipeline.stages import judge_eval

    _, params = _two_item_set(tmp_path)
    out = tmp_path / "validity.json"
    judge_eval.main(["--params", str(params), "--out", str(out), "--cache-dir", str(tmp_path / "cache")])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["judges"]) == {"rule:strict", "rule:lenient"}
    behaviour = report["judges"]["rule:strict"]["all/all"]["dimensions"]["behaviour"]
    assert behaviour["n"] == 2 and behaviour["agree"] == 2
    assert report["set"]["items"] == 2


def test_one_candidate_id_in_two_sources_is_judged_twice(tmp_path):
    """A fixture run before and after a fix gives the same candidate id two texts: each item keeps its own."""
    from pipeline.judges import RuleJudge
    from pipeline.judges.validation import judge_item

    before = item(1, "The provided passages do not contain enough information to answer this question.", ABSTAINED,
                  id="before/d1/q1/gold_plus_random/c1", source="before")
    after = item(1, "Chan Tai-man was ordered to pay a fine of HK$50,000.", ATTEMPT_OK,
                 id="after/d1/q1/gold_plus_random/c1", source="after")
    items = read_validation([write(tmp_path / "en.jsonl", [before, after])])
    labels = {lab.candidate_id: lab for lab in RuleJudge("strict").judge([judge_item(i) for i in items])}
    assert labels["before/d1/q1/gold_plus_random/c1"].behaviour == "abstained"
    assert labels["after/d1/q1/gold_plus_random/c1"].behaviour == "attempted"
    assert compare(items, labels, "behaviour")["agree"] == 2


def test_the_committed_set_is_whole():
    """data/validation: every item valid, the sizes the method promises (>= 200 English, >= 100 Chinese, of
    them >= 60 in the published style), the real model's answers in it, both halves in both languages."""
    from collections import Counter

    items = read_validation(sorted(Path("data/validation").glob("*.jsonl")))
    by_lang = Counter(i.language for i in items)
    assert by_lang["en"] >= 200 and by_lang["zh"] >= 100
    assert sum(i.source.startswith("zh_published") for i in items) >= 60
    assert sum(i.candidate.generator.startswith("hf:") for i in items) >= 30
    for lang in ("en", "zh"):
        halves = Counter(i.half for i in items if i.language == lang)
        # The dev half grows by targeted mining (every answer a judge calls unusable in fresh runs, dev
        # questions only), so the test half may fall below a quarter; it must stay a fifth.
        assert min(halves["dev"], halves["test"]) >= 0.2 * by_lang[lang]
    # The labels cover every category the method defines on the second stage.
    assert {i.gold.faithfulness for i in items} >= {"fully_supported", "partially_supported", "unsupported",
                                                    "contradicted"}


def test_a_sampled_llm_judge_is_measured_on_a_test_half_sample(tmp_path):
    """A judge the judge stage runs on a sample (judge.llm_max_candidates) is measured on a sample of
    judge_eval.llm_items from the test half, through a real OpenAI-style endpoint on loopback: 12 questions,
    cap 3; with judge_eval.llm_items 0 it is not measured, and the data report says so."""
    from conftest import ChatServer, chat_reply

    from pipeline.stages import judge_eval

    folder = tmp_path / "validation"
    folder.mkdir()
    records = [item(n, "The provided passages do not contain enough information to answer this question.",
                    ABSTAINED, qa_id=f"d{n}/q1") for n in range(12)]
    write(folder / "en.jsonl", records)
    test_ids = {r["id"] for r in records if r["half"] == "test"}
    assert len(test_ids) > 3  # the cap is what limits the sample
    with ChatServer(lambda headers, body, prompt, n: (200, chat_reply("m", json.dumps({"label": "abstained"})))) as server:
        spec = f"llm:openai:{server.url}|m"
        params = tmp_path / "params.yaml"
        text = Path("params/smoke.yaml").read_text(encoding="utf-8").replace(
            "validation: data/validation", f"validation: {folder.as_posix()}")
        import yaml

        loaded = yaml.safe_load(text)
        loaded["judge"]["judges"] = ["rule:strict", spec]
        loaded["judge"]["llm_max_candidates"] = 5
        loaded["judge_eval"]["llm_items"] = 3
        loaded["judge_eval"]["llm_languages"] = ["zh"]  # an English-only set has nothing to sample there
        params.write_text(yaml.safe_dump(loaded, allow_unicode=True), encoding="utf-8")
        out = tmp_path / "validity.json"
        with pytest.raises(InputError) as err:
            judge_eval.main(["--params", str(params), "--out", str(out), "--cache-dir", str(tmp_path / "cache")])
        assert err.value.field == "judge_eval.llm_languages" and not out.exists() and server.calls == 0
        loaded["judge_eval"]["llm_languages"] = ["en"]
        params.write_text(yaml.safe_dump(loaded, allow_unicode=True), encoding="utf-8")
        judge_eval.main(["--params", str(params), "--out", str(out), "--cache-dir", str(tmp_path / "cache")])
        calls = server.calls
        loaded["judge_eval"]["llm_items"] = 0
        params.write_text(yaml.safe_dump(loaded, allow_unicode=True), encoding="utf-8")
        unmeasured = tmp_path / "unmeasured.json"
        judge_eval.main(["--params", str(params), "--out", str(unmeasured), "--cache-dir", str(tmp_path / "cache0")])
        assert server.calls == calls
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["samples"] == {spec: 3}
    # The sampled items share one prompt (same question, passages and answer): the cache asks once.
    assert calls == 1
    measured = report["judges"][spec]
    assert set(measured) <= {"en/test", "en/all", "all/test", "all/all", "source:test/test", "source:test/all"}
    assert measured["all/all"]["dimensions"]["behaviour"] == {**measured["all/all"]["dimensions"]["behaviour"],
                                                              "n": 3, "agree": 3}
    # The rule judge still reads every item.
    assert report["judges"]["rule:strict"]["all/all"]["items"] == 12
    skipped = json.loads(unmeasured.read_text(encoding="utf-8"))
    assert skipped["not_measured"] == [spec] and set(skipped["judges"]) == {"rule:strict"}
    from pipeline.reporting.judge_validity import render, summary

    assert "on a sample of 3 test-half items drawn the same way, English only" in "\n".join(render(summary(report)))
    text = "\n".join(render(summary(skipped)))
    assert f"`{spec}` is not measured on the validation set in this run (judge_eval.llm_items: 0)" in text


def test_passages_stored_once_read_as_inline_ones(tmp_path):
    from pipeline.judges.validation_passages import TABLE, compact

    records = [item(1, "HK$50,000.", ATTEMPT_OK), item(2, "HK$50,000.", ATTEMPT_OK)]
    write(tmp_path / "en.jsonl", records)
    inline = read_validation([tmp_path / "en.jsonl"])
    assert compact(tmp_path) == sum(len(r["passages"]) for r in records)
    stored = [json.loads(line) for line in (tmp_path / "en.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(isinstance(k, str) for r in stored for k in r["passages"])
    table = (tmp_path / TABLE).read_text(encoding="utf-8").splitlines()
    assert len(table) == len({json.dumps(p, sort_keys=True) for r in records for p in r["passages"]})
    assert read_validation([tmp_path / "en.jsonl"]) == inline
    # A key the table does not hold stops with the item's line and the passage's place.
    write(tmp_path / "en.jsonl", [{**stored[0], "passages": ["0123456789abcdef"]}])
    with pytest.raises(InputError, match="unknown passage key") as err:
        read_validation([tmp_path / "en.jsonl"])
    assert (err.value.line, err.value.field) == (1, "passages[0]")


def test_a_second_reader_is_measured_against_the_first_beside_the_primary_judge(tmp_path):
    """data/validation/second_reader: the two readers' agreement and the primary judge's on the same items,
    in the stage's report and in the data report's judge section."""
    from pipeline.reporting import judge_validity
    from pipeline.stages import judge_eval

    folder, params = _two_item_set(tmp_path)
    (folder / "second_reader").mkdir()
    first, second = (f"test/d1/q{n}/gold_plus_random/c{n}" for n in (1, 2))
    write(folder / "second_reader" / "r2.jsonl", [
        {"id": first, "behaviour": "attempted", "faithfulness": "partially_supported", "correctness": "correct",
         "completeness": "complete", "note": "reads the fine as a secondary claim"},
        {"id": second, "behaviour": "abstained", "note": ""},
    ])
    out = tmp_path / "validity.json"
    judge_eval.main(["--params", str(params), "--out", str(out), "--cache-dir", str(tmp_path / "cache")])
    report = json.loads(out.read_text(encoding="utf-8"))
    readers = report["second_reader"]
    assert readers["items"] == 2 and readers["judge"] == "rule:strict"
    dims = readers["reader"]["all/all"]["dimensions"]
    assert (dims["behaviour"]["agree"], dims["behaviour"]["n"]) == (2, 2)
    assert (dims["faithfulness"]["agree"], dims["faithfulness"]["n"]) == (0, 1)
    assert readers["primary"]["all/all"]["dimensions"]["behaviour"]["agree"] == 2
    text = "\n".join(judge_validity.render(judge_validity.summary(report)))
    assert "A second reader labelled 2 of these items blind" in text and "README.md says who" in text
    assert "| second reader | en | 1.000 (2/2)" in text and "| `rule:strict` | en | 1.000 (2/2)" in text


@pytest.mark.parametrize(("line", "field"), [
    ({"id": "test/d9/q9/gold_plus_random/c9", "behaviour": "abstained"}, "id"),
    ({"id": "test/d1/q2/gold_plus_random/c2", "behaviour": "abstained", "faithfulness": "unsupported"},
     "faithfulness"),
    ({"id": "test/d1/q1/gold_plus_random/c1", "behaviour": "attempted", "faithfulness": "unsupported"},
     "correctness"),
    ({"id": "test/d1/q1/gold_plus_random/c1", "behaviour": "maybe"}, "behaviour"),
])
def test_a_bad_second_reader_line_stops_before_any_judge_runs(tmp_path, line, field):
    from pipeline.stages import judge_eval

    folder, params = _two_item_set(tmp_path)
    (folder / "second_reader").mkdir()
    write(folder / "second_reader" / "r2.jsonl", [{"id": "test/d1/q2/gold_plus_random/c2", "behaviour": "abstained"},
                                                  line])
    out = tmp_path / "validity.json"
    with pytest.raises(InputError) as err:
        judge_eval.main(["--params", str(params), "--out", str(out), "--cache-dir", str(tmp_path / "cache")])
    assert (err.value.line, err.value.field) == (2, field) and not out.exists()


def test_an_item_labelled_twice_by_the_second_reader_is_refused(tmp_path):
    from pipeline.judges.second_reader import read_second_reader

    folder = tmp_path / "validation"
    (folder / "second_reader").mkdir(parents=True)
    row = {"id": "a", "behaviour": "abstained"}
    write(folder / "second_reader" / "r2.jsonl", [row, row])
    with pytest.raises(InputError) as err:
        read_second_reader(folder, {"a"})
    assert (err.value.line, err.value.field) == (2, "id")
    assert read_second_reader(tmp_path / "nowhere", {"a"}) == {}
