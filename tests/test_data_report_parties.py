"""The data report counts the contexts that hold passages of two decisions sharing a party name
(pipeline/reporting/data_parties.py), checked against a count worked out by hand (the report stage's own
figure on test_data_report's corpus, 0, is checked there)."""

from __future__ import annotations

from test_pairs import build_corpus

from pipeline.judges.inputs import InterimData
from pipeline.params import Params
from pipeline.records import QA
from pipeline.reporting.data_parties import party_clashes
from pipeline.reporting.data_render import render_party_clashes

N = 8


def clashing_corpus():
    """test_pairs' corpus of N decisions, where d0 and d1 are two cases of a Kwok Lok-yin: each question's
    contexts show the next decision's passage, so exactly the two contexts of d0's question (gold_plus_bm25:
    d1's passage beside d0's; random_context: d1's passage alone) hold passages of two decisions that share
    the name. d1's contexts show d2's passage (no Kwok Lok-yin); d7's show d0's, whose Kwok Lok-yin is
    nobody's in d7's case."""
    decisions, passages, qas, contexts, candidates = build_corpus(N)
    for i in (0, 1):
        text = passages[i].text.replace(f"party {i}", "Kwok Lok-yin")
        passages[i].text = decisions[i].text = decisions[i].sections[0].text = text
        q = qas[i]
        qas[i] = QA(q.id, f"How much did Kwok Lok-yin have to pay in case {i}?", text, q.gold_passage_id, q.family,
                    q.kind, q.facts, q.qualifiers)
    return decisions, passages, qas, contexts, candidates


def test_the_count_matches_the_hand_count():
    decisions, passages, qas, contexts, _ = clashing_corpus()
    corpus = InterimData({p.id: p for p in passages}, {q.id: q for q in qas}, {c.id: c for c in contexts}, [])
    got = party_clashes(corpus, decisions, Params())
    assert got == {"contexts": 3 * N, "clashing": 2, "by_variant": {"gold_plus_bm25": 1, "random_context": 1},
                   "skipped_by_stage": None, "skipped_by_variant": {}}
    # Without the shared name nothing clashes.
    decisions, passages, qas, contexts, _ = build_corpus(N)
    corpus = InterimData({p.id: p for p in passages}, {q.id: q for q in qas}, {c.id: c for c in contexts}, [])
    assert party_clashes(corpus, decisions, Params())["clashing"] == 0


def test_the_line_states_the_count_and_the_stage_skips():
    decisions, passages, qas, contexts, _ = clashing_corpus()
    corpus = InterimData({p.id: p for p in passages}, {q.id: q for q in qas}, {c.id: c for c in contexts}, [])
    stats = {"party_name_skips": {"gold_plus_bm25": 4, "random_context": 1}, "party_name_skips_total": 5}
    clashes = party_clashes(corpus, decisions, Params(), stats)
    assert clashes["skipped_by_stage"] == 5 and clashes["skipped_by_variant"] == stats["party_name_skips"]
    assert render_party_clashes(clashes) == [
        "Contexts holding passages of two decisions that share a party name (a passage naming a party of "
        "another decision of the context, the question's own decision included): **2** of 24 "
        "(gold_plus_bm25 1, random_context 1); the contexts stage passed over 5 such candidates for the "
        "next ones.", ""]
    # Metrics of a run before the stage counted: the line says so.
    assert "did not count" in render_party_clashes(party_clashes(corpus, decisions, Params()))[0]
