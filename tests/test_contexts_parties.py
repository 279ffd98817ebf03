"""Contexts never mix decisions that share a party name (pipeline/retrieval/parties.py): a distractor naming
a party of the question's decision, or of another decision already in the context, is passed over for the
next candidate and counted. English names and Chinese 某-names; ranked and random variants."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pipeline import matching
from pipeline.records import QA, Decision, Party, Passage, Section
from pipeline.retrieval import parties
from pipeline.retrieval.bm25 import BM25Retriever
from pipeline.retrieval.rank import top_outside
from pipeline.retrieval.variants import build_contexts


def decision(did: str, lang: str = "en", names: dict[str, str] | None = None, party: list[str] | None = None):
    names = names or {}
    return Decision(did, "synthetic", lang, "x", did, "", "text", [Section("s1", "H", "text")],
                    fields=dict(names), field_types={k: "name" for k in names},  # type: ignore[misc]
                    parties=[Party(p) for p in party or []])


def passage(did: str, n: int, text: str) -> Passage:
    return Passage(f"{did}/p{n}", did, did, "Sentence", text, position=n)


def retrievers(passages, qas):
    docs = [f"{p.heading}\n{p.text}" for p in passages]
    dense = np.random.default_rng(0).normal(size=(len(qas), len(passages)))

    class Dense:
        def top(self, query, n, exclude, ties=None):
            return top_outside(dense[query], n, exclude, ties)

    return {"bm25": BM25Retriever(docs, [q.question for q in qas]), "dense": Dense()}


# Decision A's defendant is Kwok Lok-yin; B, another case, has a defendant of the same name (the synthetic
# corpus used to do this); every criminal decision names its court, which no question asks about.
EN_DECISIONS = [
    decision("A", names={"defendant": "Kwok Lok-yin", "court": "District Court"}),
    decision("B", names={"defendant": "Kwok Lok-yin", "court": "District Court"}),
    decision("C", names={"defendant": "Yeung Kin-fai", "court": "District Court"}),
    decision("D", names={"defendant": "Yip Kin-fai", "court": "Court of First Instance"}),
    decision("E", names={"defendant": "Chan Tai-man", "court": "District Court"}),
]
EN_PASSAGES = [
    passage("A", 0, "Kwok Lok-yin pleaded guilty in the District Court to theft and the sentence was suspended."),
    passage("A", 1, "The court took a starting point of 24 months for the theft."),
    passage("B", 0, "Kwok Lok-yin pleaded guilty in the District Court to robbery; the sentence was not suspended."),
    passage("B", 1, "The sentence of Kwok Lok-yin was immediate imprisonment and it was not suspended."),
    passage("B", 2, "The court took a starting point of 36 months for the robbery."),
    passage("C", 0, "Yeung Kin-fai pleaded guilty in the District Court; the sentence was suspended for 2 years."),
    passage("C", 1, "The court took a starting point of 18 months for the burglary."),
    passage("D", 0, "The sentence of Yip Kin-fai was suspended for 3 years by the Court of First Instance."),
    passage("D", 1, "The court took a starting point of 30 months for the deception."),
    passage("E", 0, "The sentence of Chan Tai-man was suspended; he pleaded guilty in the District Court."),
    passage("E", 1, "The court took a starting point of 12 months for the handling."),
]
EN_QAS = [
    QA(f"{d}/q1", f"Was the sentence of {name} suspended?", "Yes.", f"{d}/p0", d, "yesno", ["Yes"], [])
    for d, name in (("A", "Kwok Lok-yin"), ("B", "Kwok Lok-yin"), ("C", "Yeung Kin-fai"), ("D", "Yip Kin-fai"),
                    ("E", "Chan Tai-man"))
]
EN_LANGS = ["en"] * len(EN_PASSAGES)


def build(passages, qas, decisions, langs, variants, k, pool=50, guarded=True):
    skips: Counter = Counter()
    index = parties.index_corpus(decisions, passages, qas, langs) if guarded else None
    contexts = build_contexts(passages, qas, variants, k, 7, retrievers(passages, qas), pool,
                              languages=langs, parties=index, skips=skips)
    return {c.id: c for c in contexts}, skips


TEXT = {p.id: p.text for p in EN_PASSAGES}


def test_party_names_are_the_declared_names_the_questions_ask_about():
    names = parties.party_names(EN_DECISIONS, EN_PASSAGES, EN_QAS, EN_LANGS)
    # The courts are declared names too, but never asked about.
    assert names == {d: [frozenset(q.question.removesuffix(" suspended?").lower().replace("-", " ").split()[-3:])]
                     for d, q in zip("ABCDE", EN_QAS, strict=True)}
    assert names["A"] == [frozenset({"kwok", "lok", "yin"})]
    # A decision no question asks about has no party to go by but those it declares as parties.
    assert parties.party_names(EN_DECISIONS, EN_PASSAGES, EN_QAS[:1], EN_LANGS)["B"] == []


def test_the_title_names_parties_the_questions_do_not_ask_about():
    # A tenancy whose questions ask only about the tenant: its title names the landlord as a party too; its
    # court and the precedent it cites are named by neither.
    record = decision("T", names={"landlord": "Tong Sau-shan", "tenant": "Elaine Yuen Wai-yan",
                                  "court": "Lands Tribunal", "guideline_case": "Chan Kwok-wai v Lee Mei"})
    record.title = "Tong Sau-shan v Elaine Yuen Wai-yan (possession claim)"
    qa = QA("T/q1", "How much rent did Elaine Yuen Wai-yan owe?", "x", "T/p0", "T", "factual", ["x"], [])
    names = parties.party_names([record], [passage("T", 0, "Rent.")], [qa], ["en"])
    assert names["T"] == sorted([frozenset({"elaine", "yuen", "wai", "yan"}), frozenset({"tong", "sau", "shan"})],
                                key=sorted)


def test_a_passage_about_another_case_of_the_same_name_is_passed_over():
    unguarded, _ = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, ["gold_plus_bm25", "bm25_hard_negative"], 3,
                         guarded=False)
    contexts, skips = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, ["gold_plus_bm25", "bm25_hard_negative"], 3)
    # Without the rule BM25 puts B's sentence about its own Kwok Lok-yin next to A's.
    assert any(p.startswith("B/") and "Kwok" in TEXT[p] for p in unguarded["A/q1/gold_plus_bm25"].passage_ids)
    for variant in ("gold_plus_bm25", "bm25_hard_negative"):
        shown = contexts[f"A/q1/{variant}"].passage_ids
        others = [p for p in shown if not p.startswith("A/")]
        # Independent reference: the names as printed. No other passage shown says "Kwok Lok-yin".
        assert not any("Kwok Lok-yin" in p.text for p in EN_PASSAGES if p.id in others)
        assert len(shown) == (3 if variant == "gold_plus_bm25" else 3)
    assert skips["gold_plus_bm25"] >= 1 and skips["bm25_hard_negative"] >= 1


def test_near_names_and_a_shared_court_are_not_parties_of_the_question():
    # Yip Kin-fai is not Yeung Kin-fai, and every decision's "District Court" is nobody's party: C's question
    # keeps the best BM25 hits, D's sentence about Yip Kin-fai's suspension and E's in the District Court.
    contexts, skips = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, ["gold_plus_bm25"], 4)
    unguarded, _ = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, ["gold_plus_bm25"], 4, guarded=False)
    assert contexts["C/q1/gold_plus_bm25"] == unguarded["C/q1/gold_plus_bm25"]
    assert {"D/p0", "E/p0"} <= set(contexts["C/q1/gold_plus_bm25"].passage_ids)


def test_two_distractors_of_decisions_that_share_a_party_never_meet():
    # A question on E: B's and A's passages both name their own Kwok Lok-yin; one of the two cases may be
    # shown, never both.
    for variant in ("bm25_hard_negative", "random_context", "dense_hard_negative"):
        contexts, _ = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, [variant], 6)
        shown = contexts[f"E/q1/{variant}"].passage_ids
        assert len({p.split("/")[0] for p in shown if "Kwok Lok-yin" in TEXT[p]}) <= 1, shown
        assert len(shown) == 6


def test_contexts_are_deterministic_and_the_count_of_skips_is_stable():
    variants = ["gold_plus_bm25", "gold_plus_random", "random_context", "bm25_hard_negative"]
    a, skips_a = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, variants, 4)
    b, skips_b = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, variants, 4)
    assert a == b and skips_a == skips_b and sum(skips_a.values()) > 0


def test_a_name_on_every_candidate_of_the_pool_draws_further():
    # pool = k: the first ranked candidates all name Kwok Lok-yin; the draw goes on past them rather than
    # stopping the stage.
    extra = [passage(f"K{i}", 0, f"Kwok Lok-yin was sentenced and the sentence was suspended, case {i}.")
             for i in range(6)]
    decisions = [*EN_DECISIONS, *(decision(f"K{i}", names={"defendant": "Kwok Lok-yin"}) for i in range(6))]
    passages = EN_PASSAGES + extra
    contexts, skips = build(passages, EN_QAS, decisions, ["en"] * len(passages), ["gold_plus_bm25"], 3, pool=3)
    shown = contexts["A/q1/gold_plus_bm25"].passage_ids
    assert len(shown) == 3 and not any(p.startswith(("B/", "K")) for p in shown)
    assert skips["gold_plus_bm25"] >= 6


# Chinese judgments of an outside QA set (no record declares names): two different cases each about a 李某,
# one about 王某, one about 张某.
ZH_PASSAGES = [
    passage("J1", 0, "经审理查明：李某向王某借款人民币300,000元，借款到期后李某仅归还本金50,000元。"),
    passage("J2", 0, "另查明：李某于2018年向银行借款人民币200,000元，借款到期后李某归还本金80,000元。"),
    passage("J3", 0, "经审理查明：王某向刘某借款人民币100,000元，借款到期后王某归还本金20,000元。"),
    passage("J4", 0, "经审理查明：张某向陈某借款人民币150,000元，借款到期后张某归还本金30,000元。"),
]
ZH_QAS = [QA("J1/q1", "李某借款到期后归还了多少本金？", "50,000元", "J1/p0", "J1", "factual", ["50,000元"], [])]
ZH_LANGS = ["zh"] * len(ZH_PASSAGES)


def test_chinese_mou_names_of_another_judgment_are_passed_over():
    assert parties.party_names([], ZH_PASSAGES, ZH_QAS, ZH_LANGS)["J1"] == matching.names("李某", "zh")
    unguarded, _ = build(ZH_PASSAGES, ZH_QAS, [], ZH_LANGS, ["gold_plus_bm25"], 3, guarded=False)
    contexts, skips = build(ZH_PASSAGES, ZH_QAS, [], ZH_LANGS, ["gold_plus_bm25"], 3)
    assert "J2/p0" in unguarded["J1/q1/gold_plus_bm25"].passage_ids
    # J3 names 王某, who is in J1 too but not its question's party; 张某 is another person.
    assert set(contexts["J1/q1/gold_plus_bm25"].passage_ids) == {"J1/p0", "J3/p0", "J4/p0"}
    assert skips["gold_plus_bm25"] == 1


def test_declared_parties_of_a_chinese_record_count_even_when_unasked():
    # An imported penalty decision declares its party 李某; its question asks about the decision, not her.
    decisions = [decision("J1", "zh", party=["李某"]), decision("J2", "zh"), decision("J3", "zh"), decision("J4", "zh")]
    qas = [QA("J1/q1", "借款到期后归还了多少本金？", "50,000元", "J1/p0", "J1", "factual", ["50,000元"], [])]
    contexts, skips = build(ZH_PASSAGES, qas, decisions, ZH_LANGS, ["gold_plus_bm25"], 3)
    assert "J2/p0" not in contexts["J1/q1/gold_plus_bm25"].passage_ids and skips["gold_plus_bm25"] == 1


def test_clashing_contexts_counts_what_the_rule_leaves_out():
    variants = ["gold_plus_bm25", "bm25_hard_negative", "random_context"]
    index = parties.index_corpus(EN_DECISIONS, EN_PASSAGES, EN_QAS, EN_LANGS)
    qas = {q.id: q for q in EN_QAS}
    guarded, _ = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, variants, 3)
    unguarded, _ = build(EN_PASSAGES, EN_QAS, EN_DECISIONS, EN_LANGS, variants, 3, guarded=False)
    assert parties.clashing_contexts(list(guarded.values()), qas, EN_PASSAGES, index) == []
    # Counted from the printed names: A and B are the two cases of a Kwok Lok-yin, so a context clashes when
    # it shows one's sentence about him while the other is its question's decision or shows a passage too.
    expected = 0
    for c in unguarded.values():
        decisions = {c.qa_id.split("/")[0], *(p.split("/")[0] for p in c.passage_ids)}
        expected += any("Kwok Lok-yin" in TEXT[p] and ({"A", "B"} - {p.split("/")[0]}) <= decisions
                        for p in c.passage_ids)
    assert expected >= 3
    assert len(parties.clashing_contexts(list(unguarded.values()), qas, EN_PASSAGES, index)) == expected


@pytest.mark.parametrize(("text", "names"), [
    ("Peter Kwok Lok-yin appealed.", True), ("KWOK LOK-YIN", True), ("Mr Kwok Lok-yin's plea", True),
    ("Kwok Lok-yan appealed.", False), ("Kwok and Lok-yin", False),
])
def test_a_name_in_a_longer_run_still_names_the_party(text, names):
    index = parties.build_index([passage("Z", 0, text)], {"A": [frozenset({"kwok", "lok", "yin"})]}, ["en"])
    assert index.hits[0] == (frozenset({"A"}) if names else frozenset())


def test_anonymised_names_as_published_are_parties_too():
    # Judgments publish parties as 曹x0, 朱0: the same label in two judgments is two people, 曹x1 another.
    passages = [
        passage("K1", 0, "经审理查明：被告人曹x0于2019年盗窃财物价值人民币8,000元，判处有期徒刑一年。"),
        passage("K2", 0, "经审理查明：被告人曹x0于2020年诈骗财物价值人民币9,000元，判处有期徒刑二年。"),
        passage("K3", 0, "经审理查明：被告人曹x1于2019年盗窃财物价值人民币7,000元，判处有期徒刑一年。"),
        passage("K4", 0, "经审理查明：被告人朱0于2019年盗窃财物价值人民币6,000元，判处有期徒刑一年。"),
    ]
    qas = [QA("K1/q1", "曹x0被判处什么刑罚？", "有期徒刑一年", "K1/p0", "K1", "factual", ["有期徒刑一年"], [])]
    langs = ["zh"] * len(passages)
    unguarded, _ = build(passages, qas, [], langs, ["gold_plus_bm25"], 3, guarded=False)
    contexts, skips = build(passages, qas, [], langs, ["gold_plus_bm25"], 3)
    assert "K2/p0" in unguarded["K1/q1/gold_plus_bm25"].passage_ids
    assert set(contexts["K1/q1/gold_plus_bm25"].passage_ids) == {"K1/p0", "K3/p0", "K4/p0"}
    assert skips["gold_plus_bm25"] == 1
