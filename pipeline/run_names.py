"""The names of reward-model runs: `<objective>-<corpus>-s<seed>`, e.g. dpo-pairs_aug-s1.

train.runs groups the runs by objective ({dpo: [pairs-s0, ...]}), each entry `<corpus>-s<seed>`; a run's
name puts its objective in front. The name is the adapter's folder, the train stage's foreach key and the
report's row, so it is parsed here, once: the train stage records objective, corpus and seed in
train_meta.json, where the report reads them back instead of parsing again.

A corpus is one part or several joined by "+" (pairs_aug+external trains on both).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.typed import shown

OBJECTIVES = ("dpo", "sft")
CORPUS_PARTS = ("pairs", "pairs_aug", "pairs_grounded", "external")
# One spelling per seed: s0, s7, s12 (not s00 or s07, which would name the same adapter folder).
_NAME = re.compile(r"^(?P<objective>[a-z]+)-(?P<corpus>[a-z_+]+)-s(?P<seed>0|[1-9][0-9]*)$")
MAX_SEED = 2**32 - 1  # numpy and torch take seeds below 2**32


@dataclass(frozen=True)
class RunSpec:
    objective: str
    corpus: str
    seed: int

    @property
    def name(self) -> str:
        return f"{self.objective}-{self.corpus}-s{self.seed}"


def names_of(runs: Mapping[str, Sequence[str]]) -> list[str]:
    """Every run of a train.runs mapping by name, objectives in OBJECTIVES order."""
    return [f"{objective}-{entry}" for objective in OBJECTIVES for entry in runs.get(objective, ())]


def parse_run(name: str) -> RunSpec:
    """The run a name stands for; ValueError naming what is wrong."""
    match = _NAME.match(name)
    if not match:
        raise ValueError(f"run {shown(name)} is not <objective>-<corpus>-s<seed> (e.g. dpo-pairs_aug-s0; the seed "
                         "without leading zeros)")
    if int(match["seed"]) > MAX_SEED:
        raise ValueError(f"run {shown(name)}: seed {match['seed']} is out of range (allowed: 0 to {MAX_SEED})")
    if match["objective"] not in OBJECTIVES:
        raise ValueError(f"run {shown(name)}: unknown objective {shown(match['objective'])} (known: {', '.join(OBJECTIVES)})")
    parts = match["corpus"].split("+")
    for i, part in enumerate(parts):
        if part not in CORPUS_PARTS:
            raise ValueError(f"run {shown(name)}: unknown corpus part {shown(part)} (known: {', '.join(CORPUS_PARTS)})")
        if part in parts[:i]:
            raise ValueError(f"run {shown(name)}: corpus part {shown(part)} is named twice (it would train on those "
                             "pairs twice; each part once)")
    return RunSpec(match["objective"], match["corpus"], int(match["seed"]))
