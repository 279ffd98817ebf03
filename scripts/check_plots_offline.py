"""Check that `dvc plots show` draws every plot with no network: the curves of dvc.yaml's top-level
`plots:` (the dvclive folders of pipeline/training/live.py, merged by the curves stage) and the accuracy bars, through the offline
template of .dvc/config (reports/plots_template.html).

    python scripts/check_plots_offline.py                      # a throw-away repo of hand-made curves
    python scripts/check_plots_offline.py --repo DIR           # a repo whose pipeline ran (e.g. smoke)
    python scripts/check_plots_offline.py --screenshot out.png # keep the screenshot

Without --repo it builds a temporary git + DVC repo from this project's dvc.yaml, .dvc/config,
.dvc/plots, reports/plots_template.html and params/smoke.yaml, writes the curves by driving
pipeline.training.live.LiveCurves with made-up logs (the smoke runs), merges them as the curves stage
does (pipeline/stages/curves.py) and writes a small accuracy.csv. It runs
a plain `dvc plots show` (so the template comes from .dvc/config), opens dvc_plots/index.html in
headless Chromium with networking off, and fails unless every plot rendered SVG marks and the page
names no outside URL. Exit 2: no Chromium found (CI needs Debian's `chromium` package).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
# Copied into the throw-away repo: what `dvc plots show` reads besides the data.
REPO_FILES = ["dvc.yaml", ".dvc/config", ".dvc/plots", "reports/plots_template.html"]
TITLES = ["Training loss per run", "DPO reward margin per run", "DPO reward accuracy per run",
          "Reward-model accuracy"]


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(cmd: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def write_fake_curves(repo: Path, runs: list[str], steps: int = 6) -> None:
    """The dvclive folders the train stage would write, through the same callback, from made-up logs, and
    the overlay tables the curves stage makes of them."""
    from pipeline.io import write_text
    from pipeline.stages.curves import merge, to_csv
    from pipeline.training.live import LiveCurves

    for i, run in enumerate(runs):
        cb = LiveCurves(repo / "reports" / "training" / run)
        state = SimpleNamespace(is_world_process_zero=True, global_step=0)
        cb.on_train_begin(None, state, None)
        for step in range(1, steps + 1):
            state.global_step = step
            loss = 0.69 / (1 + 0.15 * step * (1 + i / 4))
            logs = {"loss": loss if run.startswith("dpo") else 6 * loss, "epoch": step / steps}
            if run.startswith("dpo"):
                logs |= {"rewards/margins": 0.05 * step * (1 + i / 3), "rewards/accuracies": min(1.0, 0.4 + 0.1 * step)}
            cb.on_log(None, state, None, logs=logs)
        cb.on_train_end(None, state, None)
    for metric, merged in merge(repo / "reports" / "training", runs).items():
        write_text(repo / "reports" / "plots" / "curves" / f"{metric}.csv", to_csv(metric, merged))
    rows = ["system,model,corpus,scoring,accuracy,low,high,n"]
    for run in ["base", *runs]:
        for j, corpus in enumerate(["pairs", "pairs_aug"]):
            acc = 0.5 + 0.04 * len(run) % 0.3 + 0.03 * j
            rows.append(f"{run} | {corpus} | ref_sum,{run},{corpus},ref_sum,{acc:.3f},{acc - 0.07:.3f},{acc + 0.06:.3f},200")
    (repo / "reports" / "plots").mkdir(parents=True, exist_ok=True)
    (repo / "reports" / "plots" / "accuracy.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def make_repo(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in REPO_FILES:
        src, dst = ROOT / name, dest / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    shutil.copy2(ROOT / "params" / "smoke.yaml", dest / "params.yaml")
    _run(["git", "init", "-q", "-b", "main"], dest)
    from pipeline.params import load, run_names

    write_fake_curves(dest, run_names(load(dest / "params.yaml").train))
    return dest


def browser_cmd(browser: str, profile: Path, *extra: str) -> list[str]:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-default-apps", "--disable-extensions", f"--user-data-dir={profile}",
           # Networking off: no name resolves and every request goes to a closed local port.
           "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           "--virtual-time-budget=15000", *extra]
    # A fresh network namespace has no interface but loopback, where the user namespaces allow it.
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        cmd = [unshare, "-rn", *cmd]
    return cmd


def check(repo: Path, browser: str, screenshot: Path | None) -> str:
    out = repo / "dvc_plots"
    shutil.rmtree(out, ignore_errors=True)
    show = _run(["dvc", "plots", "show"], repo)
    page = out / "index.html"
    html = page.read_text(encoding="utf-8")
    problems = []
    urls = sorted(set(re.findall(r"""(?:src|href)\s*=\s*["'](?:https?:)?//[^"']+""", html)))
    if urls:
        problems.append(f"the page loads from the network: {urls}")
    plots = html.count("vegaEmbed('#")
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        dom = subprocess.run(browser_cmd(browser, Path(profile), "--dump-dom", page.as_uri()),
                             capture_output=True, text=True, timeout=180).stdout
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        shot = screenshot or Path(profile) / "shot.png"
        subprocess.run(browser_cmd(browser, Path(profile) / "p", f"--screenshot={shot}", "--window-size=1200,2400",
                                   page.as_uri()), capture_output=True, text=True, timeout=180)
        if not shot.is_file() or shot.stat().st_size == 0:
            problems.append("no screenshot was written")
    drawn = len(re.findall(r'<svg[^>]*class="marks"', dom))
    marks = len(re.findall(r'role="graphics-symbol"|class="mark-', dom))
    if plots < len(TITLES) or drawn < plots or marks == 0:
        problems.append(f"{plots} plots on the page, {drawn} drawn as SVG, {marks} marks (want >= {len(TITLES)} "
                        "plots, all drawn)")
    for title in TITLES:
        if title not in dom:
            problems.append(f"no rendered plot titled {title!r}")
    if problems:
        raise SystemExit("dvc plots show, offline: " + "; ".join(problems) + f"\n(dvc: {show.stderr[-1500:]})")
    return f"{page}: {plots} plots, all drawn offline ({marks} SVG marks)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, help="a DVC repo whose curves exist (default: a hand-made one)")
    parser.add_argument("--screenshot", type=Path, help="where to keep the page's screenshot (PNG)")
    args = parser.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print(f"no Chromium ({', '.join(BROWSERS)}) on PATH: install Debian's chromium", file=sys.stderr)
        sys.exit(2)
    screenshot = args.screenshot.resolve() if args.screenshot else None
    if args.repo:
        print(check(args.repo.resolve(), browser, screenshot))
        return
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="plots-offline-") as tmp:
        print(check(make_repo(Path(tmp) / "repo"), browser, screenshot))


if __name__ == "__main__":
    main()
