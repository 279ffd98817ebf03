"""`dvc plots show` renders every plot with no network (scripts/check_plots_offline.py), and the dvclive
curves of a run are the same bytes on a rerun."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.training.live import LiveCurves

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "check_plots_offline.py"


class _State:
    is_world_process_zero = True
    global_step = 0


def _log_run(out: Path) -> None:
    cb, state = LiveCurves(out), _State()
    cb.on_train_begin(None, state, None)
    for step in (2, 4):
        state.global_step = step
        cb.on_log(None, state, None, logs={"loss": 0.7 / step, "rewards/margins": 0.1 * step,
                                           "rewards/accuracies": 0.5, "epoch": 0.1})
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
