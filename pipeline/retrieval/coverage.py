"""Does an embedding model cover a language? The share of unknown tokens its tokenizer gives that text.

An English-only vocabulary (the bundled MiniLM's) maps most Chinese characters to [UNK], so cosines of
its embeddings of Chinese text compare a handful of surviving tokens and mean nothing (in IRAC, fields of
two different decisions reached cosine >= 0.6 a third of the time). docs/method.md §1: a model that does not cover
the record's language is an error. This module measures the rate and raises with the param to set; it
is shared by every stage that embeds text (IRAC similarity, dense retrieval).

A byte-level BPE tokenizer has no unknown token, so its rate is always 0: the check catches WordPiece
and SentencePiece vocabularies that lack the script, which is how English-only sentence encoders fail.
A builtin model (pipeline/embeddings/builtin.py) is first held to the languages its package declares; one
whose package exposes no tokenizer (e5) is then taken at its word, rate 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


class CoverageError(RuntimeError):
    """An embedding model whose tokenizer does not know the language of the texts it would embed."""


def unknown_token_rate(tokenizer: Any, texts: Iterable[str]) -> float:
    """Share of the tokens of `texts` (no special tokens added) that are the tokenizer's unknown token."""
    unk = getattr(tokenizer, "unk_token_id", None)
    total = unknown = 0
    for text in texts:
        if not text or not text.strip():
            continue
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        total += len(ids)
        if unk is not None:
            unknown += sum(1 for i in ids if i == unk)
    return unknown / total if total else 0.0


def load_tokenizer(model: str) -> Any:
    """The tokenizer of a builtin model name or a sentence-transformers model, from local files only
    (None for a builtin whose package exposes none)."""
    import os

    from pipeline.embeddings import builtin

    spec = builtin.get(model)
    if spec is not None:
        return spec.tokenizer() if spec.tokenizer else None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    from pipeline.retrieval.dense import resolve_model

    return AutoTokenizer.from_pretrained(resolve_model(model))


def check_coverage(
    model: str,
    language: str,
    texts: Sequence[str],
    max_rate: float,
    model_param: str,
    allow_param: str,
    tokenizer: Any = None,
    chosen_by: str = "",
) -> float:
    """The unknown-token rate of `model` on `texts` of `language`; CoverageError above `max_rate`.

    `model_param` and `allow_param` name the params the message tells the user to set (a model for the
    language, or the opt-in that accepts the poor coverage); `chosen_by` (default `model_param`) is the
    key that named `model`, which a model that cannot be loaded is reported under.
    """
    from pipeline.embeddings import builtin

    spec = builtin.get(model)
    if spec is not None and spec.languages is not None and language not in spec.languages:
        if max_rate < 1.0:
            raise CoverageError(
                f"embedding model {model!r} does not cover language {language!r}: its package declares "
                f"{', '.join(sorted(spec.languages))} only. {_advice(language, model_param, allow_param)}")
        return 1.0  # nothing of the language is read, as far as anyone has said
    if tokenizer is None:
        try:
            if spec is not None:
                spec.require()
            tokenizer = load_tokenizer(model)
        except (OSError, ValueError, ImportError) as exc:
            # The hub's own message names neither the key nor what is allowed, and can run to a page.
            reason = next(iter(str(exc).splitlines()), "")[:160]
            raise CoverageError(f"{chosen_by or model_param}: embedding model {model[:80]!r} cannot be loaded "
                                f"from local files ({reason}) (allowed: {', '.join(map(repr, builtin.MODELS))}, "
                                "a local model folder or a sentence-transformers model in the local cache)") from None
        if tokenizer is None:  # a builtin that declares the language and exposes no tokenizer
            return 0.0
    rate = unknown_token_rate(tokenizer, texts)
    if rate > max_rate:
        raise CoverageError(
            f"embedding model {model!r} does not cover language {language!r}: {rate:.0%} of its tokenizer's "
            f"tokens on {len(texts)} {language} texts are unknown (limit {max_rate:.0%}), so its cosines would "
            f"be meaningless. {_advice(language, model_param, allow_param)}"
        )
    return rate


def _advice(language: str, model_param: str, allow_param: str) -> str:
    return (f"Set {model_param} to a model that covers {language!r} (the builtin 'e5' or 'use', or a "
            f"multilingual sentence-transformers model in the local cache), or set {allow_param}: true to "
            "use this model anyway.")
