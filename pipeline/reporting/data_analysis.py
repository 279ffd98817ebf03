"""The numbers of the data report, from records already read: corpus counts, answer quality by variant and
generator, pair counts, length by transition before and after augmentation, the augment stage's rewrite
outcomes, judge agreement and robustness. No files, no rendering (pipeline.reporting.data_render)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.agreement import agreement
from pipeline.judges.inputs import InterimData
from pipeline.params import Params
from pipeline.preferences import assign_splits, decide, robustness
from pipeline.records import PAIR_DIMENSIONS, SPLITS, Decision, Label, Pair
from pipeline.reporting.data_hierarchy import hierarchy_counts
from pipeline.reporting.data_languages import by_language
from pipeline.reporting.data_parties import party_clashes
from pipeline.reporting.transitions import transition


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


def judge_robustness(
    corpus: InterimData, judges: Sequence[tuple[str, Mapping[str, Label]]], params: Params, splits
):
    """Pairs rebuilt from each non-primary judge against the primary's: overall and on the test split."""
    (_primary_name, primary), others = judges[0], judges[1:]
    base, _ = decide(corpus.contexts, corpus.candidates, primary, params.pairs.variants, params.pairs.hierarchy)
    test = [p for p in base if splits.get(corpus.contexts[p.context_id].qa_id) == "test"]
    out = {}
    for name, labels in others:
        rebuilt, _ = decide(corpus.contexts, corpus.candidates, labels, params.pairs.variants, params.pairs.hierarchy)
        out[name] = {"overall": robustness(base, rebuilt), "test": robustness(test, rebuilt)}
    return out


def build_metrics(corpus: InterimData, decisions: Sequence[Decision], judges, pairs, pairs_aug, params,
                  augment_meta: dict | None = None, embeddings: Path | None = None,
                  context_stats: dict | None = None) -> dict:
    """Every number of reports/data_details.json but the import summaries and the data sources (the stage
    adds those). `context_stats`: the contexts stage's language counts (its cross-language fill-ins)."""
    primary = judges[0][1]
    splits = assign_splits(corpus.qas, params.seed, (params.pairs.train, params.pairs.val, params.pairs.test))
    _, skipped = decide(corpus.contexts, corpus.candidates, primary, params.pairs.variants, params.pairs.hierarchy)
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
        "by_language": by_language(corpus, decisions, primary, pairs, params, embeddings, context_stats),
        "party_clashes": party_clashes(corpus, decisions, params, context_stats),
        "hierarchies": hierarchy_counts(corpus, primary, params),
    }


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


def without_nan(obj: Any) -> Any:
    """NaN is not JSON: write null."""
    if isinstance(obj, dict):
        return {k: without_nan(v) for k, v in obj.items()}
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj
