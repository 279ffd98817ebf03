"""Our log-probs inside stock TRL: a stand-in for TRL's chunked log-prob function and
selective_log_softmax (use_fused_logprobs), checked against TRL's own code path -- same values and
gradients, and a DPOTrainer step with the same loss and update.

TRL 1.16 computes log-probs in two places:
  * `trl.trainer.utils.selective_log_softmax(logits, index, temperature, row_mask)`, imported by name
    into several trainers (CPO, ORPO, SDPO, ...);
  * DPOTrainer's fused LM head (`add_fused_lm_head`), which calls
    `trl.trainer.utils._ChunkedLogProbFunction.apply(hidden, weight, bias, targets, temperature,
    chunk_size, softcap, logit_scale, outputs)` from hidden states -- DPOTrainer never materialises logits.

`use_fused_logprobs()` below swaps both for ours while the block runs and restores TRL's afterwards. The
extra per-token outputs DPOTrainer asks for (entropy, mean logit, top-1 hit) are metrics only; they are
computed without gradient in a second chunked pass. A linear head with a bias falls back to TRL's own.
(The pipeline's trainer, pipeline/training/dpo.py, calls the kernels directly and needs none of this.)
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch

pytest.importorskip("trl")

from pipeline.kernels import ops, reference  # noqa: E402

_TOKEN_CHUNK_BYTES = 64 * 2**20  # logits of one chunk of tokens (fp32)


def _metrics(hidden, weight, targets, temperature, softcap, chunk, outputs):
    """TRL's optional outputs, computed without gradient chunk by chunk."""
    want = {name: name in outputs for name in ("entropy", "log_sum_sq_probs", "mean_logits", "is_top1")}
    if not any(want.values()):
        return None, None, None, None
    cols: dict[str, list[torch.Tensor]] = {k: [] for k, v in want.items() if v}
    with torch.no_grad():
        w = weight.to(hidden.dtype)
        for s in range(0, hidden.shape[0], chunk):
            z = reference.transform(hidden[s : s + chunk] @ w.t(), temperature, softcap)
            logp = torch.log_softmax(z, dim=-1)
            if want["entropy"]:
                cols["entropy"].append(-(logp.exp() * logp).sum(-1))
            if want["log_sum_sq_probs"]:
                cols["log_sum_sq_probs"].append(torch.logsumexp(2 * logp, dim=-1))
            if want["mean_logits"]:
                cols["mean_logits"].append(z.mean(-1))
            if want["is_top1"]:
                cols["is_top1"].append(z.argmax(-1) == targets[s : s + chunk])
    cat = {k: torch.cat(v) if v else None for k, v in cols.items()}
    return cat.get("entropy"), cat.get("log_sum_sq_probs"), cat.get("mean_logits"), cat.get("is_top1")


class FusedChunkedLogProb:
    """Stands in for TRL's `_ChunkedLogProbFunction` (same `apply` signature and 5-tuple result)."""

    original = None  # TRL's class, set while swapped in

    @staticmethod
    def apply(hidden, weight, bias, targets, temperature, chunk_size, final_logit_softcapping=None,
              logit_scale=1.0, outputs=("log_probs",)):
        if bias is not None or type(weight) is not torch.Tensor and not isinstance(weight, torch.nn.Parameter):
            return FusedChunkedLogProb.original.apply(
                hidden, weight, bias, targets, temperature, chunk_size, final_logit_softcapping, logit_scale, outputs
            )
        if logit_scale != 1.0:
            hidden = hidden * logit_scale  # (h * s) @ W.T == s * (h @ W.T)
        # TRL's chunk_size splits the vocabulary; ours splits tokens, sized to bound the logits chunk.
        chunk = max(1, _TOKEN_CHUNK_BYTES // (4 * weight.shape[0]))
        logp = ops._FusedLinearLogprobs.apply(
            hidden.contiguous(), weight, targets.contiguous(), temperature, final_logit_softcapping, chunk
        )
        extras = _metrics(hidden, weight, targets, temperature, final_logit_softcapping, chunk, outputs)
        return (logp, *extras)


def _trl_modules() -> list:
    return [m for name, m in list(sys.modules.items()) if (name == "trl" or name.startswith("trl.")) and m]


@contextmanager
def use_fused_logprobs() -> Iterator[None]:
    """Route TRL's log-prob computations through pipeline.kernels inside the block (see module doc)."""
    import trl.trainer.utils as trl_utils

    orig_sls = trl_utils.selective_log_softmax
    orig_chunked = getattr(trl_utils, "_ChunkedLogProbFunction", None)
    swapped: list[tuple[object, str, object]] = []
    for mod in _trl_modules():
        if getattr(mod, "selective_log_softmax", None) is orig_sls:
            swapped.append((mod, "selective_log_softmax", orig_sls))
            mod.selective_log_softmax = ops.selective_log_softmax
    if orig_chunked is not None:
        FusedChunkedLogProb.original = orig_chunked
        swapped.append((trl_utils, "_ChunkedLogProbFunction", orig_chunked))
        trl_utils._ChunkedLogProbFunction = FusedChunkedLogProb
    try:
        yield
    finally:
        for mod, attr, orig in swapped:
            setattr(mod, attr, orig)
        # modules imported inside the block copied our function by name: give them TRL's back
        for mod in _trl_modules():
            if getattr(mod, "selective_log_softmax", None) is ops.selective_log_softmax:
                mod.selective_log_softmax = orig_sls


WORDS = "the court held that statute applies does not cannot answer from context appeal denied granted".split()


def _tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "<eos>", "<unk>", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


def _model(vocab_size):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0,
        eos_token_id=1, bos_token_id=1, tie_word_embeddings=False,
    )
    return LlamaForCausalLM(cfg)


def _one_step(tmp_path, fused: bool):
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    tok = _tokenizer()
    data = Dataset.from_dict({
        "prompt": ["the court held that", "does the statute apply", "appeal", "the court"],
        "chosen": [" the statute applies", " cannot answer from context", " denied", " granted"],
        "rejected": [" the appeal granted", " the statute applies", " granted the", " does not apply"],
    })
    args = DPOConfig(
        output_dir=str(tmp_path / ("fused" if fused else "plain")), per_device_train_batch_size=2, max_steps=2,
        learning_rate=2.0, optim="sgd", bf16=False, report_to=[], logging_steps=1, use_cpu=True, seed=0, save_strategy="no",
        disable_tqdm=True, dataloader_num_workers=0,
    )
    model = _model(len(tok))
    ref = copy.deepcopy(model)  # given explicitly: TRL would otherwise reload the policy by name
    trainer = DPOTrainer(model=model, ref_model=ref, args=args, train_dataset=data, processing_class=tok)
    if fused:
        with use_fused_logprobs():
            trainer.train()
    else:
        trainer.train()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    return losses, {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}


def test_dpo_step_same_loss_and_update(tmp_path):
    # SGD, not Adam: Adam's first step is lr * sign(grad), which turns rounding noise in
    # near-zero gradients into full-size differences. The second step's loss is no longer log 2.
    loss_plain, params_plain = _one_step(tmp_path, fused=False)
    loss_fused, params_fused = _one_step(tmp_path, fused=True)
    assert len(loss_plain) == 2 and abs(loss_plain[1] - 0.693147) > 1e-4
    assert loss_fused == pytest.approx(loss_plain, rel=1e-5, abs=1e-6)
    for name, value in params_plain.items():
        torch.testing.assert_close(params_fused[name], value, atol=1e-5, rtol=1e-4, msg=name)


def test_swaps_and_restores():
    import trl.trainer.utils as tu

    orig_sls, orig_chunk = tu.selective_log_softmax, tu._ChunkedLogProbFunction
    with use_fused_logprobs():
        assert tu.selective_log_softmax is ops.selective_log_softmax
        assert tu._ChunkedLogProbFunction is FusedChunkedLogProb
    assert tu.selective_log_softmax is orig_sls and tu._ChunkedLogProbFunction is orig_chunk


def test_chunked_stand_in_matches_trl_under_bf16_autocast():
    # DPOConfig turns bf16 autocast on by default: forward and backward must use the same logits dtype
    import trl.trainer.utils as tu

    torch.manual_seed(0)
    hidden = torch.randn(12, 16, requires_grad=True)
    weight = (torch.randn(40, 16) * 0.5).requires_grad_()
    targets = torch.randint(0, 40, (12,))
    up = torch.randn(12)
    res = []
    for fn in (FusedChunkedLogProb.apply, tu._ChunkedLogProbFunction.apply):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logp = fn(hidden, weight, None, targets, 1.0, 64, None, 1.0, ("log_probs",))[0]
        res.append((logp, *torch.autograd.grad((logp.float() * up).sum(), (hidden, weight))))
    for a, b in zip(*res, strict=True):
        torch.testing.assert_close(a.float(), b.float(), atol=2e-2, rtol=2e-2)


def test_chunked_stand_in_matches_trl():
    import trl.trainer.utils as tu

    torch.manual_seed(0)
    hidden = torch.randn(10, 8, requires_grad=True)
    weight = torch.randn(30, 8, requires_grad=True)
    targets = torch.randint(0, 30, (10,))
    outs = ("log_probs", "entropy", "mean_logits", "is_top1", "log_sum_sq_probs")
    args = (None, targets, 0.8, 16, 5.0, 1.5, outs)
    ours = FusedChunkedLogProb.apply(hidden, weight, *args)
    theirs = tu._ChunkedLogProbFunction.apply(hidden, weight, *args)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)
    up = torch.randn(10)
    g_ours = torch.autograd.grad((ours[0] * up).sum(), (hidden, weight))
    g_theirs = torch.autograd.grad((theirs[0] * up).sum(), (hidden, weight))
    for a, b in zip(g_ours, g_theirs, strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)
