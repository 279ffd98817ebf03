"""Stage `explore`: a static pair explorer -> reports/explorer/index.html and one data-<split>.js per split.

Reads the pairs and pairs_aug of every split, the questions, candidates and every judge's labels
(data/interim) and the score stage's margins (data/scores); the joining is pipeline.reporting.explorer's,
the page is pipeline/reporting/explorer_assets. Open index.html from disk: no server, no network.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pipeline import language, paths
from pipeline.augment.core import is_refusal
from pipeline.importers import skipped_path
from pipeline.io import atomic_dir, read_records, write_text
from pipeline.judges import file_name, sampled_judge
from pipeline.judges.inputs import load_labels
from pipeline.preferences import refusal_of
from pipeline.records import QA, Candidate, Context, Passage, Score
from pipeline.reporting import explorer, label_noise
from pipeline.reporting.baselines import passage_blind
from pipeline.reporting.optional import json_or
from pipeline.stages import path_options, run, start

BASE = "base"  # the score stage's name for the base model


def load(args: argparse.Namespace, judges: list[str], leak_coverage: float = 0.8) -> explorer.Inputs:
    pairs_root, interim, scores_root = Path(args.pairs_root), Path(args.interim), Path(args.scores)
    pairs = {c: paths.read_pairs(pairs_root / c, missing_ok=True) for c in explorer.CORPORA}
    qas = {q.id: q for q in read_records(interim / paths.QAS.name, QA)}
    candidates = read_records(interim / paths.CANDIDATES.name, Candidate)
    label_files = {j: interim / paths.LABELS.name / file_name(j) for j in judges}
    labels = {j: load_labels(f, candidates) for j, f in label_files.items() if f.exists()}
    scores, models = {}, []
    meta_path = scores_root / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        models = sorted(meta.get("models", []), key=lambda m: (m != BASE, m))
        for model in models:
            for corpus in explorer.CORPORA:
                path = scores_root / model / f"{corpus}.jsonl"
                if path.exists():
                    scores[(model, corpus)] = read_records(path, Score, unique_key=None)
    noise = _label_noise(interim, qas, candidates, labels, leak_coverage)
    return explorer.Inputs(pairs, qas, candidates, labels, scores, models, noise)


def _label_noise(interim: Path, qas: dict[str, QA], candidates: list[Candidate], labels: dict, tau: float) -> list:
    """The label-noise items of the whole corpus, paired or not (pipeline.reporting.label_noise). The
    contexts, passages and the QA import's account are read where the interim folder has them (a folder
    written by hand for a test may hold pairs only)."""
    files = [interim / name for name in (paths.CONTEXTS.name, paths.PASSAGES.name)]
    if not all(f.exists() for f in files):
        return []
    contexts = read_records(files[0], Context)
    passages = {p.id: p for p in read_records(files[1], Passage)}
    leaks = label_noise.find_leaks(qas, passages, contexts, lambda q: language.detect(q.question + q.answer), tau)
    primary = next(iter(labels.values()), {})
    flagged = {leak.context_id for leak in leaks}
    answers: dict[str, list[list[str]]] = {}
    for c in candidates:
        if c.context_id in flagged:
            answers.setdefault(c.context_id, []).append([c.generator, c.text, explorer.label_text(primary.get(c.id))])
    account = json_or(interim / skipped_path(paths.QAS).name, {"imports": []})
    references = next((s.get("references") for s in account["imports"] if s.get("import") == label_noise.IMPORT),
                      None)
    return label_noise.explorer_items(leaks, qas, answers, references)


def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    # A judge that labelled a sample only (judge.llm_max_candidates) has no label for most answers shown.
    inp = load(args, [j for j in prm.judge.judges if not sampled_judge(j, prm)], prm.report.leak_coverage)
    refusals = prm.generate.refusal_by_language()
    meta, splits = explorer.build(inp, lambda text: is_refusal(text, refusal_of(text, refusals)), passage_blind,
                                  prm.report.leak_coverage)
    settings = {"seed": prm.seed, "main_scoring": prm.report.main_scoring}
    out = Path(args.out)
    with atomic_dir(out) as tmp:
        write_text(Path(tmp) / "index.html", explorer.render(meta, settings))
        for split, data in splits.items():
            write_text(Path(tmp) / explorer.data_file(split), explorer.script(split, data))
    sizes = {p.name: p.stat().st_size for p in sorted(out.iterdir())}
    print(f"explore: {sum(len(d['pairs']) for d in splits.values())} pairs of {len(inp.models)} models -> "
          f"{out / 'index.html'} ({sum(sizes.values()) / 1e6:.1f} MB in {len(sizes)} files); "
          f"{time.perf_counter() - started:.1f}s")


_arguments = path_options(pairs_root=paths.PROCESSED, interim=paths.INTERIM, scores=paths.SCORES,
                          out=paths.EXPLORER)


if __name__ == "__main__":
    run(main)
