"""The built-in base model: a small Llama-architecture causal LM pretrained on the corpus itself.

It exists so DPO and scoring run on a real causal LM with no downloaded weights (docs/method.md §7). The corpus is
every passage plus every QA written as one chat exchange (gold passage and question -> reference answer),
so the model has seen the chat template before it is asked to score responses. Questions of the val and
test pairs are held out: the base model must not have read the reference answers it is evaluated on.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

import torch
from tqdm import tqdm
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from pipeline.models.prompting import render_prompt
from pipeline.models.tokenizer import train_tokenizer
from pipeline.params import PretrainParams
from pipeline.records import QA, Passage

log = logging.getLogger(__name__)


@dataclass
class PretrainResult:
    model: LlamaForCausalLM
    tokenizer: PreTrainedTokenizerFast
    curve: list[dict] = field(default_factory=list)  # {"step", "loss", "lr"} per logging step
    n_params: int = 0
    n_tokens: int = 0  # size of the packed training stream
    final_loss: float = float("nan")
    n_qa: int = 0  # QA exchanges trained on (held-out questions excluded)


def corpus_texts(passages: Sequence[Passage]) -> list[str]:
    """Every passage as plain text, in id order."""
    return [f"{p.heading}\n{p.text}" for p in sorted(passages, key=lambda p: p.id)]


def qa_exchanges(passages: Sequence[Passage], qas: Sequence[QA],
                 held_out: Collection[str] = ()) -> list[tuple[str, str]]:
    """(user content, assistant answer) for every QA not held out: the gold passage then the question."""
    by_id = {p.id: p for p in passages}
    out = []
    for qa in sorted(qas, key=lambda q: q.id):
        if qa.id in held_out:
            continue
        gold = by_id.get(qa.gold_passage_id)
        context = f"Passages:\n\n[1] {gold.heading}\n{gold.text}\n\n" if gold else ""
        out.append((f"{context}Question: {qa.question}", qa.answer))
    return out


def build_config(p: PretrainParams, tokenizer: PreTrainedTokenizerFast) -> LlamaConfig:
    return LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=p.hidden_size,
        intermediate_size=p.intermediate_size,
        num_hidden_layers=p.num_layers,
        num_attention_heads=p.num_heads,
        num_key_value_heads=p.num_kv_heads,
        max_position_embeddings=p.max_position_embeddings,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=False,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )


def token_stream(tokenizer: PreTrainedTokenizerFast, texts: Iterable[str],
                 exchanges: Iterable[tuple[str, str]]) -> torch.Tensor:
    """One packed stream of token ids; every document ends with EOS so the model learns to stop."""
    eos = tokenizer.eos_token_id
    ids: list[int] = []
    for text in texts:
        ids.extend(tokenizer(text, add_special_tokens=False)["input_ids"])
        ids.append(eos)
    for user, answer in exchanges:
        rendered = render_prompt(tokenizer, user) + answer
        ids.extend(tokenizer(rendered, add_special_tokens=False)["input_ids"])
        ids.append(eos)
    return torch.tensor(ids, dtype=torch.long)


def lr_at(step: int, p: PretrainParams) -> float:
    """Linear warm-up, then cosine decay to 10% of the peak."""
    if step < p.warmup_steps:
        return p.lr * (step + 1) / p.warmup_steps
    progress = (step - p.warmup_steps) / max(1, p.steps - p.warmup_steps)
    return p.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress))))


def pretrain(passages: Sequence[Passage], qas: Sequence[QA], p: PretrainParams, seed: int,
             held_out: Collection[str] = (), log_every: int = 10, progress: bool = False) -> PretrainResult:
    """Train the tokenizer and the model from scratch; a pure function of its inputs and seed.

    `held_out` lists QA ids whose question and answer the model must not see (evaluation questions).
    """
    texts = corpus_texts(passages)
    exchanges = qa_exchanges(passages, qas, set(held_out))
    tokenizer = train_tokenizer(texts + [f"{u}\n{a}" for u, a in exchanges], p.vocab_size)
    stream = token_stream(tokenizer, texts, exchanges)
    block = p.seq_len + 1
    n_blocks = len(stream) // block
    if n_blocks < 1:
        raise ValueError(f"corpus has {len(stream)} tokens, fewer than one block of seq_len+1={block}")
    blocks = stream[: n_blocks * block].view(n_blocks, block)

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = LlamaForCausalLM(build_config(p, tokenizer))
    model.train()
    decay = [q for n, q in model.named_parameters() if q.ndim >= 2]
    no_decay = [q for n, q in model.named_parameters() if q.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=p.lr, betas=(0.9, 0.95))
    curve: list[dict] = []
    window: list[float] = []
    for step in tqdm(range(p.steps), desc="pretrain", disable=not progress):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, p)
        idx = torch.randint(n_blocks, (p.batch_size,), generator=gen)
        batch = blocks[idx]
        # HF shifts labels inside: seq_len + 1 ids give seq_len next-token predictions.
        loss = model(input_ids=batch, labels=batch).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        window.append(loss.item())
        if (step + 1) % log_every == 0 or step + 1 == p.steps:
            curve.append({"step": step + 1, "loss": sum(window) / len(window), "lr": lr_at(step, p)})
            window = []
    model.eval()
    n_params = sum(q.numel() for q in model.parameters())
    final = curve[-1]["loss"] if curve else float("nan")
    log.info("pretrained %d params on %d tokens, final loss %.4f", n_params, len(stream), final)
    return PretrainResult(model, tokenizer, curve, n_params, len(stream), final, len(exchanges))
