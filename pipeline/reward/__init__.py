"""A trained reward model in use (docs/reward.md): score, rank and serve answers the pipeline did not make.

- items: what is scored (question, passages, responses), the schema the command and the server share.
- loading: an adapter folder with the base it names, or a base folder.
- engine: base and adapters over the shared prompt, shared trunk and fused kernel (the score stage's way).
- model: RewardModel, the Python API (tokens as training saw them; sum, mean, ref_sum, ref_mean).
- cli: `python -m pipeline.reward score|rank|serve`.
- server: FastAPI app, POST /v1/score and GET /health, requests batched together.
- rl: a reward function with TRL's `reward_funcs` signature (GRPO and friends).
- bestofn: the numbers of the rerank stage (best-of-n picks against chance, generators, rules, oracle).
- bench: `python -m pipeline.reward.bench` -> reports/bench/reward.json.
"""

from pipeline.reward.items import FieldError, Item, parse_item
from pipeline.reward.model import RewardModel, Scored, ranking

__all__ = ["FieldError", "Item", "RewardModel", "Scored", "parse_item", "ranking"]
