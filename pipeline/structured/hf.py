"""Schema-constrained decoding for local transformers models: llguidance as a logits processor.

At every step the processor feeds each row's last token to that row's grammar matcher and masks the
logits of every token the JSON schema does not allow next (end-of-sequence included until the object
is complete), so greedy or sampled decoding can only write a reply that conforms. Rows of one batch may
carry different schemas, or none (free text, left as it is).

llguidance compiles the schema to a grammar once per schema and walks the tokenizer's vocabulary as a
trie at each step (tens of microseconds per token on CPU); its own torch helper compiles a masking
kernel with torch.compile, which a CPU-only machine without a compiler cannot run, so the bitmask is
unpacked here with plain tensor ops.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import torch

from pipeline.structured.schemas import SEPARATORS

log = logging.getLogger(__name__)

# The library that does the constraining, as response meta records it.
ENGINE = "llguidance"
# The escape letters a constrained string may use: two bytes each, never the six of \uXXXX.
ESCAPES = 'nrtbf"\\'


class ConstraintError(RuntimeError):
    """A schema the grammar compiler rejects, or a tokenizer it cannot read. One line."""


def _llguidance() -> Any:
    try:
        import llguidance
    except ImportError:  # pragma: no cover - a dependency of the project (pyproject.toml)
        raise ConstraintError("constrained decoding needs llguidance: pip install llguidance") from None
    return llguidance


@lru_cache(maxsize=64)
def compiled_grammar(schema_text: str) -> str:
    """The llguidance grammar of a JSON schema (canonical text), with the fixed separators, no free
    whitespace (pipeline/structured/schemas.py SEPARATORS) and only the two-character escapes (no \\uXXXX),
    so a string of n characters takes at most 4n bytes (fields_token_bound)."""
    lg = _llguidance()
    options = {"whitespace_flexible": False, "item_separator": SEPARATORS[0], "key_separator": SEPARATORS[1],
               "json_allowed_escapes": ESCAPES}
    grammar = lg.LLMatcher.grammar_from_json_schema(schema_text, overrides=options)
    error = lg.LLMatcher.validate_grammar(grammar)
    if error:
        raise ConstraintError(f"schema rejected by {ENGINE}: {error}")
    return grammar


class GrammarTokenizer:
    """The llguidance view of a Hugging Face fast tokenizer (built once per generator: ~1 s)."""

    def __init__(self, tokenizer: Any):
        lg = _llguidance()
        import llguidance.hf

        try:
            self.ll = llguidance.hf.from_tokenizer(tokenizer)
        except ValueError as exc:
            raise ConstraintError(f"{ENGINE} cannot read this tokenizer ({exc})") from None
        self.lg = lg
        self.vocab_size = self.ll.vocab_size
        self.eos = tokenizer.eos_token_id

    def matcher(self, schema_text: str) -> Any:
        m = self.lg.LLMatcher(self.ll, compiled_grammar(schema_text), log_level=0)
        if m.is_error():
            raise ConstraintError(f"{ENGINE}: {m.get_error()}")
        return m


class SchemaLogitsProcessor:
    """A transformers logits processor constraining row i to `schemas[i]` (None: free text).

    `prompt_length` is the padded prompt width: tokens past it are the generated ones. A row whose
    matcher has accepted end-of-sequence (or that transformers already finished) is left alone: what
    follows is padding. A row whose matcher fails (cannot happen unless the model emits a token the
    mask forbade) is released and logged, and its reply is then validated like any other.
    """

    def __init__(self, grammar_tokenizer: GrammarTokenizer, schemas: Sequence[str | None], prompt_length: int):
        self.gt = grammar_tokenizer
        self.matchers = [grammar_tokenizer.matcher(s) if s else None for s in schemas]
        self.prompt_length = prompt_length
        self.done = [m is None for m in self.matchers]
        words = (grammar_tokenizer.vocab_size + 31) // 32
        self.bitmask = torch.zeros((len(schemas), words), dtype=torch.int32)
        self._bits = torch.arange(32, dtype=torch.int32)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        from llguidance.torch import fill_next_token_bitmask

        generated = input_ids.shape[1] - self.prompt_length
        rows = []
        for i, m in enumerate(self.matchers):
            if self.done[i] or m is None:
                continue
            if generated > 0:
                token = int(input_ids[i, -1])
                if not m.consume_token(token):
                    log.warning("%s: row %d left its grammar (%s); its reply is validated as free text",
                                ENGINE, i, m.get_error())
                    self.done[i] = True
                    continue
                if token == self.gt.eos:
                    self.done[i] = True  # the reply is over; what follows is padding
                    continue
            fill_next_token_bitmask(m, self.bitmask, i)
            rows.append(i)
        if rows:
            index = torch.tensor(rows)
            allowed = ((self.bitmask[index].unsqueeze(-1) >> self._bits) & 1).reshape(len(rows), -1).bool()
            vocab = scores.shape[1]
            allowed = allowed[:, :vocab]
            if allowed.shape[1] < vocab:  # logits beyond the tokenizer's vocabulary (padding rows of the head)
                pad = torch.zeros((len(rows), vocab - allowed.shape[1]), dtype=torch.bool)
                allowed = torch.cat([allowed, pad], dim=1)
            scores[index] = scores[index].masked_fill(~allowed.to(scores.device), float("-inf"))
        return scores

    def finished(self) -> list[bool]:
        """Per row: whether its matcher reached an accepting state (the object closed)."""
        return [m is None or m.is_accepting() or m.is_stopped() for m in self.matchers]


def schema_name(schema_text: str) -> str:
    """A short name for a schema, for logs: its top-level keys."""
    keys = list(json.loads(schema_text).get("properties", {}))
    return "{" + ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else "") + "}"
