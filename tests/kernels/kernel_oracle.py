"""Float64 oracles for the kernel tests: plain log_softmax + gather, written independently of
pipeline.kernels."""

from __future__ import annotations

import torch


def logprobs64(
    x: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100, temperature: float = 1.0,
    softcap: float | None = None,
) -> torch.Tensor:
    z = x.double()
    if softcap is not None:
        z = softcap * torch.tanh(z / softcap)
    z = z / temperature
    keep = targets != ignore_index
    lp = torch.log_softmax(z, dim=-1).gather(-1, torch.where(keep, targets, 0).unsqueeze(-1)).squeeze(-1)
    return torch.where(keep, lp, torch.zeros_like(lp))


def sequence64(logits: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor | None = None):
    valid = labels != -100
    if mask is not None:
        valid = valid & mask
    tok = logprobs64(logits.reshape(-1, logits.shape[-1]), torch.where(valid, labels, -100).reshape(-1))
    tok = tok.view(labels.shape)
    count = valid.sum(1)
    total = (tok * valid).sum(1)
    mean = torch.where(count > 0, total / count.clamp(min=1), torch.zeros_like(total))
    return total, mean, count
