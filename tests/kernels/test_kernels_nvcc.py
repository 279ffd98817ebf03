"""The .cu file holds only CUDA code: nvcc compiles it with no torch and no GPU."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CU = Path(__file__).resolve().parents[2] / "csrc" / "cuda" / "logprob_kernels.cu"
NVCC = shutil.which("nvcc")


@pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH: install the CUDA toolkit to compile-check the .cu")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_nvcc_compiles_cu(arch, tmp_path):
    out = tmp_path / f"logprob_{arch}.o"
    proc = subprocess.run(
        [NVCC, "-c", "-std=c++17", "-O3", f"-arch={arch}", str(CU), "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0


def test_cu_includes_only_cuda_headers():
    def includes(path: Path) -> set[str]:
        return {ln.split()[1] for ln in path.read_text().splitlines() if ln.startswith("#include")}

    allowed = {"<cuda_runtime.h>", "<cuda_bf16.h>", "<cuda_fp16.h>", "<cstdint>", '"logprob_cuda.h"'}
    assert includes(CU) <= allowed
    assert includes(CU.with_name("logprob_cuda.h")) <= allowed
