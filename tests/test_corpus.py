"""Passages, families and QA triples (SPEC 1) built by the corpus stage."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.corpus import (
    chunk_text,
    contains,
    family_of,
    longest_shared_ngram,
    make_questions,
    split_passages,
)
from pipeline.io import dumps, read_records, write_records
from pipeline.records import QA, Decision, Passage, Section
from pipeline.stages import corpus as stage
from pipeline.synth import generate_decisions

ROOT = Path(__file__).resolve().parents[1]
MIX = {"insider_trading": 0.4, "criminal_sentencing": 0.3, "residential_tenancy": 0.3}
KINDS = ["factual", "yesno", "rule"]
# The cues the offline answerers read a "No" from.
STOP = {
    "the",
    "was",
    "did",
    "what",
    "how",
    "for",
    "and",
    "any",
    "does",
    "that",
    "which",
    "much",
    "from",
    "with",
    "to",
    "of",
    "in",
    "on",
    "is",
    "be",
    "by",
    "it",
    "an",
    "as",
    "at",
    "or",
    "do",
    "if",
}
NEGATION = re.compile(r"\b(not|no|refused|dismissed)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def built() -> tuple[list[Decision], list[Passage], list[QA]]:
    decisions = generate_decisions(90, MIX, seed=13)
    passages = split_passages(decisions, 200, 1500)
    return decisions, passages, make_questions(decisions, passages, 2, KINDS, seed=13)


# ------------------------------------------------------------------------------------------ families
@pytest.mark.parametrize(
    ("section_id", "family"),
    [
        ("5.7.3", "doc-1/5.7"),
        ("5.7.12", "doc-1/5.7"),
        ("5.7", "doc-1/5.7"),
        ("12.3.4.5", "doc-1/12.3"),
        ("5", "doc-1"),
        ("s3", "doc-1"),
        ("5.x.1", "doc-1"),
    ],
)
def test_family_rule(section_id, family):
    assert family_of("doc-1", section_id) == family


def _decision(did: str, sections: list[tuple[str, str]], **extra) -> Decision:
    return Decision(
        id=did,
        source="user",
        language=extra.pop("language", "en"),
        case_type="contract",
        title=extra.pop("title", "Acme Trading v Borealis Shipping"),
        date="1 May 2020",
        text=" ".join(t for _, t in sections),
        sections=[Section(id=sid, heading=f"Heading {sid}", text=t) for sid, t in sections],
        **extra,
    )


def test_numbered_sections_group_into_families_and_merge_only_inside_them():
    long = "The carrier is liable for loss of cargo unless the loss was caused by an excepted peril. " * 3
    d = _decision(
        "doc", [("5.7.1", long), ("5.7.2", "Short note."), ("5.8.1", "Another short one."), ("5.8.2", long)]
    )
    passages = split_passages([d], min_chars=100, max_chars=2000)
    assert [(p.id, p.family, p.position) for p in passages] == [
        ("doc/5.7.1", "doc/5.7", 0),
        ("doc/5.8.1", "doc/5.8", 1),
    ]
    assert passages[0].text.endswith("Short note.")
    assert passages[1].text.startswith("Another short one.")
    assert passages[0].heading == "Heading 5.7.1; Heading 5.7.2"


def test_long_sections_are_cut_at_sentence_ends():
    text = " ".join(f"Sentence number {i} states one finding of the court." for i in range(40))
    d = _decision("doc", [("s1", text)])
    passages = split_passages([d], min_chars=0, max_chars=300)
    assert len(passages) > 1
    assert all(len(p.text) <= 300 for p in passages)
    assert all(p.text.endswith(".") for p in passages)
    assert " ".join(p.text for p in passages) == text
    assert [p.id for p in passages] == [f"doc/s1-{k}" for k in range(1, len(passages) + 1)]


def test_chinese_text_is_cut_without_spaces():
    text = "原告要求被告支付租金。" * 30
    pieces = chunk_text(text, 50)
    assert "".join(pieces) == text
    assert all(len(p) <= 50 for p in pieces)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1.1.1", "1.1.2", "1.2.1", "2.1.1", "s9"]),
            st.lists(
                st.sampled_from(["Alpha beta.", "Gamma delta epsilon.", "Zeta eta theta iota."]),
                min_size=1,
                max_size=30,
            ),
        ),
        min_size=1,
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    st.integers(0, 120),
    st.integers(40, 400),
)
def test_splitting_preserves_text_and_families(sections, min_chars, max_chars):
    d = _decision("doc", [(sid, " ".join(sents)) for sid, sents in sections])
    passages = split_passages([d], min_chars=min_chars, max_chars=max_chars)
    assert " ".join(p.text for p in passages).split() == " ".join(s.text for s in d.sections).split()
    assert [p.position for p in passages] == list(range(len(passages)))
    assert len({p.id for p in passages}) == len(passages)
    for p in passages:
        assert p.family == family_of("doc", p.id.split("/", 1)[1].split("-")[0])
        assert len(p.text) <= max_chars or "." not in p.text[:-1]


def test_synthetic_passages_are_one_section_each(built):
    decisions, passages, _ = built
    assert len(passages) == sum(len(d.sections) for d in decisions)
    assert all(p.family == p.decision_id for p in passages)


# ---------------------------------------------------------------------------------------------- QA
def test_questions_per_decision_and_kinds(built):
    decisions, _, qas = built
    assert len(qas) == 2 * len(decisions)
    assert len({q.id for q in qas}) == len(qas)
    kinds = Counter(q.kind for q in qas)
    assert set(kinds) == set(KINDS)
    assert min(kinds.values()) >= len(qas) / 5
    polarity = Counter(q.facts[0] for q in qas if q.kind == "yesno")
    assert set(polarity) == {"Yes", "No"}


def test_determinism(built):
    decisions, passages, qas = built
    again = make_questions(decisions, passages, 2, KINDS, seed=13)
    other = make_questions(decisions, passages, 2, KINDS, seed=14)
    assert [dumps(q) for q in again] == [dumps(q) for q in qas]
    assert [dumps(q) for q in other] != [dumps(q) for q in qas]


def _sentences_with(text: str, values: list[str]) -> set[str]:
    sentences = re.split(r"(?<=[.!?])\s+", text)
    return {s for s in sentences for v in values if contains(s, v)}


def test_gold_passage_states_facts_and_qualifiers_in_at_most_two_sentences(built):
    _, passages, qas = built
    by_id = {p.id: p for p in passages}
    for q in qas:
        gold = by_id[q.gold_passage_id]
        assert q.family == gold.family
        checked = [f for f in q.facts if f not in ("Yes", "No")] + q.qualifiers
        assert checked, q.id
        for value in checked:
            assert contains(gold.text, value), (q.id, value)
        assert 1 <= len(_sentences_with(gold.text, checked)) <= 2, q.id


def test_reference_answer_states_facts_and_qualifiers(built):
    for q in built[2]:
        for value in q.facts + q.qualifiers:
            assert contains(q.answer, value), (q.id, value)
        if q.kind == "yesno":
            assert q.answer.startswith(q.facts[0] + ".")


def test_yes_no_polarity_matches_a_negation_cue_in_the_gold_sentence(built):
    _, passages, qas = built
    by_id = {p.id: p for p in passages}
    for q in (q for q in qas if q.kind == "yesno"):
        sentence = _sentences_with(by_id[q.gold_passage_id].text, q.qualifiers)
        assert len(sentence) == 1
        negated = bool(NEGATION.search(next(iter(sentence))))
        assert negated == (q.facts[0] == "No"), q.id


def test_questions_paraphrase_but_share_content_words(built):
    _, passages, qas = built
    by_id = {p.id: p for p in passages}
    for q in qas:
        gold = by_id[q.gold_passage_id].text
        assert longest_shared_ngram(q.question, gold) < 5, q.id
        content = set(re.findall(r"[a-z]{2,}", q.question.lower())) - STOP
        assert content & set(re.findall(r"[a-z]{2,}", gold.lower())), q.id
        for sentence in _sentences_with(gold, q.qualifiers or q.facts):
            assert sentence.lower() not in q.question.lower()


def test_longest_shared_ngram_against_hand_counts():
    assert longest_shared_ngram("the cat sat on the mat", "a cat sat on a mat") == 3
    assert longest_shared_ngram("Was it so?", "It was so.") == 1
    assert longest_shared_ngram("Was it so, then?", "It was so, then.") == 2
    assert longest_shared_ngram("alpha", "beta") == 0
    assert longest_shared_ngram("", "beta") == 0


def test_imported_decisions_get_generic_factual_questions():
    d = _decision(
        "doc",
        [
            (
                "1.1.1",
                "The arbitrator awarded damages of HK$75,000 to the buyer for late delivery of the goods.",
            )
        ],
        fields={"damages": "HK$75,000", "issue": "late delivery"},
        field_kinds={"damages": "exact", "issue": "semantic"},
    )
    passages = split_passages([d], 0, 1500)
    [qa] = make_questions([d], passages, 2, KINDS, seed=1)
    assert qa.kind == "factual" and qa.facts == ["HK$75,000"] and qa.qualifiers == []
    assert qa.gold_passage_id == "doc/1.1.1" and qa.family == "doc/1.1"
    assert "damages" in qa.question
    # No annotated fields, no questions; a kind list without factual, none either.
    assert make_questions([_decision("x", [("s1", "Text only.")])], [], 2, KINDS, seed=1) == []
    assert make_questions([d], passages, 2, ["rule"], seed=1) == []
    zh = _decision(
        "zh-1",
        [("s1", "法院判令被告支付租金八千元。")],
        language="zh",
        title="陈某诉李某",
        fields={"租金": "八千元"},
        field_kinds={"租金": "exact"},
    )
    [qa] = make_questions([zh], split_passages([zh], 0, 1500), 1, KINDS, seed=1)
    assert qa.question == "根据《陈某诉李某》，租金是什么？" and qa.facts == ["八千元"]


def test_bad_kind_list_is_rejected():
    with pytest.raises(ValueError, match="qa_kinds"):
        make_questions([], [], 2, ["essay"], seed=1)


# -------------------------------------------------------------------------------------------- stage
def test_stage_end_to_end(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text())
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    n = raw["decisions"]["n_decisions"]
    write_records(
        tmp_path / "data/raw/decisions.jsonl",
        generate_decisions(n, raw["decisions"]["case_mix"], raw["seed"]),
    )
    stage.main([])
    passages = read_records(tmp_path / "data/interim/passages.jsonl", Passage)
    qas = read_records(tmp_path / "data/interim/qa.jsonl", QA)
    assert len(qas) == n * raw["corpus"]["questions_per_decision"]
    assert {q.gold_passage_id for q in qas} <= {p.id for p in passages}
    assert f"{len(passages)} passages, {len(qas)} questions" in capsys.readouterr().out
    before = (tmp_path / "data/interim/qa.jsonl").read_bytes()
    stage.main([])
    assert (tmp_path / "data/interim/qa.jsonl").read_bytes() == before
