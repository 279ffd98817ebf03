"""Text helpers shared by stages: a model-free token count, stable hashing, sentence splitting.

Token counts and sentences follow the text's language through pipeline.language (detected when not
given); English is measured exactly as before.
"""

from __future__ import annotations

import hashlib

from pipeline import language


def count_tokens(text: str, lang: str | None = None) -> int:
    """The data stages' length measure, before any model tokenizer exists (language.count_tokens):
    words and punctuation in English, one per character in Chinese. The score stage records the model
    tokenizer's own counts alongside."""
    return language.count_tokens(text, lang)


def split_sentences(text: str, lang: str | None = None) -> list[str]:
    return language.sentences(text, lang)


def stable_hash(*parts: object) -> int:
    """A 64-bit hash that is the same on every machine and Python run (unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
