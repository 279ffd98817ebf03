"""Backend selection: the extension when it builds, the reference (with a warning) when it cannot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pipeline.kernels import loader

ROOT = Path(__file__).resolve().parents[2]


def test_failed_build_falls_back_with_warning(monkeypatch):
    def broken():
        raise RuntimeError("no compiler")

    monkeypatch.setattr(loader, "_build", broken)
    monkeypatch.delenv("PIPELINE_KERNELS", raising=False)
    with pytest.warns(UserWarning, match="using the pure-PyTorch reference"):
        assert loader.extension_available.__wrapped__() is False


def test_env_forces_reference(monkeypatch):
    monkeypatch.setenv("PIPELINE_KERNELS", "reference")
    assert loader.extension_available.__wrapped__() is False


def test_reference_backend_in_fresh_process_gives_same_numbers():
    code = (
        "import torch; from pipeline.kernels import token_logprobs, backend; "
        "g = torch.Generator().manual_seed(3); x = torch.randn(6, 70, generator=g); "
        "t = torch.randint(0, 70, (6,), generator=g); print(backend()); print(token_logprobs(x, t).tolist())"
    )
    env = {"PIPELINE_KERNELS": "reference", "PATH": "", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    name, values = out.stdout.strip().splitlines()
    assert name == "reference"
    from pipeline.kernels import token_logprobs

    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 70, generator=g)
    t = torch.randint(0, 70, (6,), generator=g)
    torch.testing.assert_close(torch.tensor(eval(values)), token_logprobs(x, t), atol=1e-5, rtol=1e-6)


def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("PIPELINE_EXT_DIR", str(tmp_path))
    assert loader.build_dir() == tmp_path


def test_build_name_tracks_sources(tmp_path):
    src = tmp_path / "a.cpp"
    src.write_text("int a;")
    first = loader._name([src], "AVX2")
    src.write_text("int b;")
    assert loader._name([src], "AVX2") != first
    assert loader._name([src], "AVX512") != loader._name([src], "AVX2")
