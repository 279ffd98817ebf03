"""The same bytes on any x86-64 CPU with AVX2 (issue 31, item 1; pipeline/cpu_pin.py).

End to end: the smoke pretraining and one tiny DPO run (through the fused log-prob extension, built for
the pinned ISA) in child processes, as `dvc repro` runs them, under environments that ask for different
code paths: one asking for AVX-512 everywhere (what this machine's libraries take by themselves where it
has AVX-512), one restricted to AVX2 on one thread (what an AVX2-only machine takes). The stages' pin
overrides both, so the base model and the adapter are the same bytes. With the pin off
(LRP_CPU_DISPATCH=native) on a CPU with AVX-512 the bytes differ: the check sees what the pin removes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_project_copy, run

from pipeline import cpu_pin


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


HAS_AVX512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= _cpu_flags()
# What each environment asks of the libraries before the stage's pin (the pin sets its own values over them).
ASK_AVX512 = {"ATEN_CPU_CAPABILITY": "avx512", "MKL_ENABLE_INSTRUCTIONS": "AVX512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE",
              "OPENBLAS_CORETYPE": "SkylakeX", "MKL_CBWR": "AUTO"}
AVX2_MACHINE = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                "OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
                "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
TINY = {"pretrain": {"steps": 6}, "train": {"max_steps": 2, "max_pairs": 8}}
OUTPUTS = ("models/base", "models/adapters/dpo-pairs-s0")


def _digests(repo: Path) -> dict[str, str]:
    out = {}
    for name in OUTPUTS:
        for path in sorted((repo / name).rglob("*")):
            if path.is_file() and path.suffix in (".safetensors", ".json") and path.name != "train_meta.json":
                out[path.relative_to(repo).as_posix()] = hashlib.md5(path.read_bytes()).hexdigest()
    return out


def _merge(raw: dict, changes: dict) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(raw.get(key), dict) and key != "runs":
            _merge(raw[key], value)
        else:
            raw[key] = value


@pytest.fixture(scope="module")
def smoke_pairs(tmp_path_factory):
    """The smoke project up to the pairs (the data stages are byte-stable already: tests/test_determinism.py)."""
    root = tmp_path_factory.mktemp("cpu-pin")
    repo = make_project_copy(root / "repo", root / "remote")
    raw = yaml.safe_load((repo / "params.yaml").read_text(encoding="utf-8"))
    _merge(raw, TINY)
    (repo / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    run(["dvc", "repro", "pairs"], repo)
    return repo


def _train(smoke: Path, dest: Path, env: dict[str, str]) -> dict[str, str]:
    """pretrain, then train_dpo@pairs-s0, in a copy of the smoke project, as child processes under `env`."""
    shutil.copytree(smoke, dest, symlinks=True)
    base = {k: v for k, v in os.environ.items() if k not in {*ASK_AVX512, *AVX2_MACHINE, cpu_pin.SWITCH}}
    full = {**base, **env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}",
            "PIPELINE_EXT_DIR": str(ROOT / ".cache" / "torch_extensions"), "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": str(dest)}
    for cmd in (["-m", "pipeline.stages.pretrain"], ["-m", "pipeline.stages.train", "--run", "dpo-pairs-s0"]):
        proc = subprocess.run([sys.executable, *cmd], cwd=dest, env=full, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-4000:]
        # The stage's log line says which code paths ran.
        want = "cpu dispatch native" if env.get(cpu_pin.SWITCH) == "native" else "cpu dispatch avx2 (ATEN_CPU_CAPABILITY=avx2"
        assert want in proc.stderr, proc.stderr[-2000:]
    return _digests(dest)


def _beyond_the_pins() -> bool:
    """Whether the CPU offers AMX or AVX512-FP16, where the pins were seen not to hold."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "amx_tile" in flags or "avx512_fp16" in flags


@pytest.mark.slow
def test_pretraining_and_dpo_give_the_same_bytes_whatever_the_cpu_asks(smoke_pairs, tmp_path):
    asked_avx512 = _train(smoke_pairs, tmp_path / "avx512", ASK_AVX512)
    avx2_machine = _train(smoke_pairs, tmp_path / "avx2", AVX2_MACHINE)
    assert len(asked_avx512) >= 4 and any("adapter_model" in k for k in asked_avx512)
    if asked_avx512 != avx2_machine and _beyond_the_pins():
        # Measured 5 December 2026 on a Xeon with AMX and AVX512-FP16: the pinned runs drift in the last
        # digits (docs/reproducibility.md). Known and not yet fixed; on every other CPU the bytes must agree.
        pytest.xfail("on a CPU with AMX / AVX512-FP16 the pins do not give the AVX2 bytes (docs/reproducibility.md)")
    assert asked_avx512 == avx2_machine
    if HAS_AVX512:
        native = _train(smoke_pairs, tmp_path / "native", {cpu_pin.SWITCH: "native"})
        differ = sorted(k for k in native if native[k] != asked_avx512.get(k))
        assert any(k.startswith("models/base/") and k.endswith(".safetensors") for k in differ), (
            "the native AVX-512 code paths gave the pinned bytes: the check would not see a CPU difference")


# ------------------------------------------------------------------------------------------- the switch
def test_pin_sets_every_setting_over_the_environment():
    env = {"ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": "AUTO", "OTHER": "kept"}
    assert cpu_pin.pin(env) == "avx2"
    assert env == {**cpu_pin.SETTINGS, "OTHER": "kept"}


def test_native_keeps_the_users_settings_drops_a_parents_pin_and_a_typo_is_refused():
    env = {cpu_pin.SWITCH: "native", "ATEN_CPU_CAPABILITY": "avx512", "MKL_CBWR": cpu_pin.SETTINGS["MKL_CBWR"]}
    assert cpu_pin.pin(env) == "native"
    assert env == {cpu_pin.SWITCH: "native", "ATEN_CPU_CAPABILITY": "avx512"}
    with pytest.raises(ValueError, match=r"LRP_CPU_DISPATCH='avx-2': allowed avx2 .* or native"):
        cpu_pin.pin({cpu_pin.SWITCH: "avx-2"})


def test_a_bad_switch_stops_a_stage_in_one_line(tmp_path):
    env = {**os.environ, cpu_pin.SWITCH: "fast", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pipeline.stages.decisions"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.strip() == (
        "error: LRP_CPU_DISPATCH='fast': allowed avx2 (the default: the same bytes on any x86-64 with AVX2) or native")


def test_the_extension_is_built_for_the_pinned_isa(monkeypatch):
    from pipeline.kernels import loader

    monkeypatch.setattr(loader, "_native_capability", lambda: "AVX512")
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    assert loader.cpu_capability() == "AVX2"
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx512")
    assert loader.cpu_capability() == "AVX512"
    # A cap above what the CPU runs changes nothing: ATen falls back the same way.
    monkeypatch.setattr(loader, "_native_capability", lambda: "AVX2")
    assert loader.cpu_capability() == "AVX2"
    monkeypatch.delenv("ATEN_CPU_CAPABILITY")
    assert loader.cpu_capability() == "AVX2"


def test_run_logs_record_the_pin(tmp_path, monkeypatch):
    import json

    from pipeline.io import write_run_log

    monkeypatch.chdir(tmp_path)
    facts = json.loads(write_run_log("pretrain", {"wall_time_s": 1.0}).read_text(encoding="utf-8"))
    assert facts["wall_time_s"] == 1.0 and facts["cpu"]["dispatch"] == "avx2"
    assert facts["cpu"]["settings"] == cpu_pin.SETTINGS
