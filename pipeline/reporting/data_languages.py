"""The data report's figures by question language: labels by behaviour, pairs by dimension and BM25 vs
dense gold recall@10 (is each language read at all?)."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from pipeline.judges.base import item_language
from pipeline.judges.inputs import InterimData
from pipeline.params import Params
from pipeline.records import PAIR_DIMENSIONS, Decision, Label, Pair
from pipeline.retrieval import languages
from pipeline.retrieval.recall import gold_recall

log = logging.getLogger("data_report")


def qa_languages(corpus: InterimData) -> dict[str, str]:
    """qa_id -> the language a judge reads it in (its question and reference answer)."""
    return {qid: item_language(qa) for qid, qa in corpus.qas.items()}


def labels_by_language(corpus: InterimData, labels: Mapping[str, Label], qa_lang: Mapping[str, str]) -> dict:
    """language -> behaviour -> labels of the primary judge (unparseable counted as such): a language whose
    answers are mostly "unusable" or never "abstained" points at a judge that does not read it."""
    out: dict[str, Counter] = defaultdict(Counter)
    for cand in corpus.candidates:
        label = labels[cand.id]
        lang = qa_lang[corpus.contexts[cand.context_id].qa_id]
        out[lang][label.behaviour if label.status == "ok" else "unparseable"] += 1
    return {lang: dict(sorted(c.items())) for lang, c in sorted(out.items())}


def pairs_by_language(pairs: Sequence[Pair], qa_lang: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """dimension -> language -> pairs (every language that has a question appears, with 0 where none)."""
    langs = sorted(set(qa_lang.values()))
    out = {d: dict.fromkeys(langs, 0) for d in PAIR_DIMENSIONS}
    for p in pairs:
        out[p.dimension][qa_lang[p.qa_id]] += 1
    return out


def recall_at_10(corpus: InterimData, decisions: Sequence[Decision], params: Params, embeddings: Path | None) -> dict:
    """Gold recall@10 per question language, with the contexts stage's retrievers and its language of
    each passage (its decision's, or corpus.qa_import's); empty, with a warning, for a corpus that
    declares no language for some passage (the contexts stage would have refused it)."""
    passages = list(corpus.passages.values())
    try:
        langs = languages.passage_languages(passages, {d.id: d.language for d in decisions},
                                            languages.imported(params.corpus.qa_import))
    except languages.UnknownDecision as exc:
        log.warning("no gold recall@10: %s", exc.message)
        return {}
    return gold_recall(passages, list(corpus.qas.values()), params.contexts, embeddings, langs)


def by_language(corpus: InterimData, decisions: Sequence[Decision], labels: Mapping[str, Label],
                pairs: Sequence[Pair], params: Params, embeddings: Path | None,
                context_stats: dict | None = None) -> dict:
    """Per-language figures; recall@10 uses the contexts stage's retrievers (embeddings from its cache);
    the cross-language fill-ins are the contexts stage's own counts, when it wrote them."""
    qa_lang = qa_languages(corpus)
    out = {
        "questions": dict(sorted(Counter(qa_lang.values()).items())),
        "labels": labels_by_language(corpus, labels, qa_lang),
        "pairs": pairs_by_language(pairs, qa_lang),
        "recall_at_10": recall_at_10(corpus, decisions, params, embeddings),
    }
    if context_stats and "fill_ins" in context_stats:
        out["fill_ins"] = context_stats["fill_ins"]
    return out
