"""Token ids of (prompt, chosen, rejected) as every scorer sees them.

The prompt and responses are rendered by pipeline.models (chat template when the model has one, docs/method.md §9;
response + EOS, exactly as training sees them) and each part is tokenized on its own, as TRL does.
Tokenizing the parts separately makes the ids identical whichever scorer runs, so the shared-prefix and
two-pass scorers compare exactly the same token sequences. Over-long pairs go through the same
passage-aware fitting as training (pipeline.models.fitting): never a cut inside the question or rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.models import render_prompt
from pipeline.models.fitting import FittedPair, fit_pair, token_ids


@dataclass(frozen=True)
class EncodedPair:
    prompt: list[int]
    chosen: list[int]
    rejected: list[int]

    @property
    def responses(self) -> tuple[list[int], list[int]]:
        return self.chosen, self.rejected

    @property
    def shared_length(self) -> int:
        return len(self.prompt) + len(self.chosen) + len(self.rejected)


@dataclass(frozen=True)
class EncodedItem:
    """One prompt and any number of responses to it (a pair is the item with two): what the scorers
    take, through `.prompt`, `.responses` and `.shared_length`."""

    prompt: list[int]
    responses: tuple[list[int], ...]

    @property
    def shared_length(self) -> int:
        return len(self.prompt) + sum(len(r) for r in self.responses)


def encode_pairs(tokenizer: Any, pairs: Sequence[Any], max_length: int,
                 policy: str = "drop_distractors") -> list[FittedPair]:
    """Fit every pair (records with prompt, chosen, rejected, passage_spans, gold_slot) into max_length.

    Returns one FittedPair per input, in order; pairs that cannot fit have `fits` False and are the
    caller's to count. The same prompt string is tokenized once.
    """
    prompt_cache: dict[str, list[int]] = {}
    out = []
    for p in pairs:
        if p.prompt not in prompt_cache:
            prompt_cache[p.prompt] = token_ids(tokenizer, render_prompt(tokenizer, p.prompt))
        out.append(fit_pair(tokenizer, p.prompt, p.chosen, p.rejected, max_length, policy,
                            p.passage_spans, p.gold_slot, prompt_ids=prompt_cache[p.prompt]))
    return out


def encoded(fitted: FittedPair) -> EncodedPair:
    if fitted.prompt is None:
        raise ValueError("a pair that does not fit max_length cannot be scored")
    return EncodedPair(fitted.prompt, fitted.chosen, fitted.rejected)
