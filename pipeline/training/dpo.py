"""DPO with TRL, with the policy and reference log-probs computed by our fused kernel.

`KernelDPOTrainer` keeps everything of TRL's DPOTrainer (data collation, PEFT reference by disabling the
adapter, logging, checkpoints) and replaces only how the per-sequence log-probs are computed when
logprobs == "kernel": the model runs once up to its last hidden state, and
`pipeline.kernels.fused_linear_sequence_logprobs` projects it through the LM head chunk by chunk, so the
[tokens x vocab] logits never exist. logprobs == "trl" leaves TRL's own path untouched (the reference the kernel path is tested against).
"""

from __future__ import annotations

import contextlib
import logging

import torch
import torch.nn.functional as F
from trl import DPOTrainer

from pipeline.kernels import CHUNK_TOKENS, IGNORE_INDEX, fused_linear_sequence_logprobs
from pipeline.models.loading import unwrap

log = logging.getLogger(__name__)


def _peft_ref_context(model: torch.nn.Module):
    """The reference model: the policy with its adapter disabled (PEFT), or nothing to change."""
    disable = getattr(model, "disable_adapter", None)
    return disable() if callable(disable) else contextlib.nullcontext()


def sequence_logps(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                   completion_mask: torch.Tensor, chunk_size: int = CHUNK_TOKENS) -> torch.Tensor:
    """Sum of response-token log-probs per row, through the model's last hidden state and our kernel.

    The forward goes through the (possibly wrapped) model itself so DDP/PEFT hooks still run; asking for
    one kept logit makes the LM head cost nothing, and the last hidden state feeds the fused kernel.
    """
    out = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False,
                output_hidden_states=True, logits_to_keep=1)
    hidden = out.hidden_states[-1][:, :-1]
    head = unwrap(model).get_output_embeddings()
    labels = input_ids[:, 1:].masked_fill(completion_mask[:, 1:] == 0, IGNORE_INDEX)
    total, _mean, _count = fused_linear_sequence_logprobs(hidden, head.weight, labels, chunk_size=chunk_size)
    return total


class KernelDPOTrainer(DPOTrainer):
    """DPOTrainer whose sigmoid-loss log-probs come from pipeline.kernels (logprobs="kernel")."""

    def __init__(self, *args, logprobs: str = "kernel", kernel_chunk: int = CHUNK_TOKENS, **kwargs):
        if logprobs not in ("kernel", "trl"):
            raise ValueError(f"logprobs must be 'kernel' or 'trl', got {logprobs!r}")
        self.logprobs_mode = logprobs
        self.kernel_chunk = kernel_chunk
        super().__init__(*args, **kwargs)
        if logprobs == "kernel" and not self._kernel_supported():
            log.warning("kernel log-probs cover the plain sigmoid DPO loss with a PEFT reference only; "
                        "this configuration uses TRL's own log-probs")

    def _prepare_dataset(self, dataset, processing_class, args, dataset_name):
        # pipeline.training.data already tokenized (with the shared rendering and the over-long policy).
        if "prompt_ids" in dataset.column_names:
            return dataset
        return super()._prepare_dataset(dataset, processing_class, args, dataset_name)

    def _kernel_supported(self) -> bool:
        return (
            list(self.loss_types) == ["sigmoid"]
            and self.ld_alpha is None
            and not self.use_weighting
            and not self.precompute_ref_logps
            and not self.aux_loss_enabled
            and self.ref_model is None
        )

    def _compute_loss(self, model, inputs, return_outputs):
        if self.logprobs_mode == "trl" or not self._kernel_supported() or return_outputs:
            return super()._compute_loss(model, inputs, return_outputs)
        mode = "train" if self.model.training else "eval"
        ids, attn, comp = inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"]
        logps = sequence_logps(model, ids, attn, comp, self.kernel_chunk)
        with torch.no_grad(), _peft_ref_context(self.accelerator.unwrap_model(self.model)):
            ref_logps = sequence_logps(model, ids, attn, comp, self.kernel_chunk)
        chosen, rejected = logps.chunk(2, dim=0)
        ref_chosen, ref_rejected = ref_logps.chunk(2, dim=0)
        chosen_logratios = chosen - ref_chosen
        rejected_logratios = rejected - ref_rejected
        loss = -F.logsigmoid(self.beta * (chosen_logratios - rejected_logratios)).mean()

        gather = self.accelerator.gather
        chosen_rewards = self.beta * chosen_logratios.detach()
        rejected_rewards = self.beta * rejected_logratios.detach()
        if mode == "train":
            self._total_train_tokens += gather(attn.sum()).sum().item()
        metrics = self._metrics[mode]
        metrics["num_tokens"] = [self._total_train_tokens]
        metrics["rewards/chosen"].append(gather(chosen_rewards).mean().item())
        metrics["rewards/rejected"].append(gather(rejected_rewards).mean().item())
        metrics["rewards/accuracies"].append(gather((chosen_rewards > rejected_rewards).float()).mean().item())
        metrics["rewards/margins"].append(gather(chosen_rewards - rejected_rewards).mean().item())
        metrics["logps/chosen"].append(gather(chosen.detach()).mean().item())
        metrics["logps/rejected"].append(gather(rejected.detach()).mean().item())
        return loss
