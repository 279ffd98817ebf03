"""Stage `score`: the base model and every adapter score the train-sample/val/test pairs of both corpora (docs/method.md §9).

Output data/scores/<model>/<corpus>.jsonl holds one Score record per pair per scoring: `sum` and `mean`
log-prob of the response under the model, and for adapters `ref_sum` / `ref_mean`, the same minus the
reference model's (beta-free DPO implicit reward). The reference is the base model with the adapter
disabled, which is exactly the base model's own pass over the same token ids, so its scores are reused
rather than recomputed (tests/test_scoring.py checks the equality with `disable_adapter()`).
data/scores/meta.json says which pairs were scored and how over-long prompts were fitted, per variant.

With score.launch.num_processes N > 1 the stage re-runs itself on N ranks (pipeline/distributed.py). The
pairs of each corpus are shared out in whole scorer batches (the scorer's `units`,
pipeline/scoring/registry.py), so every pair is scored in exactly the batch it has on one process; rank 0
gathers the results, puts them back in pair order and writes the same bytes as a one-process run.
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

from pipeline import distributed, paths, stats
from pipeline.io import InputError, atomic_dir, read_records, require_finite, write_json, write_records
from pipeline.models.fitting import FittedPair, fit_counts
from pipeline.models.loading import unwrap
from pipeline.params import run_names
from pipeline.records import Pair
from pipeline.sampling import seeded_sample
from pipeline.scoring import EncodedPair, ResponseScores, encode_pairs, encoded
from pipeline.scoring.registry import Scorer, score_records, scorer, scorings
from pipeline.scoring.shared_trunk import TrunkBatch, score_from_trunk, shared_layers, trunk_batches
from pipeline.stages import path_options, run, start
from pipeline.training.data import EXTERNAL, outside_eval_pairs

log = logging.getLogger("pipeline.stages.score")

BASE_NAME = "base"


def select_pairs(pairs: Sequence[Any], max_pairs: int, seed: int, salt: str) -> list[Any]:
    """All pairs, or the seeded sample of max_pairs (pipeline/sampling.py); always sorted by id.

    The train split uses the corpus name as salt, as the training cap (training.data.cap) does, so its
    sample is a subset of the pairs the runs on that corpus trained on.
    """
    return sorted(seeded_sample(pairs, max_pairs, seed, salt), key=lambda p: p.id)


def run_adapters(root: Path, train: Any) -> list[Path]:
    """The adapter folder of every run train.runs names, in name order. Not the folders under `root`: DVC
    leaves the folder of a run removed from train.runs, and scoring it would put it back in the report."""
    folders = []
    for name in sorted(run_names(train)):
        folder = root / name
        if not (folder / "adapter_config.json").exists():
            objective, entry = name.split("-", 1)
            raise InputError(folder, None, None, f"no adapter of run {name!r} (train.runs.{objective} lists "
                                                 f"{entry!r}): train it with `dvc repro train_{objective}@{entry}`")
        folders.append(folder)
    return folders


@dataclass
class EvalCorpus:
    """The scored pairs of one corpus (those that fit max_length), their token ids and the fitting counts."""

    name: str
    pairs: list[Any]  # Pair records, or OutsidePair for the external corpus
    encoded: list[EncodedPair]
    available: dict[str, int]
    fit: dict[str, dict[str, int]]


def load_eval_corpus(name: str, root: Path, splits: Sequence[str], max_pairs: int, seed: int, tokenizer: Any,
                     max_length: int, policy: str, external: Any = None, train_sample: int = 0) -> EvalCorpus:
    """One eval corpus: pairs/pairs_aug split files under `root`, or the outside pairs (all "test")."""
    selected: list[Any] = []
    available: dict[str, int] = {}
    seen: dict[str, str] = {}
    files: dict[str, Path] = {}  # the file of each split, for the messages
    if name == EXTERNAL:
        outside = outside_eval_pairs(external)
        available["test"] = len(outside)
        files["test"] = Path(external.path)
        selected = select_pairs(outside, max_pairs, seed, "score")
        splits = ()
    for split in splits:
        path = files[split] = paths.split_file(root / name, split)
        records = read_records(path, Pair)
        for line, pair in enumerate(records, start=1):
            if pair.id in seen:
                raise InputError(path, line, "id", f"pair id {pair.id!r} also in split {seen[pair.id]}")
            seen[pair.id] = split
        available[split] = len(records)
        if split == "train":
            selected.extend(select_pairs(records, train_sample or max_pairs, seed, name))
        else:
            selected.extend(select_pairs(records, max_pairs, seed, "score"))
    selected.sort(key=lambda p: p.id)
    fitted: list[FittedPair] = encode_pairs(tokenizer, selected, max_length, policy)
    fit = fit_counts(fitted, [f"{p.split}/{p.variant}" for p in selected])
    require_scorable(name, files, selected, fitted, max_length)
    kept = [i for i, f in enumerate(fitted) if f.fits]
    return EvalCorpus(name, [selected[i] for i in kept], [encoded(fitted[i]) for i in kept], available, fit)


def require_scorable(name: str, files: dict[str, Path], selected: Sequence[Any], fitted: Sequence[FittedPair],
                     max_length: int) -> None:
    """Stop when a split of the corpus has no pair to score: the stage would write a corpus with no
    scores, and the report would have no numbers to put in its tables."""
    for split, path in files.items():
        fits = [f.fits for p, f in zip(selected, fitted, strict=True) if p.split == split]
        if any(fits):
            continue
        if not fits:
            raise InputError(path, None, None, f"corpus {name!r}, split {split!r}: no pairs to score (remove "
                                               f"{split!r} from score.splits or {name!r} from score.corpora)")
        raise InputError(path, None, None, f"corpus {name!r}, split {split!r}: no pair left to score, all "
                                           f"{len(fits)} dropped as too long for score.max_length {max_length}: "
                                           "raise score.max_length")


def shard_of(corpus: EvalCorpus, how: Scorer, batch_tokens: int, rank: int, world: int) -> list[int]:
    """The pair indices of `rank`: whole units of the scorer's batches (the same padding and neighbours,
    so the same floats, as on one process), balanced by padded tokens."""
    units = how.units(corpus.encoded, batch_tokens)
    costs = [len(u) * max(corpus.encoded[i].shared_length for i in u) for u in units]
    mine = distributed.balanced_shards(costs, world)[rank]
    return sorted(i for u in mine for i in units[u])


def subset(corpus: EvalCorpus, indices: Sequence[int]) -> EvalCorpus:
    return EvalCorpus(corpus.name, [corpus.pairs[i] for i in indices], [corpus.encoded[i] for i in indices],
                      corpus.available, corpus.fit)


def merge_scores(parts: Sequence[ResponseScores], indices: Sequence[Sequence[int]], n: int) -> ResponseScores:
    """The ranks' scores of their shards as one ResponseScores in pair order (values copied, unchanged)."""
    distributed.unshard(indices, indices, n)  # every pair came back exactly once
    where = np.argsort(np.concatenate([np.asarray(idx, dtype=np.int64) for idx in indices]), kind="stable")
    merged = {}
    for name in ResponseScores.__dataclass_fields__:
        merged[name] = np.concatenate([getattr(p, name) for p in parts])[where]
    return ResponseScores(**merged)


# Hidden states the shared trunk may keep per corpus (pipeline/scoring/shared_trunk.py); above it every
# model runs the whole decoder.
TRUNK_BYTES = 2 * 1024**3


def trunk_split(adapters: Sequence[Path], model: Any, corpora: Sequence[EvalCorpus], how: Scorer) -> int:
    """The layers below every adapter's LoRA layers, when scoring over them once pays and fits (0: no)."""
    split = shared_layers(adapters) if how.shares_trunk and adapters else 0
    tokens = max((sum(p.shared_length for p in c.encoded) for c in corpora), default=0)
    if split and tokens * unwrap(model).config.hidden_size * 4 > TRUNK_BYTES:
        log.info("shared trunk off: %d tokens of hidden states would not fit %d bytes", tokens, TRUNK_BYTES)
        return 0
    return split


def run_scorer(model: Any, corpus: EvalCorpus, how: Scorer, batch_tokens: int, label: str,
               trunk: tuple[int, list[TrunkBatch]] | None = None) -> ResponseScores:
    """`model`'s scores of `corpus`; with `trunk` (split, its batches) only the layers above it run."""
    with tqdm(total=len(corpus.pairs), desc=f"score {label}/{corpus.name}", unit="pair", leave=False,
              disable=not distributed.is_main()) as bar:
        if trunk is not None:
            scores = score_from_trunk(model, trunk[1], trunk[0], len(corpus.encoded))
            bar.update(len(corpus.pairs))
        else:
            scores = how.score(model, corpus.encoded, batch_tokens, bar.update)
    for field in ("chosen_sum", "rejected_sum"):
        # A NaN or inf log-prob would count as a wrong answer and pass into every statistic unseen.
        require_finite(getattr(scores, field), f"model {label}: {field} log-probs of corpus {corpus.name}",
                       [f"pair {p.id!r}" for p in corpus.pairs],
                       "the model's weights or logits are broken; retrain it (or re-run pretrain)")
    return scores


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    sp = params.score
    if distributed.relaunch_if_needed("pipeline.stages.score", argv, sp.launch):
        return
    distributed.bind_device()
    with distributed.ProcessGroup():
        _score(args, params)


def _score(args: argparse.Namespace, params: Any) -> None:
    sp = params.score
    from pipeline.kernels import backend
    from pipeline.models import load_base, load_with_adapter

    started = time.perf_counter()
    how = scorer(sp.scorer)
    model, tokenizer = load_base(args.base)
    corpora = [
        load_eval_corpus(name, Path(args.pairs_root), sp.splits, sp.max_pairs, params.seed, tokenizer,
                         sp.max_length, params.train.overlong, params.train.external_pairs, sp.train_sample)
        for name in sp.corpora
    ]
    world, rank = distributed.world_size(), distributed.rank()
    log.info("scoring %s pairs with base + %d adapters (%s, kernels: %s%s)",
             {c.name: len(c.pairs) for c in corpora}, len(run_names(params.train)), sp.scorer, backend(),
             f", rank {rank} of {world}" if world > 1 else "")
    # Each rank scores its shard of every corpus (on one process: the corpus itself).
    shards = {c.name: shard_of(c, how, sp.batch_tokens, rank, world) if world > 1 else None for c in corpora}
    mine = [c if shards[c.name] is None else subset(c, shards[c.name]) for c in corpora]
    trained = [Path(args.adapters) / n for n in run_names(params.train)
               if (Path(args.adapters) / n / "adapter_config.json").exists()]
    split = trunk_split(trained, model, mine, how)
    # The layers every model shares run once per corpus (adapters with LoRA on the top layers only).
    trunks = {c.name: (split, trunk_batches(model, c.encoded, split, sp.batch_tokens)) for c in mine} if split else {}
    if split:
        log.info("scoring over a shared trunk of %d layers", split)
    results: dict[str, dict[str, ResponseScores]] = {BASE_NAME: {}}
    for corpus in mine:
        results[BASE_NAME][corpus.name] = run_scorer(model, corpus, how, sp.batch_tokens, BASE_NAME,
                                                     trunks.get(corpus.name))
    # After the base: a base with broken log-probs is reported first, as every adapter is retrained on it.
    adapters = run_adapters(Path(args.adapters), params.train)
    for adapter in adapters:
        model = load_with_adapter(model, adapter)
        results[adapter.name] = {
            c.name: run_scorer(model, c, how, sp.batch_tokens, adapter.name, trunks.get(c.name)) for c in mine
        }
    if world > 1:
        gathered = distributed.gather_to_main((shards, results))
        if gathered is None:  # not rank 0: its part is with rank 0, which writes the files
            return
        for name in results:
            for c in corpora:
                results[name][c.name] = merge_scores([part[1][name][c.name] for part in gathered],
                                                     [part[0][c.name] for part in gathered], len(c.pairs))
    meta = {
        "models": sorted(results),
        "scorer": sp.scorer,
        "max_length": sp.max_length,
        "max_pairs": sp.max_pairs,
        "overlong": params.train.overlong,
        "reference": BASE_NAME,
        "corpora": {
            c.name: {"available": c.available, "scored": len(c.pairs), "fit": c.fit} for c in corpora
        },
    }
    with atomic_dir(args.out) as tmp:
        for name, by_corpus in results.items():
            for corpus in corpora:
                reference = None if name == BASE_NAME else results[BASE_NAME][corpus.name]
                write_records(tmp / name / f"{corpus.name}.jsonl",
                              score_records(name, corpus.pairs, by_corpus[corpus.name], reference))
        write_json(tmp / "meta.json", meta)
    elapsed = time.perf_counter() - started
    n_pairs = sum(len(c.pairs) for c in corpora)
    scored_models = len(adapters) + 1
    for name, by in sorted(results.items()):
        accuracy: dict[str, dict[str, float]] = {"sum": {}, "ref_sum": {}}
        for c in corpora:
            # The base's ref scores are 0 on both sides: ties, so its ref_sum accuracy reads 0.
            for scoring, chosen, rejected in scorings(by[c.name], results[BASE_NAME][c.name]):
                if scoring in accuracy:
                    accuracy[scoring][c.name] = round(stats.accuracy(stats.correct_from_scores(chosen, rejected)), 3)
        log.info("%s: accuracy sum %s, ref_sum %s", name, accuracy["sum"], accuracy["ref_sum"])
    print(f"score: {scored_models} models x {n_pairs} pairs in {elapsed:.1f}s "
          f"({scored_models * n_pairs / elapsed:.1f} pairs/s, {sp.scorer}) -> {args.out}")


def _arguments(parser: argparse.ArgumentParser) -> None:
    path_options(pairs_root=paths.PROCESSED, base=paths.BASE, adapters=paths.ADAPTERS, out=paths.SCORES)(parser)


if __name__ == "__main__":
    run(main)
