"""The built-in base model: tokenizer, chat template, pretraining core, save/load, the pretrain stage."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from pipeline.io import write_records
from pipeline.models import base_info, load_base, render_prompt, render_response
from pipeline.models.builtin import pretrain, qa_exchanges
from pipeline.models.tokenizer import ASSISTANT, BOS, EOS, USER, train_tokenizer
from pipeline.params import PretrainParams
from pipeline.records import QA, Pair, Passage
from pipeline.stages import pretrain as pretrain_stage

WORDS = (
    "the tribunal held that the respondent traded shares before the announcement and the penalty was "
    "doubled because the profit was material while the tenant paid rent late so the lease ended"
).split()

TINY = PretrainParams(
    vocab_size=320,
    hidden_size=32,
    intermediate_size=64,
    num_layers=2,
    num_heads=2,
    num_kv_heads=1,
    max_position_embeddings=256,
    seq_len=48,
    batch_size=8,
    steps=40,
    lr=5e-3,
    warmup_steps=4,
)


def tiny_corpus(n_dec: int = 8) -> tuple[list[Passage], list[QA]]:
    rng = random.Random(0)
    passages, qas = [], []
    for d in range(n_dec):
        for j in range(3):
            text = " ".join(" ".join(rng.sample(WORDS, 12)) + "." for _ in range(6))
            passages.append(
                Passage(
                    id=f"d{d}/p{j}",
                    decision_id=f"d{d}",
                    family=f"d{d}",
                    heading=f"Reasons {j}",
                    text=text,
                    position=j,
                )
            )
        qas.append(
            QA(
                id=f"d{d}/q0",
                question="Was the penalty doubled?",
                answer="Yes, it was doubled.",
                gold_passage_id=f"d{d}/p0",
                family=f"d{d}",
                kind="yesno",
                facts=[],
                qualifiers=[],
            )
        )
    return passages, qas


@pytest.fixture(scope="module")
def result():
    passages, qas = tiny_corpus()
    return pretrain(passages, qas, TINY, seed=3, log_every=5)


def test_chat_template_renders_one_user_turn_and_assistant_header():
    tok = train_tokenizer([" ".join(WORDS)] * 20, 300)
    text = render_prompt(tok, "Passages: [1] x\n\nQuestion: Was it?")
    assert text == f"{BOS}{USER}\nPassages: [1] x\n\nQuestion: Was it?{EOS}\n{ASSISTANT}\n"
    assert render_response(tok, "Yes.") == f"Yes.{EOS}"
    assert render_response(tok, f"Yes.{EOS}") == f"Yes.{EOS}"  # never a second EOS
    # Special tokens are single ids and the rendering round-trips.
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert ids[:2] == [tok.convert_tokens_to_ids(BOS), tok.convert_tokens_to_ids(USER)]
    assert tok.decode(ids) == text


def test_tokenizer_round_trips_unseen_text():
    tok = train_tokenizer([" ".join(WORDS)] * 20, 300)
    for text in [
        "Zebra quantum §12(3)(b) — 2024-01-05",
        "第一条 本法适用于证券交易。",
        "tabs\tand\nnewlines",
    ]:
        assert tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text


def test_pretraining_lowers_the_loss(result):
    losses = [row["loss"] for row in result.curve]
    assert len(losses) == TINY.steps // 5
    assert losses[-1] < losses[0] - 1.0  # starts near ln(vocab) ~ 5.8; must learn the tiny corpus
    assert result.n_params == sum(p.numel() for p in result.model.parameters())
    assert result.model.config.vocab_size == len(result.tokenizer)


def test_pretraining_is_deterministic(result):
    passages, qas = tiny_corpus()
    again = pretrain(passages, qas, TINY, seed=3, log_every=5)
    for (name, a), (_, b) in zip(
        result.model.state_dict().items(), again.model.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    other = pretrain(passages, qas, TINY, seed=4, log_every=5)
    assert not torch.equal(result.model.lm_head.weight, other.model.lm_head.weight)


def test_save_load_round_trip_uses_safetensors(result, tmp_path):
    result.model.save_pretrained(tmp_path, safe_serialization=True)
    result.tokenizer.save_pretrained(tmp_path)
    (tmp_path / "meta.json").write_text(json.dumps({"base_model": "builtin", "revision": None}))
    assert not list(tmp_path.glob("*.bin")) and not list(tmp_path.glob("*.pt"))
    # The weights file is plain safetensors: readable without transformers or pickle.
    tensors = load_file(tmp_path / "model.safetensors")
    assert torch.equal(tensors["lm_head.weight"], result.model.lm_head.weight)
    model, tok = load_base(tmp_path, device="cpu")
    assert tok.chat_template == result.tokenizer.chat_template
    ids = tok(
        render_prompt(tok, "Was the penalty doubled?") + "Yes", add_special_tokens=False, return_tensors="pt"
    )["input_ids"]
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, result.model(ids).logits, atol=1e-6)
    assert base_info(tmp_path)["base_model"] == "builtin"


def _pair(qa_id: str, split: str) -> Pair:
    return Pair(id=f"{qa_id}/x", qa_id=qa_id, context_id=f"{qa_id}/v", variant="gold_plus_bm25", answerable=True,
                split=split, dimension="faithfulness", prompt="P", chosen="C", rejected="R",
                chosen_generator="a", rejected_generator="b", chosen_tokens=1, rejected_tokens=1,
                augmented=False, source="test")


def test_evaluation_questions_are_held_out():
    passages, qas = tiny_corpus(3)
    kept = qa_exchanges(passages, qas, held_out={"d1/q0"})
    assert len(kept) == 2 and not any("d1" in user for user, _ in kept)
    user, answer = qa_exchanges(passages, qas)[0]
    assert user.startswith("Passages:\n\n[1] Reasons 0\n") and user.endswith("Question: Was the penalty doubled?")
    assert answer == "Yes, it was doubled."


def _stage_dir(tmp_path: Path, params: dict) -> Path:
    import yaml

    passages, qas = tiny_corpus()
    write_records(tmp_path / "data/interim/passages.jsonl", passages)
    write_records(tmp_path / "data/interim/qa.jsonl", qas)
    write_records(tmp_path / "data/processed/pairs/train.jsonl", [_pair("d0/q0", "train")])
    write_records(tmp_path / "data/processed/pairs/val.jsonl", [_pair("d1/q0", "val")])
    write_records(tmp_path / "data/processed/pairs/test.jsonl", [_pair("d2/q0", "test"), _pair("d3/q0", "test")])
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    return tmp_path


def test_stage_writes_hf_model_meta_and_curve(tmp_path, monkeypatch):
    import dataclasses

    p = dataclasses.replace(TINY, steps=10)
    monkeypatch.chdir(_stage_dir(tmp_path, {"seed": 5, "pretrain": dataclasses.asdict(p)}))
    pretrain_stage.main(["--params", "params.yaml"])
    base = tmp_path / "models/base"
    for name in (
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "generation_config.json",
        "meta.json",
    ):
        assert (base / name).is_file(), name
    meta = json.loads((base / "meta.json").read_text())
    assert meta["base_model"] == "builtin" and meta["steps"] == 10 and meta["n_params"] > 0
    assert meta["final_loss"] > 0 and "wall_time_s" not in meta  # run facts go to logs/, not the model
    assert json.loads((tmp_path / "logs/pretrain.json").read_text())["wall_time_s"] >= 0
    assert (meta["qa_used"], meta["qa_held_out"]) == (5, 3)
    curve = (tmp_path / "reports/training/pretrain.csv").read_text().splitlines()
    assert curve[0] == "step,loss,lr" and curve[-1].startswith("10,")
    model, tok = load_base(base, device="cpu")
    assert model.config.eos_token_id == tok.eos_token_id


def test_stage_records_an_external_base_model(tmp_path, monkeypatch):
    monkeypatch.chdir(
        _stage_dir(tmp_path, {"pretrain": {"base_model": "Qwen/Qwen2.5-1.5B-Instruct", "revision": "abc123"}})
    )
    pretrain_stage.main(["--params", "params.yaml"])
    assert sorted(p.name for p in (tmp_path / "models/base").iterdir()) == ["meta.json"]
    info = base_info(tmp_path / "models/base")
    assert info["base_model"] == "Qwen/Qwen2.5-1.5B-Instruct" and info["revision"] == "abc123"
