"""Pair scoring: sum and mean log-prob of each response given the prompt (docs/method.md §9); the registry
derives the reference-relative ref_sum / ref_mean from the base model's pass.

- encode: token ids of (prompt, chosen, rejected) with the chat template, fitted to max_length by
  dropping whole distractor passages (pipeline.models.fitting).
- shared_prefix: the fast scorer (prompt once, both responses from it, fused log-probs); score_responses
  takes items of any number of responses (pipeline/reward).
- two_pass: the plain scorer (one full forward per response); the equality reference.
- naive: the LegalRewardBench style (batch 1, full log_softmax); a benchmark baseline only.
- batching: length bucketing under a token budget.
- registry: score.scorer name -> scorer (its function, its batches, whether it shares a trunk), and the
  one place sum/mean/ref_sum/ref_mean and `correct` are computed (the score stage only calls it).
- bench: `python -m pipeline.scoring.bench` -> reports/bench/scoring.json.
- shared_trunk: base and top-layer adapters over one pass of the layers they share (score stage);
  `python -m pipeline.scoring.bench_trunk` -> reports/bench/shared_trunk.json.
"""

from pipeline.scoring.common import ResponseScores
from pipeline.scoring.encode import EncodedPair, encode_pairs, encoded
from pipeline.scoring.naive import score_naive
from pipeline.scoring.shared_prefix import score_shared_prefix
from pipeline.scoring.two_pass import score_two_pass

__all__ = [
    "EncodedPair",
    "ResponseScores",
    "encode_pairs",
    "encoded",
    "score_naive",
    "score_shared_prefix",
    "score_two_pass",
]
