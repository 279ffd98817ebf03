"""Training: pair loading and the over-long policy, SFT masking, DPO kernel path vs TRL, adapters."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from conftest import tiny_llama_config
from transformers import LlamaForCausalLM

from pipeline import params as params_mod
from pipeline.io import InputError, write_records
from pipeline.models import load_with_adapter, render_prompt, render_response
from pipeline.models.tokenizer import train_tokenizer
from pipeline.params import ExternalPairsParams, LoraParams, TrainParams
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Pair, Passage
from pipeline.training.data import (
    Counts,
    Example,
    cap,
    load_external,
    load_training_examples,
    sft_rows,
    tokenize,
)
from pipeline.training.run import build_trainer, train_adapter

WORDS = (
    "the tribunal held that the respondent traded shares before the announcement and the penalty was "
    "doubled because the profit was material while the tenant paid rent late so the lease ended"
).split()
REFUSAL = "The provided passages do not contain enough information to answer this question."


@pytest.fixture(scope="module")
def tokenizer():
    return train_tokenizer([" ".join(WORDS), REFUSAL, "Question: Was it? Yes. No."] * 30, 400)


def tiny_model(tokenizer, seed: int = 0) -> LlamaForCausalLM:
    """A random tiny Llama (no pretraining needed: these tests check mechanics, not quality)."""
    torch.manual_seed(seed)
    return LlamaForCausalLM(tiny_llama_config(tokenizer)).eval()


def example(i: int, prompt_words: int = 20, chosen_words: int = 6, rejected_words: int = 3) -> Example:
    body = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(prompt_words))
    return Example(
        f"p{i}",
        f"Passages: {body}\n\nQuestion: was penalty {i} doubled?",
        " ".join(WORDS[:chosen_words]),
        " ".join(WORDS[-rejected_words:]),
        "pairs",
    )


def tiny_train_params(**over) -> TrainParams:
    base = TrainParams(
        lora=LoraParams(r=4, alpha=8, dropout=0.0),
        lr=1e-2,
        epochs=1.0,
        batch_size=2,
        grad_accum=1,
        max_length=256,
        max_steps=3,
        logging_steps=1,
    )
    return dataclasses.replace(base, **over)


# ------------------------------------------------------------------------------------ data + policy
def structured(i: int, n_passages: int, gold: int | None, words: int = 12) -> Example:
    """An example whose prompt is a real answer prompt of `n_passages` passages (spans and gold known)."""
    passages = [Passage(f"d/p{k}", "d", "d", f"Section {k}",
                        " ".join(WORDS[(i + k + j) % len(WORDS)] for j in range(words))) for k in range(n_passages)]
    prompt, spans = answer_prompt_with_spans(passages, f"Was penalty {i} doubled?", REFUSAL)
    return Example(f"p{i}", prompt, " ".join(WORDS[:6]), " ".join(WORDS[-3:]), "pairs", "gold_plus_random", spans,
                   gold)


def test_short_pairs_are_tokenized_exactly_as_rendered(tokenizer):
    ex = example(1)
    counts = Counts()
    [row] = tokenize([ex], tokenizer, 10_000, "drop_distractors", counts)
    enc = lambda s: tokenizer(s, add_special_tokens=False)["input_ids"]  # noqa: E731
    assert row["prompt_ids"] == enc(render_prompt(tokenizer, ex.prompt))
    assert row["chosen_ids"] == enc(render_response(tokenizer, ex.chosen))
    assert row["rejected_ids"][-1] == tokenizer.eos_token_id
    assert (counts.overlong, counts.refit, counts.pairs_used) == (0, 0, 1)


def test_overlong_pairs_lose_distractors_not_gold_question_or_rules(tokenizer):
    examples = [structured(i, n_passages=2 + 2 * i, gold=1) for i in range(4)]
    lengths = [len(tokenize([e], tokenizer, 10_000, "drop")[0]["prompt_ids"]) for e in examples]
    limit = lengths[1] + 8  # examples 2 and 3 are longer than this
    counts = Counts()
    rows = tokenize(examples, tokenizer, limit, "drop_distractors", counts)
    assert (counts.overlong, counts.refit, counts.dropped, counts.pairs_used) == (2, 2, 0, 4)
    assert counts.fit["all"]["gold_lost"] == 0 and counts.fit["all"]["refit"] == 2
    head = tokenizer(render_prompt(tokenizer, "\x00").split("\x00")[0], add_special_tokens=False)["input_ids"]
    for row, ex in zip(rows, examples, strict=True):
        longest = max(len(row["chosen_ids"]), len(row["rejected_ids"]))
        assert len(row["prompt_ids"]) + longest <= limit
        assert row["prompt_ids"][: len(head)] == head  # the chat header survives
        text = tokenizer.decode(row["prompt_ids"])
        gold_text = ex.prompt[ex.passage_spans[1][0]:ex.passage_spans[1][1]].split("\n", 1)[1]
        assert tokenizer.decode(tokenizer(gold_text, add_special_tokens=False)["input_ids"]) in text
        assert "Question: Was penalty" in text and "Cite only cases" in text


def test_drop_policy_and_unfittable_pairs_are_counted(tokenizer):
    examples = [structured(i, n_passages=2 + 2 * i, gold=1) for i in range(4)]
    limit = len(tokenize([examples[1]], tokenizer, 10_000, "drop")[0]["prompt_ids"]) + 8
    counts = Counts()
    rows = tokenize(examples, tokenizer, limit, "drop", counts)
    assert [r["id"] for r in rows] == ["p0", "p1"]
    assert (counts.overlong, counts.dropped, counts.refit) == (2, 2, 0)
    # Responses alone longer than max_length cannot be fitted by dropping passages: left out, counted.
    long_answer = Example("x", "Question: q?", " ".join(WORDS * 3), "No.", "pairs")
    counts = Counts()
    assert tokenize([long_answer], tokenizer, 20, "drop_distractors", counts) == []
    assert counts.dropped == 1 and counts.overlong == 1 and counts.fit["all"]["left_out"] == 1


def test_cap_is_seeded_and_stable(tokenizer):
    examples = [example(i) for i in range(50)]
    a, b = cap(examples, 10, seed=1), cap(examples, 10, seed=1)
    assert a == b and len(a) == 10
    assert [e.id for e in a] == [e.id for e in examples if e in a]  # original order kept
    assert cap(examples, 10, seed=2) != a
    assert cap(examples, None, seed=1) == examples and cap(examples, 0, seed=1) == examples


def _pair(i: int, split: str) -> Pair:
    return Pair(
        id=f"q{i}/a",
        qa_id=f"q{i}",
        context_id=f"q{i}/gold_plus_bm25",
        variant="gold_plus_bm25",
        answerable=True,
        split=split,
        dimension="faithfulness",
        prompt=f"Question {i}?",
        chosen="Yes.",
        rejected="No.",
        chosen_generator="offline:a",
        rejected_generator="offline:b",
        chosen_tokens=2,
        rejected_tokens=2,
        augmented=False,
        source="test",
    )


def test_corpus_combinations_and_external_loader(tmp_path):
    write_records(tmp_path / "data/processed/pairs/train.jsonl", [_pair(2, "train"), _pair(1, "train")])
    write_records(tmp_path / "data/processed/pairs_aug/train.jsonl", [_pair(3, "train")])
    ext = tmp_path / "ext.jsonl"
    ext.write_text(
        json.dumps({"prompt": "P", "chosen": "C", "rejected": "R"})
        + "\n"
        + json.dumps({"id": "e2", "prompt": "P2", "chosen": "C2", "rejected": "R2"})
        + "\n"
    )
    only = load_training_examples("pairs", root=tmp_path)
    assert [e.id for e in only] == ["q1/a", "q2/a"]
    both = load_training_examples("pairs+pairs_aug+external", external_pairs=ExternalPairsParams("jsonl", "ext.jsonl"),
                       root=tmp_path)
    assert [(e.source, e.id) for e in both] == [
        ("external", "e2"),
        ("external", "external/1"),
        ("pairs", "q1/a"),
        ("pairs", "q2/a"),
        ("pairs_aug", "q3/a"),
    ]
    with pytest.raises(ValueError, match="external_pairs"):
        load_training_examples("pairs+external", root=tmp_path)
    with pytest.raises(ValueError, match="unknown corpus part"):
        load_training_examples("pairs+nope", root=tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"prompt": "P", "chosen": "C", "rejected": "R"})
        + "\n"
        + json.dumps({"prompt": "P", "chosen": "", "rejected": "R"})
        + "\n"
    )
    with pytest.raises(InputError) as err:
        load_external(bad)
    assert err.value.line == 2 and err.value.field == "chosen"
    same = tmp_path / "same.jsonl"
    same.write_text(json.dumps({"prompt": "P", "chosen": "C ", "rejected": "C"}) + "\n")
    with pytest.raises(InputError, match="same text as chosen") as err:
        load_external(same)
    assert (err.value.line, err.value.field) == (1, "rejected")
    dup = tmp_path / "dup.jsonl"
    dup.write_text("".join(json.dumps({"id": "a", "prompt": "P", "chosen": c, "rejected": "R"}) + "\n" for c in "CD"))
    with pytest.raises(InputError, match="duplicate id 'a'") as err:
        load_external(dup)
    assert (err.value.line, err.value.field) == (2, "id")


# ------------------------------------------------------------------------------------------- SFT
def test_sft_loss_only_on_response_tokens(tokenizer, tmp_path):
    rows = tokenize([example(i) for i in range(3)], tokenizer, 10_000, "drop")
    for row, sft in zip(rows, sft_rows(rows), strict=True):
        n = len(row["prompt_ids"])
        assert sft["input_ids"] == row["prompt_ids"] + row["chosen_ids"]
        assert sft["labels"][:n] == [-100] * n and sft["labels"][n:] == row["chosen_ids"]
    # The trainer's collated batch keeps that masking, and its loss is the mean NLL of response tokens.
    model = tiny_model(tokenizer)
    trainer = build_trainer(model, tokenizer, rows, "sft", tiny_train_params(), 0, str(tmp_path))
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(2)])
    for b, row in enumerate(rows[:2]):
        n, m = len(row["prompt_ids"]), len(row["chosen_ids"])
        assert (batch["labels"][b, :n] == -100).all()
        assert batch["labels"][b, n : n + m].tolist() == row["chosen_ids"]
        assert (batch["labels"][b, n + m :] == -100).all()
    trainer.model.eval()
    with torch.no_grad():
        loss = trainer.compute_loss(trainer.model, batch)
        logits = trainer.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    logp = torch.log_softmax(logits[:, :-1].double(), -1)
    labels = batch["labels"][:, 1:]
    keep = labels != -100
    nll = -logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)[keep]
    assert loss.item() == pytest.approx(nll.mean().item(), rel=1e-4)


def _sft_loss_and_grads(tokenizer, rows, logprobs: str, out_dir: str, top_layers: int, items: int | None):
    model = tiny_model(tokenizer, seed=7)
    lora = LoraParams(r=4, alpha=8, dropout=0.0, top_layers=top_layers)
    trainer = build_trainer(model, tokenizer, rows, "sft", tiny_train_params(logprobs=logprobs, lora=lora), 0,
                            out_dir)
    assert trainer.logprobs_mode == logprobs  # no silent fallback to another path
    torch.manual_seed(1)
    with torch.no_grad():  # off the zero init, so the adapter's gradients are not trivially alike
        for name, p in trainer.model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.02)
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(rows))])
    trainer.model.train()
    loss = trainer.compute_loss(trainer.model, batch, num_items_in_batch=items)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in trainer.model.named_parameters() if p.requires_grad}
    metrics = {k: trainer._metrics["train"][k][-1] for k in ("entropy", "mean_token_accuracy", "num_tokens")}
    return loss.detach(), grads, metrics


@pytest.mark.parametrize("logprobs,top_layers,items", [("kernel", 0, None), ("shared", 1, None), ("shared", 0, 40)])
def test_sft_kernel_path_matches_trl(tokenizer, tmp_path, logprobs, top_layers, items):
    # Rows of different prompt and response lengths (padding matters); `items` stands for gradient
    # accumulation's token count over several micro-batches, which the loss divides by instead of its own.
    rows = tokenize([example(i, prompt_words=10 + 7 * i, chosen_words=3 + 2 * i) for i in range(4)],
                    tokenizer, 10_000, "drop")
    # Half of each response is the base model's own greedy continuation, so the top-1 accuracy is not 0.
    model = tiny_model(tokenizer, seed=7)
    for row in rows:
        half = len(row["chosen_ids"]) // 2 + 1
        prompt = torch.tensor([row["prompt_ids"]])
        greedy = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=half, do_sample=False,
                                pad_token_id=0)[0, prompt.shape[1]:].tolist()
        row["chosen_ids"] = greedy + row["chosen_ids"][half:]
    loss_k, grads_k, met_k = _sft_loss_and_grads(tokenizer, rows, logprobs, str(tmp_path), top_layers, items)
    loss_t, grads_t, met_t = _sft_loss_and_grads(tokenizer, rows, "trl", str(tmp_path), top_layers, items)
    assert loss_k.item() == pytest.approx(loss_t.item(), rel=1e-5)
    assert grads_k.keys() == grads_t.keys() and len(grads_k) > 0
    for name in grads_k:
        assert torch.allclose(grads_k[name], grads_t[name], rtol=1e-4, atol=1e-6), name
    assert 0 < met_k["mean_token_accuracy"] < 1
    for key in ("entropy", "mean_token_accuracy", "num_tokens"):
        assert met_k[key] == pytest.approx(met_t[key], rel=1e-5), key


# ------------------------------------------------------------------------------------------- DPO
def _dpo_loss_and_grads(tokenizer, rows, logprobs: str, out_dir: str, top_layers: int = 0):
    model = tiny_model(tokenizer, seed=7)
    lora = LoraParams(r=4, alpha=8, dropout=0.0, top_layers=top_layers)
    trainer = build_trainer(model, tokenizer, rows, "dpo", tiny_train_params(logprobs=logprobs, lora=lora), 0,
                            out_dir)
    assert trainer.logprobs_mode == logprobs  # no silent fallback to another path
    peft_model = trainer.model
    # Move the adapter off its zero init so policy and reference differ (a real DPO state).
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.2)
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(rows))])
    peft_model.train()
    loss = trainer.compute_loss(peft_model, batch)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in peft_model.named_parameters() if p.requires_grad}
    metrics = {k: v[-1] for k, v in trainer._metrics["train"].items() if k.startswith("rewards/")}
    return loss.detach(), grads, metrics


@pytest.mark.parametrize("logprobs,top_layers", [("kernel", 0), ("shared", 0), ("shared", 1)])
def test_dpo_kernel_paths_match_trl(tokenizer, tmp_path, logprobs, top_layers):
    # Pairs of different prompt and response lengths, so padding matters. top_layers 1 of the tiny model's 2
    # leaves layer 0 frozen: "shared" then runs it once for policy and reference.
    rows = tokenize(
        [example(i, prompt_words=10 + 7 * i, chosen_words=3 + i, rejected_words=1 + 2 * i) for i in range(4)],
        tokenizer, 10_000, "drop"
    )
    loss_k, grads_k, met_k = _dpo_loss_and_grads(tokenizer, rows, logprobs, str(tmp_path), top_layers)
    loss_t, grads_t, met_t = _dpo_loss_and_grads(tokenizer, rows, "trl", str(tmp_path), top_layers)
    assert abs(loss_k.item() - 0.6931) > 1e-3  # policy != reference, so the check is not trivial
    assert loss_k.item() == pytest.approx(loss_t.item(), abs=1e-5)
    assert grads_k.keys() == grads_t.keys() and len(grads_k) > 0
    for name in grads_k:
        assert torch.allclose(grads_k[name], grads_t[name], rtol=1e-4, atol=1e-6), name
    for key in ("rewards/chosen", "rewards/rejected", "rewards/margins", "rewards/accuracies"):
        assert met_k[key] == pytest.approx(met_t[key], abs=1e-5), key


def test_adapter_trains_saves_and_changes_outputs(tokenizer, tmp_path):
    rows = tokenize([example(i) for i in range(8)], tokenizer, 10_000, "drop")
    result = train_adapter(tiny_model(tokenizer), tokenizer, rows, "dpo", tiny_train_params(), seed=0)
    assert result.steps == 3 and len(result.curve) == 3 and result.trainable_params > 0
    assert {"loss", "rewards_margins", "rewards_accuracies"} <= result.curve[0].keys()
    result.model.save_pretrained(tmp_path, safe_serialization=True)
    assert (tmp_path / "adapter_model.safetensors").is_file() and (tmp_path / "adapter_config.json").is_file()
    ids = torch.tensor([rows[0]["prompt_ids"] + rows[0]["chosen_ids"]])
    with torch.no_grad():
        plain = tiny_model(tokenizer)(ids).logits
        loaded = load_with_adapter(tiny_model(tokenizer), tmp_path)
        adapted = loaded(ids).logits
        with loaded.disable_adapter():
            disabled = loaded(ids).logits
    assert not torch.allclose(adapted, plain, atol=1e-4)
    assert torch.allclose(disabled, plain, atol=1e-6)
    # A second adapter on the same PeftModel, by name.
    again = load_with_adapter(loaded, tmp_path, name="second")
    assert again is loaded and loaded.active_adapter == "second"


def test_gpu_profile_loads():
    p = params_mod.load("params/gpu.yaml")
    assert p.profile == "real" and p.pretrain.base_model != "builtin"
    assert (p.train.lr, p.train.epochs, p.train.batch_size, p.train.grad_accum, p.train.max_length) == (
        2e-5,
        3.0,
        4,
        4,
        1024,
    )
    assert (p.train.lora.r, p.train.lora.alpha, p.train.beta, p.train.bf16, p.train.max_pairs) == (
        32,
        64,
        0.1,
        True,
        None,
    )
    assert any(j.startswith("llm:") for j in p.judge.judges)
    assert len(p.generate.panel) >= 4 and not any(g.startswith("offline:") for g in p.generate.panel)


# ------------------------------------------------------------------------------- train.trainer_kwargs
def test_trainer_kwargs_pass_through_over_the_explicit_params(tokenizer, tmp_path):
    rows = tokenize([example(i) for i in range(2)], tokenizer, 10_000, "drop")
    extra = {"warmup_steps": 2, "logging_steps": 3, "beta": 0.3}
    t = dataclasses.replace(tiny_train_params(), trainer_kwargs=extra)
    dpo = build_trainer(tiny_model(tokenizer), tokenizer, rows, "dpo", t, 0, str(tmp_path)).args
    assert (dpo.warmup_steps, dpo.logging_steps, dpo.beta) == (2, 3, 0.3)  # applied last
    assert dpo.learning_rate == t.lr and dpo.loss_type == [t.loss_type]  # the rest as before
    sft_t = dataclasses.replace(t, trainer_kwargs={"weight_decay": 0.25})
    sft = build_trainer(tiny_model(tokenizer), tokenizer, rows, "sft", sft_t, 0, str(tmp_path)).args
    assert sft.weight_decay == 0.25 and sft.dataset_kwargs == {"skip_prepare_dataset": True}


def test_unknown_trainer_kwargs_are_named(tokenizer, tmp_path):
    rows = tokenize([example(i) for i in range(2)], tokenizer, 10_000, "drop")
    # beta is DPO's: SFTConfig has no such argument
    for objective, key in (("dpo", "warmup_stepz"), ("sft", "beta")):
        t = dataclasses.replace(tiny_train_params(), trainer_kwargs={key: 0.1})
        with pytest.raises(params_mod.ParamsError, match=rf"train\.trainer_kwargs\.{key}: not an argument"):
            build_trainer(tiny_model(tokenizer), tokenizer, rows, objective, t, 0, str(tmp_path))


def test_trainer_kwargs_load_from_params_with_nested_values():
    p = params_mod.from_dict({"train": {"trainer_kwargs": {"lr_scheduler_type": "cosine",
                                                           "lr_scheduler_kwargs": {"num_cycles": 0.5}}}})
    assert p.train.trainer_kwargs == {"lr_scheduler_type": "cosine", "lr_scheduler_kwargs": {"num_cycles": 0.5}}
    assert params_mod.from_dict({}).train.trainer_kwargs == {}
    with pytest.raises(params_mod.ParamsError, match=r"train\.trainer_kwargs: expected a mapping"):
        params_mod.from_dict({"train": {"trainer_kwargs": ["warmup_ratio"]}})
