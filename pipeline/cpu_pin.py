"""The CPU code paths a stage's floats come from, pinned once for every stage: the same inputs give the
same bytes on any x86-64 CPU with AVX2 (README, docs/reproducibility.md).

PyTorch, MKL, oneDNN, numpy and its OpenBLAS each pick their kernels by the CPU they find. AVX-512 and AVX2
kernels round differently in the last bits: a pretraining loss that agreed to 1e-6 at step 10 drifted from
step 20 on an AVX-512 machine, and every model after it differed. So before torch or numpy is imported,
every stage (pipeline/stages/__init__.py, the common entry of `python -m pipeline.stages.<name>`) sets:
- ATEN_CPU_CAPABILITY=avx2: ATen's vectorised kernels run their AVX2 build;
- MKL_CBWR=AVX2,STRICT: MKL's conditional numerical reproducibility, its AVX2 code path, in strict mode
  (its gemm then gives the same bits whatever the thread count);
- ONEDNN_MAX_CPU_ISA=AVX2: oneDNN's JIT kernels stop at AVX2;
- OPENBLAS_CORETYPE=Haswell and NPY_DISABLE_CPU_FEATURES: numpy's BLAS and its own SIMD loops use their
  AVX2 kernels;
and the log-prob extension is built for AVX2 (pipeline/kernels/loader.py reads ATEN_CPU_CAPABILITY).
Thread counts are left to the machine: under these settings the smoke pretraining and DPO give the same
bytes with 1, 2 and 4 threads (tests/test_cpu_pin.py checks it), and pinning them would idle the cores
of a larger machine. A GPU has no such switch: on CUDA the bytes are not promised, and the report says
within what tolerance a rerun agreed.

`LRP_CPU_DISPATCH=native` turns the pin off (each library takes the widest code path of the CPU: faster
where AVX-512 is there, and the bytes then follow the machine); the stage's log line says which is in force.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

SWITCH = "LRP_CPU_DISPATCH"
PINNED = "avx2"
NATIVE = "native"
# The environment every stage runs under (set over what the environment had: the pin is the contract).
SETTINGS = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2,STRICT",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    # numpy 2.x names of the x86 feature groups above AVX2 (numpy.show_runtime() lists them).
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}
# Libraries that read the settings once, when they load: a pin set after them would not hold.
_READ_AT_LOAD = ("torch", "numpy")


def mode(environ: MutableMapping[str, str] | None = None) -> str:
    """avx2 (the default) or native, from LRP_CPU_DISPATCH; ValueError for anything else."""
    value = (os.environ if environ is None else environ).get(SWITCH, PINNED).strip().lower() or PINNED
    if value not in (PINNED, NATIVE):
        raise ValueError(f"{SWITCH}={value!r}: allowed {PINNED} (the default: the same bytes on any x86-64 "
                         f"with AVX2) or {NATIVE}")
    return value


def pin(environ: MutableMapping[str, str] | None = None) -> str:
    """Put SETTINGS into the environment unless LRP_CPU_DISPATCH=native; returns the mode in force. Call it
    before torch and numpy are imported (a warning says when they were: the pin then holds only for the
    processes this one starts)."""
    env = os.environ if environ is None else environ
    chosen = mode(env)
    if chosen == NATIVE:
        # Values a pinned parent process passed down are the pin's, not the user's: native drops them.
        for key, value in SETTINGS.items():
            if env.get(key) == value:
                del env[key]
    if chosen == PINNED:
        already = all(env.get(key) == value for key, value in SETTINGS.items())
        env.update(SETTINGS)
        loaded = [name for name in _READ_AT_LOAD if name in sys.modules]
        if loaded and environ is None and not already:
            print(f"pipeline.cpu_pin: {', '.join(loaded)} loaded before the CPU pin: it holds for child processes "
                  "only", file=sys.stderr)
    return chosen


def summary() -> str:
    """One line for a stage's log: the mode, the settings in force and the thread count."""
    threads = ""
    torch = sys.modules.get("torch")
    if torch is not None:
        threads = f", {torch.get_num_threads()} torch threads"
    if mode() == NATIVE:
        return f"cpu dispatch native ({SWITCH}=native: each library's widest code path; bytes follow the CPU){threads}"
    shown = ", ".join(f"{k}={os.environ.get(k, '')}" for k in SETTINGS)
    return f"cpu dispatch {PINNED} ({shown}){threads}"


def facts() -> dict:
    """The same, as a run log's entry (pipeline.io.write_run_log)."""
    torch = sys.modules.get("torch")
    return {"dispatch": mode(), "settings": {k: os.environ.get(k) for k in SETTINGS},
            "torch_threads": torch.get_num_threads() if torch is not None else None,
            "cpu_count": os.cpu_count()}
