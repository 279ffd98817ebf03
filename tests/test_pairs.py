"""The judge and pairs stages end to end on a small hand-built corpus in a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pipeline.io import InputError, read_records, write_records
from pipeline.params import Params, to_dict
from pipeline.prompts import answer_prompt
from pipeline.records import QA, Candidate, Context, Decision, Label, Pair, Passage, Section
from pipeline.stages import judge as judge_stage
from pipeline.stages import pairs as pairs_stage

REFUSAL = Params().generate.refusal
N_QUESTIONS = 20


def build_corpus(n: int = N_QUESTIONS):
    """Decisions d0..dn-1, each with one fact passage; question i asks for decision i's amount."""
    decisions, passages, qas, contexts, candidates = [], [], [], [], []
    for i in range(n):
        amount = f"HK${(i + 1) * 1000:,}"
        text = f"The tribunal ordered party {i} to pay {amount} within {i + 2} days. The appeal of party {i} was dismissed."
        decisions.append(
            Decision(
                f"d{i}",
                "synthetic",
                "en",
                ["tenancy", "criminal"][i % 2],
                f"Case {i}",
                "2020-01-01",
                text,
                [Section("s1", "Orders", text)],
            )
        )
        passages.append(Passage(f"d{i}/p0", f"d{i}", f"d{i}", "Orders", text, 0))
        qas.append(
            QA(
                f"q{i:02d}",
                f"How much did party {i} have to pay?",
                text,
                f"d{i}/p0",
                f"d{i}",
                "factual",
                [amount],
                [f"within {i + 2} days"],
            )
        )
    for i, qa in enumerate(qas):
        other = f"d{(i + 1) % n}/p0"
        variants = [
            ("gold_plus_bm25", True, [other, qa.gold_passage_id]),
            ("random_context", False, [other]),
            ("gold_surrounding", True, [qa.gold_passage_id]),
        ]
        for variant, answerable, pids in variants:
            cid = f"{qa.id}/{variant}"
            contexts.append(
                Context(cid, qa.id, variant, answerable, pids, 1 if variant == "gold_plus_bm25" else None)
            )
            gold = passages[i].text.split(". ")[0] + "."
            wrong = passages[(i + 1) % n].text.split(". ")[0] + "."
            texts = {
                "offline:cautious": REFUSAL,
                "offline:confident": gold if answerable else wrong,
                "offline:terse": f"{qa.facts[0]}." if answerable else REFUSAL,
                "offline:verbose": "pay pay pay pay pay pay pay" if i % 3 == 0 else wrong,
            }
            for gen, text in texts.items():
                candidates.append(Candidate(f"{cid}/{gen}", cid, gen, text, "stop"))
    return decisions, passages, qas, contexts, candidates


def write_corpus(root: Path, n: int = N_QUESTIONS, params: dict | None = None) -> None:
    decisions, passages, qas, contexts, candidates = build_corpus(n)
    write_records(root / "data/raw/decisions.jsonl", decisions)
    write_records(root / "data/interim/passages.jsonl", passages)
    write_records(root / "data/interim/qa.jsonl", qas)
    write_records(root / "data/interim/contexts.jsonl", contexts)
    write_records(root / "data/interim/candidates.jsonl", candidates)
    (root / "params.yaml").write_text(yaml.safe_dump(params or to_dict(Params())))


@pytest.fixture
def project(tmp_path, monkeypatch):
    write_corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def read_pairs(root: Path, folder: str = "pairs") -> list[Pair]:
    return [
        p
        for s in ("train", "val", "test")
        for p in read_records(root / f"data/processed/{folder}/{s}.jsonl", Pair)
    ]


def test_judge_stage_writes_one_label_per_candidate_per_judge(project):
    judge_stage.main([])
    n_cands = len(read_records(project / "data/interim/candidates.jsonl", Candidate))
    for name in ("rule-strict", "rule-lenient"):
        labels = read_records(project / f"data/interim/labels/{name}.jsonl", Label, unique_key="candidate_id")
        assert len(labels) == n_cands
        assert [lab.candidate_id for lab in labels] == sorted(lab.candidate_id for lab in labels)
        by_id = {lab.candidate_id: lab for lab in labels}
        assert by_id["q00/gold_plus_bm25/offline:cautious"].behaviour == "abstained"
        assert by_id["q00/gold_plus_bm25/offline:verbose"].behaviour == "unusable"
        ideal = by_id["q01/gold_plus_bm25/offline:confident"]
        assert (ideal.behaviour, ideal.faithfulness, ideal.correctness, ideal.completeness) == (
            "attempted",
            "fully_supported",
            "correct",
            "complete",
        )


def test_pairs_stage(project):
    judge_stage.main([])
    pairs_stage.main([])
    pairs = read_pairs(project)
    assert pairs
    # No question crosses splits; ids are sorted within each split file and unique.
    split_of: dict[str, str] = {}
    for p in pairs:
        assert split_of.setdefault(p.qa_id, p.split) == p.split
    for s in ("train", "val", "test"):
        ids = [p.id for p in read_records(project / f"data/processed/pairs/{s}.jsonl", Pair)]
        assert ids == sorted(ids)
    assert len({p.id for p in pairs}) == len(pairs)
    # Only the main variants are paired; the ablation variant is not.
    assert {p.variant for p in pairs} == {"gold_plus_bm25", "random_context"}
    by_id = {p.id: p for p in pairs}
    # Answerable: confident (gold sentence) vs terse (bare amount) is decided on completeness.
    p = by_id["q01/gold_plus_bm25/3"]  # sorted: cautious 0, confident 1, terse 2, verbose 3
    assert (p.chosen_generator, p.rejected_generator, p.dimension) == (
        "offline:confident",
        "offline:terse",
        "completeness",
    )
    # Unanswerable: the refusal beats the wrong answer.
    p = by_id["q01/random_context/0"]
    assert (p.chosen_generator, p.rejected_generator, p.dimension) == (
        "offline:cautious",
        "offline:confident",
        "refusal_unanswerable",
    )
    assert p.prompt == answer_prompt(
        read_records(project / "data/interim/passages.jsonl", Passage)[2:3],
        "How much did party 1 have to pay?",
        REFUSAL,
    )
    # Two identical refusals (cautious, terse) on an unanswerable context never form a pair.
    assert not any(
        p.context_id == "q01/random_context"
        and {p.chosen_generator, p.rejected_generator} == {"offline:cautious", "offline:terse"}
        for p in pairs
    )


def test_pairs_are_byte_identical_across_runs(project):
    judge_stage.main([])
    pairs_stage.main([])
    files = ("train.jsonl", "val.jsonl", "test.jsonl", "README.md")
    first = {s: (project / "data/processed/pairs" / s).read_bytes() for s in files}
    pairs_stage.main([])
    assert first == {s: (project / "data/processed/pairs" / s).read_bytes() for s in files}
    # The dataset card counts what the splits hold.
    card = first["README.md"].decode()
    assert card.startswith("---\n") and "pairs in all" in card and "Stage `pairs`" in card
    assert f"{len(read_pairs(project))} pairs in all" in card


def test_split_follows_params_seed(project):
    judge_stage.main([])
    pairs_stage.main([])
    before = {p.qa_id: p.split for p in read_pairs(project)}
    raw = yaml.safe_load((project / "params.yaml").read_text())
    raw["seed"] = 99
    (project / "params.yaml").write_text(yaml.safe_dump(raw))
    pairs_stage.main([])
    after = {p.qa_id: p.split for p in read_pairs(project)}
    assert before.keys() == after.keys() and before != after


def test_bad_candidate_stops_with_file_and_field_and_leaves_outputs(project):
    judge_stage.main([])
    pairs_stage.main([])
    before = (project / "data/processed/pairs/train.jsonl").read_bytes()
    path = project / "data/interim/candidates.jsonl"
    lines = path.read_text().splitlines()
    obj = json.loads(lines[0])
    obj["context_id"] = "nowhere/gold_plus_bm25"
    lines[0] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        pairs_stage.main([])
    assert "candidates.jsonl" in str(err.value) and "context_id" in str(err.value)
    assert (project / "data/processed/pairs/train.jsonl").read_bytes() == before
    assert not [p for p in (project / "data/processed").iterdir() if p.name.startswith(".")]


def test_missing_label_is_an_error(project):
    judge_stage.main([])
    path = project / "data/interim/labels/rule-strict.jsonl"
    path.write_text("\n".join(path.read_text().splitlines()[1:]) + "\n")
    with pytest.raises(InputError, match="no label"):
        pairs_stage.main([])


def test_pairs_in_trl_conversational_format_render_as_we_train(project):
    """trl/<split>.jsonl holds the same pairs as chat messages; stock TRL's chat templating gives exactly
    the prompt text that training and scoring condition on (pipeline.models.prompting)."""
    from trl import maybe_apply_chat_template

    from pipeline.models.prompting import render_prompt, render_response
    from pipeline.models.tokenizer import train_tokenizer

    judge_stage.main([])
    pairs_stage.main([])
    tokenizer = train_tokenizer(["The tenant paid the arrears of rent."] * 4, 300)
    for split in ("train", "val", "test"):
        pairs = read_records(project / f"data/processed/pairs/{split}.jsonl", Pair)
        rows = [json.loads(line) for line in
                (project / f"data/processed/pairs/trl/{split}.jsonl").read_text().splitlines()]
        assert [r["id"] for r in rows] == [p.id for p in pairs]
        for pair, row in zip(pairs, rows, strict=True):
            text = maybe_apply_chat_template(row, tokenizer)
            assert text["prompt"] == render_prompt(tokenizer, pair.prompt)
            # TRL ends the assistant turn with the template's newline after EOS; we stop at EOS.
            assert text["chosen"].startswith(render_response(tokenizer, pair.chosen))
            assert text["rejected"].startswith(render_response(tokenizer, pair.rejected))
