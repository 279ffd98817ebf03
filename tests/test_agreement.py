"""Fleiss' kappa against the textbook example and hand-computed two-judge cases."""

from __future__ import annotations

import math

import pytest

from pipeline.agreement import agreement, fleiss
from pipeline.records import Label

# Fleiss (1971)-style worked example used in textbooks and on Wikipedia: 10 subjects, 14 raters,
# 5 categories; P-bar = 0.378, P-bar-e = 0.213, kappa = 0.210.
TEXTBOOK = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_textbook_example():
    r = fleiss(TEXTBOOK)
    assert r["items"] == 10
    assert r["raw"] == pytest.approx(0.378, abs=5e-4)
    assert r["chance"] == pytest.approx(0.213, abs=5e-4)
    assert r["kappa"] == pytest.approx(0.210, abs=5e-4)


def test_two_raters_by_hand():
    # 4 items, 2 raters: agree on 3 (cat0, cat0, cat1), disagree on 1.
    r = fleiss([[2, 0], [2, 0], [0, 2], [1, 1]])
    assert r["raw"] == pytest.approx(0.75)
    # Category shares: cat0 = 5/8, cat1 = 3/8 -> chance = 25/64 + 9/64 = 34/64.
    assert r["chance"] == pytest.approx(34 / 64)
    assert r["kappa"] == pytest.approx((0.75 - 34 / 64) / (1 - 34 / 64))


def test_perfect_and_degenerate_agreement():
    assert fleiss([[2, 0], [0, 2]])["kappa"] == pytest.approx(1.0)
    # One category only: chance agreement is 1 and kappa is undefined.
    assert math.isnan(fleiss([[2, 0], [2, 0]])["kappa"])
    assert math.isnan(fleiss([])["kappa"])
    with pytest.raises(ValueError):
        fleiss([[2, 0], [1, 0]])


def _lab(cid, behaviour, faith=None, status="ok"):
    return Label(cid, "j", behaviour, faith, None, None, status)


def test_agreement_per_dimension_uses_common_labelled_items():
    a = {
        "c1": _lab("c1", "attempted", "fully_supported"),
        "c2": _lab("c2", "attempted", "unsupported"),
        "c3": _lab("c3", "abstained"),
        "c4": _lab("c4", None, status="unparseable"),
    }
    b = {
        "c1": _lab("c1", "attempted", "fully_supported"),
        "c2": _lab("c2", "attempted", "contradicted"),
        "c3": _lab("c3", "attempted", "unsupported"),
        "c4": _lab("c4", "abstained"),
    }
    out = agreement([a, b])
    # Behaviour: c1, c2, c3 (c4 unparseable for a). Rows: att/att, att/att, abst/att.
    assert out["behaviour"]["items"] == 3
    assert out["behaviour"]["raw"] == pytest.approx(2 / 3)
    # Faithfulness only where both said attempted: c1 agree, c2 disagree.
    assert out["faithfulness"]["items"] == 2
    assert out["faithfulness"]["raw"] == pytest.approx(0.5)
    assert out["correctness"]["items"] == 0
    assert agreement([a]) == {}
