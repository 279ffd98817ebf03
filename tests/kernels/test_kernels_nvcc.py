"""The .cu file holds only CUDA code: nvcc compiles it with no torch and no GPU.

`make test` compiles it every time: it installs nvcc from the package index first (`make nvcc`:
nvidia-cuda-nvcc with its runtime, crt, nvvm and cccl wheels, into .cache/nvcc), and scripts/cuda_check.py
finds it (PATH, CUDA_HOME, else those wheels). Under CI, or once `make nvcc` has run, a missing nvcc fails
rather than skips, so the compile cannot silently stop running. `make cuda-check` adds the syntax check
of the torch glue.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CU = ROOT / "csrc" / "cuda" / "logprob_kernels.cu"
_spec = importlib.util.spec_from_file_location("cuda_check", ROOT / "scripts" / "cuda_check.py")
cuda_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cuda_check)
NVCC = cuda_check.nvcc()


@pytest.mark.parametrize("arch", cuda_check.ARCHS)
def test_nvcc_compiles_cu(arch, tmp_path):
    if NVCC is None:
        if cuda_check.NVCC_DIR.exists() or os.environ.get("CI"):
            pytest.fail(f"nvcc not found (PATH, CUDA_HOME, {cuda_check.NVCC_DIR}): `make nvcc` installs it")
        pytest.skip("nvcc not found: `make nvcc` installs it (make test does)")
    out = tmp_path / f"logprob_{arch}.o"
    proc = cuda_check.compile_cu(NVCC, arch, out)
    assert proc.returncode == 0, proc.stderr
    # The object holds code for the architecture asked for (nvcc names it in the embedded fatbinary).
    assert out.stat().st_size > 0 and arch.encode() in out.read_bytes()


def test_cu_includes_only_cuda_headers():
    def includes(path: Path) -> set[str]:
        return {ln.split()[1] for ln in path.read_text().splitlines() if ln.startswith("#include")}

    allowed = {"<cuda_runtime.h>", "<cuda_bf16.h>", "<cuda_fp16.h>", "<cstdint>", '"logprob_cuda.h"'}
    assert includes(CU) <= allowed
    assert includes(CU.with_name("logprob_cuda.h")) <= allowed
