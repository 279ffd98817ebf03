"""Fused log-prob kernels: per-token and per-sequence log-probabilities without [tokens x vocab] temporaries.

Backed by the C++/CUDA extension in csrc/ (built on first use into a cache folder); if the build fails,
or PIPELINE_KERNELS=reference is set, a pure-PyTorch chunked reference is used with a warning.
"""

from pipeline.kernels.ops import (
    CHUNK_TOKENS,
    IGNORE_INDEX,
    backend,
    fused_linear_sequence_logprobs,
    selective_log_softmax,
    sequence_logprobs,
    token_logprobs,
)

__all__ = [
    "CHUNK_TOKENS",
    "IGNORE_INDEX",
    "backend",
    "fused_linear_sequence_logprobs",
    "selective_log_softmax",
    "sequence_logprobs",
    "token_logprobs",
]
