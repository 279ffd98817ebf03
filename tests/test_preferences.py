"""The docs/method.md §5 hierarchy, branch by branch, the question-level split and pair robustness, on hand-built
labels."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.preferences import Preference, assign_splits, compare, decide, make_pairs, robustness
from pipeline.prompts import answer_prompt
from pipeline.records import QA, Candidate, Context, Label, Passage
from pipeline.text import count_tokens

REFUSAL = "No answer in the passages."


def lab(behaviour, faith=None, corr=None, comp=None, status="ok", cid="c") -> Label:
    return Label(cid, "rule:strict", behaviour, faith, corr, comp, status)


def full(faith="fully_supported", corr="correct", comp="complete") -> Label:
    return lab("attempted", faith, corr, comp)


# ------------------------------------------------------------------------------------- answerable
@pytest.mark.parametrize(
    "a, b",
    [("attempted", "abstained"), ("attempted", "unusable"), ("abstained", "unusable")],
)
def test_answerable_behaviour_order(a, b):
    la = full() if a == "attempted" else lab(a)
    lb = full() if b == "attempted" else lab(b)
    assert compare(la, lb, True) == (1, "refusal_answerable")
    assert compare(lb, la, True) == (-1, "refusal_answerable")


def test_behaviour_decides_before_quality():
    # A contradicted, incorrect attempt still beats an abstention on an answerable context.
    bad_attempt = full("contradicted", "incorrect", "incomplete")
    assert compare(bad_attempt, lab("abstained"), True) == (1, "refusal_answerable")


@pytest.mark.parametrize("behaviour", ["abstained", "unusable"])
def test_answerable_same_non_attempt_is_a_tie(behaviour):
    assert compare(lab(behaviour), lab(behaviour), True) is None


def test_faithfulness_order_every_level():
    levels = ["fully_supported", "partially_supported", "unsupported", "contradicted"]
    for hi, lo in itertools.combinations(levels, 2):
        # Correctness and completeness pointing the other way must not matter: faithfulness decides first.
        assert compare(full(hi, "incorrect", "incomplete"), full(lo, "correct", "complete"), True) == (
            1,
            "faithfulness",
        )
        assert compare(full(lo), full(hi), True) == (-1, "faithfulness")


def test_correctness_decides_when_faithfulness_ties():
    assert compare(
        full(corr="correct", comp="incomplete"), full(corr="incorrect", comp="complete"), True
    ) == (
        1,
        "correctness",
    )
    assert compare(full("unsupported", "incorrect"), full("unsupported", "correct"), True) == (
        -1,
        "correctness",
    )


def test_completeness_decides_last():
    assert compare(full(comp="complete"), full(comp="incomplete"), True) == (1, "completeness")
    assert compare(full(comp="incomplete"), full(comp="complete"), True) == (-1, "completeness")


def test_full_tie_between_attempts():
    assert compare(full(), full(), True) is None
    assert (
        compare(
            full("contradicted", "incorrect", "incomplete"),
            full("contradicted", "incorrect", "incomplete"),
            True,
        )
        is None
    )


# ----------------------------------------------------------------------------------- unanswerable
@pytest.mark.parametrize(
    "a, b",
    [("abstained", "attempted"), ("abstained", "unusable"), ("attempted", "unusable")],
)
def test_unanswerable_behaviour_order(a, b):
    la = full() if a == "attempted" else lab(a)
    lb = full() if b == "attempted" else lab(b)
    assert compare(la, lb, False) == (1, "refusal_unanswerable")
    assert compare(lb, la, False) == (-1, "refusal_unanswerable")


def test_unanswerable_is_behaviour_only():
    # Two attempts that differ in quality are a tie on an unanswerable context.
    assert compare(full(), full("contradicted", "incorrect", "incomplete"), False) is None
    assert compare(lab("abstained"), lab("abstained"), False) is None
    assert compare(lab("unusable"), lab("unusable"), False) is None


# ------------------------------------------------------------------------------------------ decide
def _context(cid, answerable=True, variant="gold_plus_bm25", qa="q1"):
    return Context(cid, qa, variant, answerable, ["p1"], 0 if answerable else None)


def _cands(context_id, texts):
    return [
        Candidate(f"{context_id}/g{i}", context_id, f"offline:g{i}", t, "stop") for i, t in enumerate(texts)
    ]


def test_decide_counts_ties_identical_texts_unparseable_and_other_variants():
    contexts = {
        "q1/a": _context("q1/a"),
        "q1/u": _context("q1/u", answerable=False, variant="random_context"),
        "q1/s": _context("q1/s", variant="gold_surrounding"),
    }
    cands = (
        _cands("q1/a", ["answer A", "answer B", "answer A", "refuse", "bad"])
        + _cands("q1/u", ["refuse", "wrong answer"])
        + _cands("q1/s", ["x", "y"])
    )
    labels = {
        "q1/a/g0": full(),
        "q1/a/g1": full(comp="incomplete"),
        "q1/a/g2": full(corr="incorrect"),  # same text as g0: never paired with it
        "q1/a/g3": lab("abstained"),
        "q1/a/g4": lab(None, status="unparseable"),
        "q1/u/g0": lab("abstained"),
        "q1/u/g1": full(),
        "q1/s/g0": full(),
        "q1/s/g1": lab("abstained"),
    }
    prefs, stats = decide(contexts, cands, labels, ["gold_plus_bm25", "random_context"])
    got = {(p.context_id, p.index, p.chosen, p.rejected, p.dimension) for p in prefs}
    # Unordered pairs of q1/a in sorted order: (0,1)=0 (0,2)=1 (0,3)=2 (0,4)=3 (1,2)=4 (1,3)=5 (1,4)=6 (2,3)=7 ...
    assert got == {
        ("q1/a", 0, "q1/a/g0", "q1/a/g1", "completeness"),
        ("q1/a", 2, "q1/a/g0", "q1/a/g3", "refusal_answerable"),
        ("q1/a", 4, "q1/a/g1", "q1/a/g2", "correctness"),
        ("q1/a", 5, "q1/a/g1", "q1/a/g3", "refusal_answerable"),
        ("q1/a", 7, "q1/a/g2", "q1/a/g3", "refusal_answerable"),
        ("q1/u", 0, "q1/u/g0", "q1/u/g1", "refusal_unanswerable"),
    }
    assert stats["skipped_identical_text"] == 1
    assert stats["skipped_unparseable"] == 4
    assert stats["candidates_unparseable"] == 1
    assert stats["candidates_outside_variants"] == 2
    assert stats["compared"] == 10 + 1
    assert stats["pairs"] == 6
    assert Preference("q1/a", 4, "a", "b", "x").id == "q1/a/4"


def test_make_pairs_fields():
    passages = {"p2": Passage("p2", "d", "d", "H2", "Second."), "p1": Passage("p1", "d", "d", "H1", "First.")}
    qa = QA("q1", "What?", "First.", "p1", "d", "factual", ["First"], [])
    context = Context("q1/gold_plus_bm25", "q1", "gold_plus_bm25", True, ["p2", "p1"], 1)
    cands = {c.id: c for c in _cands(context.id, ["First, yes.", REFUSAL])}
    pref = Preference(context.id, 0, f"{context.id}/g0", f"{context.id}/g1", "refusal_answerable")
    [pair] = make_pairs([pref], {context.id: context}, {"q1": qa}, passages, cands, {"q1": "val"}, REFUSAL)
    assert pair.prompt == answer_prompt([passages["p2"], passages["p1"]], "What?", REFUSAL)
    assert (pair.chosen, pair.rejected) == ("First, yes.", REFUSAL)
    assert (pair.chosen_generator, pair.rejected_generator) == ("offline:g0", "offline:g1")
    assert pair.chosen_tokens == count_tokens("First, yes.") == 4
    assert pair.rejected_tokens == count_tokens(REFUSAL)
    assert (pair.split, pair.variant, pair.answerable, pair.augmented, pair.source) == (
        "val",
        "gold_plus_bm25",
        True,
        False,
        "generated",
    )
    assert pair.id == "q1/gold_plus_bm25/0"


# ------------------------------------------------------------------------------------------ splits
def test_split_is_reproducible_and_proportional():
    ids = [f"q{i:03d}" for i in range(200)]
    a = assign_splits(ids, 13, (0.8, 0.1, 0.1))
    assert a == assign_splits(list(reversed(ids)), 13, (0.8, 0.1, 0.1))
    counts = {s: sum(v == s for v in a.values()) for s in ("train", "val", "test")}
    assert counts == {"train": 160, "val": 20, "test": 20}
    assert a != assign_splits(ids, 14, (0.8, 0.1, 0.1))


def test_split_rejects_bad_fractions():
    with pytest.raises(ValueError):
        assign_splits(["q"], 1, (0.8, 0.3, 0.1))


@given(
    st.sets(st.text("abcdef0123456789", min_size=1, max_size=6), min_size=1, max_size=60), st.integers(0, 99)
)
def test_split_covers_every_question_once(ids, seed):
    split = assign_splits(ids, seed, (0.8, 0.1, 0.1))
    assert set(split) == ids
    assert set(split.values()) <= {"train", "val", "test"}


# -------------------------------------------------------------------------------------- robustness
def test_robustness_counts_kept_reversed_lost():
    primary = [Preference("c", i, f"a{i}", f"b{i}", "x") for i in range(4)]
    other = [
        Preference("c", 0, "a0", "b0", "x"),  # kept
        Preference("c", 1, "b1", "a1", "x"),  # reversed
        Preference("c", 9, "z", "y", "x"),  # not in primary: irrelevant
    ]
    r = robustness(primary, other)
    assert r == {"pairs": 4, "kept": 0.25, "reversed": 0.25, "lost": 0.5}
    assert robustness([], other)["pairs"] == 0


_LABELS = st.builds(
    lambda b, f, c, p: lab(b, f, c, p) if b == "attempted" else lab(b),
    st.sampled_from(["attempted", "abstained", "unusable"]),
    st.sampled_from(["fully_supported", "partially_supported", "unsupported", "contradicted"]),
    st.sampled_from(["correct", "incorrect"]),
    st.sampled_from(["complete", "incomplete"]),
)


@given(_LABELS, _LABELS, st.booleans())
def test_compare_is_antisymmetric_and_ties_only_on_equal_labels(a, b, answerable):
    ab, ba = compare(a, b, answerable), compare(b, a, answerable)
    if ab is None:
        assert ba is None
        same = (a.behaviour == b.behaviour) and (
            not answerable
            or a.behaviour != "attempted"
            or (a.faithfulness, a.correctness, a.completeness)
            == (b.faithfulness, b.correctness, b.completeness)
        )
        assert same
    else:
        assert ba == (-ab[0], ab[1])
