"""Best-of-n (the rerank stage): on every test context each system picks one of the panel's answers; how often
is the pick an ideal answer? Numbers only; pipeline/reward/bestofn_render.py writes them out.

An answer is ideal, by the primary judge's label: on an answerable context attempted, fully supported,
correct and complete (pipeline.reporting.data_analysis.ideal, the data report's ideal-answer rate); on an
unanswerable one abstained. An unparseable label is never ideal. The systems:

- each reward model under each scoring it gives: the answer with the highest reward;
- random: the expected share of a uniform pick (the context's share of ideal answers);
- each generator of the panel alone: its own answer (on the contexts it answered);
- passage-blind: the rule of pipeline/reporting/baselines.py over n answers (a refusal wins, then the
  longer answer, in the base model's tokens), the shortcut a reward model could learn without reading;
- oracle: an ideal answer whenever the context has one (the ceiling of any picker).

Equal top scores are broken by a seeded order of the candidates (`seed`, context, candidate), never by
their position in the file; the ties counted are those that decided whether the pick was ideal. Every system is compared with random on the same contexts: the difference
of the shares with a paired bootstrap interval, and an exact test (pipeline.stats.chance_test: under the
null each pick is ideal with its context's chance), Holm-adjusted over the systems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeline import stats
from pipeline.records import Candidate, Context, Label
from pipeline.reporting.data_analysis import ideal as ideal_answer
from pipeline.text import stable_hash

RANDOM, ORACLE, BLIND = "random", "oracle", "passage_blind"


def is_ideal(label: Label, answerable: bool) -> bool:
    if answerable:
        return ideal_answer(label)
    return label.status == "ok" and label.behaviour == "abstained"


@dataclass
class Reranked:
    """One test context and its panel's answers (candidates in id order) with what each system needs."""

    context: Context
    language: str
    candidates: list[Candidate]
    ideal: np.ndarray  # bool per candidate
    refusal: np.ndarray  # bool per candidate (the passage-blind rule's refusal test)
    tokens: np.ndarray  # base-model tokens per candidate
    rewards: dict[str, np.ndarray]  # "<model>/<scoring>" -> reward per candidate
    order: np.ndarray  # the seeded tie-break rank per candidate (lower wins a tie)

    @classmethod
    def of(cls, context: Context, language: str, candidates: Sequence[Candidate], labels: Mapping[str, Label],
           refusal: Callable[[str], bool], tokens: Sequence[int], rewards: Mapping[str, Sequence[float]],
           seed: int) -> Reranked:
        ideal = np.array([is_ideal(labels[c.id], context.answerable) for c in candidates], dtype=bool)
        ties = [stable_hash(seed, "rerank", context.id, c.id) for c in candidates]
        order = np.argsort(np.argsort(ties, kind="stable"), kind="stable")
        return cls(context, language, list(candidates), ideal, np.array([refusal(c.text) for c in candidates]),
                   np.asarray(tokens), {k: np.asarray(v, dtype=np.float64) for k, v in rewards.items()}, order)

    def pick(self, keys: np.ndarray) -> tuple[int, bool]:
        """The candidate with the highest key (the seeded order among equals), and whether the seeded order
        decided the outcome: a tie between answers of which some are ideal and some not. (Equal texts, such
        as two generators' identical refusals, tie on every score and share their label.)"""
        best = keys.max()
        tied = np.flatnonzero(keys == best)
        return int(tied[np.argmin(self.order[tied])]), len(set(self.ideal[tied].tolist())) > 1

    def picks(self, generators: Sequence[str]) -> dict[str, tuple[float, int | None, bool]]:
        """System -> (value of its pick: 1/0, or the expected share for random; the candidate index or
        None; whether a tie decided it). A generator with no answer here is absent."""
        out: dict[str, tuple[float, int | None, bool]] = {
            RANDOM: (float(self.ideal.mean()), None, False),
            ORACLE: (float(self.ideal.any()), int(np.argmax(self.ideal)) if self.ideal.any() else None, False),
        }
        blind, tie = self.pick(self.refusal.astype(np.float64) * (1 + self.tokens.max()) + self.tokens)
        out[BLIND] = (float(self.ideal[blind]), blind, tie)
        by_generator = {c.generator: k for k, c in enumerate(self.candidates)}
        for g in generators:
            if g in by_generator:
                out[f"generator:{g}"] = (float(self.ideal[by_generator[g]]), by_generator[g], False)
        for name, rewards in self.rewards.items():
            k, tie = self.pick(rewards)
            out[name] = (float(self.ideal[k]), k, tie)
        return out


def summary(values: np.ndarray, chance: np.ndarray, binary: bool, resamples: int, seed: int) -> dict[str, Any]:
    """Share of ideal picks with its Wilson interval, and against random on the same contexts: the
    difference, its paired bootstrap interval and the exact chance test (binary picks only)."""
    n = int(values.size)
    if n == 0:
        return {"n": 0}
    share = float(values.mean())
    wilson = stats.wilson_interval(float(values.sum()), n)  # type: ignore[arg-type]  # random's sum is fractional
    diff = stats.paired_difference_interval(chance, values, resamples, seed)
    return {
        "n": n, "share": share, "ci95": [wilson.low, wilson.high], "random": float(chance.mean()),
        "vs_random": share - float(chance.mean()), "vs_random_ci95": [diff.low, diff.high],
        "p_vs_random": stats.chance_test(values.astype(bool), chance) if binary else None,
    }


def analyse(reranked: Sequence[Reranked], generators: Sequence[str], systems: Sequence[str], resamples: int,
            seed: int) -> dict[str, Any]:
    """Per system: overall, per variant and per language; ties broken; Holm-adjusted p over the systems
    (overall, random excluded)."""
    picks = [r.picks(generators) for r in reranked]
    groups: dict[str, dict[str, list[int]]] = {"all": {"all": list(range(len(reranked)))}, "variant": {},
                                               "language": {}}
    for i, r in enumerate(reranked):
        groups["variant"].setdefault(r.context.variant, []).append(i)
        groups["language"].setdefault(r.language, []).append(i)
    out: dict[str, Any] = {}
    for system in systems:
        binary = system != RANDOM
        entry: dict[str, Any] = {}
        for kind, members in groups.items():
            for group, idx in sorted(members.items()):
                here = [i for i in idx if system in picks[i]]
                values = np.array([picks[i][system][0] for i in here], dtype=np.float64)
                chance = np.array([picks[i][RANDOM][0] for i in here], dtype=np.float64)
                result = summary(values, chance, binary, resamples, seed)
                if kind == "all":
                    entry.update(result)
                    entry["ties"] = sum(picks[i][system][2] for i in here)
                else:
                    entry.setdefault(f"by_{kind}", {})[group] = result
        out[system] = entry
    tested = [s for s in systems if out[s].get("p_vs_random") is not None]
    for system, adjusted in zip(tested, stats.holm([out[s]["p_vs_random"] for s in tested]), strict=True):
        out[system]["p_vs_random_holm"] = adjusted
    return out


def pick_records(reranked: Sequence[Reranked], generators: Sequence[str]) -> list[dict[str, Any]]:
    """One record per context: its answers (generator, text, ideal, refusal, tokens), every model's rewards and
    every system's pick (a candidate index; random has none)."""
    out = []
    for r in reranked:
        picks = r.picks(generators)
        out.append({
            "context_id": r.context.id, "variant": r.context.variant, "answerable": r.context.answerable,
            "language": r.language,
            "candidates": [{"id": c.id, "generator": c.generator, "text": c.text, "ideal": bool(r.ideal[k]),
                            "refusal": bool(r.refusal[k]), "tokens": int(r.tokens[k])}
                           for k, c in enumerate(r.candidates)],
            "rewards": {name: [float(v) for v in values] for name, values in sorted(r.rewards.items())},
            "picks": {name: k for name, (_, k, _) in sorted(picks.items()) if name != RANDOM},
        })
    return out
