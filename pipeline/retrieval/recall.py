"""Gold recall@k of the contexts stage's retrievers, per question language (for the data report).

Why: BM25 and dense distractors are only "hard" when the retriever ranks the gold passage high for its
question; an embedding model that does not read a language (MiniLM on Chinese) ranks at random and its
"hard negatives" are random ones. Recall@k of the gold passage over all passages, per language, shows that
at a glance. The retrievers are the stage's own (pipeline/retrieval/build.py) and dense vectors come from
its embedding cache, so on the default corpus this costs a BM25 index and a few matrix products.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.records import QA, Passage
from pipeline.retrieval.build import make_retrievers
from pipeline.retrieval.languages import question_languages
from pipeline.retrieval.variants import no_answer


def gold_recall(
    passages: Sequence[Passage],
    qas: Sequence[QA],
    cfg: Any,
    cache_dir: Path | None,
    languages: Sequence[str],
    k: int = 10,
    sources: Sequence[str] = ("bm25", "dense"),
) -> dict[str, dict[str, Any]]:
    """language -> {"questions": n, <source>: share of answerable questions whose gold passage is among
    the top k of all passages}. Questions without an answer (imported "impossible" ones) are left out.
    `languages[i]` is the declared language of `passages[i]`; a question's is its gold passage's, as in
    the contexts stage, so each question is ranked by the model that ranked it there."""
    answerable = [q for q in qas if not no_answer(q)]
    if not answerable or not passages:
        return {}
    index = {p.id: i for i, p in enumerate(passages)}
    retrievers = make_retrievers(passages, answerable, set(sources), cfg, cache_dir, languages)
    langs = question_languages(answerable, passages, languages)
    out: dict[str, dict[str, Any]] = {}
    for lang in sorted(set(langs)):
        mine = [i for i, q_lang in enumerate(langs) if q_lang == lang]
        row: dict[str, Any] = {"questions": len(mine)}
        for source in sources:
            hits = sum(index.get(answerable[i].gold_passage_id) in retrievers[source].top(i, k, ()) for i in mine)
            row[source] = hits / len(mine)
        out[lang] = row
    return out
