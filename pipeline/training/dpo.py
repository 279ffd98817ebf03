"""DPO with TRL, with the policy and reference log-probs computed by our fused kernel.

`KernelDPOTrainer` keeps everything of TRL's DPOTrainer (data collation, PEFT reference by disabling the
adapter, logging, checkpoints) and replaces only how the per-sequence log-probs are computed:
- logprobs == "kernel": TRL's rows (prompt + chosen, prompt + rejected) run through the model up to its
  last hidden state, and `pipeline.kernels.fused_linear_sequence_logprobs` projects the response positions
  through the LM head chunk by chunk, so the [tokens x vocab] logits never exist.
- logprobs == "shared": the same kernel, with the work the two sides and the two models have in common
  done once. Each pair's prompt runs once and both responses run on its KV cache (the scorer's shared
  prefix, pipeline/scoring/shared_prefix.py); and where the adapter leaves the bottom layers untouched
  (train.lora.top_layers), those layers run once, without gradient, and both the policy and the reference
  (the adapter disabled) run only the adapted layers on their output (pipeline/scoring/shared_trunk.py).
  Every response token gets the hidden state it gets in TRL's rows, so the loss and gradients are TRL's
  (tests/test_train.py checks both against logprobs == "trl").
- logprobs == "trl" leaves TRL's own path untouched: the reference the other two are tested against.

Checked against TRL 1.16 (it overrides `_prepare_dataset` and `_compute_loss`, which are private there).
"""

from __future__ import annotations

import contextlib
import logging

import torch
import torch.nn.functional as F
from trl import DPOTrainer

from pipeline import distributed
from pipeline.kernels import CHUNK_TOKENS, IGNORE_INDEX, fused_linear_sequence_logprobs
from pipeline.models.loading import unwrap
from pipeline.scoring.common import decoder_and_head, pad_id
from pipeline.scoring.encode import EncodedPair
from pipeline.scoring.shared_prefix import (
    additive,
    prompt_batch,
    response_batch,
    response_logprobs,
    supports_custom_mask,
    two_passes,
)
from pipeline.scoring.shared_trunk import layers_of

LOGPROBS = ("shared", "kernel", "trl")

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


def batch_pairs(input_ids: torch.Tensor, attention_mask: torch.Tensor,
                completion_mask: torch.Tensor) -> list[EncodedPair]:
    """TRL's collated rows ([chosen rows; rejected rows], right-padded) back into (prompt, chosen, rejected)."""
    n = input_ids.shape[0] // 2
    pairs = []
    for i in range(n):
        sides = []
        for row in (i, n + i):
            length = int(attention_mask[row].sum())
            start = int(completion_mask[row, :length].argmax())
            sides.append((input_ids[row, :start].tolist(), input_ids[row, start:length].tolist()))
        (prompt, chosen), (prompt_again, rejected) = sides
        if prompt != prompt_again:
            raise ValueError(f"pair {i} of the batch: chosen and rejected rows have different prompts")
        pairs.append(EncodedPair(prompt, chosen, rejected))
    return pairs


def frozen_layers(model: torch.nn.Module) -> int:
    """How many bottom decoder layers the active LoRA adapter leaves untouched (0: it adapts every layer)."""
    config = getattr(model, "peft_config", {}).get(getattr(model, "active_adapter", "default"))
    layers = getattr(config, "layers_to_transform", None)
    if not layers:
        return 0
    return min([layers] if isinstance(layers, int) else layers)


def shared_logps(model: torch.nn.Module, pairs: list[EncodedPair], chunk_size: int = CHUNK_TOKENS
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """(policy, reference) response log-prob sums, [chosen of every pair; rejected of every pair] as TRL
    orders them: prompts once, the frozen bottom layers once for both models, the kernel for the head."""
    decoder, weight, softcap = decoder_and_head(model)
    device = weight.device
    prompt_ids, prompt_len = prompt_batch(pairs, pad_id(model))
    inputs = {k: v.to(device) for k, v in response_batch(pairs, pad_id(model), prompt_ids.shape[1]).items()}
    mask = additive(inputs["mask"], weight.dtype)
    split = frozen_layers(model)
    prompt_in, response_in = {"input_ids": prompt_ids.to(device)}, {"input_ids": inputs["input_ids"]}
    if split:
        with torch.no_grad(), layers_of(decoder, 0, split):
            prompt_states, response_states = two_passes(
                decoder, prompt_in, {**response_in, "position_ids": inputs["position_ids"]}, mask)
        prompt_in, response_in = {"inputs_embeds": prompt_states}, {"inputs_embeds": response_states}

    def top(grad: bool) -> torch.Tensor:
        # Only ever narrows: under an outer no_grad (evaluation) the policy pass records no graph either.
        with contextlib.nullcontext() if grad else torch.no_grad(), layers_of(decoder, split, None):
            states = two_passes(decoder, prompt_in, {**response_in, "position_ids": inputs["position_ids"]}, mask)
            total, _mean, _count = response_logprobs(states[0], prompt_len, states[1], inputs["labels"], weight,
                                                     softcap, chunk_size)
        # Rows alternate chosen, rejected per pair; TRL's order is all chosen, then all rejected.
        return torch.cat([total[0::2], total[1::2]])

    policy = top(True)
    with _peft_ref_context(model):
        reference = top(False)
    return policy, reference


class KernelDPOTrainer(DPOTrainer):
    """DPOTrainer whose sigmoid-loss log-probs come from pipeline.kernels (logprobs="kernel")."""

    def __init__(self, *args, logprobs: str = "shared", kernel_chunk: int = CHUNK_TOKENS, **kwargs):
        if logprobs not in LOGPROBS:
            raise ValueError(f"logprobs must be one of {', '.join(LOGPROBS)}, got {logprobs!r}")
        self.logprobs_mode = logprobs
        self.kernel_chunk = kernel_chunk
        super().__init__(*args, **kwargs)
        if logprobs != "trl" and not self._kernel_supported():
            log.warning("kernel log-probs cover the plain sigmoid DPO loss with a PEFT reference only; "
                        "this configuration uses TRL's own log-probs")
        elif logprobs == "shared" and not self._sharing_supported():
            self.logprobs_mode = "kernel"
            log.warning("shared-prompt log-probs need sdpa or eager attention, no gradient checkpointing (it "
                        "turns the KV cache off) and one process (DDP syncs gradients from its own forward); "
                        "this run uses logprobs 'kernel'")

    # Overrides a private method of TRL's DPOTrainer, checked against TRL 1.16.0 (its __init__ calls it);
    # tests/test_trl_compat.py fails if the installed TRL renames it or changes its parameters.
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

    def _sharing_supported(self) -> bool:
        return (supports_custom_mask(unwrap(self.model)) and not self.args.gradient_checkpointing
                and distributed.world_size() == 1)

    # Overrides a private method of TRL's DPOTrainer, checked against TRL 1.16.0 (compute_loss calls it;
    # the attributes read here are TRL's); tests/test_trl_compat.py fails if the installed TRL changes them.
    def _compute_loss(self, model, inputs, return_outputs):
        if self.logprobs_mode == "trl" or not self._kernel_supported() or return_outputs:
            return super()._compute_loss(model, inputs, return_outputs)
        mode = "train" if self.model.training else "eval"
        ids, attn, comp = inputs["input_ids"], inputs["attention_mask"], inputs["completion_mask"]
        if self.logprobs_mode == "shared":
            unwrapped = self.accelerator.unwrap_model(model)
            logps, ref_logps = shared_logps(unwrapped, batch_pairs(ids, attn, comp), self.kernel_chunk)
        else:
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
