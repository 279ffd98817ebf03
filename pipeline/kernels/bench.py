"""Benchmark the log-prob kernels against eager PyTorch, TRL and torch.compile; write JSON.

    python -m pipeline.kernels.bench                 # CPU shapes -> reports/bench/kernel.json
    python -m pipeline.kernels.bench --device cuda   # GPU shapes (see scripts/gpu_check.sh)

All implementations run side by side in one process; times are medians. Peak extra memory is the
growth of the process's peak RSS (VmHWM, reset through /proc/self/clear_refs) on CPU, and
torch.cuda.max_memory_allocated above the inputs on GPU.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import logging
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

from pipeline import paths
from pipeline.io import write_json
from pipeline.kernels import backend, fused_linear_sequence_logprobs, token_logprobs

log = logging.getLogger(__name__)

# Nominal HBM bandwidth (bytes/s) by device name, for the bandwidth-bound figure.
NOMINAL_BW = {"H200": 4.8e12, "H100": 3.35e12, "A100": 2.0e12}
CPU_SHAPES = [(4096, 32000), (4096, 128256)]
GPU_SHAPES = [(16384, 128256)]


def eager(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(x.float(), dim=-1).gather(1, t.unsqueeze(1)).squeeze(1)


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def median_time(fn: Callable[[], object], device: str, repeat: int, warmup: int = 1) -> float:
    t0 = time.perf_counter()
    for _ in range(warmup):
        fn()
    _sync(device)
    if time.perf_counter() - t0 > 5 * warmup:  # a very slow baseline: fewer rounds keep the run short
        repeat = min(repeat, 3)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _rss_hwm() -> tuple[int, int]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            fields[key] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


def pin_malloc() -> bool:
    """Make glibc mmap every allocation >= 64 KiB and unmap it on free, so RSS follows live tensors.

    Without this, memory freed by an earlier measurement stays resident and later peaks read low.
    """
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 16))  # -3: M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        return False


def peak_extra(fn: Callable[[], object], device: str) -> int | None:
    """Bytes the call needs above what is live before it (None if it cannot be measured here)."""
    gc.collect()
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        fn()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
        base, _ = _rss_hwm()
        fn()
        return max(0, _rss_hwm()[1] - base)
    except OSError:
        return None


def max_abs_error(got: torch.Tensor, x: torch.Tensor, t: torch.Tensor, rows: int = 256) -> float:
    err = 0.0
    for s in range(0, x.shape[0], rows):
        want = torch.log_softmax(x[s : s + rows].double(), -1).gather(1, t[s : s + rows, None]).squeeze(1)
        err = max(err, (got[s : s + rows].double() - want).abs().max().item())
    return err


def _impls(device: str) -> dict[str, Callable]:
    impls: dict[str, Callable] = {"ours": lambda x, t: token_logprobs(x, t), "eager": eager}
    try:
        from trl.trainer.utils import selective_log_softmax

        impls["trl"] = selective_log_softmax
    except ImportError:
        log.warning("trl not installed: no TRL baseline")
    impls["compiled"] = torch.compile(eager, dynamic=False)
    return impls


def _fwd_bwd(fn: Callable, x: torch.Tensor, t: torch.Tensor, g: torch.Tensor) -> Callable[[], None]:
    def run() -> None:
        xr = x.detach().requires_grad_()
        fn(xr, t).float().backward(g)

    return run


def bench_token(n: int, v: int, dtype: torch.dtype, device: str, repeat: int, backward: bool) -> dict:
    gen = torch.Generator(device=device).manual_seed(0)
    x = (torch.randn(n, v, generator=gen, device=device) * 4).to(dtype)
    t = torch.randint(0, v, (n,), generator=gen, device=device)
    g = torch.randn(n, generator=gen, device=device)
    out: dict = {"N": n, "V": v, "dtype": str(dtype).removeprefix("torch."), "forward": {}, "forward_backward": {}}
    for name, fn in _impls(device).items():
        log.info("token N=%d V=%d %s: %s", n, v, out["dtype"], name)
        res = {"median_s": median_time(lambda fn=fn: fn(x, t), device, repeat)}
        res["peak_extra_bytes"] = peak_extra(lambda fn=fn: fn(x, t), device)
        res["max_abs_err_vs_fp64"] = max_abs_error(fn(x, t), x, t)
        out["forward"][name] = res
        if name == "ours" and device == "cuda":  # first, so a later timeout still leaves the key figure
            out["bandwidth"] = bandwidth(x, res["median_s"], repeat)
        if backward:
            step = _fwd_bwd(fn, x, t, g)
            out["forward_backward"][name] = {
                "median_s": median_time(step, device, repeat),
                "peak_extra_bytes": peak_extra(step, device),
            }
    for phase in ("forward", "forward_backward"):
        ours = out[phase].get("ours")
        for name, res in out[phase].items():
            if ours and name != "ours":
                res["time_ratio_vs_ours"] = res["median_s"] / ours["median_s"]
                if res["peak_extra_bytes"] and ours["peak_extra_bytes"] is not None:
                    res["ours_peak_fraction"] = ours["peak_extra_bytes"] / res["peak_extra_bytes"]
    return out


def bandwidth(x: torch.Tensor, ours_s: float, repeat: int) -> dict:
    """Forward time against the time to read the logits once (measured and nominal bandwidth)."""
    nbytes = x.numel() * x.element_size()
    read_s = median_time(lambda: x.sum(dtype=torch.float32), "cuda", repeat)
    name = torch.cuda.get_device_name()
    nominal = next((bw for key, bw in NOMINAL_BW.items() if key in name), None)
    res = {
        "bytes": nbytes,
        "achieved_bytes_per_s": nbytes / ours_s,
        "measured_read_bytes_per_s": nbytes / read_s,
        "time_over_measured_read_bound": ours_s / read_s,
    }
    if nominal:
        res["nominal_bytes_per_s"] = nominal
        res["time_over_nominal_bound"] = ours_s / (nbytes / nominal)
    return res


def bench_fused_linear(n: int, h: int, v: int, dtype: torch.dtype, device: str, repeat: int, chunk: int) -> dict:
    gen = torch.Generator(device=device).manual_seed(1)
    hidden = torch.randn(1, n, h, generator=gen, device=device).to(dtype)
    weight = (torch.randn(v, h, generator=gen, device=device) / h**0.5).to(dtype)
    labels = torch.randint(0, v, (1, n), generator=gen, device=device)

    def ours() -> None:
        hr, wr = hidden.detach().requires_grad_(), weight.detach().requires_grad_()
        fused_linear_sequence_logprobs(hr, wr, labels, chunk_size=chunk)[0].sum().backward()

    def plain() -> None:
        hr, wr = hidden.detach().requires_grad_(), weight.detach().requires_grad_()
        eager((hr[0] @ wr.t()), labels[0]).sum().backward()

    out: dict = {"N": n, "H": h, "V": v, "dtype": str(dtype).removeprefix("torch."), "chunk_size": chunk}
    for name, fn in (("ours", ours), ("eager", plain)):
        log.info("fused-linear N=%d H=%d V=%d: %s", n, h, v, name)
        out[name] = {"median_s": median_time(fn, device, repeat), "peak_extra_bytes": peak_extra(fn, device)}
    out["eager"]["time_ratio_vs_ours"] = out["eager"]["median_s"] / out["ours"]["median_s"]
    if out["ours"]["peak_extra_bytes"]:
        out["eager"]["memory_ratio_vs_ours"] = out["eager"]["peak_extra_bytes"] / out["ours"]["peak_extra_bytes"]
    return out


def run(device: str, repeat: int, quick: bool, save: Callable[[dict], None] | None = None) -> dict:
    """All benchmarks; `save` gets the result so far after each one (a killed run keeps what finished)."""
    pinned = device == "cpu" and pin_malloc()
    if device == "cuda":
        shapes, dtypes = GPU_SHAPES, [torch.bfloat16]
        fused = (16384, 4096, 128256, torch.bfloat16, 4096)
    else:
        shapes, dtypes = CPU_SHAPES, [torch.float32]
        fused = (1024, 512, 32000, torch.float32, 256)
    if quick:
        shapes, dtypes = [(256, 4000)], [torch.float32]
        fused = (128, 64, 4000, torch.float32, 64)
    result = {
        "device": torch.cuda.get_device_name() if device == "cuda" else platform.processor() or platform.machine(),
        "backend": backend(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "memory_method": "cuda max_memory_allocated above the inputs" if device == "cuda" else (
            "peak RSS growth: VmHWM reset by /proc/self/clear_refs, glibc mmap threshold pinned at 64 KiB"
            + ("" if pinned else " (pinning failed: freed memory may hide part of a peak)")
        ),
        "token_logprobs": [],
    }
    for n, v in shapes:
        for dt in dtypes:
            result["token_logprobs"].append(bench_token(n, v, dt, device, repeat, backward=True))
            if save:
                save(result)
    result["fused_linear"] = bench_fused_linear(*fused[:4], device, repeat, fused[4])
    return result


def table(result: dict) -> str:
    lines = ["| N | V | dtype | phase | impl | median ms | x slower than ours | peak extra MB | max abs err |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in result["token_logprobs"]:
        for phase in ("forward", "forward_backward"):
            for name, res in r[phase].items():
                mem = res["peak_extra_bytes"]
                lines.append(
                    f"| {r['N']} | {r['V']} | {r['dtype']} | {phase} | {name} | {res['median_s'] * 1e3:.1f} | "
                    f"{res.get('time_ratio_vs_ours', 1.0):.2f} | {'-' if mem is None else f'{mem / 2**20:.1f}'} | "
                    f"{res.get('max_abs_err_vs_fp64', float('nan')):.2e} |"
                )
    f = result["fused_linear"]
    for name in ("ours", "eager"):
        mem = f[name]["peak_extra_bytes"]
        lines.append(
            f"| {f['N']} | {f['V']} (H={f['H']}) | {f['dtype']} | fused-linear fwd+bwd | {name} | "
            f"{f[name]['median_s'] * 1e3:.1f} | {f[name].get('time_ratio_vs_ours', 1.0):.2f} | "
            f"{'-' if mem is None else f'{mem / 2**20:.1f}'} | - |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--out", default=str(paths.BENCH / "kernel.json"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="tiny shapes, to check the command works")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: no CUDA device here")
    result = run(args.device, args.repeat, args.quick, save=lambda partial: write_json(Path(args.out), partial))
    write_json(Path(args.out), result)
    print(table(result))
    print(f"bench: {args.device} backend={result['backend']} -> {args.out}")


if __name__ == "__main__":
    main()
