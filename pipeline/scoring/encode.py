"""Token ids of (prompt, chosen, rejected) as every scorer sees them.

The prompt and responses are rendered by pipeline.models (chat template when the model has one, SPEC 9;
response + EOS, exactly as training sees them) and each part is tokenized on its own, as TRL does.
Tokenizing the parts separately makes the ids identical whichever scorer runs, so the
shared-prefix and two-pass scorers compare exactly the same token sequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.models import render_prompt, render_response


@dataclass(frozen=True)
class EncodedPair:
    prompt: list[int]
    chosen: list[int]
    rejected: list[int]
    # True when the prompt was cut from the left to fit max_length (responses are never cut).
    truncated: bool = False

    @property
    def shared_length(self) -> int:
        return len(self.prompt) + len(self.chosen) + len(self.rejected)


def _ids(tokenizer: Any, text: str) -> list[int]:
    # The rendered text already holds BOS/EOS where the model wants them (pipeline.models contract).
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def encode_prompt(tokenizer: Any, prompt: str) -> list[int]:
    return _ids(tokenizer, render_prompt(tokenizer, prompt))


def encode_response(tokenizer: Any, response: str) -> list[int]:
    return _ids(tokenizer, render_response(tokenizer, response))


def fit(prompt: list[int], chosen: list[int], rejected: list[int], max_length: int) -> EncodedPair:
    """Cut the prompt from the left so prompt + the longer response fits max_length.

    Keeping the end of the prompt keeps the question and the rules next to the answer; at least one
    prompt token always stays so every response token has a predictor.
    """
    room = max_length - max(len(chosen), len(rejected))
    if len(prompt) <= room:
        return EncodedPair(prompt, chosen, rejected, False)
    keep = max(1, room)
    return EncodedPair(prompt[-keep:], chosen, rejected, True)


def encode_pairs(
    tokenizer: Any, triples: Sequence[tuple[str, str, str]], max_length: int
) -> list[EncodedPair]:
    """Encode (prompt, chosen, rejected) triples; the same prompt string is tokenized once."""
    prompt_cache: dict[str, list[int]] = {}
    out = []
    for prompt, chosen, rejected in triples:
        if prompt not in prompt_cache:
            prompt_cache[prompt] = encode_prompt(tokenizer, prompt)
        out.append(
            fit(prompt_cache[prompt], encode_response(tokenizer, chosen), encode_response(tokenizer, rejected), max_length)
        )
    return out
