"""Text helpers shared by stages: a model-free token count, stable hashing, sentence splitting."""

from __future__ import annotations

import hashlib
import re

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


def count_tokens(text: str) -> int:
    """Word and punctuation count: the data stages' length measure, before any model tokenizer exists.

    Close to a BPE count for English legal prose (about 1.1-1.3 BPE tokens per unit); the score
    stage records the model tokenizer's own counts alongside.
    """
    return len(_TOKEN.findall(text))


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def stable_hash(*parts: object) -> int:
    """A 64-bit hash that is the same on every machine and Python run (unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
