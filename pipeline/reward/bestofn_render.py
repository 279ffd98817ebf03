"""reports/rerank.md from the rerank stage's numbers (pipeline/reward/bestofn.py analyse); no computation here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.reward.bestofn import BLIND, ORACLE, RANDOM


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def _num(x: float | None, digits: int = 3, sign: bool = False) -> str:
    return "--" if x is None else f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _p(x: float | None) -> str:
    return "--" if x is None else f"{x:.3g}"


def label(system: str) -> str:
    return {RANDOM: "random pick (expected)", ORACLE: "oracle", BLIND: "passage-blind rule"}.get(system, system)


def overall_rows(systems: Sequence[str], res: dict[str, Any]) -> list[list[str]]:
    rows = []
    for s in systems:
        r = res[s]
        if not r.get("n"):
            continue
        rows.append([f"`{label(s)}`", r["n"], _num(r["share"]), f"[{_num(r['ci95'][0])}, {_num(r['ci95'][1])}]",
                     "--" if s == RANDOM else _num(r["vs_random"], sign=True),
                     "--" if s == RANDOM else f"[{_num(r['vs_random_ci95'][0], sign=True)}, "
                                              f"{_num(r['vs_random_ci95'][1], sign=True)}]",
                     _p(r.get("p_vs_random")), _p(r.get("p_vs_random_holm")), r.get("ties", 0)])
    return rows


def group_table(systems: Sequence[str], res: dict[str, Any], kind: str, groups: Sequence[str]) -> str:
    rows = []
    for s in systems:
        by = res[s].get(f"by_{kind}", {})
        rows.append([f"`{label(s)}`"] + [f"{_num(by[g]['share'])} ({by[g]['n']})" if by.get(g, {}).get("n") else "--"
                                         for g in groups])
    return table(["system", *groups], rows)


def render(details: dict[str, Any]) -> str:
    res, systems = details["systems"], details["order"]
    c = details["contexts"]
    variants = list(details["variants"])
    low, high = c["answers_min"], c["answers_max"]
    answers = str(low) if low == high else f"{low} to {high}"
    available = c.get("available", c["scored"])
    which = (f"a seeded sample of {c['cap']} of the {available} `{details['split']}` contexts "
             "(reward.rerank_max_contexts, a cap for the CPU budget)" if c.get("cap") and available > c["cap"]
             else f"every `{details['split']}` context")
    out = [
        "# Best-of-n: do the reward models pick better answers?",
        "",
        f"**What ran:** profile `{details['profile']}`; {which} of the paired variants "
        f"({', '.join(variants)}): {c['scored']} contexts with {answers} answers each "
        f"(panel: {', '.join(f'`{g}`' for g in details['generators'])}). Each system picks one answer per "
        f"context; a pick is ideal by the primary judge `{details['judge']}`: on an answerable context attempted, "
        "fully supported, correct and complete; on an unanswerable one abstained. A reward model picks the "
        "answer it gives the highest reward, under each scoring (docs/method.md §9); the prompt is the one it was "
        "trained and scored on.",
        "",
        f"Where every answer or none is ideal, every picker scores the same: {c['decisive']} of the {c['scored']} "
        f"contexts ({c['decisive'] / c['scored']:.0%}) have both ideal and other answers, and only those can "
        "separate a good picker from a bad one.",
        "",
        "## Overall",
        "",
        table(["system", "contexts", "ideal picks", "95% CI (Wilson)", "vs random", "95% CI (paired bootstrap)",
               "p (exact, vs random)", "p (Holm)", "ties that decided"], overall_rows(systems, res)),
        "",
        "Random is the expected share of a uniform pick (each context's share of ideal answers); the oracle picks "
        "an ideal answer whenever there is one. A generator's row covers the contexts it answered. The passage-"
        "blind rule never reads the passages: a refusal wins, then the longer answer. The exact test asks "
        "whether a system's picks could come from picking at random, context by context (Poisson binomial; "
        "Holm-adjusted over the systems); the interval is a paired bootstrap of (share - random) over contexts "
        f"({details['resamples']} resamples, seed {details['bootstrap_seed']}).",
        "",
        "## Per variant",
        "",
        "Share of ideal picks (contexts):",
        "",
        group_table(systems, res, "variant", variants),
        "",
    ]
    if len(details["languages"]) > 1:
        out += ["## Per language", "", group_table(systems, res, "language", details["languages"]), ""]
    fit = details["fit"]
    out += [
        "## Notes",
        "",
        f"- Prompts over score.max_length ({details['max_length']} tokens) lose whole distractor passages, never "
        f"the gold one (train.overlong `{details['overlong']}`): {fit['refit']} contexts refit "
        f"({fit['passages_dropped']} passages dropped), {fit['left_out']} left out.",
        f"- Equal top rewards are broken by a seeded order of the answers (`seed` {details['seed']}); the last "
        "column of the first table counts the contexts where that order decided whether the pick was ideal (a tie "
        "between an ideal answer and another; identical answers, such as two generators' refusal sentence, tie on "
        f"every score and share their label). Every context's answers, rewards and picks: {details['picks_file']}.",
        "",
    ]
    return "\n".join(out)
