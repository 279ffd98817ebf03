"""Pair scorers against each other and against a float64 oracle.

The model is a tiny random LlamaForCausalLM built from a config and the tokenizer is trained in the
test (pipeline.models.tokenizer), so nothing is downloaded and the test runs in seconds.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from pipeline.scoring import EncodedPair, encode_pairs, score_naive, score_shared_prefix, score_two_pass
from pipeline.scoring.batching import length_batches
from pipeline.scoring.shared_prefix import prompt_batch, response_batch

VOCAB = 300


def tiny_model(seed: int = 0, vocab: int = VOCAB) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=0,
    )
    return LlamaForCausalLM(config).eval()


def random_pairs(n: int, seed: int = 0) -> list[EncodedPair]:
    rng = random.Random(seed)

    def ids(lo: int, hi: int) -> list[int]:
        return [rng.randrange(1, VOCAB) for _ in range(rng.randint(lo, hi))]

    return [EncodedPair(ids(1, 60), ids(1, 15), ids(1, 15)) for _ in range(n)]


def oracle(model: LlamaForCausalLM, pairs: list[EncodedPair]) -> np.ndarray:
    """float64, one sequence at a time: [n, 2] summed response log-probs."""
    m64 = tiny_model().double()
    m64.load_state_dict(model.state_dict())
    out = np.zeros((len(pairs), 2))
    with torch.no_grad():
        for i, p in enumerate(pairs):
            for j, response in enumerate((p.chosen, p.rejected)):
                logits = m64(input_ids=torch.tensor([p.prompt + response])).logits[0]
                logp = torch.log_softmax(logits, -1)[len(p.prompt) - 1 : -1]
                out[i, j] = logp.gather(-1, torch.tensor(response)[:, None]).sum().item()
    return out


@pytest.fixture(scope="module")
def model() -> LlamaForCausalLM:
    return tiny_model()


def test_shared_prefix_equals_two_pass_and_float64_oracle(model):
    pairs = random_pairs(24)
    # A small token budget forces several length buckets with padding inside each.
    shared = score_shared_prefix(model, pairs, batch_tokens=300)
    plain = score_two_pass(model, pairs, batch_tokens=300)
    fused_head = score_two_pass(model, pairs, batch_tokens=300, head="fused")
    ref = oracle(model, pairs)
    np.testing.assert_allclose(fused_head.rejected_sum, plain.rejected_sum, atol=1e-4, rtol=0)
    for name in ("chosen_sum", "rejected_sum", "chosen_mean", "rejected_mean"):
        np.testing.assert_allclose(getattr(shared, name), getattr(plain, name), atol=1e-4, rtol=0)
    np.testing.assert_allclose(shared.chosen_sum, ref[:, 0], atol=1e-4, rtol=0)
    np.testing.assert_allclose(shared.rejected_sum, ref[:, 1], atol=1e-4, rtol=0)
    assert shared.chosen_tokens.tolist() == [len(p.chosen) for p in pairs]
    assert shared.rejected_tokens.tolist() == [len(p.rejected) for p in pairs]
    np.testing.assert_allclose(shared.chosen_mean, shared.chosen_sum / shared.chosen_tokens, rtol=1e-6)


def test_naive_scorer_agrees(model):
    pairs = random_pairs(6, seed=3)
    naive = score_naive(model, pairs)
    plain = score_two_pass(model, pairs)
    np.testing.assert_allclose(naive.chosen_sum, plain.chosen_sum, atol=1e-4, rtol=0)
    np.testing.assert_allclose(naive.rejected_mean, plain.rejected_mean, atol=1e-4, rtol=0)


def test_rejected_score_does_not_see_the_chosen_response(model):
    base = random_pairs(1, seed=5)[0]
    other = EncodedPair(base.prompt, [7, 8, 9, 10, 11, 12], base.rejected)
    a = score_shared_prefix(model, [base])
    b = score_shared_prefix(model, [other])
    assert a.rejected_sum[0] == pytest.approx(b.rejected_sum[0], abs=1e-5)
    assert a.chosen_sum[0] != pytest.approx(b.chosen_sum[0], abs=1e-3)


def test_shared_prefix_with_lora_adapter_matches_two_pass():
    from peft import LoraConfig, get_peft_model

    peft_model = get_peft_model(
        tiny_model(1), LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])
    )
    # LoRA B starts at zero; make the adapter actually change the model.
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.2)
    peft_model.eval()
    pairs = random_pairs(8, seed=7)
    shared = score_shared_prefix(peft_model, pairs, batch_tokens=200)
    plain = score_two_pass(peft_model, pairs, batch_tokens=200)
    np.testing.assert_allclose(shared.chosen_sum, plain.chosen_sum, atol=1e-4, rtol=0)
    with peft_model.disable_adapter():
        disabled = score_shared_prefix(peft_model, pairs)
    base = score_shared_prefix(tiny_model(1), pairs)
    np.testing.assert_allclose(disabled.chosen_sum, base.chosen_sum, atol=1e-5, rtol=0)
    assert np.abs(disabled.chosen_sum - shared.chosen_sum).max() > 1e-3


def test_response_batch_mask_and_positions():
    pairs = [EncodedPair([5, 6, 7], [8, 9], [10]), EncodedPair([4], [11], [12, 13, 14])]
    ids, lengths = prompt_batch(pairs, pad=0)
    assert ids.tolist() == [[5, 6, 7], [4, 0, 0]] and lengths.tolist() == [3, 1]
    batch = response_batch(pairs, pad=0, prompt_width=3)
    assert batch["input_ids"].tolist() == [[8, 9, 0], [10, 0, 0], [11, 0, 0], [12, 13, 14]]
    assert batch["labels"].tolist() == [[8, 9, -100], [10, -100, -100], [11, -100, -100], [12, 13, 14]]
    # Positions continue each row's own prompt, for chosen and rejected alike.
    assert batch["position_ids"][:, 0].tolist() == [3, 3, 1, 1]
    mask = batch["mask"][:, 0]
    # Pair 1's rejected (row 3), token 2: sees its 1-token prompt (not the 2 pads) and its own tokens 0..2.
    assert mask[3, 2].tolist() == [True, False, False, True, True, True]
    # Pair 0's chosen (row 0), token 0: the whole prompt and itself only.
    assert mask[0, 0].tolist() == [True, True, True, True, False, False]


def test_length_batches_respect_the_budget():
    lengths = [5, 50, 7, 30, 30, 100, 1]
    batches = length_batches(lengths, batch_tokens=60)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) == 1 or max(lengths[i] for i in b) * len(b) <= 60
    assert batches[0] == [5]  # longest first, alone since it exceeds the budget


def test_encode_pairs_uses_the_chat_template_and_eos():
    from pipeline.models import render_prompt
    from pipeline.models.tokenizer import train_tokenizer

    texts = ["The tenant must give notice in writing.", "No penalty applies."] * 50
    tok = train_tokenizer(texts, vocab_size=300)
    pair = SimpleNamespace(prompt="Is notice required?", chosen="Yes.", rejected="No penalty applies.",
                           passage_spans=[], gold_slot=None)
    (enc,) = encode_pairs(tok, [pair], max_length=512)
    assert enc.fits and not enc.refit
    assert enc.prompt == tok(render_prompt(tok, "Is notice required?"), add_special_tokens=False)["input_ids"]
    assert enc.chosen[-1] == tok.eos_token_id and enc.rejected[-1] == tok.eos_token_id
    assert tok.decode(enc.chosen[:-1]) == "Yes."


# ------------------------------------------------------------------------------- the scorer registry
def test_the_registry_holds_the_scorers_params_allows():
    import typing

    from pipeline.params import ScoreParams
    from pipeline.scoring.registry import SCORERS, scorer

    assert set(SCORERS) == set(typing.get_args(typing.get_type_hints(ScoreParams)["scorer"]))
    with pytest.raises(ValueError, match=r"score.scorer: expected one of \['shared_prefix', 'two_pass'\], got 'x'"):
        scorer("x")


@pytest.mark.parametrize("name", ["shared_prefix", "two_pass"])
def test_a_registered_scorer_is_its_function_and_counts_pairs(model, name):
    from pipeline.scoring.registry import scorer

    pairs = random_pairs(12, seed=5)
    direct = (score_shared_prefix if name == "shared_prefix" else score_two_pass)(model, pairs, batch_tokens=200)
    seen: list[float] = []
    through = scorer(name).score(model, pairs, 200, seen.append)
    for field in direct.__dataclass_fields__:
        assert np.array_equal(getattr(through, field), getattr(direct, field)), field
    assert sum(seen) == len(pairs)  # the two-pass scorer's rows are reported as pairs
    units = scorer(name).units(pairs, 200)
    assert sorted(i for u in units for i in u) == list(range(len(pairs)))


def test_score_records_hand_values():
    """sum, mean and the ref scores (policy minus reference) of two pairs, worked by hand; a tie is wrong."""
    from pipeline.scoring.common import ResponseScores
    from pipeline.scoring.registry import score_records

    policy = ResponseScores(chosen_sum=np.array([-10.0, -6.0]), chosen_mean=np.array([-2.0, -1.5]),
                            rejected_sum=np.array([-12.0, -6.0]), rejected_mean=np.array([-1.0, -2.0]),
                            chosen_tokens=np.array([5, 4]), rejected_tokens=np.array([12, 3]))
    base = ResponseScores(chosen_sum=np.array([-11.0, -5.0]), chosen_mean=np.array([-2.5, -1.0]),
                          rejected_sum=np.array([-10.0, -5.5]), rejected_mean=np.array([-1.0, -2.0]),
                          chosen_tokens=np.array([5, 4]), rejected_tokens=np.array([12, 3]))
    pairs = [SimpleNamespace(id="a"), SimpleNamespace(id="b")]
    got = {(r.scoring, r.pair_id): (r.chosen, r.rejected, r.margin, r.correct) for r in
           score_records("m", pairs, policy, base)}
    assert got == {
        ("mean", "a"): (-2.0, -1.0, -1.0, False), ("mean", "b"): (-1.5, -2.0, 0.5, True),
        ("sum", "a"): (-10.0, -12.0, 2.0, True), ("sum", "b"): (-6.0, -6.0, 0.0, False),
        ("ref_mean", "a"): (0.5, 0.0, 0.5, True), ("ref_mean", "b"): (-0.5, 0.0, -0.5, False),
        ("ref_sum", "a"): (1.0, -2.0, 3.0, True), ("ref_sum", "b"): (-1.0, -0.5, -0.5, False),
    }
    records = score_records("m", pairs, policy)
    assert [r.scoring for r in records] == ["mean", "mean", "sum", "sum"]  # no reference: no ref scores
    assert [(r.chosen_tokens, r.rejected_tokens) for r in records[:2]] == [(5, 12), (4, 3)]


def random_items(n: int, seed: int = 0) -> list:
    """Items of one to five responses each (the batches then mix response counts)."""
    from pipeline.scoring.encode import EncodedItem

    rng = random.Random(seed)

    def ids(lo: int, hi: int) -> list[int]:
        return [rng.randrange(1, VOCAB) for _ in range(rng.randint(lo, hi))]

    return [EncodedItem(ids(1, 60), tuple(ids(1, 15) for _ in range(rng.randint(1, 5)))) for _ in range(n)]


def test_items_with_any_number_of_responses_equal_the_plain_rows_and_the_float64_oracle(model):
    from pipeline.scoring.shared_prefix import score_responses
    from pipeline.scoring.two_pass import score_rows_two_pass

    items = random_items(14, seed=11)
    assert len({len(i.responses) for i in items}) > 2
    shared = score_responses(model, items, batch_tokens=400)
    plain = score_rows_two_pass(model, items, batch_tokens=400)
    m64 = tiny_model().double()
    m64.load_state_dict(model.state_dict())
    expected = []
    with torch.no_grad():
        for item in items:
            for response in item.responses:
                logits = m64(input_ids=torch.tensor([item.prompt + response])).logits[0]
                logp = torch.log_softmax(logits, -1)[len(item.prompt) - 1 : -1]
                expected.append(logp.gather(-1, torch.tensor(response)[:, None]).sum().item())
    assert shared.offsets.tolist() == plain.offsets.tolist()
    assert shared.counts.tolist() == [len(r) for i in items for r in i.responses]
    np.testing.assert_allclose(shared.sums, plain.sums, atol=1e-4, rtol=0)
    np.testing.assert_allclose(shared.sums, expected, atol=1e-4, rtol=0)
    np.testing.assert_allclose(shared.means, shared.sums / shared.counts, rtol=1e-6)
    # An item's scores do not depend on the other items of its batch, nor on how many responses it has.
    alone = score_responses(model, [items[3]])
    np.testing.assert_allclose(alone.sums, shared.sums[shared.item(3)], atol=1e-5, rtol=0)


def test_pairs_scored_as_items_of_two_are_the_pair_scores_bit_for_bit(model):
    from pipeline.scoring.encode import EncodedItem
    from pipeline.scoring.shared_prefix import score_responses

    pairs = random_pairs(10, seed=4)
    as_pairs = score_shared_prefix(model, pairs, batch_tokens=300)
    rows = score_responses(model, [EncodedItem(p.prompt, (p.chosen, p.rejected)) for p in pairs], batch_tokens=300)
    assert rows.sums[0::2].tolist() == as_pairs.chosen_sum.tolist()
    assert rows.sums[1::2].tolist() == as_pairs.rejected_sum.tolist()
    assert rows.means[1::2].tolist() == as_pairs.rejected_mean.tolist()
