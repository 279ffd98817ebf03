"""The reward signal: DPO learns a preference on a small learnable fixture, reference-relative scores show it
where sum scores cannot, the reference pass equals the adapter-disabled model, and training and scoring
fit over-long prompts to the same tokens."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_llama_config
from transformers import LlamaForCausalLM

from pipeline.models.tokenizer import train_tokenizer
from pipeline.params import LoraParams, TrainParams
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Pair, Passage
from pipeline.scoring import encode_pairs, encoded, score_shared_prefix
from pipeline.stages.score import score_records
from pipeline.training.data import Example, tokenize
from pipeline.training.run import train_adapter

REFUSAL = "The passages do not say."
FILLER = "the tribunal considered the submissions of both parties and the evidence before it".split()
GRANTED, REFUSED = "Yes, the appeal was granted.", "No, the appeal was refused."


@pytest.fixture(scope="module")
def tokenizer():
    texts = [" ".join(FILLER), GRANTED, REFUSED, REFUSAL, "Passages: Question: Was the appeal granted?"]
    return train_tokenizer(texts * 40, 300)


def grounded_pair(i: int) -> Pair:
    """A one-passage answer prompt; the chosen answer says granted, the rejected one refused (a learnable
    preference: the reward model must come to rank every "granted" answer above its "refused" twin)."""
    filler = " ".join(FILLER[(i + k) % len(FILLER)] for k in range(8))
    passages = [Passage(f"d{i}/p0", f"d{i}", f"d{i}", "Decision", f"{filler}. The appeal was granted.")]
    prompt, spans = answer_prompt_with_spans(passages, "Was the appeal granted?", REFUSAL)
    ground = FILLER[i % len(FILLER)]
    chosen, rejected = f"{GRANTED} ({ground})", f"{REFUSED} ({ground})"
    return Pair(id=f"q{i:03d}/0", qa_id=f"q{i:03d}", context_id=f"q{i:03d}/gold_only", variant="gold_only",
                answerable=True, split="train", dimension="correctness", prompt=prompt, chosen=chosen,
                rejected=rejected, chosen_generator="a", rejected_generator="b", chosen_tokens=8, rejected_tokens=8,
                augmented=False, source="test", passage_spans=spans, gold_slot=0)


def ref_accuracy(policy, base_scores, pairs, tokenizer) -> tuple[float, float]:
    """(ref_sum accuracy, sum accuracy) of the adapter on `pairs` against the base pass."""
    enc = [encoded(f) for f in encode_pairs(tokenizer, pairs, 512)]
    scores = score_shared_prefix(policy, enc)
    records = score_records("m", pairs, scores, base_scores)
    acc = {s: np.mean([r.correct for r in records if r.scoring == s]) for s in ("ref_sum", "sum")}
    return float(acc["ref_sum"]), float(acc["sum"])


def test_dpo_learns_a_prompt_dependent_preference(tokenizer):
    torch.manual_seed(0)
    model = LlamaForCausalLM(tiny_llama_config(tokenizer)).eval()
    train_pairs = [grounded_pair(i) for i in range(16)]
    held_out = [grounded_pair(i) for i in range(100, 112)]
    base_train = score_shared_prefix(model, [encoded(f) for f in encode_pairs(tokenizer, train_pairs, 512)])
    base_held = score_shared_prefix(model, [encoded(f) for f in encode_pairs(tokenizer, held_out, 512)])
    base_sum_acc = float(np.mean(base_train.chosen_sum > base_train.rejected_sum))

    examples = [Example(p.id, p.prompt, p.chosen, p.rejected, "pairs", p.variant, p.passage_spans, p.gold_slot)
                for p in train_pairs]
    rows = tokenize(examples, tokenizer, 512, "drop_distractors")
    params = TrainParams(lora=LoraParams(r=8, alpha=16, dropout=0.0), lr=1e-2, epochs=3.0, batch_size=4,
                         grad_accum=1, max_length=512, logging_steps=4, beta=0.1)
    result = train_adapter(model, tokenizer, rows, "dpo", params, seed=0)
    train_ref, _ = ref_accuracy(result.model, base_train, train_pairs, tokenizer)
    held_ref, _ = ref_accuracy(result.model, base_held, held_out, tokenizer)
    # Before training the policy is the reference: every ref margin is 0, a tie, so ref accuracy is 0.
    assert train_ref >= 0.9, (train_ref, base_sum_acc)
    assert held_ref >= 0.9, held_ref
    assert result.curve[-1]["rewards_accuracies"] >= 0.75


def test_reference_scores_equal_the_adapter_disabled_pass(tokenizer):
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(1)
    base = LlamaForCausalLM(tiny_llama_config(tokenizer)).eval()
    pairs = [grounded_pair(i) for i in range(6)]
    enc = [encoded(f) for f in encode_pairs(tokenizer, pairs, 512)]
    base_scores = score_shared_prefix(base, enc)
    peft = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                           init_lora_weights=False)).eval()
    with peft.disable_adapter():
        disabled = score_shared_prefix(peft, enc)
    np.testing.assert_allclose(disabled.chosen_sum, base_scores.chosen_sum, rtol=0, atol=1e-5)
    np.testing.assert_allclose(disabled.rejected_mean, base_scores.rejected_mean, rtol=0, atol=1e-6)
    policy = score_shared_prefix(peft, enc)
    records = {(r.pair_id, r.scoring): r for r in score_records("m", pairs, policy, base_scores)}
    for i, p in enumerate(pairs):
        ref = records[(p.id, "ref_sum")]
        assert ref.chosen == pytest.approx(policy.chosen_sum[i] - base_scores.chosen_sum[i])
        assert ref.margin == pytest.approx(ref.chosen - ref.rejected)
        mean = records[(p.id, "ref_mean")]
        assert mean.chosen == pytest.approx(policy.chosen_mean[i] - base_scores.chosen_mean[i])
    assert not np.allclose(policy.chosen_sum, base_scores.chosen_sum)  # the adapter really changes the model


def test_training_and_scoring_fit_an_overlong_prompt_to_the_same_tokens(tokenizer):
    passages = [Passage(f"d/p{k}", "d", "d", f"Part {k}", " ".join(FILLER) + f" Note {k}.") for k in range(8)]
    prompt, spans = answer_prompt_with_spans(passages, "Was the appeal granted?", REFUSAL)
    pair = grounded_pair(0)
    pair = Pair(**{**pair.__dict__, "prompt": prompt, "passage_spans": spans, "gold_slot": 2})
    full = encode_pairs(tokenizer, [pair], 100_000)[0]
    limit = len(full.prompt) - 40
    [scored] = encode_pairs(tokenizer, [pair], limit)
    [row] = tokenize([Example(pair.id, prompt, pair.chosen, pair.rejected, "pairs", "v", spans, 2)], tokenizer,
                     limit, "drop_distractors")
    assert scored.fits and scored.refit and scored.prompt == row["prompt_ids"]
    assert len(scored.prompt) + max(len(scored.chosen), len(scored.rejected)) <= limit
    text = tokenizer.decode(scored.prompt)
    assert "Note 2." in text and "Was the appeal granted?" in text  # gold passage and question kept
    assert "Note 7." not in text  # the last distractor goes first
    assert "[1] Part 0" in text and f"[{8 - scored.passages_dropped}]" in text  # renumbered
