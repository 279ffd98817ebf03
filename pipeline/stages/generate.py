"""Stage `generate`: every panel generator answers every context (data/interim/candidates.jsonl).

Calls go through the response cache (data/cache/generate/), so a restarted stage re-uses what it
already has and makes no repeated calls. A run killed while writing its output leaves a temporary file
beside it (pipeline/io.py atomic_file); the next run removes it before starting.
"""

from __future__ import annotations

import glob
import logging
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from pipeline import language, paths
from pipeline import params as params_mod
from pipeline.backends import Request, make_generator
from pipeline.backends.base import Generator, generator_slug
from pipeline.backends.cache import ResponseCache, compacting, run_cached
from pipeline.importers import Skips, write_skipped
from pipeline.importers.candidates import ContextIndex
from pipeline.importers.registry import OFF, reader
from pipeline.io import InputError, iter_json, read_records, write_records
from pipeline.prompts import answer_prompt
from pipeline.records import QA, Candidate, Context, Passage
from pipeline.stages import path_options, run, start
from pipeline.text import stable_hash

log = logging.getLogger("generate")


def sweep_stale_temps(out: str | Path) -> list[Path]:
    """Remove what killed writes of `out` left behind: atomic_file's `.<name>.<random>.tmp` files.
    The stage is the only writer of its output (DVC locks the repo), so any such file is stale."""
    out = Path(out)
    stale = sorted(p for p in out.parent.glob(f".{glob.escape(out.name)}.*.tmp") if p.is_file())
    for path in stale:
        path.unlink(missing_ok=True)
    if stale:
        log.info("removed %d stale temporary file(s) of %s left by a killed run", len(stale), out.name)
    return stale


def build_requests(
    contexts: Sequence[Context],
    passages: dict[str, Passage],
    qas: dict[str, QA],
    cfg: params_mod.GenerateParams,
    seed: int,
) -> list[tuple[Context, Request]]:
    """One request per context: the docs/method.md §3 prompt and the decoding params (pure)."""
    d = cfg.decoding
    out = []
    for c in contexts:
        question = qas[c.qa_id].question
        prompt = answer_prompt([passages[p] for p in c.passage_ids], question,
                               cfg.refusal_for(language.detect(question)))
        request = Request(
            prompt, d.temperature, d.top_p, d.max_new_tokens, seed=stable_hash(seed, "generate", c.id) % 2**31
        )
        out.append((c, request))
    return out


def within_budget(jobs: Sequence[tuple[Context, Request]], questions: int, seed: int,
                  name: str) -> list[tuple[Context, Request]]:
    """The jobs of `questions` questions (all their variants, so the member's answers meet the others' in
    every context it answers), drawn by a seeded hash of the question id; 0 = every job."""
    ids = sorted({c.qa_id for c, _ in jobs}, key=lambda q: (stable_hash(seed, "budget", name, q), q))
    if not 0 < questions < len(ids):
        return list(jobs)
    keep = set(ids[:questions])
    return [(c, r) for c, r in jobs if c.qa_id in keep]


def generate_candidates(
    jobs: Sequence[tuple[Context, Request]],
    generators: Sequence[Generator],
    cache_dir: Path | None,
    progress: bool = True,
    budgets: dict[str, int] | None = None,
    seed: int = 0,
) -> tuple[list[Candidate], dict[str, int]]:
    """Run every generator on every job through the cache (a generator with a budget on its seeded
    share of the questions); candidates sorted by id and the number of backend calls each made."""
    candidates: list[Candidate] = []
    calls: dict[str, int] = {}
    for gen in generators:
        mine = within_budget(jobs, (budgets or {}).get(gen.name, 0), seed, gen.name)
        requests = [r for _, r in mine]
        cache = ResponseCache(cache_dir, gen.name) if cache_dir is not None else None
        try:
            with tqdm(
                total=len(requests), desc=gen.name, unit="ans", leave=False, disable=not progress
            ) as bar:
                responses, calls[gen.name] = run_cached(gen, requests, cache, progress=bar.update)
        finally:
            if cache is not None:
                cache.close()
        slug = generator_slug(gen.name)
        for (ctx, _), resp in zip(mine, responses, strict=True):
            candidates.append(
                Candidate(
                    f"{ctx.id}/{slug}", ctx.id, gen.name, resp.text, resp.finish_reason, dict(resp.meta)
                )
            )
    candidates.sort(key=lambda c: c.id)
    return candidates, calls


def check_references(contexts: Sequence[Context], passages: dict, qas: dict, path: str) -> None:
    for c in contexts:
        field, missing = None, None
        if c.qa_id not in qas:
            field, missing = "qa_id", c.qa_id
        else:
            missing = next((p for p in c.passage_ids if p not in passages), None)
            field = "passage_ids" if missing else None
        if field:
            line = next((n for n, o in iter_json(path) if isinstance(o, dict) and o.get("id") == c.id), None)
            raise InputError(path, line, field, f"context {c.id!r} refers to unknown {missing!r}")


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    sweep_stale_temps(args.out)

    cfg = params.generate
    passages = {p.id: p for p in read_records(args.passages, Passage)}
    qas = {q.id: q for q in read_records(args.qa, QA)}
    all_contexts = read_records(args.contexts, Context)
    check_references(all_contexts, passages, qas, args.contexts)
    wanted = set(cfg.variants)
    contexts = [c for c in all_contexts if c.variant in wanted]
    jobs = build_requests(contexts, passages, qas, cfg, params.seed)
    generators = [make_generator(spec, cfg) for spec in cfg.panel]
    # On success the cache keeps exactly this run's calls (a DVC output: its bytes follow from the inputs).
    with compacting(args.cache_dir) as cache_dir:
        candidates, calls = generate_candidates(jobs, generators, cache_dir, budgets=cfg.budgets, seed=params.seed)
    skips = Skips("generate.import_candidates", cfg.import_candidates.on_invalid)
    if cfg.import_candidates.format != OFF:
        index = ContextIndex(all_contexts, qas, passages)
        read = reader("generate.import_candidates", cfg.import_candidates.format)
        outside = read(Path(cfg.import_candidates.path), index, {c.id for c in candidates}, skips)
        log.info("imported %d outside answers from %s%s", len(outside), cfg.import_candidates.path, skips.note())
        candidates = sorted(candidates + outside, key=lambda c: c.id)
    count = write_records(args.out, candidates)
    write_skipped(args.out, *([skips] if cfg.import_candidates.format != OFF else []))

    refusals = {r.strip() for r in cfg.refusal_by_language().values()}
    answered = Counter(c.generator for c in candidates if c.text.strip() not in refusals)
    per_gen = Counter(c.generator for c in candidates)
    rates = ", ".join(f"{g} {answered[g] / per_gen[g]:.0%}" for g in cfg.panel if per_gen[g])
    total_calls = sum(calls.values())
    print(
        f"generate: {count} candidates ({len(contexts)} contexts x {len(generators)} generators"
        + "".join(f"; {g} on {per_gen[g]} contexts ({n} questions)" for g, n in sorted(cfg.budgets.items()))
        + "); "
        f"{total_calls} backend calls, {count - total_calls} from cache; answered: {rates} "
        f"-> {args.out} in {time.perf_counter() - started:.1f}s"
    )


_arguments = path_options(passages=paths.PASSAGES, qa=paths.QAS, contexts=paths.CONTEXTS, out=paths.CANDIDATES,
                          cache_dir=paths.GENERATE_CACHE)


if __name__ == "__main__":
    run(main)
