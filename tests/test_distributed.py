"""Train and score past one process (train.launch, score.launch; pipeline/distributed.py).

The end-to-end tests run the real stages on a tiny project (the random two-layer Llama of conftest, the
grounded pairs of test_reward_signal) once on one process and once on two CPU processes (the stage
relaunches itself under torchrun, gloo): the 2-process DPO adapter matches the 1-process one with the
same global batch within float tolerance, and 2-process scoring writes the same bytes.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from conftest import run, tiny_llama_config
from test_reward_signal import grounded_pair
from test_scoring import random_pairs
from test_scoring import tiny_model as scoring_model
from transformers import LlamaForCausalLM

from pipeline import distributed
from pipeline import params as params_mod
from pipeline.io import write_json, write_records
from pipeline.models.tokenizer import train_tokenizer
from pipeline.params import LaunchParams, ParamsError
from pipeline.scoring import score_shared_prefix, score_two_pass
from pipeline.scoring.registry import scorer as get_scorer
from pipeline.stages import score as score_stage

ROOT = Path(__file__).resolve().parents[1]
SMOKE = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text(encoding="utf-8"))
RUN = "dpo-pairs-s0"


# ------------------------------------------------------------------------------- shard and gather
def test_shard_and_unshard_restore_the_order():
    for n, world in [(0, 2), (1, 3), (7, 2), (10, 4), (5, 8)]:
        idx = [distributed.shard(n, r, world) for r in range(world)]
        assert sorted(i for s in idx for i in s) == list(range(n))
        parts = [[f"item{i}" for i in s] for s in idx]
        assert distributed.unshard(parts, idx, n) == [f"item{i}" for i in range(n)]


def test_balanced_shards_cover_every_unit_once_and_balance_the_load():
    costs = [9, 1, 8, 2, 7, 3, 6, 4, 5, 5]
    shards = distributed.balanced_shards(costs, 3)
    assert sorted(u for s in shards for u in s) == list(range(len(costs)))
    assert all(s == sorted(s) for s in shards)
    loads = [sum(costs[u] for u in s) for s in shards]
    assert max(loads) - min(loads) <= max(costs)
    assert distributed.balanced_shards(costs, 3) == shards  # every rank computes the same split
    assert distributed.balanced_shards([], 2) == [[], []]


def test_unshard_refuses_a_duplicate_or_missing_index():
    with pytest.raises(ValueError, match="twice"):
        distributed.unshard([["a"], ["b"]], [[0], [0]], 2)
    with pytest.raises(ValueError, match="never came back"):
        distributed.unshard([["a"], []], [[0], []], 2)


@pytest.mark.parametrize("scorer", ["shared_prefix", "two_pass"])
def test_scoring_whole_units_on_shards_gives_the_same_floats(scorer):
    """A shard made of whole scoring units is batched exactly as on one process, so its scores are the
    same floats (not merely close), and merging the shards gives the one-process arrays back."""
    model, pairs = scoring_model(), random_pairs(40, seed=3)
    score = score_shared_prefix if scorer == "shared_prefix" else score_two_pass
    whole = score(model, pairs, batch_tokens=300)
    corpus = score_stage.EvalCorpus("c", [f"p{i}" for i in range(len(pairs))], pairs, {}, {})
    how = get_scorer(scorer)
    units = how.units(pairs, 300)
    assert sorted(i for u in units for i in u) == list(range(len(pairs)))
    # two_pass batches a pair's two rows apart, so its units chain batches together (here: into one).
    assert len(units) > 2 if scorer == "shared_prefix" else len(units) >= 1
    for world in (2, 3):
        indices = [score_stage.shard_of(corpus, how, 300, r, world) for r in range(world)]
        parts = [score(model, score_stage.subset(corpus, idx).encoded, batch_tokens=300) for idx in indices]
        merged = score_stage.merge_scores(parts, indices, len(pairs))
        for name in whole.__dataclass_fields__:
            assert np.array_equal(getattr(merged, name), getattr(whole, name)), (world, name)


# ------------------------------------------------------------------------------------------ params
@pytest.mark.parametrize(("batch", "accum", "processes", "split"), [
    (4, 2, 1, (4, 2)), (4, 2, 2, (2, 2)), (4, 2, 4, (1, 2)), (4, 4, 8, (1, 2)), (2, 2, 4, (1, 1)),
    (3, 2, 2, (3, 1)), (4, 1, 8, None), (6, 1, 4, None), (3, 1, 2, None),
])
def test_the_global_batch_is_kept_on_every_process_count(batch, accum, processes, split):
    assert distributed.split_batch(batch, accum, processes) == split
    if split is not None:
        assert split[0] * split[1] * processes == batch * accum


def params_with(**over) -> dict:
    raw = copy.deepcopy(SMOKE)
    for dotted, value in over.items():
        *path, last = dotted.split(".")
        node = raw
        for part in path:
            node = node[part]
        node[last] = value
    return raw


def test_a_process_count_that_cannot_keep_the_global_batch_is_a_params_error():
    raw = params_with(**{"train.batch_size": 2, "train.grad_accum": 1, "train.launch.num_processes": 4})
    with pytest.raises(ParamsError, match=r"train\.launch\.num_processes: 4 processes cannot share"):
        params_mod.from_dict(raw)
    with pytest.raises(ParamsError, match=r"score\.launch\.num_processes: 0 is out of range"):
        params_mod.from_dict(params_with(**{"score.launch.num_processes": 0}))
    with pytest.raises(ParamsError, match="cannot share the global batch"):
        distributed.per_device(2, 1, 4)


def test_shipped_profiles_declare_launch_and_the_gpu_profile_splits_its_batch():
    for name in ("params.yaml", "params/smoke.yaml", "params/bilingual.yaml"):
        p = params_mod.load(ROOT / name)
        assert p.train.launch == p.score.launch == LaunchParams()
    gpu = params_mod.load(ROOT / "params" / "gpu.yaml")
    assert gpu.train.launch.num_processes == 8 and Path(ROOT / gpu.train.launch.config_file).is_file()
    assert distributed.split_batch(gpu.train.batch_size, gpu.train.grad_accum, 8) is not None
    for config in ("ddp", "fsdp", "deepspeed_zero2", "deepspeed_zero3"):
        data = yaml.safe_load((ROOT / "params" / "accelerate" / f"{config}.yaml").read_text(encoding="utf-8"))
        assert data["num_processes"] == 8 and data["distributed_type"] in ("MULTI_GPU", "FSDP", "DEEPSPEED")


def test_launch_commands_and_the_single_process_path(monkeypatch):
    cpu = distributed.launch_command("pipeline.stages.score", ["--out", "x"], 2, None, cuda=False, port=1234)
    assert cpu[1:5] == ["-m", "pipeline.distributed", "2", "-m"]
    assert cpu[-3:] == ["pipeline.stages.score", "--out", "x"]
    gpu = distributed.launch_command("pipeline.stages.train", ["--run", RUN], 8, None, cuda=True, port=1234)
    assert gpu[1:5] == ["-m", "accelerate.commands.launch", "--num_processes", "8"] and "--multi_gpu" in gpu
    assert gpu[gpu.index("--main_process_port") + 1] == "1234"
    config = str(ROOT / "params" / "accelerate" / "ddp.yaml")
    with_config = distributed.launch_command("pipeline.stages.train", [], 8, config, cuda=True, port=1234)
    assert with_config[with_config.index("--config_file") + 1] == config and "--multi_gpu" not in with_config
    # One process: no launcher, no process group.
    for name in distributed.LAUNCHER_ENV:
        monkeypatch.delenv(name, raising=False)
    assert distributed.relaunch_if_needed("pipeline.stages.score", [], LaunchParams()) is False
    with distributed.ProcessGroup():
        assert not torch.distributed.is_initialized()
    assert distributed.gather_to_main({"a": 1}) == [{"a": 1}]
    # Under a launcher the stage never relaunches again.
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert distributed.relaunch_if_needed("pipeline.stages.score", [], LaunchParams(num_processes=2)) is False


# ------------------------------------------------------------------------------ the stages, 2 ranks
@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A tiny project: a random tiny Llama as models/base, 16 train and 24 test pairs, and the smoke
    profile narrowed to one short DPO run and one corpus; params-1.yaml / params-2.yaml differ only in
    train.launch and score.launch."""
    root = tmp_path_factory.mktemp("distributed")
    texts = ["the tribunal considered the submissions of both parties and the evidence before it",
             "Yes, the appeal was granted.", "No, the appeal was refused.", "The passages do not say.",
             "Passages: Question: Was the appeal granted?"]
    tokenizer = train_tokenizer(texts * 40, 300)
    torch.manual_seed(0)
    base = root / "models" / "base"
    LlamaForCausalLM(tiny_llama_config(tokenizer)).save_pretrained(base, safe_serialization=True)
    tokenizer.save_pretrained(base)
    write_json(base / "meta.json", {"base_model": "builtin"})
    write_records(root / "data/processed/pairs/train.jsonl", [grounded_pair(i) for i in range(16)])
    write_records(root / "data/processed/pairs/test.jsonl",
                  [dataclasses.replace(grounded_pair(i), split="test") for i in range(100, 124)])
    for n in (1, 2):
        launch = {"num_processes": n, "config_file": None}
        raw = params_with(**{
            "train.runs": {"dpo": ["pairs-s0"]}, "train.lora": {"r": 4, "alpha": 8, "dropout": 0.0,
                                                                "target_modules": ["q_proj", "v_proj"]},
            "train.lr": 1e-3, "train.batch_size": 2, "train.grad_accum": 2, "train.max_steps": 3,
            "train.logging_steps": 1, "train.max_pairs": None, "train.max_length": 512, "train.launch": launch,
            "score.corpora": ["pairs"], "score.splits": ["train", "test"], "score.max_pairs": 0,
            "score.train_sample": 0, "score.batch_tokens": 600, "score.max_length": 512, "score.launch": launch,
        })
        (root / f"params-{n}.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return root


def timed(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    run(cmd, cwd)
    return time.perf_counter() - started


def copy_project(src: Path, dest: Path) -> Path:
    import shutil

    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("logs", "reports"))
    return dest


def test_two_process_dpo_matches_one_process_and_scores_are_the_same_bytes(project, tmp_path):
    from safetensors.torch import load_file

    two = copy_project(project, tmp_path / "two")
    train = ["python", "-m", "pipeline.stages.train", "--run", RUN]
    wall = {1: timed([*train, "--params", "params-1.yaml"], project),
            2: timed([*train, "--params", "params-2.yaml"], two)}
    a = load_file(project / "models/adapters" / RUN / "adapter_model.safetensors")
    b = load_file(two / "models/adapters" / RUN / "adapter_model.safetensors")
    assert a.keys() == b.keys() and a
    diff = max(float((a[k] - b[k]).abs().max()) for k in a)
    moved = max(float(a[k].abs().max()) for k in a if "lora_B" in k)  # B starts at 0: what training did
    meta = [json.loads((p / "models/adapters" / RUN / "train_meta.json").read_text()) for p in (project, two)]
    assert meta[0]["steps"] == meta[1]["steps"] == 3
    assert meta[0]["counts"] == meta[1]["counts"]
    assert abs(meta[0]["final_loss"] - meta[1]["final_loss"]) < 1e-4
    # Only rank 0 wrote: one run log, one curve.
    assert json.loads((two / "logs" / f"{RUN}.json").read_text())["processes"] == 2
    assert (two / "reports/training" / f"{RUN}.csv").read_text().count("\n") == 4
    assert diff < 1e-5 and moved > 5e-4, (diff, moved)

    score = ["python", "-m", "pipeline.stages.score"]
    wall_score = {n: timed([*score, "--params", f"params-{n}.yaml", "--out", f"data/scores-{n}"], project)
                  for n in (1, 2)}
    one, many = project / "data/scores-1", project / "data/scores-2"
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert [Path("base/pairs.jsonl"), Path(f"{RUN}/pairs.jsonl"), Path("meta.json")] == files
    assert sorted(p.relative_to(many) for p in many.rglob("*") if p.is_file()) == files
    for rel in files:
        assert (one / rel).read_bytes() == (many / rel).read_bytes(), rel
    print(f"\n[distributed] adapter max abs diff 2 vs 1 process: {diff:.3g} (largest lora_B {moved:.3g}); "
          f"wall train 1p {wall[1]:.1f}s, 2p {wall[2]:.1f}s (ratio {wall[2] / wall[1]:.2f}); "
          f"score 1p {wall_score[1]:.1f}s, 2p {wall_score[2]:.1f}s (ratio {wall_score[2] / wall_score[1]:.2f}); "
          f"Score files identical: yes; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
