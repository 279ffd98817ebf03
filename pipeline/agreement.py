"""Agreement between judges (docs/method.md §4): per dimension, raw pairwise agreement, chance agreement and
Fleiss' kappa over the candidates every judge labelled on that dimension."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pipeline.records import LABEL_DIMENSIONS, Label


def fleiss(table: Sequence[Sequence[int]]) -> dict[str, float]:
    """Fleiss' kappa of an items x categories count table (every row sums to the same number of raters).

    raw = mean over items of the share of agreeing rater pairs (P-bar); chance = sum of squared category
    shares (P-bar-e); kappa = (raw - chance) / (1 - chance), NaN when chance is 1 (one category only).
    """
    rows = [list(map(int, r)) for r in table]
    if not rows:
        return {"items": 0, "raw": math.nan, "chance": math.nan, "kappa": math.nan}
    raters = sum(rows[0])
    if raters < 2 or any(sum(r) != raters for r in rows):
        raise ValueError("every item needs the same number (>= 2) of ratings")
    n_items, n_cats = len(rows), len(rows[0])
    raw = sum((sum(c * c for c in r) - raters) / (raters * (raters - 1)) for r in rows) / n_items
    shares = [sum(r[j] for r in rows) / (n_items * raters) for j in range(n_cats)]
    chance = sum(p * p for p in shares)
    kappa = (raw - chance) / (1 - chance) if chance < 1 - 1e-12 else math.nan
    return {"items": n_items, "raw": raw, "chance": chance, "kappa": kappa}


def agreement(judges: Sequence[Mapping[str, Label]]) -> dict[str, dict[str, float]]:
    """Per dimension, Fleiss statistics over candidates that every judge labelled (status ok, value set)."""
    if len(judges) < 2:
        return {}
    common = sorted(set.intersection(*(set(j) for j in judges)))
    out = {}
    for dimension, categories in LABEL_DIMENSIONS.items():
        index = {c: i for i, c in enumerate(categories)}
        table = []
        for cid in common:
            values = [getattr(j[cid], dimension) if j[cid].status == "ok" else None for j in judges]
            if any(v not in index for v in values):
                continue
            row = [0] * len(categories)
            for v in values:
                row[index[v]] += 1
            table.append(row)
        out[dimension] = fleiss(table)
    return out


def cohen(pairs: Sequence[tuple[str, str]], categories: Sequence[str]) -> float:
    """Cohen's kappa of two raters over (rater A, rater B) value pairs: observed agreement p_o against
    the agreement p_e their own category shares give by chance, (p_o - p_e) / (1 - p_e). A value outside
    `categories` (an unparseable label) counts as a category of its own. NaN when there are no pairs or
    both raters use one and the same category throughout (p_e = 1)."""
    if not pairs:
        return math.nan
    n = len(pairs)
    values = list(dict.fromkeys([*categories, *(v for pair in pairs for v in pair)]))
    observed = sum(a == b for a, b in pairs) / n
    chance = sum((sum(a == v for a, _ in pairs) / n) * (sum(b == v for _, b in pairs) / n) for v in values)
    return (observed - chance) / (1 - chance) if chance < 1 - 1e-12 else math.nan
