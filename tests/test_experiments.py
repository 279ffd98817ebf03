"""`dvc exp`: changing a train param re-runs train and what follows it, nothing upstream; sweeps queue.

Runs on a private copy of the smoke repo (after its full `dvc repro`), so the other slow tests keep theirs.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import run

pytestmark = pytest.mark.slow

UPSTREAM = [
    "decisions",
    "corpus",
    "contexts",
    "generate",
    "judge",
    "pairs",
    "augment",
    "data_report",
    "pretrain",
]
RUNNING = re.compile(r"Running stage '([^']+)'")


@pytest.fixture()
def exp_repo(smoke_repo: Path, tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(smoke_repo, repo, symlinks=True)
    run(["git", "add", "-A"], repo)
    run(
        [
            "git",
            "-c",
            "user.email=t@localhost",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "results",
            "--allow-empty",
        ],
        repo,
    )
    return repo


def lock_outs(repo: Path) -> dict[str, str]:
    lock = yaml.safe_load((repo / "dvc.lock").read_text())["stages"]
    return {f"{name}:{o['path']}": o.get("md5", "") for name, st in lock.items() for o in st.get("outs", [])}


def test_exp_run_beta_reruns_only_train_and_downstream(exp_repo: Path):
    listed = run(["dvc", "stage", "list", "--name-only"], exp_repo).stdout.split()
    dpo_stages = {name for name in listed if name.startswith("train_dpo@")}
    assert len(dpo_stages) == 2  # train.runs.dpo of the smoke profile: pairs and pairs_aug, seed 0
    before = lock_outs(exp_repo)

    out = run(["dvc", "exp", "run", "-S", "train.beta=0.2"], exp_repo).stdout
    ran = set(RUNNING.findall(out))
    # SFT does not read beta: its runs stay as they were. The overlay of the curves and the scores of the
    # new adapters follow, best-of-n reranks with the new adapters, and the explorer shows the new margins.
    assert ran == dpo_stages | {"curves", "score", "rerank", "report", "explore"}, out[-3000:]

    after = lock_outs(exp_repo)
    for key, md5 in before.items():
        stage = key.split(":", 1)[0]
        if stage in UPSTREAM:
            assert after[key] == md5, key
    # The DPO adapters really changed (beta enters the DPO loss); the run recorded the new beta.
    assert any(after[k] != before[k] for k in before if k.startswith("train_dpo@"))
    assert yaml.safe_load((exp_repo / "params.yaml").read_text())["train"]["beta"] == 0.2
    shown = run(["dvc", "exp", "show", "--no-pager", "--csv"], exp_repo).stdout
    assert "train.beta" in shown


def test_queued_sweep_over_beta_and_rank(exp_repo: Path):
    run(["dvc", "exp", "run", "--queue", "-S", "train.beta=0.1,0.3", "-S", "train.lora.r=8,16"], exp_repo)
    status = run(["dvc", "queue", "status"], exp_repo).stdout
    assert status.count("Queued") == 4, status
    run(["dvc", "queue", "remove", "--queued"], exp_repo)
