"""RewardModel: a loaded adapter (or base) that scores items (pipeline/reward/items.py).

    from pipeline.reward import RewardModel, Item
    rm = RewardModel.load("models/adapters/dpo-pairs_aug-s0")          # params.yaml for the settings
    scored = rm.score([item, ...])                                     # one Scored per item
    scored[0].rewards(rm.scoring)                                      # one reward per response

An item becomes tokens as a pair does for the score stage: the prompt by pipeline/prompts.py, rendered with
the model's chat template, each response followed by EOS (pipeline/models/prompting.py), fitted into
score.max_length by pipeline/models/fitting.py; reward.overlong says what happens to an item that does not
fit. The scoring itself is pipeline/reward/engine.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.models.fitting import FittedItem, fit_item, token_ids
from pipeline.models.prompting import render_prompt
from pipeline.params import Params
from pipeline.params import load as load_params
from pipeline.reward.engine import BASE, PLAIN_SCORINGS, REF_SCORINGS, score_models, scorings, trunk_split
from pipeline.reward.items import FieldError, Item
from pipeline.reward.loading import Loaded, load_reward_model
from pipeline.scoring.encode import EncodedItem


class ScoringError(ValueError):
    """A scoring the model cannot give (ref_* of a base model, or an unknown name)."""


class ItemError(ValueError):
    """Item `index` of a batch cannot be scored: FieldError's field and message, and where it is."""

    def __init__(self, index: int, error: FieldError):
        super().__init__(f"item {index}: {error}")
        self.index, self.field, self.message = index, error.field, error.message


@dataclass(frozen=True)
class Settings:
    """What scoring reads from params (pipeline/params.py RewardParams and the score stage's keys)."""

    refusals: Mapping[str, str]
    max_length: int
    batch_tokens: int
    overlong: str
    scoring: str
    base_scoring: str
    chunk_items: int
    max_responses: int

    @classmethod
    def of(cls, params: Params) -> Settings:
        r = params.reward
        return cls(params.generate.refusal_by_language(), params.score.max_length, params.score.batch_tokens,
                   r.overlong, r.scoring, r.base_scoring, r.chunk_items, r.max_responses)


@dataclass(frozen=True)
class Scored:
    """One item's scores: per scoring, one number per response (in the item's order)."""

    id: str
    scores: dict[str, list[float]]
    tokens: list[int]
    passages_used: int
    passages_dropped: int

    def rewards(self, scoring: str) -> list[float]:
        return self.scores[scoring]


class RewardModel:
    def __init__(self, loaded: Loaded, settings: Settings):
        self.loaded, self.settings = loaded, settings
        self.model, self.tokenizer = loaded.model, loaded.tokenizer
        self.split = trunk_split([loaded.folder]) if loaded.adapter else 0

    @classmethod
    def load(cls, folder: str | Path, params: Params | str | Path = "params.yaml", base: str | Path | None = None,
             device: str | None = None) -> RewardModel:
        settings = Settings.of(params if isinstance(params, Params) else load_params(params))
        return cls(load_reward_model(folder, base, device), settings)

    @property
    def name(self) -> str:
        return self.loaded.name

    @property
    def scorings(self) -> tuple[str, ...]:
        """What this model can give: sum and mean, and ref_sum and ref_mean for an adapter."""
        return PLAIN_SCORINGS + (REF_SCORINGS if self.loaded.adapter else ())

    @property
    def scoring(self) -> str:
        """The reward it gives by default: reward.scoring for an adapter, reward.base_scoring for a base."""
        return self.settings.scoring if self.loaded.adapter else self.settings.base_scoring

    def check_scoring(self, scoring: str) -> str:
        if scoring not in self.scorings:
            raise ScoringError(f"scoring {scoring!r}: {self.name} gives {', '.join(self.scorings)}"
                             + ("" if self.loaded.adapter else " (a base model has no reference for ref_*)"))
        return scoring

    # ------------------------------------------------------------------------------------------ tokens
    def fit(self, item: Item) -> FittedItem:
        """The item's tokens; under reward.overlong "error" an item that does not fit is a FieldError."""
        prompt, spans = item.prompt(self.settings.refusals)
        policy = "drop_distractors" if self.settings.overlong == "drop_distractors" else "drop"
        fitted = fit_item(self.tokenizer, prompt, item.responses, self.settings.max_length, policy, spans, item.gold)
        if fitted.fits:
            return fitted
        longest = max(range(len(fitted.responses)), key=lambda k: len(fitted.responses[k]))
        width = len(fitted.responses[longest])
        if width >= self.settings.max_length:
            raise FieldError(f"responses[{longest}]", f"{width} tokens, not below score.max_length "
                                                      f"{self.settings.max_length}")
        prompt_tokens = len(token_ids(self.tokenizer, render_prompt(self.tokenizer, prompt)))
        how = ("even with one passage left" if self.settings.overlong == "drop_distractors"
               else "(reward.overlong drop_distractors drops passages, last first, until it fits)")
        raise FieldError("passages", f"the prompt of {prompt_tokens} tokens and the longest response of {width} "
                                     f"exceed score.max_length {self.settings.max_length} {how}")

    def encode(self, items: Sequence[Item]) -> list[FittedItem]:
        """Every item fitted, or ItemError naming the first that cannot be (nothing is scored then)."""
        out = []
        for index, item in enumerate(items):
            try:
                out.append(self.fit(item))
            except FieldError as exc:
                raise ItemError(index, exc) from None
        return out

    # ------------------------------------------------------------------------------------------ scores
    def score(self, items: Sequence[Item], progress: Callable[[int], Any] | None = None) -> list[Scored]:
        """Every scoring of every response of every item (ItemError before any scoring if one is bad)."""
        fitted = self.encode(items)
        return self.score_fitted(items, fitted, progress)

    def score_fitted(self, items: Sequence[Item], fitted: Sequence[FittedItem],
                     progress: Callable[[int], Any] | None = None) -> list[Scored]:
        adapters = [self.loaded.adapter] if self.loaded.adapter else []
        out: list[Scored] = []
        step = self.settings.chunk_items
        for start in range(0, len(items), step):
            chunk = [EncodedItem(f.prompt, f.responses) for f in fitted[start:start + step]]  # type: ignore[arg-type]
            rows = score_models(self.model, adapters, chunk, self.settings.batch_tokens, self.split)
            mine = rows[adapters[0]] if adapters else rows[BASE]
            by_scoring = scorings(mine, rows[BASE] if adapters else None)
            for k, f in enumerate(fitted[start:start + step]):
                span = mine.item(k)
                out.append(Scored(items[start + k].id, {s: _floats(v[span]) for s, v in by_scoring.items()},
                                  [int(t) for t in mine.counts[span]], f.passages_in - f.passages_dropped,
                                  f.passages_dropped))
            if progress:
                progress(len(chunk))
        return out

    def rewards(self, items: Sequence[Item], scoring: str | None = None) -> list[list[float]]:
        """One reward per response of each item, under `scoring` (default: the model's)."""
        scoring = self.check_scoring(scoring or self.scoring)
        return [s.rewards(scoring) for s in self.score(items)]


def _floats(values: np.ndarray) -> list[float]:
    return [float(v) for v in values]


def ranking(rewards: Sequence[float]) -> list[int]:
    """Response indices best first; equal rewards keep the item's order (the first listed wins a tie)."""
    return sorted(range(len(rewards)), key=lambda k: (-rewards[k], k))
