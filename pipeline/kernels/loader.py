"""Builds (once) and loads the csrc/ extension with torch.utils.cpp_extension.load.

The build goes to PIPELINE_EXT_DIR (default .cache/torch_extensions under the repo root) and is
reused afterwards. PIPELINE_KERNELS=reference skips it. A failed build falls back to the
pure-PyTorch reference with a warning, so the pipeline still runs without a compiler.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import warnings
from functools import cache
from pathlib import Path

import torch

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
CSRC = ROOT / "csrc"
CPU_SOURCES = [CSRC / "ops.cpp", CSRC / "cpu" / "logprob_cpu.cpp"]
CUDA_SOURCES = [CSRC / "cuda" / "logprob_cuda.cpp", CSRC / "cuda" / "logprob_kernels.cu"]
HEADERS = [CSRC / "checks.h"]
CUDA_HEADERS = [CSRC / "cuda" / "logprob_cuda.h"]
_FORCE_REFERENCE = "reference"


def build_dir() -> Path:
    return Path(os.environ.get("PIPELINE_EXT_DIR") or ROOT / ".cache" / "torch_extensions")


_ISA_ORDER = ("DEFAULT", "AVX2", "AVX512")


def cpu_capability() -> str:
    """The vector ISA the JIT build targets: the widest this CPU runs, capped by ATEN_CPU_CAPABILITY (the
    stages pin it to avx2, pipeline/cpu_pin.py), so the extension rounds as ATen's kernels beside it do."""
    native = _native_capability()
    wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if wanted in _ISA_ORDER and _ISA_ORDER.index(wanted) < _ISA_ORDER.index(native):
        return wanted
    return native


def _native_capability() -> str:
    """The widest ATen vector ISA this CPU runs."""
    try:
        flags = set()
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        return "DEFAULT"
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"


_ISA_FLAGS = {
    "AVX512": ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma", "-mf16c"],
    "AVX2": ["-mavx2", "-mfma", "-mf16c"],
    "DEFAULT": [],
}


def use_cuda() -> bool:
    from torch.utils.cpp_extension import CUDA_HOME

    return torch.cuda.is_available() and CUDA_HOME is not None


def _name(sources: list[Path], isa: str) -> str:
    # Sources, ISA and this file (the flags) in the name: an edited kernel, other flags or another CPU
    # never reuse a stale build.
    h = hashlib.sha256(isa.encode())
    h.update(Path(__file__).read_bytes())
    for s in sources:
        h.update(s.read_bytes())
    return f"pipeline_kernels_{isa.lower()}_{h.hexdigest()[:12]}"


_CUDA_BUILT = False


def cuda_built() -> bool:
    """Whether the loaded extension includes the CUDA kernels."""
    return _CUDA_BUILT


def _build() -> None:
    global _CUDA_BUILT
    from torch.utils.cpp_extension import load

    isa = cpu_capability()
    cuda = use_cuda()
    sources = CPU_SOURCES + (CUDA_SOURCES if cuda else [])
    name = _name(sources + HEADERS + (CUDA_HEADERS if cuda else []), isa + ("_cuda" if cuda else ""))
    folder = build_dir() / name
    built = folder / f"{name}.so"
    if built.exists() and not (folder / "lock").exists():  # "lock": another process is building it
        # The name pins sources, ISA and CUDA: a finished build is loaded as is, from any checkout
        # (a copy elsewhere would otherwise make ninja rebuild for the changed source paths).
        torch.ops.load_library(str(built))
        _CUDA_BUILT = cuda
        return
    print(f"pipeline.kernels: building the log-prob extension into {folder} (once; takes a few minutes)",
          file=sys.stderr, flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    # No -std here: torch passes the C++ standard its own headers need (C++20 in torch 2.13).
    # -fopenmp: at::parallel_for is inline code that only runs in parallel when the extension itself is
    # compiled with OpenMP (torch's CPU backend); without it every kernel runs on one thread.
    cflags = ["-O3", "-fopenmp", f"-DCPU_CAPABILITY={isa}", f"-DCPU_CAPABILITY_{isa}", *_ISA_FLAGS[isa]]
    if isa == "DEFAULT":
        cflags = ["-O3", "-fopenmp"]
    load(
        name=name,
        sources=[str(s) for s in sources],
        extra_cflags=cflags,
        extra_ldflags=["-fopenmp"],
        # no --use_fast_math: its tanh approximation (~5e-4 relative) would break the softcap accuracy;
        # -ftz only flushes denormals, which saves the denormal handling around every ex2.approx
        extra_cuda_cflags=["-O3", "-ftz=true"],
        build_directory=str(folder),
        is_python_module=False,
        verbose=False,
    )
    _CUDA_BUILT = cuda


@cache
def extension_available() -> bool:
    """True once the extension is built and loaded (its ops defined); False means the reference is used.

    Autograd and fake kernels are attached by pipeline.kernels.ops, next to the Python wrapper."""
    if os.environ.get("PIPELINE_KERNELS", "").lower() == _FORCE_REFERENCE:
        return False
    if shutil.which("ninja") is None and not (Path(sys.executable).parent / "ninja").exists():
        warnings.warn("pipeline.kernels: ninja not found; using the pure-PyTorch reference", stacklevel=2)
        return False
    if Path(sys.executable).parent.joinpath("ninja").exists():
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        _build()
    except Exception as exc:  # any compiler or loader failure: keep working on the reference
        warnings.warn(
            f"pipeline.kernels: building the extension failed ({type(exc).__name__}: {str(exc)[-2000:]}); "
            "using the pure-PyTorch reference (slower, same results)",
            stacklevel=2,
        )
        return False
    return True
