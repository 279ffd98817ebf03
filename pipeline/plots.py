"""PNG figures of the report (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from pipeline.io import atomic_file  # noqa: E402


def _save(fig: Any, path: Path) -> None:
    # Fixed metadata keeps the PNG bytes identical across runs.
    with atomic_file(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def accuracy_figure(rows: Sequence[dict[str, Any]], path: Path, order: Sequence[str]) -> None:
    """Accuracy with Wilson intervals, one panel per (eval corpus, scoring)."""
    panels = sorted({(r["corpus"], r["scoring"]) for r in rows})
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(4.2 * max(1, len(panels)), 0.45 * len(order) + 1.5),
                             sharey=True, squeeze=False)
    for ax, (corpus, scoring) in zip(axes[0][: len(panels)], panels, strict=True):
        by_model = {r["model"]: r for r in rows if (r["corpus"], r["scoring"]) == (corpus, scoring)}
        names = [n for n in order if n in by_model]
        acc = np.array([by_model[n]["accuracy"] if by_model[n]["accuracy"] is not None else np.nan for n in names])
        low = np.array([by_model[n]["low"] if by_model[n]["low"] is not None else np.nan for n in names])
        high = np.array([by_model[n]["high"] if by_model[n]["high"] is not None else np.nan for n in names])
        y = np.arange(len(names))
        ax.barh(y, acc, color=["#888888" if n.startswith("prefer") else "#3b6ea8" for n in names])
        ax.errorbar(acc, y, xerr=[np.nan_to_num(acc - low), np.nan_to_num(high - acc)], fmt="none", color="black",
                    capsize=3)
        ax.axvline(0.5, color="red", linewidth=0.8, linestyle="--")
        ax.set_yticks(y, names)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_title(f"{corpus}, {scoring}")
        ax.set_xlabel("pairwise accuracy (Wilson 95%)")
    _save(fig, path)


def dimension_figure(res: dict[str, Any], path: Path, order: Sequence[str], dimensions: Sequence[str]) -> None:
    """Heatmap of accuracy per dimension, one panel per (eval corpus, scoring)."""
    keys = [k for k in res if k.endswith("/sum") or k.endswith("/mean")]
    fig, axes = plt.subplots(1, max(1, len(keys)), figsize=(4.8 * max(1, len(keys)), 0.45 * len(order) + 2.2),
                             squeeze=False)
    for ax, key in zip(axes[0][: len(keys)], keys, strict=True):
        grid = np.full((len(order), len(dimensions)), np.nan)
        for i, name in enumerate(order):
            for j, dim in enumerate(dimensions):
                cell = res[key]["dimension"].get(name, {}).get(dim)
                if cell and cell["n"]:
                    grid[i, j] = cell["accuracy"]
        ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
        for i in range(len(order)):
            for j in range(len(dimensions)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(dimensions)), list(dimensions), fontsize=7, rotation=35, ha="right")
        ax.set_yticks(range(len(order)), order, fontsize=8)
        ax.set_title(key)
    _save(fig, path)


def training_figure(curves: dict[str, list[dict[str, float]]], path: Path) -> None:
    """Training curves per run: loss (DPO and SFT), and for DPO the reward margin and reward accuracy on
    its own training batches (TRL's logged rewards/margins and rewards/accuracies)."""
    panels = (("loss", "loss"), ("rewards_margins", "DPO reward margin"), ("rewards_accuracies", "DPO reward accuracy"))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.4), squeeze=False)
    for ax, (key, title) in zip(axes[0], panels, strict=True):
        for name, rows in sorted(curves.items()):
            points = [(r["step"], r[key]) for r in rows if "step" in r and key in r]
            if points:
                steps, values = zip(*points, strict=True)
                ax.plot(steps, values, label=name, linewidth=1.2, linestyle="-" if name.startswith("dpo") else "--")
        ax.set_title(title)
        ax.set_xlabel("optimizer step")
        if key == "rewards_accuracies":
            ax.set_ylim(0, 1)
    if axes[0][0].get_legend_handles_labels()[0]:
        axes[0][0].legend(fontsize=7)
    _save(fig, path)
