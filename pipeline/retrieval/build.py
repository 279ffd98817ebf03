"""The retrievers of the contexts stage, built from params: BM25, and dense per language after a coverage check.

Lives here, not in the stage, because the data report ranks the same questions with the same retrievers
(gold recall@10 per language) and must see exactly what the contexts stage saw.

Dense retrieval follows the question's language (docs/method.md §2) as its records declare it
(pipeline/retrieval/languages.py: that of its gold passage), never as its script suggests, which a Chinese
question naming a foreign firm or an English one quoting a Chinese statute gets wrong. A question in
language L is ranked by `contexts.dense_language_models[L]` (else `contexts.dense_model`; an alias variant
`dense.<alias>` always uses `contexts.dense_models[<alias>]`). Before any embedding, each model's tokenizer
must know its language: on the questions and passages declared in L, an unknown-token rate above
`contexts.max_unknown_token_rate` stops the stage naming the param to set, unless
`contexts.allow_uncovered_language` (the bundled MiniLM turns most Chinese characters into [UNK], and its
cosines then rank zh passages at random).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from pipeline.records import QA, Passage
from pipeline.retrieval.bm25 import BM25Retriever
from pipeline.retrieval.coverage import check_coverage
from pipeline.retrieval.dense import DenseRetriever, Embedder
from pipeline.retrieval.languages import question_languages
from pipeline.retrieval.rank import Retriever, Ties

log = logging.getLogger("contexts")
# Texts per language the coverage check tokenizes (as the IRAC stage): enough for a stable rate.
COVERAGE_SAMPLE = 500


def passage_text(p: Passage) -> str:
    """What retrieval sees of a passage: the heading carries topic words the text may not repeat."""
    return f"{p.heading}\n{p.text}"


class ByQuery:
    """Routes each query to the retriever of its language's model (with that retriever's own index)."""

    def __init__(self, routes: Sequence[tuple[Retriever, int]]):
        self.routes = list(routes)

    def top(self, query: int, n: int, exclude: Collection[int], ties: Ties | None = None) -> list[int]:
        retriever, local = self.routes[query]
        return retriever.top(local, n, exclude, ties)


def dense_models(source: str, cfg: Any, languages: Collection[str]) -> dict[str, tuple[str, str]]:
    """language -> (model, the param that names it) for one dense source ("dense" or "dense.<alias>")."""
    alias = source.partition(".")[2]
    if alias:
        if alias not in cfg.dense_models:
            from pipeline.params import ParamsError

            raise ParamsError(f"contexts.variants: no contexts.dense_models entry for {alias!r}")
        return {lang: (cfg.dense_models[alias], f"contexts.dense_models.{alias}") for lang in languages}
    return {
        lang: (cfg.dense_language_models.get(lang, cfg.dense_model), f"contexts.dense_language_models.{lang}")
        for lang in languages
    }


def check_languages(
    plan: dict[str, tuple[str, str]],
    texts_by_language: dict[str, list[str]],
    cfg: Any,
    tokenizer_for: Callable[[str], Any] | None = None,
) -> dict[str, float]:
    """Unknown-token rate of each language's model on that language's texts; CoverageError above
    contexts.max_unknown_token_rate unless contexts.allow_uncovered_language. `tokenizer_for` is for tests."""
    max_rate = 1.0 if cfg.allow_uncovered_language else cfg.max_unknown_token_rate
    rates = {}
    for lang, (model, param) in sorted(plan.items()):
        texts = texts_by_language.get(lang, [])[:COVERAGE_SAMPLE]
        tokenizer = tokenizer_for(model) if tokenizer_for else None
        chosen_by = "contexts.dense_model" if param == f"contexts.dense_language_models.{lang}" and (
            lang not in cfg.dense_language_models) else param
        rates[lang] = check_coverage(
            model, lang, texts, max_rate, param, "contexts.allow_uncovered_language", tokenizer, chosen_by
        )
        if rates[lang] > cfg.max_unknown_token_rate:
            log.warning("dense model %s leaves %.0f%% of %s tokens unknown (allowed by "
                        "contexts.allow_uncovered_language)", model, 100 * rates[lang], lang)
    return rates


def make_retrievers(
    passages: Sequence[Passage],
    qas: Sequence[QA],
    needed: set[str],
    cfg: Any,
    cache_dir: Path | None,
    languages: Sequence[str],
    progress: Callable[[str, int], Callable[[int], None] | None] | None = None,
    tokenizer_for: Callable[[str], Any] | None = None,
) -> dict[str, Retriever]:
    """source ("bm25", "dense", "dense.<alias>") -> retriever over `passages` for the questions `qas`.
    `languages[i]` is the declared language of `passages[i]` (languages.passage_languages); a question's
    is its gold passage's. `progress(model, total)` may return a callback for the embedding progress."""
    docs = [passage_text(p) for p in passages]
    questions = [q.question for q in qas]
    retrievers: dict[str, Retriever] = {}
    if "bm25" in needed:
        log.info("indexing %d passages for BM25", len(docs))
        retrievers["bm25"] = BM25Retriever(docs, questions, k1=cfg.bm25_k1, b=cfg.bm25_b)
    dense_sources = sorted(s for s in needed if s.startswith("dense"))
    if not dense_sources:
        return retrievers
    q_lang = question_languages(qas, passages, languages)
    texts_by_language: dict[str, list[str]] = {}
    for text, lang in [*zip(questions, q_lang, strict=True), *zip(docs, languages, strict=True)]:
        texts_by_language.setdefault(lang, []).append(text)
    for source in dense_sources:
        plan = dense_models(source, cfg, set(q_lang) or {"en"})
        check_languages(plan, texts_by_language, cfg, tokenizer_for)
        by_model: dict[str, DenseRetriever] = {}
        for model in sorted({m for m, _ in plan.values()}):
            mine = [q for q, lang in zip(questions, q_lang, strict=True) if plan[lang][0] == model]
            embedder = Embedder(model, cache_dir, batch_size=cfg.embed_batch_size)
            bar = progress(model, len(docs) + len(mine)) if progress else None
            # Passages as passages (e5's passage prefix; a symmetric model ignores the flag), questions as queries.
            docs_rows = embedder.embed(docs, progress=bar, passage=True)
            by_model[model] = DenseRetriever(docs_rows, embedder.embed(mine, progress=bar))
            log.info("dense model %s: %d texts encoded, the rest from cache", model, embedder.encoded)
        if len(by_model) == 1:
            retrievers[source] = next(iter(by_model.values()))
            continue
        seen: dict[str, int] = {}
        routes = []
        for lang in q_lang:
            model = plan[lang][0]
            routes.append((by_model[model], seen.get(model, 0)))
            seen[model] = seen.get(model, 0) + 1
        retrievers[source] = ByQuery(routes)
    return retrievers
