"""Stage `score`: the base model and every adapter score the val/test pairs of both corpora (SPEC 9).

Output data/scores/<model>/<corpus>.jsonl holds one Score record per pair per scoring (sum, mean);
data/scores/meta.json says which pairs were scored and how many prompts were cut to fit max_length.
The base model's scores double as the reference for the optional reference-relative reward
beta * (log pi - log pi_ref): the adapter-disabled model is the base model, so no extra pass is needed.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from pipeline.io import InputError, atomic_dir, read_records, write_json, write_records
from pipeline.records import Pair, Score
from pipeline.scoring import EncodedPair, ResponseScores, encode_pairs, score_shared_prefix, score_two_pass
from pipeline.stages import run, start
from pipeline.text import stable_hash

log = logging.getLogger("pipeline.stages.score")

PAIRS_ROOT = Path("data/processed")
BASE = Path("models/base")
ADAPTERS = Path("models/adapters")
OUT = Path("data/scores")
CORPORA = ("pairs", "pairs_aug")
BASE_NAME = "base"


def select_pairs(pairs: Sequence[Pair], max_pairs: int, seed: int) -> list[Pair]:
    """All pairs, or the max_pairs with the smallest seeded hash; always sorted by id."""
    chosen = list(pairs)
    if 0 < max_pairs < len(chosen):
        chosen = sorted(chosen, key=lambda p: (stable_hash(seed, "score", p.id), p.id))[:max_pairs]
    return sorted(chosen, key=lambda p: p.id)


def score_records(model_name: str, pairs: Sequence[Pair], scores: ResponseScores) -> list[Score]:
    """One Score per pair per scoring, ordered by (scoring, pair id); ties count as wrong."""
    out = []
    for scoring, c_arr, r_arr in (("mean", scores.chosen_mean, scores.rejected_mean),
                                  ("sum", scores.chosen_sum, scores.rejected_sum)):
        for i, pair in enumerate(pairs):
            c, r = float(c_arr[i]), float(r_arr[i])
            out.append(Score(
                pair_id=pair.id, model=model_name, scoring=scoring, chosen=c, rejected=r, margin=c - r,
                correct=bool(c > r), chosen_tokens=int(scores.chosen_tokens[i]),
                rejected_tokens=int(scores.rejected_tokens[i]),
            ))
    return out


def reference_relative(policy: ResponseScores, reference: ResponseScores, beta: float) -> ResponseScores:
    """beta * (log pi - log pi_ref) for each response, for sum and mean scoring alike."""
    return ResponseScores(
        chosen_sum=beta * (policy.chosen_sum - reference.chosen_sum),
        chosen_mean=beta * (policy.chosen_mean - reference.chosen_mean),
        rejected_sum=beta * (policy.rejected_sum - reference.rejected_sum),
        rejected_mean=beta * (policy.rejected_mean - reference.rejected_mean),
        chosen_tokens=policy.chosen_tokens,
        rejected_tokens=policy.rejected_tokens,
    )


def adapter_dirs(root: Path) -> list[Path]:
    if not root.exists():
        return []
    return sorted(p for p in root.iterdir() if (p / "adapter_config.json").exists())


@dataclass
class Corpus:
    name: str
    pairs: list[Pair]
    encoded: list[EncodedPair]
    available: dict[str, int]


def load_corpus(name: str, root: Path, splits: Sequence[str], max_pairs: int, seed: int, tokenizer: Any,
                max_length: int) -> Corpus:
    selected: list[Pair] = []
    available: dict[str, int] = {}
    seen: dict[str, str] = {}
    for split in splits:
        path = root / name / f"{split}.jsonl"
        records = read_records(path, Pair)
        for line, pair in enumerate(records, start=1):
            if pair.id in seen:
                raise InputError(path, line, "id", f"pair id {pair.id!r} also in split {seen[pair.id]}")
            seen[pair.id] = split
        available[split] = len(records)
        selected.extend(select_pairs(records, max_pairs, seed))
    selected.sort(key=lambda p: p.id)
    encoded = encode_pairs(tokenizer, [(p.prompt, p.chosen, p.rejected) for p in selected], max_length)
    return Corpus(name, selected, encoded, available)


def run_scorer(model: Any, corpus: Corpus, scorer: str, batch_tokens: int, label: str) -> ResponseScores:
    with tqdm(total=len(corpus.pairs), desc=f"score {label}/{corpus.name}", unit="pair", leave=False) as bar:
        if scorer == "shared_prefix":
            return score_shared_prefix(model, corpus.encoded, batch_tokens=batch_tokens, progress=bar.update)
        # The two-pass scorer reports rows, two per pair.
        return score_two_pass(model, corpus.encoded, batch_tokens=batch_tokens,
                              progress=lambda rows: bar.update(rows / 2))


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    sp = params.score
    from pipeline.kernels import backend
    from pipeline.models import load_base, load_with_adapter

    started = time.perf_counter()
    model, tokenizer = load_base(args.base)
    corpora = [
        load_corpus(name, Path(args.pairs_root), sp.splits, sp.max_pairs, params.seed, tokenizer, sp.max_length)
        for name in CORPORA
    ]
    adapters = adapter_dirs(Path(args.adapters))
    log.info("scoring %s pairs with base + %d adapters (%s, kernels: %s)",
             {c.name: len(c.pairs) for c in corpora}, len(adapters), sp.scorer, backend())
    results: dict[str, dict[str, ResponseScores]] = {BASE_NAME: {}}
    for corpus in corpora:
        results[BASE_NAME][corpus.name] = run_scorer(model, corpus, sp.scorer, sp.batch_tokens, BASE_NAME)
    for adapter in adapters:
        model = load_with_adapter(model, adapter)
        results[adapter.name] = {
            c.name: run_scorer(model, c, sp.scorer, sp.batch_tokens, adapter.name) for c in corpora
        }
        if sp.reference_relative:
            results[f"{adapter.name}-refrel"] = {
                c.name: reference_relative(results[adapter.name][c.name], results[BASE_NAME][c.name],
                                           params.train.beta)
                for c in corpora
            }
    meta = {
        "models": sorted(results),
        "scorer": sp.scorer,
        "max_length": sp.max_length,
        "max_pairs": sp.max_pairs,
        "reference_relative_beta": params.train.beta if sp.reference_relative else None,
        "corpora": {
            c.name: {
                "available": c.available,
                "scored": len(c.pairs),
                "truncated_prompts": sum(e.truncated for e in c.encoded),
            }
            for c in corpora
        },
    }
    with atomic_dir(args.out) as tmp:
        for name, by_corpus in results.items():
            for corpus in corpora:
                write_records(tmp / name / f"{corpus.name}.jsonl",
                              score_records(name, corpus.pairs, by_corpus[corpus.name]))
        write_json(tmp / "meta.json", meta)
    elapsed = time.perf_counter() - started
    n_pairs = sum(len(c.pairs) for c in corpora)
    scored_models = len(adapters) + 1
    for name, by in sorted(results.items()):
        log.info("%s: mean-scoring accuracy %s", name,
                 {c.name: round(float(np.mean(by[c.name].chosen_mean > by[c.name].rejected_mean)), 3) for c in corpora})
    print(f"score: {scored_models} models x {n_pairs} pairs in {elapsed:.1f}s "
          f"({scored_models * n_pairs / elapsed:.1f} pairs/s, {sp.scorer}) -> {args.out}")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pairs-root", default=str(PAIRS_ROOT))
    parser.add_argument("--base", default=str(BASE))
    parser.add_argument("--adapters", default=str(ADAPTERS))
    parser.add_argument("--out", default=str(OUT))


if __name__ == "__main__":
    run(main)
