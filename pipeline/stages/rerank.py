"""Stage `rerank`: best-of-n. On every test context (report.main_split, the variants pairs.variants pairs; a
seeded sample of reward.rerank_max_contexts of them where that caps the CPU time) the
base model and every adapter of train.runs pick one of the panel's answers, under each scoring they give;
reports/rerank.md says how often each pick is ideal by the primary judge, against a random pick, each
generator alone, the passage-blind rule and the oracle (pipeline/reward/bestofn.py).

The answers are scored as the reward API scores them (pipeline/reward/engine.py): each context's prompt,
built as the pairs stage builds it, runs once for all its answers; adapters on the top layers only share
one pass of the layers below. Prompts too long for score.max_length are fitted by train.overlong, as the
score stage fits them. Writes data/rerank/picks.jsonl (every context's answers, rewards and picks),
reports/rerank.md, reports/rerank_details.json and reports/rerank_metrics.json.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

from pipeline import paths
from pipeline.augment.core import is_refusal
from pipeline.io import InputError, atomic_dir, write_json, write_records, write_text
from pipeline.judges.base import file_name
from pipeline.judges.inputs import load_interim, load_labels
from pipeline.language import detect, refusal_of
from pipeline.models.fitting import FittedItem, fit_counts, fit_item
from pipeline.params import Params, run_names
from pipeline.preferences import assign_splits
from pipeline.reward.bestofn import BLIND, ORACLE, RANDOM, Reranked, analyse, pick_records
from pipeline.reward.bestofn_render import render
from pipeline.reward.engine import BASE, PLAIN_SCORINGS, REF_SCORINGS, score_models, scorings, trunk_split
from pipeline.reward.items import Item
from pipeline.sampling import seeded_sample
from pipeline.scoring.encode import EncodedItem
from pipeline.stages import path_options, run, start
from pipeline.stages.score import run_adapters

log = logging.getLogger("pipeline.stages.rerank")


def model_scorings(adapters: list[str], main: str) -> list[str]:
    """"<model>/<scoring>" of every system a model is: the base under sum and mean, each adapter under all
    four, report.main_scoring first."""
    ordered = sorted(REF_SCORINGS + PLAIN_SCORINGS, key=lambda s: s != main)  # stable: the rest keep their order
    return [f"{BASE}/{s}" for s in PLAIN_SCORINGS] + [f"{a}/{s}" for a in adapters for s in ordered]


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    corpus = load_interim(Path(args.interim))
    primary = params.judge.judges[0]
    labels = load_labels(Path(args.labels) / file_name(primary), corpus.candidates)
    p = params.pairs
    splits = assign_splits(corpus.qas, params.seed, (p.train, p.val, p.test))
    split = params.report.main_split
    answers = defaultdict(list)
    for cand in corpus.candidates:  # in id order
        answers[cand.context_id].append(cand)
    contexts = [c for _, c in sorted(corpus.contexts.items())
                if splits[c.qa_id] == split and c.variant in p.variants and answers[c.id]]
    if not contexts:
        raise InputError(Path(args.interim) / "contexts.jsonl", None, None,
                         f"no answered context of the variants {p.variants} in split {split!r}: nothing to rerank")
    answered = len(contexts)
    contexts = seeded_sample(contexts, params.reward.rerank_max_contexts, params.seed, "rerank")
    if len(contexts) < answered:
        log.info("a seeded sample of %d of the %d test contexts (reward.rerank_max_contexts)", len(contexts), answered)
    refusals = params.generate.refusal_by_language()

    from pipeline.models import load_base, load_with_adapter

    model, tokenizer = load_base(args.base)
    adapters = run_adapters(Path(args.adapters), params.train)
    for folder in adapters:
        model = load_with_adapter(model, folder)
    names = [a.name for a in adapters]
    split_layers = trunk_split(adapters)

    fitted: list[FittedItem] = []
    for c in contexts:
        # The item the reward API would get for this context: its prompt is the pairs' prompt.
        item = Item(c.id, corpus.qas[c.qa_id].question, tuple(corpus.passages[i] for i in c.passage_ids),
                    tuple(a.text for a in answers[c.id]), c.gold_slot)
        prompt, spans = item.prompt(refusals)
        fitted.append(fit_item(tokenizer, prompt, item.responses, params.score.max_length, params.train.overlong,
                               spans, item.gold))
    fit = fit_counts(fitted, [c.variant for c in contexts])["all"]
    kept = [k for k, f in enumerate(fitted) if f.fits]
    log.info("reranking %d contexts (%d left out as too long) with base + %d adapters%s", len(kept),
             len(contexts) - len(kept), len(names), f", shared trunk of {split_layers} layers" if split_layers else "")

    rewards: dict[int, dict[str, list[float]]] = {}
    tokens: dict[int, list[int]] = {}
    step = params.reward.chunk_items
    with tqdm(total=len(kept), desc="rerank", unit="context", leave=False) as bar:
        for start_at in range(0, len(kept), step):
            chunk = kept[start_at:start_at + step]
            items = [EncodedItem(fitted[k].prompt, fitted[k].responses) for k in chunk]  # type: ignore[arg-type]
            rows = score_models(model, names, items, params.score.batch_tokens, split_layers)
            per_model = {BASE: scorings(rows[BASE], None)} | {n: scorings(rows[n], rows[BASE]) for n in names}
            for j, k in enumerate(chunk):
                span = rows[BASE].item(j)
                tokens[k] = [int(t) for t in rows[BASE].counts[span]]
                rewards[k] = {f"{m}/{s}": [float(v) for v in values[span]]
                              for m, by in per_model.items() for s, values in by.items()}
            bar.update(len(chunk))

    reranked = []
    for k in kept:
        c = contexts[k]
        question = corpus.qas[c.qa_id].question
        sentence = refusal_of(question, refusals)
        reranked.append(Reranked.of(c, detect(question), answers[c.id], labels,
                                    lambda text, s=sentence: is_refusal(text, s), tokens[k], rewards[k], params.seed))
    panel = [g for g in params.generate.panel if any(a.generator == g for r in reranked for a in r.candidates)]
    others = sorted({a.generator for r in reranked for a in r.candidates} - set(panel))
    generators = panel + others
    systems = [RANDOM, ORACLE, BLIND] + [f"generator:{g}" for g in generators] + \
        model_scorings(names, params.report.main_scoring)
    rp = params.report
    results = analyse(reranked, generators, systems, rp.bootstrap_resamples, rp.bootstrap_seed)
    details = details_of(params, results, systems, reranked, generators, fit, split, primary, answered)
    with atomic_dir(args.out) as tmp:
        write_records(tmp / paths.RERANK_PICKS.relative_to(paths.RERANK), pick_records(reranked, generators))
    write_json(args.details, details)
    write_json(args.metrics, metrics_of(details))
    write_text(args.report, render(details))
    best = max((s for s in systems if "/" in s), key=lambda s: results[s]["share"])
    print(f"rerank: {len(reranked)} contexts, {len(systems)} systems; random {results[RANDOM]['share']:.3f}, "
          f"best model {best} {results[best]['share']:.3f}, oracle {results[ORACLE]['share']:.3f}; "
          f"{time.perf_counter() - started:.1f}s -> {args.report}")


def details_of(params: Params, results: dict[str, Any], systems: list[str], reranked: list[Reranked],
               generators: list[str], fit: dict[str, int], split: str, primary: str,
               available: int) -> dict[str, Any]:
    sizes = [len(r.candidates) for r in reranked]
    return {
        "profile": params.profile, "split": split, "judge": primary, "seed": params.seed,
        "variants": [v for v in params.pairs.variants if any(r.context.variant == v for r in reranked)],
        "languages": sorted({r.language for r in reranked}), "generators": generators,
        "models": [BASE, *run_names(params.train)], "order": systems, "systems": results, "fit": fit,
        # available: the answered test contexts before reward.rerank_max_contexts's sample (cap, 0 = none)
        "contexts": {"available": available, "cap": params.reward.rerank_max_contexts,
                     "scored": len(reranked), "answers_min": min(sizes), "answers_max": max(sizes),
                     "decisive": sum(bool(r.ideal.any() and not r.ideal.all()) for r in reranked),
                     "with_ideal": sum(bool(r.ideal.any()) for r in reranked)},
        "max_length": params.score.max_length, "overlong": params.train.overlong,
        "resamples": params.report.bootstrap_resamples, "bootstrap_seed": params.report.bootstrap_seed,
        "picks_file": paths.RERANK_PICKS.as_posix(),
    }


def metrics_of(details: dict[str, Any]) -> dict[str, Any]:
    """The headline numbers `dvc metrics show` reads: per system the share of ideal picks, its difference from
    random and the exact p."""
    keep = ("n", "share", "vs_random", "p_vs_random")
    return {"contexts": details["contexts"]["scored"], "decisive": details["contexts"]["decisive"],
            "systems": {s: {k: details["systems"][s].get(k) for k in keep} for s in details["order"]}}


def _arguments(parser: Any) -> None:
    path_options(interim=paths.INTERIM, labels=paths.LABELS, base=paths.BASE, adapters=paths.ADAPTERS,
                 out=paths.RERANK, report=paths.RERANK_REPORT, details=paths.RERANK_DETAILS,
                 metrics=paths.RERANK_METRICS)(parser)


if __name__ == "__main__":
    run(main)
