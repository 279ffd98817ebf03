"""`dvc plots show` renders every plot with no network (scripts/check_plots_offline.py), the dvclive
curves of a run are the same bytes on a rerun, and the curves stage overlays exactly the runs of
train.runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pipeline import paths
from pipeline.io import InputError
from pipeline.stages import curves
from pipeline.training.live import METRICS, LiveCurves

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "check_plots_offline.py"


class _State:
    is_world_process_zero = True
    global_step = 0


def _log_run(out: Path, dpo: bool = True, steps: tuple[int, ...] = (2, 4)) -> None:
    cb, state = LiveCurves(out), _State()
    cb.on_train_begin(None, state, None)
    for step in steps:
        state.global_step = step
        logs = {"loss": 0.7 / step, "epoch": 0.1}
        if dpo:
            logs |= {"rewards/margins": 0.1 * step, "rewards/accuracies": 0.5}
        cb.on_log(None, state, None, logs=logs)
    cb.on_log(None, state, None, logs={"train_loss": 0.5, "train_runtime": 1.23})  # the closing summary
    cb.on_train_end(None, state, None)


def test_live_curves_are_dvclive_tsvs_without_timestamps(tmp_path):
    _log_run(tmp_path / "a")
    _log_run(tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == ["metrics.json", "plots/metrics/loss.tsv", "plots/metrics/reward_accuracy.tsv",
                     "plots/metrics/reward_margin.tsv"]
    assert (tmp_path / "a/plots/metrics/loss.tsv").read_text() == "step\tloss\n2\t0.35\n4\t0.175\n"
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_curves_stage_overlays_the_runs_of_train_runs(tmp_path, monkeypatch):
    """Every run named by train.runs is a line of each metric's table, in train.runs order and by step;
    a stale folder of a run no longer named is left out; SFT runs have no reward curves."""
    root = tmp_path / "reports" / "training"
    _log_run(root / "dpo-pairs-s0", steps=(4, 2, 6))  # out of order on purpose: a resumed run logs so
    _log_run(root / "dpo-pairs_aug-s3")
    _log_run(root / "sft-pairs-s0", dpo=False)
    _log_run(root / "dpo-pairs-s9")  # trained once, then dropped from train.runs
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(
        {"train": {"runs": {"dpo": ["pairs-s0", "pairs_aug-s3"], "sft": ["pairs-s0"]}}}))
    monkeypatch.chdir(tmp_path)
    curves.main([])
    out = tmp_path / "reports" / "plots" / "curves"
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{m}.csv" for m in METRICS.values())
    assert (out / "loss.csv").read_text() == (
        "step,run,objective,corpus,seed,loss\n"
        "2,dpo-pairs-s0,dpo,pairs,0,0.35\n4,dpo-pairs-s0,dpo,pairs,0,0.175\n6,dpo-pairs-s0,dpo,pairs,0,0.116667\n"
        "2,dpo-pairs_aug-s3,dpo,pairs_aug,3,0.35\n4,dpo-pairs_aug-s3,dpo,pairs_aug,3,0.175\n"
        "2,sft-pairs-s0,sft,pairs,0,0.35\n4,sft-pairs-s0,sft,pairs,0,0.175\n")
    margins = (out / "reward_margin.csv").read_text().splitlines()
    assert {line.split(",")[1] for line in margins[1:]} == {"dpo-pairs-s0", "dpo-pairs_aug-s3"}
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    curves.main([])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_curves_stage_names_a_run_that_was_not_trained(tmp_path):
    _log_run(tmp_path / "dpo-pairs-s0")
    with pytest.raises(InputError, match=r"dpo-pairs-s1.*train it \(dvc repro train_dpo@pairs-s1\)"):
        curves.merge(tmp_path, ["dpo-pairs-s0", "dpo-pairs-s1"])
    bad = tmp_path / "dpo-pairs-s0" / "plots" / "metrics" / "loss.tsv"
    bad.write_text("step\tloss\n2\t0.5\nx\t0.4\n")
    with pytest.raises(InputError, match=r"loss.tsv, line 3, field 'step'"):
        curves.merge(tmp_path, ["dpo-pairs-s0"])


def test_top_level_plots_draw_every_table_the_curves_stage_writes():
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    plotted = {next(iter(entry)) for entry in spec["plots"]}
    written = {f"{paths.CURVE_PLOTS.as_posix()}/{metric}.csv" for metric in METRICS.values()}
    assert plotted == written
    assert all(next(iter(entry.values()))["template"] == "runs_overlay" for entry in spec["plots"])
    assert (ROOT / ".dvc" / "plots" / "runs_overlay.json").is_file()


@pytest.mark.skipif(not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome", "chrome")),
                    reason="no Chromium (Debian: apt-get install chromium)")
@pytest.mark.skipif(not (ROOT / "reports" / "plots_template.html").is_file(),
                    reason="reports/plots_template.html not built (make setup builds it; it needs npm)")
def test_dvc_plots_show_renders_offline(tmp_path):
    shot = tmp_path / "plots.png"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--screenshot", str(shot)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all drawn offline" in proc.stdout
    assert shot.stat().st_size > 10_000
