"""Passages, families and QA triples (docs/method.md §1) built by the corpus stage."""

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
from pipeline.corpus.generic import perturb
from pipeline.io import dumps, read_records, write_records
from pipeline.records import QA, Decision, Party, Passage, Section
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
    # Short Chinese sections merge without a space between them.
    d = _decision("zh", [("1.1.1", "原告要求被告支付租金。"), ("1.1.2", "被告表示同意。")], language="zh")
    [merged] = split_passages([d], min_chars=50, max_chars=2000)
    assert merged.text == "原告要求被告支付租金。被告表示同意。"


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


def test_imported_decisions_get_generic_factual_yesno_and_rule_questions():
    d = _decision(
        "doc",
        [
            (
                "1.1.1",
                "The arbitrator awarded damages of HK$75,000 to the buyer for late delivery of the goods.",
            ),
            ("2.1.1", "The seller relied on clause 7(b) of the contract to limit its liability for delay."),
        ],
        fields={"damages": "HK$75,000", "issue": "late delivery"},
        field_kinds={"damages": "exact", "issue": "semantic"},
    )
    passages = split_passages([d], 0, 1500)
    qas = {q.kind: q for q in make_questions([d], passages, 3, KINDS, seed=1)}
    assert sorted(qas) == ["factual", "rule", "yesno"]
    factual = qas["factual"]
    assert factual.question == "According to Acme Trading v Borealis Shipping, what is the damages?"
    assert factual.facts == ["HK$75,000"] and factual.qualifiers == []
    assert factual.gold_passage_id == "doc/1.1.1" and factual.family == "doc/1.1"
    assert qas["rule"].facts == ["clause 7(b)"] and qas["rule"].gold_passage_id == "doc/2.1.1"
    assert qas["rule"].question == (
        "According to Acme Trading v Borealis Shipping, "
        'which provisions does the part headed "Heading 2.1.1" '
        "rely on?"
    )
    assert qas["yesno"].facts[0] in ("Yes", "No") and qas["yesno"].gold_passage_id == "doc/1.1.1"
    # No annotated fields and no cited authority: no questions; a kind list without factual gives the others.
    assert make_questions([_decision("x", [("s1", "Text only.")])], [], 2, KINDS, seed=1) == []
    assert [q.kind for q in make_questions([d], passages, 1, ["rule"], seed=1)] == ["rule"]


# A small Chinese penalty decision: three sections, typed exact fields (one of them too short to locate a
# passage, one that is also in the title).
ZH_SECTIONS = [
    (
        "s1",
        "经查明，张某某于2011年5月3日获悉华兴股份重大资产重组的内幕信息，并于次日使用本人账户买入该公司"
        "股票共计120,000股。",
    ),
    ("s2", "张某某的上述行为违反了《证券法》第七十三条的规定，构成《证券法》第二百零二条所述的内幕交易行为。"),
    (
        "s3",
        "本会决定没收张某某违法所得4,665,091.79元，并处以4,665,091.79元罚款。当事人如对本处罚决定不服，"
        "可在收到本决定书之日起六十日内申请行政复议。",
    ),
]
ZH_TITLE = "中国证监会对张某某内幕交易案的行政处罚决定书"


def _zh_decision(fields: dict[str, str], types: dict[str, str], date: str = "", **extra) -> Decision:
    d = _decision("zh-1", ZH_SECTIONS, language="zh", title=ZH_TITLE, fields=fields, field_types=types,
                  **extra)
    d.date = date
    for section, heading in zip(d.sections, ("违法事实", "处罚依据", "处罚决定"), strict=True):
        section.heading = heading
    return d


def _zh_questions(d: Decision, kinds=KINDS, n=12) -> tuple[list[QA], Counter]:
    stats: Counter = Counter()
    return make_questions([d], split_passages([d], 0, 1500), n, kinds, seed=3, stats=stats), stats


def test_chinese_decision_gets_chinese_questions_of_every_kind():
    d = _zh_decision(
        {"违法所得": "4,665,091.79元", "知悉日期": "2011年5月3日", "买入股数": "120,000股"},
        {"违法所得": "money", "知悉日期": "date", "买入股数": "number"},
        field_kinds={"违法所得": "exact", "知悉日期": "exact", "买入股数": "exact"},
    )
    qas, stats = _zh_questions(d)
    by_q = {q.question: q for q in qas}
    frame = f"根据《{ZH_TITLE}》，"
    factual = by_q[f"{frame}违法所得是多少？"]
    assert (factual.kind, factual.facts, factual.gold_passage_id) == ("factual", ["4,665,091.79元"], "zh-1/s3")
    assert factual.answer == "违法所得为4,665,091.79元。"
    assert by_q[f"{frame}知悉日期是哪一天？"].facts == ["2011年5月3日"]
    rule = by_q[f"{frame}“处罚依据”部分援引了哪些法律规定？"]
    assert rule.kind == "rule" and rule.facts == ["《证券法》第七十三条", "《证券法》第二百零二条"]
    assert rule.answer == "该部分援引了《证券法》第七十三条、《证券法》第二百零二条。"
    # Yes/no: the true value asked (Yes) or one digit changed (No, the true value becomes a fact).
    no = by_q[f"{frame}知悉日期是否为2011年5月4日？"]
    assert (no.kind, no.facts, no.gold_passage_id) == ("yesno", ["No", "2011年5月3日"], "zh-1/s1")
    assert no.answer == "否。知悉日期为2011年5月3日，而非2011年5月4日。"
    yes = by_q[f"{frame}违法所得是否为4,665,091.79元？"]
    assert (yes.facts, yes.answer) == (["Yes"], "是。违法所得为4,665,091.79元。")
    assert {q.kind for q in qas} == {"factual", "yesno", "rule"}
    for q in qas:
        assert not any(contains(q.question, f) for f in q.facts if f not in ("Yes", "No"))
        assert not re.search("[A-Za-z]", q.question + q.answer)
    assert stats["answer_in_question"] == 0


def test_a_question_that_contains_its_answer_is_dropped_and_counted():
    # The party's name is in the title, and there is no date to name the decision by instead.
    d = _zh_decision({"违法行为人": "张某某", "罚没": "4,665,091.79元"}, {"违法行为人": "name", "罚没": "money"})
    d.sections = d.sections[2:]  # the name now appears in one passage only
    qas, stats = _zh_questions(d, ["factual"], n=2)
    assert [q.facts for q in qas] == [["4,665,091.79元"]]
    assert stats["answer_in_question"] == 1
    # With a date the decision is named by its date instead, and the question is kept.
    d.date = "2011年8月1日"
    qas, stats = _zh_questions(d, ["factual"], n=2)
    named = [q for q in qas if q.facts == ["张某某"]]
    assert [q.question for q in named] == ["在2011年8月1日作出的这份决定中，违法行为人是谁？"]
    assert stats["answer_in_question"] == 0


def test_a_two_character_fact_is_dropped_and_counted():
    d = _zh_decision({"证券简称": "华兴"}, {"证券简称": "name"})
    qas, stats = _zh_questions(d, ["factual", "yesno"])
    assert qas == [] and stats["fact_not_distinctive"] == 2  # the factual and the yes/no question


def test_a_fact_in_several_passages_locates_no_gold_and_is_counted():
    d = _zh_decision({"当事人": "张某某"}, {"当事人": "name"}, date="2011年8月1日")
    qas, stats = _zh_questions(d, ["factual"])
    assert qas == [] and stats["gold_not_unique"] == 1


def test_paraphrase_check_counts_chinese_characters():
    assert longest_shared_ngram("违法所得是多少？", "没收违法所得4,665,091.79元", "zh") == 4
    assert longest_shared_ngram("罚款4,665,091.79元吗", "处以4,665,091.79元罚款", "zh") == 2  # number + 元
    # Without spaces the English measure sees one word per run: the check would be inert.
    assert longest_shared_ngram("违法所得是多少", "没收违法所得") == 0
    # A label that copies 11 characters of the gold passage (limit 2 x 4 characters) is dropped.
    d = _zh_decision({"本会决定没收张某某违法所得": "4,665,091.79元"}, {"本会决定没收张某某违法所得": "money"})
    qas, stats = _zh_questions(d, ["factual"])
    assert qas == [] and stats["copies_gold_wording"] == 1


def test_fields_without_kinds_use_their_types_or_leave_rule_questions_only():
    typed_only = _zh_decision({"违法所得": "4,665,091.79元"}, {"违法所得": "money"})
    qas, stats = _zh_questions(typed_only, ["factual"])
    assert [q.facts for q in qas] == [["4,665,091.79元"]] and stats["fields_undeclared"] == 0
    bare = _zh_decision({"违法所得": "4,665,091.79元"}, {})
    qas, stats = _zh_questions(bare)
    assert [q.kind for q in qas] == ["rule"] and stats["fields_undeclared"] == 1


def test_perturbed_values_for_no_questions():
    assert perturb("4,665,091.79元", "money") == "5,665,091.79元"
    assert perturb("2011年5月3日", "date") == "2011年5月4日"
    assert perturb("HK$95,000", "money") == "HK$85,000"
    assert perturb("八千元", "money") == "九千元"
    assert perturb("张某某", "name") is None


def test_parties_get_their_own_questions():
    d = _zh_decision({}, {"罚款": "money"})
    d.parties = [Party("张某某", {"罚款": "4,665,091.79元"})]
    d.field_types = {"罚款": "money"}
    d.sections = d.sections[2:]
    qas, _ = _zh_questions(d, ["factual"])
    assert [(q.question, q.facts) for q in qas] == [(f"根据《{ZH_TITLE}》，张某某的罚款是多少？", ["4,665,091.79元"])]


def test_english_synthetic_questions_are_unchanged(built):
    # Captured before the Chinese templates and the new checks: the English default stays byte-identical.
    # (Re-captured once when the synthetic decisions took unique party names, pipeline/synth/names.py.)
    assert [(q.id, q.question, q.facts, q.gold_passage_id) for q in built[2][:4]] == [
        ("syn-0001/q1", "What monthly rent did Edmund Ho Ching-kiu pay for the premises?",
         ["HK$32,000", "8 June 2021"], "syn-0001/s1"),
        ("syn-0001/q2", "Is Kwok Hiu-shan entitled to possession of the home let to Edmund Ho Ching-kiu?",
         ["No"], "syn-0001/s6"),
        ("syn-0002/q1", "Can Maple Wharf Investment Limited get the premises back from Yau Yat-fung?", ["No"],
         "syn-0002/s5"),
        ("syn-0002/q2", "What rule applies to forfeiting the lease held by Yau Yat-fung when rent goes unpaid?",
         ["clause 10(a)", "14 days"], "syn-0002/s4"),
    ]  # fmt: skip


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
    out = capsys.readouterr().out
    assert f"{len(passages)} passages, {len(qas)} questions" in out and "candidate questions dropped:" in out
    before = (tmp_path / "data/interim/qa.jsonl").read_bytes()
    stage.main([])
    assert (tmp_path / "data/interim/qa.jsonl").read_bytes() == before


def test_chinese_article_lists_cite_each_article_and_headingless_passages_get_no_rule_question():
    """A list of articles of one statute (《证券法》第七十三条、第七十六条) is one fact per article; a passage
    with no heading (split from a plain full text) gets no rule question, which would otherwise ask about
    the part headed “”."""
    text = "依据《证券法》第七十三条、第七十六条和《刑法》第一百八十条第一款的规定，对张某某作出如下处罚。"
    d = _decision("zh-2", [*ZH_SECTIONS[:1], ("s4", text)], language="zh", title=ZH_TITLE, fields={},
                  field_types={})
    d.sections[1].heading = "处罚依据"
    qas, _ = _zh_questions(d, kinds=["rule"], n=2)
    assert len(qas) == 1
    rule = qas[0]
    assert rule.facts == ["《证券法》第七十三条", "第七十六条", "《刑法》第一百八十条第一款"]
    assert rule.answer == "该部分援引了《证券法》第七十三条、第七十六条、《刑法》第一百八十条第一款。"
    d.sections[1].heading = ""
    assert _zh_questions(d, kinds=["rule"], n=2)[0] == []
