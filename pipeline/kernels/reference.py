"""Pure-PyTorch chunked log-probs: the fallback when the extension cannot be built, and the
readable definition of what the kernels compute.

Transform applied to the raw logits x (same order as TRL): z = softcap * tanh(x / softcap) when a
softcap is given, then z = z / temperature. A token's log-prob is z[target] - logsumexp(z), in fp32.
Rows whose target equals ignore_index give 0 and receive no gradient. Output is fp32 (fp64 for fp64
input, which gradcheck needs).
"""

from __future__ import annotations

import torch

IGNORE_INDEX = -100  # a label that carries no loss (PyTorch's and Hugging Face's convention)
CHUNK_TOKENS = 1024  # tokens per chunk: only [CHUNK_TOKENS, V] logits exist at a time


def out_dtype(dtype: torch.dtype) -> torch.dtype:
    """fp32 out for every input dtype but fp64 (kept for gradcheck)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def transform(x: torch.Tensor, temperature: float, softcap: float | None) -> torch.Tensor:
    z = x if x.dtype == torch.float64 else x.float()
    if softcap is not None:
        z = softcap * torch.tanh(z / softcap)
    if temperature != 1.0:
        z = z / temperature
    return z


def token_logprobs_and_lse(
    logits: torch.Tensor,
    targets: torch.Tensor,
    ignore_index: int = IGNORE_INDEX,
    temperature: float = 1.0,
    softcap: float | None = None,
    chunk_size: int = CHUNK_TOKENS,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(logp[N], lse[N]) in fp32, computed chunk by chunk so only [chunk, V] fp32 temporaries exist."""
    n = logits.shape[0]
    acc = out_dtype(logits.dtype)
    logp = logits.new_zeros(n, dtype=acc)
    lse = logits.new_zeros(n, dtype=acc)
    for start in range(0, n, chunk_size):
        end = min(start + chunk_size, n)
        z = transform(logits[start:end], temperature, softcap)
        tgt = targets[start:end]
        keep = tgt != ignore_index
        c_lse = torch.logsumexp(z, dim=-1)
        # log_softmax (x - max - log sum) keeps precision at large |x|, unlike z_t - lse
        picked = torch.log_softmax(z, dim=-1).gather(1, tgt.clamp(min=0).unsqueeze(1)).squeeze(1)
        logp[start:end] = torch.where(keep, picked, torch.zeros_like(c_lse))
        lse[start:end] = torch.where(keep, c_lse, torch.zeros_like(c_lse))
    return logp, lse


def token_logprobs_backward(
    grad: torch.Tensor,
    logits: torch.Tensor,
    targets: torch.Tensor,
    lse: torch.Tensor,
    ignore_index: int = IGNORE_INDEX,
    temperature: float = 1.0,
    softcap: float | None = None,
    chunk_size: int = CHUNK_TOKENS,
) -> torch.Tensor:
    """grad_logits = g_t * (onehot - softmax) * dz/dx, recomputing softmax from the saved lse."""
    out = torch.empty_like(logits)
    for start in range(0, logits.shape[0], chunk_size):
        end = min(start + chunk_size, logits.shape[0])
        x = logits[start:end].to(out_dtype(logits.dtype))
        z = transform(x, temperature, softcap)
        tgt = targets[start:end]
        keep = tgt != ignore_index
        g = torch.where(keep, grad[start:end].to(x.dtype), torch.zeros_like(x[:, 0]))
        p = torch.exp(z - lse[start:end].to(x.dtype).unsqueeze(1))
        d = -p
        d.scatter_add_(1, tgt.clamp(min=0).unsqueeze(1), torch.ones_like(d[:, :1]))
        d = d * (g / temperature).unsqueeze(1)
        if softcap is not None:
            d = d * (1 - torch.tanh(x / softcap) ** 2)
        # a zero upstream gradient must give exact zeros, even where p is nan (all -inf rows)
        d = torch.where((g != 0).unsqueeze(1), d, torch.zeros_like(d))
        out[start:end] = d.to(logits.dtype)
    return out


def token_logprobs(
    logits: torch.Tensor,
    targets: torch.Tensor,
    ignore_index: int = IGNORE_INDEX,
    temperature: float = 1.0,
    softcap: float | None = None,
) -> torch.Tensor:
    """Differentiable reference (plain autograd through the chunked ops)."""
    z = transform(logits, temperature, softcap)
    keep = targets != ignore_index
    out = torch.log_softmax(z, dim=-1).gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return torch.where(keep, out, torch.zeros_like(out))
