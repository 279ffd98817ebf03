"""Stage `contexts`: the docs/method.md §2 variants for every question (data/interim/contexts.jsonl).

Distractors are in the question's language, read from the decisions (and corpus.qa_import for an outside
QA set); where a language runs short, passages of another fill in, and contexts_stats.json beside the
contexts counts them per language and variant (pipeline/retrieval/languages.py).
Dense variants rank each question with its language's embedding model, and stop before embedding when that
model's tokenizer does not cover the language (contexts.dense_language_models, allow_uncovered_language;
pipeline/retrieval/build.py).
A distractor that names a party of another decision of its context (the question's own decision always
counts: another judgment's 李某, a reused synthetic name) is passed over for the next candidate
(pipeline/retrieval/parties.py); contexts_stats.json counts them per variant (`party_name_skips`).
"""

from __future__ import annotations

import argparse
import logging
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from pipeline import paths
from pipeline.io import InputError, iter_json, read_records, write_json, write_records
from pipeline.records import QA, Decision, Passage
from pipeline.retrieval import build, languages, parties
from pipeline.retrieval.rank import Retriever
from pipeline.retrieval.variants import ContextError, build_contexts, no_answer, sources
from pipeline.stages import path_options, run, start

log = logging.getLogger("contexts")


def make_retrievers(passages, qas, needed, cfg, cache_dir: Path | None, langs) -> dict[str, Retriever]:
    """The stage's retrievers (pipeline/retrieval/build.py), with a progress bar per embedding model."""

    def progress(model: str, total: int):
        return tqdm(total=total, desc=f"embed {model}", unit="text", leave=False).update

    return build.make_retrievers(passages, qas, needed, cfg, cache_dir, langs, progress)


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    started = time.perf_counter()

    cfg = params.contexts
    needed = sources(cfg.variants)
    passages = read_records(args.passages, Passage)
    qas = read_records(args.qa, QA)
    decisions = read_records(args.decisions, Decision)
    passage_languages = _languages(args, params, passages, decisions)
    party_index = parties.index_corpus(decisions, passages, qas, passage_languages)
    party_skips: Counter = Counter()
    try:
        retrievers = make_retrievers(passages, qas, needed, cfg, Path(args.cache_dir), passage_languages)
        with tqdm(total=len(qas), desc="contexts", unit="q", leave=False) as bar:
            contexts = build_contexts(
                passages,
                qas,
                cfg.variants,
                cfg.k,
                params.seed,
                retrievers,
                cfg.pool,
                progress=bar.update,
                languages=passage_languages,
                parties=party_index,
                skips=party_skips,
            )
    except (ContextError, languages.UnknownGold) as exc:
        line = next(
            (n for n, obj in iter_json(args.qa) if isinstance(obj, dict) and obj.get("id") == exc.qa_id), None
        )
        raise InputError(args.qa, line, exc.field, f"question {exc.qa_id!r}: {exc.message}") from None
    # DVC keeps this folder between runs (persist) and wants it to exist even without dense variants;
    # made once the contexts are built, so a stop leaves the project as it was.
    Path(args.cache_dir).mkdir(parents=True, exist_ok=True)
    count = write_records(args.out, contexts)
    stats = languages.fill_ins(contexts, qas, passages, passage_languages, cfg.variants)
    stats["party_name_skips"] = {v: party_skips[v] for v in cfg.variants if v in party_skips}
    stats["party_name_skips_total"] = sum(party_skips.values())
    write_json(args.stats, stats)
    short = sum(1 for c in contexts if c.variant != "gold_only" and len(c.passage_ids) < cfg.k)
    # Imported questions with no answer (SQuAD 2.0 "impossible"): all their contexts are unanswerable.
    impossible = sum(1 for q in qas if no_answer(q))
    print(
        f"contexts: {count} contexts ({len(qas)} questions x {len(cfg.variants)} variants, k={cfg.k}; "
        f"{impossible} questions without an answer, unanswerable in every variant) "
        f"from {len(passages)} passages; {short} shorter than k (gold_surrounding in small decisions); "
        f"{stats['fill_ins_total']} distractors in another language than the question's, where its language "
        f"ran short; {stats['party_name_skips_total']} candidates passed over for naming a party of another "
        f"decision of the context ({args.stats}) -> {args.out} in {time.perf_counter() - started:.1f}s"
    )


def _languages(args: argparse.Namespace, params, passages: list[Passage], decisions: list[Decision]) -> list[str]:
    """Each passage's language, from its decision's record or the outside QA set's declared language."""
    decision_language = {d.id: d.language for d in decisions}
    try:
        return languages.passage_languages(passages, decision_language, languages.imported(params.corpus.qa_import))
    except languages.UnknownDecision as exc:
        line = next((n for i, (n, _) in enumerate(iter_json(args.passages)) if i == exc.index), None)
        raise InputError(args.passages, line, "decision_id", exc.message) from None


_arguments = path_options(passages=paths.PASSAGES, qa=paths.QAS, decisions=paths.DECISIONS, out=paths.CONTEXTS,
                          stats=paths.CONTEXT_STATS, cache_dir=paths.EMBEDDING_CACHE)


if __name__ == "__main__":
    run(main)
