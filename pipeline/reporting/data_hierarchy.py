"""The data report's comparison of the preference hierarchies (docs/method.md §5): the pairs each makes from
the primary judge's labels, by dimension, and what the grounded one leaves out, by reason."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from pipeline.judges.inputs import InterimData
from pipeline.params import Params
from pipeline.preferences import HIERARCHIES, decide
from pipeline.records import Label


def hierarchy_counts(corpus: InterimData, labels: Mapping[str, Label], params: Params) -> dict:
    """hierarchy -> {"pairs": n, "by_dimension": {...}, "not_made": {reason: n}} over pairs.variants;
    "in_use" names the one the pairs stage builds (pairs.hierarchy)."""
    out: dict = {"in_use": params.pairs.hierarchy}
    for hierarchy in HIERARCHIES:
        prefs, stats = decide(corpus.contexts, corpus.candidates, labels, params.pairs.variants, hierarchy)
        out[hierarchy] = {
            "pairs": len(prefs),
            "by_dimension": dict(sorted(Counter(p.dimension for p in prefs).items())),
            "not_made": {k.removeprefix("skipped_chosen_"): v for k, v in sorted(stats.items())
                         if k.startswith("skipped_chosen_")},
        }
    return out
