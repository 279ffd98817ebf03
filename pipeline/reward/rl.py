"""A trained reward model as the reward of an RL run: a callable with TRL's `reward_funcs` signature.

    from trl import GRPOConfig, GRPOTrainer
    from pipeline.reward.rl import reward_function
    reward = reward_function("models/adapters/dpo-pairs_aug-s0")     # params.yaml for the settings
    GRPOTrainer(model=policy, reward_funcs=[reward], train_dataset=data, args=GRPOConfig(...)).train()

The dataset carries, beside TRL's "prompt" (what the policy sees), the columns "question" and "passages"
(and optionally "gold") of the item schema (pipeline/reward/items.py); TRL hands every column to the reward
function, one entry per completion. The reward model then scores each completion as an answer to that
question from those passages, under the very prompt it was trained on, whatever prompt the policy was
shown. The completions of one prompt (GRPO's group) are scored as one item: their prompt runs once. A
completion that cannot fit score.max_length gets None (TRL records it as NaN and leaves it out).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.params import Params
from pipeline.reward.items import FieldError, parse_item
from pipeline.reward.model import RewardModel

log = logging.getLogger(__name__)


def completion_text(completion: Any) -> str:
    """A completion as TRL passes it: a string, or (conversational) a list of messages, the answer last."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content", "")
        if isinstance(content, list):  # multimodal-style parts: keep the text ones
            return "".join(part.get("text", "") for part in content if isinstance(part, dict))
        return str(content)
    raise TypeError(f"a completion must be a string or a list of messages, got {type(completion).__name__}")


class RewardFunction:
    """reward(prompts, completions, question=[...], passages=[...], gold=[...], **other) -> list of rewards."""

    def __init__(self, rm: RewardModel, scoring: str | None = None):
        self.rm = rm
        self.scoring = rm.check_scoring(scoring or rm.scoring)
        # TRL names a reward function's logged metrics by its __name__ (rewards/<name>/mean).
        self.__name__ = f"reward_{rm.name}"
        self.unfit = 0

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], question: Sequence[str] | None = None,
                 passages: Sequence[Any] | None = None, gold: Sequence[int | None] | None = None,
                 **columns: Any) -> list[float | None]:
        if question is None or passages is None:
            raise ValueError(f"{self.__name__}: the dataset needs the columns 'question' and 'passages' (the item "
                             "schema of pipeline/reward/items.py); TRL passes every column to the reward function")
        texts = [completion_text(c) for c in completions]
        groups: dict[str, list[int]] = {}
        for i in range(len(texts)):
            key = json.dumps([question[i], passages[i], gold[i] if gold is not None else None], ensure_ascii=False)
            groups.setdefault(key, []).append(i)
        items, members = [], []
        for k, (key, idx) in enumerate(groups.items()):
            q, shown, g = json.loads(key)
            obj = {"id": f"group-{k}", "question": q, "passages": shown, "responses": [texts[i] for i in idx],
                   **({"gold": g} if g is not None else {})}
            items.append(parse_item(obj, obj["id"], max(len(idx), self.rm.settings.max_responses)))
            members.append(idx)
        rewards: list[float | None] = [None] * len(texts)
        fitted, kept = [], []
        for item, idx in zip(items, members, strict=True):
            try:
                fitted.append(self.rm.fit(item))
                kept.append((item, idx))
            except FieldError as exc:
                self.unfit += len(idx)
                log.warning("%s: %d completions left unscored (%s)", self.__name__, len(idx), exc.field)
        scored = self.rm.score_fitted([item for item, _ in kept], fitted) if kept else []
        for (_, idx), result in zip(kept, scored, strict=True):
            for i, value in zip(idx, result.rewards(self.scoring), strict=True):
                rewards[i] = value
        return rewards


def reward_function(model: str | Path | RewardModel, params: Params | str | Path = "params.yaml",
                    scoring: str | None = None, base: str | Path | None = None,
                    device: str | None = None) -> RewardFunction:
    """The reward function of an adapter (or base) folder, or of a loaded RewardModel."""
    rm = model if isinstance(model, RewardModel) else RewardModel.load(model, params, base, device)
    return RewardFunction(rm, scoring)
