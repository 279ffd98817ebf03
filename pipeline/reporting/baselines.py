"""Rules that never read the passages, scored on the same pairs as the models.

Passage-blind: a refusal wins; between two refusals or two answers, the longer one wins. It encodes the
two shortcuts a reward model can learn from these pairs without grounding (abstain-on-doubt and
prefer-longer), so a model that reads the passages has to beat it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def passage_blind(chosen: Sequence[str], rejected: Sequence[str], chosen_tokens: np.ndarray,
                  rejected_tokens: np.ndarray, is_refusal: Callable[[str], bool]) -> np.ndarray:
    """Per pair, True when the rule prefers the chosen response (equal lengths count as wrong)."""
    out = np.zeros(len(chosen), dtype=bool)
    for i, (c, r) in enumerate(zip(chosen, rejected, strict=True)):
        c_ref, r_ref = is_refusal(c), is_refusal(r)
        out[i] = c_ref if c_ref != r_ref else chosen_tokens[i] > rejected_tokens[i]
    return out
