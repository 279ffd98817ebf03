"""Stage `data_report`: what the data lineage produced -> reports/data.md, reports/data_details.json (every
number) and reports/data_metrics.json (the headline numbers `dvc metrics` lists).

Corpus statistics, answer quality by variant and generator, pair counts, length by transition before
and after augmentation, judge agreement and robustness, unparseable labels; and by question language:
labels by behaviour, pairs by dimension and BM25 vs dense gold recall@10 (is each language read at all?).
When an import is on: the records each import left out under `on_invalid: skip`, by reason, with the
first locations (file:line and JSON path), so a skip never hides how much of a published set was lost.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.agreement import agreement
from pipeline.importers import Skips, skipped_path
from pipeline.importers.pairs import read_outside_pairs
from pipeline.io import InputError, read_records, write_json, write_text
from pipeline.judges import file_name
from pipeline.judges.base import item_language
from pipeline.judges.inputs import INTERIM, InterimData, load_interim, load_labels
from pipeline.params import Params
from pipeline.preferences import SPLITS, decide, robustness
from pipeline.records import PAIR_DIMENSIONS, Decision, Label, Pair
from pipeline.reporting.markdown import table
from pipeline.reporting.transitions import transition
from pipeline.retrieval.recall import gold_recall
from pipeline.stages import run, start

PROCESSED = Path("data/processed")
# The contexts stage's embedding cache (a persisted output of that stage, read here as a cache only: the
# figures are the same without it, only slower).
EMBEDDINGS = Path("data/cache/embeddings")
REPORTS = Path("reports")
# The skipped-records summaries the import stages write beside their outputs (pipeline.importers).
SKIPPED = (
    skipped_path("data/raw/decisions.jsonl"),
    skipped_path(INTERIM / "qa.jsonl"),
    skipped_path(INTERIM / "candidates.jsonl"),
)


# ------------------------------------------------------------------------------------------- core
def ideal(label: Label) -> bool:
    return (
        label.status == "ok"
        and label.behaviour == "attempted"
        and label.faithfulness == "fully_supported"
        and label.correctness == "correct"
        and label.completeness == "complete"
    )


def answer_quality(corpus: InterimData, labels: Mapping[str, Label]) -> dict[str, dict[str, dict[str, float]]]:
    """variant -> ("all" | generator) -> rates: ideal-answer and attempted rates on answerable contexts,
    correct-refusal rate on unanswerable ones (an unparseable label counts as neither)."""
    groups: dict[tuple[str, str], list[tuple[bool, Label]]] = defaultdict(list)
    for cand in corpus.candidates:
        context = corpus.contexts[cand.context_id]
        entry = (context.answerable, labels[cand.id])
        groups[(context.variant, "all")].append(entry)
        groups[(context.variant, cand.generator)].append(entry)
    out: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for variant, who in sorted(groups, key=lambda k: (k[0], k[1] != "all", k[1])):
        rows = groups[(variant, who)]
        n = len(rows)
        stats: dict[str, float] = {"n": n}
        if rows[0][0]:
            stats["ideal_rate"] = sum(ideal(lab) for _, lab in rows) / n
            stats["attempted_rate"] = sum(lab.behaviour == "attempted" for _, lab in rows) / n
        else:
            stats["correct_refusal_rate"] = sum(lab.behaviour == "abstained" for _, lab in rows) / n
        out[variant][who] = stats
    return dict(out)


def lengths_by_transition(
    before: Sequence[Pair], after: Sequence[Pair], corpus: InterimData, labels: Mapping[str, Label]
) -> dict[str, dict[str, float]]:
    ids = {(c.context_id, c.generator): c.id for c in corpus.candidates}
    after_by_id = {p.id: p for p in after}
    acc: dict[str, dict[str, float]] = defaultdict(Counter)
    for pair in before:
        chosen = labels[ids[(pair.context_id, pair.chosen_generator)]]
        rejected = labels[ids[(pair.context_id, pair.rejected_generator)]]
        row = acc[transition(pair, chosen, rejected)]
        aug = after_by_id.get(pair.id, pair)
        row["n"] += 1
        row["augmented"] += aug.augmented
        row["chosen_before"] += pair.chosen_tokens
        row["rejected_before"] += pair.rejected_tokens
        row["chosen_after"] += aug.chosen_tokens
        row["rejected_after"] += aug.rejected_tokens
    out = {}
    for key in sorted(acc):
        row = acc[key]
        n = row["n"]
        out[key] = {"n": int(n), "augmented": int(row["augmented"])} | {
            f"mean_{k}": row[k] / n
            for k in ("chosen_before", "rejected_before", "chosen_after", "rejected_after")
        }
    return out


def augmentation(meta: dict) -> dict[str, dict[str, int]]:
    """Per rewrite task, what the augment stage recorded (data/processed/pairs_aug/meta.json): pairs with a
    short side, left as they were for the length balance, rewritten, and kept original because every
    sampled rewrite failed its behaviour check or was dropped by re-judging."""
    outcomes = meta.get("outcomes", {})
    out: dict[str, dict[str, int]] = {}
    for key, count in outcomes.items():
        task, outcome = key.split(":")
        out.setdefault(task, {k: 0 for k in ("kept_for_balance", "rewritten", "failed_check", "dropped_by_judge")})
        if outcome in out[task]:
            out[task][outcome] += count
    for row in out.values():
        row["planned"] = sum(row.values())
    return dict(sorted(out.items()))


def pair_counts(pairs: Sequence[Pair]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {s: {d: 0 for d in PAIR_DIMENSIONS} for s in SPLITS}
    for p in pairs:
        counts[p.split][p.dimension] += 1
    for s in SPLITS:
        counts[s]["total"] = sum(counts[s][d] for d in PAIR_DIMENSIONS)
    return counts


# ------------------------------------------------------------------------------------ by language
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


def by_language(corpus: InterimData, labels: Mapping[str, Label], pairs: Sequence[Pair], params: Params,
                embeddings: Path | None) -> dict:
    """Per-language figures; recall@10 uses the contexts stage's retrievers (embeddings from its cache)."""
    qa_lang = qa_languages(corpus)
    return {
        "questions": dict(sorted(Counter(qa_lang.values()).items())),
        "labels": labels_by_language(corpus, labels, qa_lang),
        "pairs": pairs_by_language(pairs, qa_lang),
        "recall_at_10": gold_recall(list(corpus.passages.values()), list(corpus.qas.values()),
                                    params.contexts, embeddings),
    }


def render_languages(m: dict) -> list[str]:
    """The "By language" section of data.md."""
    behaviours = sorted({b for row in m["labels"].values() for b in row})
    langs = sorted(m["questions"])
    return [
        "## By language",
        "",
        "Language of a question: that of its question and reference answer. Labels of the primary judge:",
        "",
        table(["language", "questions", *behaviours],
              [[lang, m["questions"][lang], *(m["labels"].get(lang, {}).get(b, 0) for b in behaviours)]
               for lang in langs], cell=_fmt),
        "",
        table(["pairs: dimension", *langs], [[d, *(row[lang] for lang in langs)] for d, row in m["pairs"].items()], cell=_fmt),
        "",
        "Gold recall@10 over all passages (answerable questions; the contexts stage's BM25 and dense "
        "retrievers): low dense recall means the dense variants' distractors are close to random (a model "
        "that does not read a language can still score well by script alone when that language has few "
        "passages).",
        "",
        table(["language", "questions", "BM25", "dense"],
              [[lang, r["questions"], r["bm25"], r["dense"]] for lang, r in m["recall_at_10"].items()], cell=_fmt),
        "",
    ]


def judge_robustness(
    corpus: InterimData, judges: Sequence[tuple[str, Mapping[str, Label]]], params: Params, splits
):
    """Pairs rebuilt from each non-primary judge against the primary's: overall and on the test split."""
    (_primary_name, primary), others = judges[0], judges[1:]
    base, _ = decide(corpus.contexts, corpus.candidates, primary, params.pairs.variants)
    test = [p for p in base if splits.get(corpus.contexts[p.context_id].qa_id) == "test"]
    out = {}
    for name, labels in others:
        rebuilt, _ = decide(corpus.contexts, corpus.candidates, labels, params.pairs.variants)
        out[name] = {"overall": robustness(base, rebuilt), "test": robustness(test, rebuilt)}
    return out


# ------------------------------------------------------------------------------------- rendering
def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        # Small but non-zero shares (e.g. reversed pairs) must not print as 0.000.
        return f"{value:.1e}" if 0 < abs(value) < 5e-4 else f"{value:.3f}"
    return str(value)


def header_line(params: Params) -> str:
    if params.profile == "offline":
        return "offline default: synthetic decisions, extractive panel, rule judge"
    return (
        f"profile {params.profile}: generators {', '.join(params.generate.panel)}; "
        f"judges {', '.join(params.judge.judges)}; rewriter {params.augment.rewriter}"
    )


def render(m: dict[str, Any], params: Params) -> str:
    c = m["corpus"]
    out = [
        "# Data report",
        "",
        f"**What ran:** {header_line(params)}. Primary judge `{params.judge.judges[0]}` builds the pairs; "
        f"pair variants: {', '.join(params.pairs.variants)}.",
        "",
        *(render_skips(m["imports"]) if m.get("imports") else []),
        "## Corpus",
        "",
        table(
            ["item", "count"],
            [
                ["decisions", c["decisions"]],
                ["passages", c["passages"]],
                ["questions", c["questions"]],
                ["contexts", c["contexts"]],
                ["candidates", c["candidates"]],
            ],
            cell=_fmt,
        ),
        "",
        table(["decisions by case type", "count"], sorted(c["decisions_by_case_type"].items()), cell=_fmt),
        "",
        table(["questions by kind", "count"], sorted(c["questions_by_kind"].items()), cell=_fmt),
        "",
        table(["contexts by variant", "count"], sorted(c["contexts_by_variant"].items()), cell=_fmt),
        "",
        table(["candidates by generator", "count"], sorted(c["candidates_by_generator"].items()), cell=_fmt),
        "",
        "## Answer quality (primary judge)",
        "",
        "Answerable variants: ideal-answer rate (attempted, fully supported, correct and complete) and "
        "attempted rate. Unanswerable variants: correct-refusal rate (abstained).",
        "",
    ]
    rows = [
        [variant, who, s["n"], s.get("ideal_rate"), s.get("attempted_rate"), s.get("correct_refusal_rate")]
        for variant, by_who in m["quality"].items()
        for who, s in by_who.items()
    ]
    out += [table(["variant", "generator", "n", "ideal", "attempted", "correct refusal"], rows, cell=_fmt), ""]
    out += ["## Pairs by split and dimension", ""]
    pc = m["pairs"]["counts"]
    out += [
        table(
            ["split", *PAIR_DIMENSIONS, "total"],
            [[s, *(pc[s][d] for d in PAIR_DIMENSIONS), pc[s]["total"]] for s in SPLITS],
            cell=_fmt,
        ),
        "",
    ]
    skipped = m["pairs"]["skipped"]
    out += [
        "Not paired: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(skipped.items())) + ".",
        "",
        "## Length by transition (count_tokens units: words and marks in English; in Chinese about one per two characters of a word, one per digit and mark; before -> after augmentation)",
        "",
        table(
            [
                "transition",
                "pairs",
                "rewritten",
                "chosen before",
                "rejected before",
                "chosen after",
                "rejected after",
            ],
            [
                [
                    k,
                    v["n"],
                    v["augmented"],
                    v["mean_chosen_before"],
                    v["mean_rejected_before"],
                    v["mean_chosen_after"],
                    v["mean_rejected_after"],
                ]
                for k, v in m["length"].items()
            ],
            cell=_fmt,
        ),
        "",
        f"Rewrites by task ({params.augment.rewriter}; each rewrite re-judged by {params.judge.judges[0]}; a pair "
        "whose rewrites all fail keeps its original side):",
        "",
        table(
            ["task", "short side found", "left as is for the length balance", "rewritten", "failed the check",
             "dropped by re-judging"],
            [[k, v["planned"], v["kept_for_balance"], v["rewritten"], v["failed_check"], v["dropped_by_judge"]]
             for k, v in m["augmentation"].items()],
            cell=_fmt,
        ),
        "",
        "## Judges",
        "",
        table(
            ["judge", "labels", "unparseable"],
            [[j, v["labels"], v["unparseable"]] for j, v in m["judges"].items()],
            cell=_fmt,
        ),
        "",
    ]
    out += render_languages(m["by_language"])
    if m["agreement"]:
        out += [
            "Agreement over candidates every judge labelled on the dimension (raw = mean pairwise agreement, "
            "chance = sum of squared category shares):",
            "",
            table(
                ["dimension", "items", "raw", "chance", "Fleiss kappa"],
                [[d, v["items"], v["raw"], v["chance"], v["kappa"]] for d, v in m["agreement"].items()],
                cell=_fmt,
            ),
            "",
            "Robustness: the primary judge's pairs rebuilt from each other judge's labels (kept = same "
            "direction, reversed = swapped, lost = tie or skipped).",
            "",
            table(
                ["judge", "scope", "pairs", "kept", "reversed", "lost"],
                [
                    [j, scope, r["pairs"], r["kept"], r["reversed"], r["lost"]]
                    for j, v in m["robustness"].items()
                    for scope, r in v.items()
                ],
                cell=_fmt,
            ),
            "",
        ]
    else:
        out += ["Only one judge configured: no agreement or robustness figures.", ""]
    return "\n".join(out)


def import_skips(params: Params, root: Path = Path(".")) -> list[dict]:
    """The summary of every import that is on: the three import stages' files, and the outside pairs,
    which no data stage reads, checked here the way training reads them (train.external_pairs)."""
    out: list[dict] = []
    for path in SKIPPED:
        if (root / path).exists():
            out += json.loads((root / path).read_text(encoding="utf-8"))["imports"]
    external = params.train.external_pairs
    if external.format != "none":
        skips = Skips("train.external_pairs", external.on_invalid)
        try:
            read_outside_pairs(root / external.path, skips)
            out.append(skips.summary())
        except InputError as exc:  # under stop, training stops on it; the report says why rather than failing
            out.append(skips.summary() | {"error": str(exc)})
    return out


def render_skips(imports: list[dict]) -> list[str]:
    rows = []
    for summary in imports:
        if summary.get("error"):
            rows.append([summary["import"], summary["on_invalid"], "stops the import", "", summary["error"]])
        if not summary["by_reason"] and not summary.get("error"):
            rows.append([summary["import"], summary["on_invalid"], "none", 0, ""])
        for reason, n in summary["by_reason"].items():
            where = "; ".join(
                f"{f['file']}" + (f":{f['line']}" if f["line"] is not None else "") + (f" {f['path']}" if f["path"] else "")
                for f in summary["first"].get(reason, [])
            )
            rows.append([summary["import"], summary["on_invalid"], reason, n, where])
    return [
        "## Imported records left out (on_invalid)",
        "",
        "Invalid records an import left out under `on_invalid: skip`, by reason, with the first locations "
        "(file:line and JSON path); under `stop` the first one stops the stage.",
        "",
        table(["import", "on_invalid", "reason", "records", "first locations"], rows),
        "",
    ]


def _clean(obj: Any) -> Any:
    """NaN is not JSON: write null."""
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def headline_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    """Pairs per split, judge agreement (kappa) per dimension and gold recall@10 per language and
    retriever: the dozen numbers a study compares across experiments."""
    counts = metrics.get("pairs", {}).get("counts", {})
    return {
        "pairs": {split: counts[split]["total"] for split in SPLITS if split in counts},
        "kappa": {dim: round(a["kappa"], 4) for dim, a in sorted(metrics.get("agreement", {}).items())
                  if isinstance(a, dict) and isinstance(a.get("kappa"), float)},
        "recall_at_10": {lang: {k: round(v, 4) for k, v in r.items() if k in ("bm25", "dense") and v is not None}
                         for lang, r in sorted(metrics.get("by_language", {}).get("recall_at_10", {}).items())},
    }


def build_metrics(corpus: InterimData, decisions: Sequence[Decision], judges, pairs, pairs_aug, params,
                  augment_meta: dict | None = None, embeddings: Path | None = None) -> dict:
    from pipeline.preferences import assign_splits

    primary = judges[0][1]
    splits = assign_splits(corpus.qas, params.seed, (params.pairs.train, params.pairs.val, params.pairs.test))
    _, skipped = decide(corpus.contexts, corpus.candidates, primary, params.pairs.variants)
    return {
        "corpus": {
            "decisions": len(decisions),
            "passages": len(corpus.passages),
            "questions": len(corpus.qas),
            "contexts": len(corpus.contexts),
            "candidates": len(corpus.candidates),
            "decisions_by_case_type": dict(Counter(d.case_type for d in decisions)),
            "questions_by_kind": dict(Counter(q.kind for q in corpus.qas.values())),
            "contexts_by_variant": dict(Counter(c.variant for c in corpus.contexts.values())),
            "candidates_by_generator": dict(Counter(c.generator for c in corpus.candidates)),
        },
        "quality": answer_quality(corpus, primary),
        "pairs": {
            "counts": pair_counts(pairs),
            "augmented": sum(p.augmented for p in pairs_aug),
            "skipped": {k: v for k, v in skipped.items() if k.startswith(("skipped_", "candidates_"))},
        },
        "length": lengths_by_transition(pairs, pairs_aug, corpus, primary),
        "augmentation": augmentation(augment_meta or {}),
        "judges": {
            name: {"labels": len(lab), "unparseable": sum(v.status != "ok" for v in lab.values())}
            for name, lab in judges
        },
        "agreement": agreement([lab for _, lab in judges]),
        "robustness": judge_robustness(corpus, judges, params, splits) if len(judges) > 1 else {},
        "by_language": by_language(corpus, primary, pairs, params, embeddings),
    }


def main(argv: list[str] | None = None) -> None:
    _, params = start(__doc__, argv)
    started = time.perf_counter()
    decisions = read_records("data/raw/decisions.jsonl", Decision)
    corpus = load_interim()
    judges = [
        (j, load_labels(INTERIM / "labels" / file_name(j), corpus.candidates)) for j in params.judge.judges
    ]
    pairs = [p for s in SPLITS for p in read_records(PROCESSED / "pairs" / f"{s}.jsonl", Pair)]
    pairs_aug = [p for s in SPLITS for p in read_records(PROCESSED / "pairs_aug" / f"{s}.jsonl", Pair)]
    meta_path = PROCESSED / "pairs_aug" / "meta.json"
    augment_meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
    metrics = build_metrics(corpus, decisions, judges, pairs, pairs_aug, params, augment_meta, EMBEDDINGS)
    imports = import_skips(params)
    if imports:  # only when an import is on: the default's report stays as it was
        metrics["imports"] = imports
    metrics = _clean(metrics)
    write_json(REPORTS / "data_details.json", metrics)
    write_json(REPORTS / "data_metrics.json", headline_metrics(metrics))
    write_text(REPORTS / "data.md", render(metrics, params) + "\n")
    print(
        f"data_report: {len(pairs)} pairs, {metrics['pairs']['augmented']} rewritten, "
        f"{len(judges)} judges -> reports/data.md ({time.perf_counter() - started:.1f}s)"
    )


if __name__ == "__main__":
    run(main)
