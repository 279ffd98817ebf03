"""SFT with TRL, with the response tokens' log-probs computed by our fused kernel.

TRL 1.16's SFTTrainer already avoids the [tokens x vocab] logits (its own fused LM head), but on a CPU its
chunked head over every position, with entropy and top-1 computed inside the graph, was more than half of
an SFT step on the real profile. `KernelSFTTrainer` keeps everything of TRL's SFTTrainer (collation,
PEFT, logging) and replaces only the loss: the model runs to its last hidden state, and
`pipeline.kernels.fused_linear_sequence_logprobs` sends only the response tokens through the LM head.
The loss is TRL's ("nll": the summed response-token NLL over `num_items_in_batch`, or over this batch's
response tokens); the logged entropy and mean token accuracy are TRL's too, computed without gradient
on the response positions only. tests/test_train.py checks loss, gradients and metrics against TRL's.

train.logprobs picks the path as for DPO: "trl" keeps TRL's own; "kernel" and "shared" use the kernel (an
SFT row has one response, so there is no prompt to share).
"""

from __future__ import annotations

import logging

import torch
from trl import SFTTrainer

from pipeline.kernels import CHUNK_TOKENS, IGNORE_INDEX, fused_linear_sequence_logprobs
from pipeline.models.loading import unwrap
from pipeline.scoring.common import decoder_and_head

log = logging.getLogger(__name__)


def response_metrics(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, softcap: float | None,
                     chunk_size: int = CHUNK_TOKENS) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(entropy sum, top-1 hits, tokens) over the positions whose label is not IGNORE_INDEX, without
    gradient: the logits of `chunk_size` response tokens at a time, never of the prompt."""
    keep = labels != IGNORE_INDEX
    rows, targets = hidden.detach()[keep], labels[keep]
    entropy = torch.zeros((), dtype=torch.float32, device=hidden.device)
    hits = torch.zeros((), dtype=torch.long, device=hidden.device)
    with torch.no_grad():
        for start in range(0, rows.shape[0], chunk_size):
            logits = (rows[start : start + chunk_size] @ weight.to(rows.dtype).T).float()
            if softcap:
                logits = softcap * torch.tanh(logits / softcap)
            logp = torch.log_softmax(logits, dim=-1)
            entropy += -(logp.exp() * logp).sum()
            hits += (logits.argmax(-1) == targets[start : start + chunk_size]).sum()
    return entropy, hits, keep.sum()


class KernelSFTTrainer(SFTTrainer):
    """SFTTrainer whose NLL loss takes its log-probs from pipeline.kernels (logprobs "kernel" or "shared")."""

    def __init__(self, *args, logprobs: str = "shared", kernel_chunk: int = CHUNK_TOKENS, **kwargs):
        self.logprobs_mode = logprobs
        self.kernel_chunk = kernel_chunk
        super().__init__(*args, **kwargs)
        if logprobs != "trl" and not self._kernel_supported():
            self.logprobs_mode = "trl"
            log.warning("kernel log-probs cover SFT's plain NLL loss (no DFT loss, label smoothing, custom loss, "
                        "MoE auxiliary loss, padding-free batches, LM-head bias or logit scale); this run uses TRL's own")

    def _kernel_supported(self) -> bool:
        try:
            decoder_and_head(unwrap(self.model))  # no LM-head bias or logit scale the kernel would miss
        except NotImplementedError:
            return False
        return (self.args.loss_type == "nll" and self.compute_loss_func is None and self.label_smoother is None
                and not self.aux_loss_enabled and not self.args.padding_free)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        if self.logprobs_mode == "trl" or return_outputs:
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        mode = "train" if self.model.training else "eval"
        ids, attn = inputs["input_ids"], inputs["attention_mask"]
        labels = inputs["labels"][:, 1:]
        # One kept logit makes the model's own LM head cost nothing; the kernel reads the last hidden state.
        out = model(input_ids=ids, attention_mask=attn, use_cache=False, output_hidden_states=True,
                    logits_to_keep=1)
        hidden = out.hidden_states[-1][:, :-1]
        _, weight, softcap = decoder_and_head(unwrap(model))
        total, _mean, count = fused_linear_sequence_logprobs(hidden, weight, labels, chunk_size=self.kernel_chunk,
                                                             softcap=softcap)
        tokens = count.sum() if num_items_in_batch is None else num_items_in_batch
        loss = -total.sum() / torch.as_tensor(tokens, device=total.device).clamp(min=1)
        if self.args.average_tokens_across_devices and num_items_in_batch is not None:
            loss = loss * self.accelerator.num_processes  # as TRL does: DDP averages the gradients again

        gather = self.accelerator.gather_for_metrics
        entropy, hits, valid = (gather(x).sum() for x in response_metrics(hidden, weight, labels, softcap,
                                                                           self.kernel_chunk))
        metrics = self._metrics[mode]
        metrics["entropy"].append((entropy / valid).item() if valid > 0 else 0.0)
        metrics["mean_token_accuracy"].append((hits / valid).item() if valid > 0 else 0.0)
        if mode == "train":
            self._total_train_tokens += gather(attn.sum()).sum().item()
        metrics["num_tokens"] = [self._total_train_tokens]
        return loss
