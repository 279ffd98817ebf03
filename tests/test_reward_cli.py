"""`python -m pipeline.reward score|rank`: JSONL in, one reward per response out, run as a user runs it (a
subprocess in the project folder). Bad input stops in one line naming file, line and field, and leaves the
output as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import reward_project
from conftest import ROOT, run
from test_reward_api import interim

from pipeline.reward import RewardModel, parse_item

ADAPTER = "models/adapters/dpo-pairs-s1"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = reward_project.build(tmp_path_factory.mktemp("reward-cli"), top_layers=True)
    passages, qas, contexts = interim(root)
    candidates = [json.loads(line) for line in (root / "data/interim/candidates.jsonl").read_text().splitlines()]
    lines = []
    for cid, context in sorted(contexts.items()):
        qa = qas[context.qa_id]
        shown = [{"heading": passages[p].heading, "text": passages[p].text} for p in context.passage_ids]
        answers = [c["text"] for c in candidates if c["context_id"] == cid]
        lines.append({"id": cid, "question": qa.question, "passages": shown, "responses": answers,
                      **({"gold": context.gold_slot} if context.gold_slot is not None else {})})
    # One item given with plain-text passages and no id: the id is its line number.
    lines[-1] = {"question": lines[-1]["question"], "passages": [p["text"] for p in lines[-1]["passages"]],
                 "responses": lines[-1]["responses"]}
    write_lines(root / "answers.jsonl", lines)
    return root


def write_lines(path: Path, records: list) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                            for r in records), encoding="utf-8")


def reward(project: Path, *args: str, check: bool = True):
    """The command in the project folder, with this checkout's pipeline package on the path."""
    return run(["python", "-m", "pipeline.reward", *args], project, check=check, pythonpath=ROOT)


def test_score_writes_one_reward_per_response_equal_to_the_api(project):
    proc = reward(project, "score", "--model", ADAPTER, "--input", "answers.jsonl", "--output", "scored.jsonl")
    assert "reward score: 16 items, dpo-pairs-s1 (ref_sum) -> scored.jsonl" in proc.stdout
    given = [json.loads(line) for line in (project / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    out = [json.loads(line) for line in (project / "scored.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [o["id"] for o in out] == [g.get("id", "16") for g in given]
    rm = RewardModel.load(project / ADAPTER, project / "params.yaml")
    api = rm.score([parse_item(g, "16", 64) for g in given])
    for record, want, g in zip(out, api, given, strict=True):
        assert record["model"] == "dpo-pairs-s1" and record["scoring"] == "ref_sum"
        assert len(record["rewards"]) == len(g["responses"]) == len(record["tokens"])
        assert record["rewards"] == pytest.approx(want.scores["ref_sum"], abs=1e-6)
        assert set(record["scores"]) == {"sum", "mean", "ref_sum", "ref_mean"}
        assert record["passages_used"] == len(g["passages"]) and record["passages_dropped"] == 0
        assert "order" not in record


def test_rank_orders_each_item_s_responses_and_marks_the_pick(project):
    reward(project, "rank", "--model", "models/base", "--input", "answers.jsonl", "--output", "ranked.jsonl")
    out = [json.loads(line) for line in (project / "ranked.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(out) == 16
    for record in out:
        assert record["scoring"] == "mean" and set(record["scores"]) == {"sum", "mean"}
        rewards = record["rewards"]
        assert sorted(record["order"]) == list(range(len(rewards)))
        assert [rewards[k] for k in record["order"]] == sorted(rewards, reverse=True)
        assert record["pick"] == record["order"][0]
    assert reward(project, "rank", "--model", "models/base", "--scoring", "ref_sum", "--input", "answers.jsonl",
                  "--output", "x.jsonl", check=False).stderr.strip().endswith("(a base model has no reference for ref_*)")


def bad_inputs(project: Path) -> dict[str, tuple[list, str]]:
    good = json.loads((project / "answers.jsonl").read_text(encoding="utf-8").splitlines()[0])
    long_passages = [{"heading": "Facts", "text": "The tribunal considered the evidence at length. " * 60}] * 3
    no_responses = {k: v for k, v in good.items() if k != "responses"}
    return {
        "missing field": ([good | {"id": "a"}, no_responses], "line 2, field 'responses': missing"),
        "empty responses": ([good | {"id": "a"}, good | {"id": "b", "responses": []}],
                            "line 2, field 'responses': must be a non-empty list of strings"),
        "not a string": ([good | {"responses": ["fine", 3]}], "line 1, field 'responses[1]': must be a string, got int"),
        "blank passage": ([good | {"passages": [{"heading": "x", "text": "  "}]}],
                          "line 1, field 'passages[0].text': is blank"),
        "over-long prompt": ([good | {"id": "a"}, good | {"id": "b"}, good | {"id": "c", "passages": long_passages}],
                             "line 3, field 'passages': the prompt of"),
        "duplicate id": ([good, good], "line 2, field 'id': duplicate id"),
        "malformed JSON": ([good, '{"question": "x",'], "line 2: malformed JSON"),
        "bad gold": ([good | {"gold": 9}], "line 1, field 'gold': must be the index of a passage"),
    }


@pytest.mark.parametrize("case", ["missing field", "empty responses", "not a string", "blank passage",
                                  "over-long prompt", "duplicate id", "malformed JSON", "bad gold"])
def test_bad_input_stops_in_one_line_naming_file_line_and_field(project, case, monkeypatch):
    """In process (the subprocess path is the test above; loading torch eight more times would only add
    minutes): main exits with the one line the interpreter prints."""
    from pipeline.reward.cli import main

    lines, expected = bad_inputs(project)[case]
    bad = project / f"bad-{case.replace(' ', '-')}.jsonl"
    write_lines(bad, lines)
    out = project / "kept.jsonl"
    out.write_text("what was there before\n", encoding="utf-8")
    monkeypatch.chdir(project)
    with pytest.raises(SystemExit) as stop:
        main(["score", "--model", ADAPTER, "--input", bad.name, "--output", out.name])
    message = str(stop.value.code)
    assert "\n" not in message and message.startswith(f"reward score: error: {bad.name}, "), message
    assert expected in message, message
    assert out.read_text(encoding="utf-8") == "what was there before\n"
    assert not list(project.glob(".kept.jsonl.*"))  # no temporary file left either


def test_an_unknown_model_folder_stops_before_reading_anything(project):
    proc = reward(project, "score", "--model", "models/adapters/no-such-run", "--input", "missing.jsonl",
                  "--output", "never.jsonl", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("reward score: error: models/adapters/no-such-run: not a model folder: it "
                                   "does not exist")
    assert not (project / "never.jsonl").exists()
