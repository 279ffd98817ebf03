"""What a change of the judge did to the labels and the pairs, on the same candidates.

    python scripts/label_changes.py --old old/rule-strict.jsonl --new data/interim/labels/rule-strict.jsonl \
        --out reports/label_changes.md

Both label files must label the candidates of data/interim (run from the profile's folder). For each label
dimension: how many labels changed, and from what to what; for the pairs the primary judge builds
(pipeline.preferences.decide on pairs.variants): per dimension of the old pair, how many kept their
direction, reversed or were dropped, and per dimension how many pairs are new. To label the same candidates
with the old judge, run the judge stage of the old commit on this profile's data/interim (a git worktree).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from pipeline.io import write_text
from pipeline.judges.inputs import load_interim, load_labels
from pipeline.params import load
from pipeline.preferences import Preference, decide
from pipeline.records import LABEL_DIMENSIONS, PAIR_DIMENSIONS
from pipeline.reporting.markdown import table


def label_changes(old: dict, new: dict) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for dim in LABEL_DIMENSIONS:
        out[dim] = Counter((getattr(old[c], dim), getattr(new[c], dim)) for c in old
                           if getattr(old[c], dim) != getattr(new[c], dim))
    return out


def pair_changes(old: list[Preference], new: list[Preference]) -> dict[str, Counter]:
    """Per dimension: kept / reversed / dropped (of the old pairs, by their old dimension) and new (pairs
    the new labels make that the old did not, by their new dimension)."""
    new_by_pair = {frozenset((p.chosen, p.rejected)): p for p in new}
    old_pairs = {frozenset((p.chosen, p.rejected)) for p in old}
    out: dict[str, Counter] = {d: Counter() for d in PAIR_DIMENSIONS}
    for p in old:
        match = new_by_pair.get(frozenset((p.chosen, p.rejected)))
        fate = "dropped" if match is None else "kept" if match.chosen == p.chosen else "reversed"
        out[p.dimension][fate] += 1
        if match is not None and fate == "kept" and match.dimension != p.dimension:
            out[p.dimension]["kept, decided elsewhere"] += 1
    for key, p in new_by_pair.items():
        if key not in old_pairs:
            out[p.dimension]["new"] += 1
    return out


def render(labels: dict[str, Counter], pairs: dict[str, Counter], n_candidates: int, n_old: int, n_new: int,
           title: str) -> str:
    lines = [f"# {title}", "", f"{n_candidates} candidates; pairs before: {n_old}, after: {n_new}.", "",
             "## Labels that changed, by dimension", ""]
    rows = [[dim, sum(c.values()), "; ".join(f"{a} -> {b}: {n}" for (a, b), n in c.most_common(8))]
            for dim, c in labels.items()]
    lines += [table(["dimension", "changed", "most frequent changes"], rows), "",
              "## Pairs, by the dimension that decided them", "",
              "kept / reversed / dropped: the pairs the old labels made; new: pairs only the new labels make.", ""]
    fates = ("kept", "kept, decided elsewhere", "reversed", "dropped", "new")
    lines += [table(["dimension", *fates], [[d, *(pairs[d][f] for f in fates)] for d in PAIR_DIMENSIONS]), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, required=True)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--title", default="Label changes")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    params = load(args.params)
    corpus = load_interim()
    old, new = load_labels(args.old, corpus.candidates), load_labels(args.new, corpus.candidates)
    old_prefs, _ = decide(corpus.contexts, corpus.candidates, old, params.pairs.variants)
    new_prefs, _ = decide(corpus.contexts, corpus.candidates, new, params.pairs.variants)
    text = render(label_changes(old, new), pair_changes(old_prefs, new_prefs), len(corpus.candidates),
                  len(old_prefs), len(new_prefs), args.title)
    write_text(args.out, text + "\n")
    print(f"label_changes: {len(old_prefs)} -> {len(new_prefs)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
