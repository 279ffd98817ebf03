"""Training curves through dvclive: one metrics folder per run, read by `dvc plots` (dvc.yaml `plots:`).

    reports/training/<run>/plots/metrics/loss.tsv              step, loss  (every run)
    reports/training/<run>/plots/metrics/reward_margin.tsv     step, reward_margin    (DPO: TRL's
    reports/training/<run>/plots/metrics/reward_accuracy.tsv   step, reward_accuracy   rewards/*)
    reports/training/<run>/metrics.json                        the last value of each, and the step

A TrainerCallback of our own rather than TRL's report_to="dvclive": the folder, the step (the trainer's
global step at each logging step) and the names are ours, and nothing in the folder depends on the clock
or the machine: no timestamps, no report, no dvc.yaml, no experiment saved. The same run writes the
same bytes.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

from transformers import TrainerCallback

# What TRL logs at each logging step -> the metric name in the folder (the file and its column).
METRICS = {
    "loss": "loss",
    "rewards/margins": "reward_margin",
    "rewards/accuracies": "reward_accuracy",
}


def _value(value: float) -> float | str:
    # Six significant digits, as the curve CSV: the same file on every platform's float printing.
    return float(f"{value:.6g}") if math.isfinite(value) else str(value)


class LiveCurves(TrainerCallback):
    """Logs METRICS at every logging step into the dvclive folder `out_dir` (emptied at the start of
    training). On N processes only the main one writes."""

    def __init__(self, out_dir: str | Path):
        self.out_dir = Path(out_dir)
        self.live = None

    def on_train_begin(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        from dvclive import Live

        # dvclive names a random experiment at INFO on every start; that is noise in a stage's log.
        logging.getLogger("dvclive").setLevel(logging.WARNING)
        self.live = Live(dir=str(self.out_dir), resume=False, report=None, save_dvc_exp=False, dvcyaml=None,
                         monitor_system=False)

    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = logs or {}
        # The closing summary entry has train_loss, not loss: it is no curve point.
        if self.live is None or "loss" not in logs:
            return
        self.live.step = state.global_step
        for key, name in METRICS.items():
            if key in logs:
                self.live.log_metric(name, _value(float(logs[key])))

    def on_train_end(self, args, state, control, **kwargs):
        if self.live is None:
            return
        # The summary only: Live.end() would also save an experiment and post to DVC Studio.
        self.live.make_summary()
        self.live = None
