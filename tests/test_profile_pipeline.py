"""The real-model profile's pipeline (real/dvc.yaml) is the root pipeline, relocated: generated from dvc.yaml
by scripts/profile_pipeline.py and kept in step with it, so no stage of one can drift from the other."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

from pipeline import params as params_mod

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("profile_pipeline", ROOT / "scripts" / "profile_pipeline.py")
profile_pipeline = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile_pipeline)


def test_real_dvc_yaml_is_generated_from_the_root_pipeline():
    expected = profile_pipeline.profile_pipeline("real")
    assert (ROOT / "real" / "dvc.yaml").read_text(encoding="utf-8") == expected, (
        "real/dvc.yaml is out of date: run `python scripts/profile_pipeline.py real`")


def test_every_stage_runs_the_same_code_on_the_profile_params():
    root = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    real = yaml.safe_load((ROOT / "real" / "dvc.yaml").read_text())["stages"]
    assert real.keys() == root.keys()
    for name, stage in root.items():
        mine = real[name].get("do", real[name])
        stage = stage.get("do", stage)
        assert mine["cmd"] == f"{stage['cmd']} --params ../params/real.yaml"
        shared = ("pipeline", "csrc", "params/", "data/external", "data/validation")
        code = {d for d in stage.get("deps", []) if isinstance(d, str) and d.startswith(shared)}
        assert {f"../{d}" for d in code} <= set(mine.get("deps", []))
        assert all(not d.startswith(shared) for d in mine.get("deps", []) if isinstance(d, str))
        assert mine.get("outs") == stage.get("outs")
        if stage.get("params"):
            assert mine["params"] == [{"../params/real.yaml": stage["params"]}]


def test_every_path_dependency_of_the_profile_exists():
    """Each stage's dependency outside the profile's own outputs resolves from real/ (DVC stops on one
    that does not, as on params/accelerate before it was relocated)."""
    real = yaml.safe_load((ROOT / "real" / "dvc.yaml").read_text())["stages"]
    outs = {o if isinstance(o, str) else next(iter(o)) for s in real.values()
            for o in [*s.get("do", s).get("outs", []), *s.get("do", s).get("metrics", [])]}
    for name, stage in real.items():
        for dep in stage.get("do", stage).get("deps", []):
            dep = dep if isinstance(dep, str) else next(iter(dep))
            made = any(dep == o or dep.startswith(f"{o}/") or o.startswith(f"{dep}/") for o in outs)
            if "${" in dep or made:  # interpolated (params/real.yaml's paths are checked below) or an output
                continue
            assert (ROOT / "real" / dep).exists(), f"real/dvc.yaml stage {name}: {dep} does not exist"


def test_the_profile_uses_the_packaged_model_everywhere_it_can():
    p = params_mod.load(ROOT / "params" / "real.yaml")
    real = "hf:smollm2-135m-instruct"
    assert p.pretrain.base_model == "smollm2-135m-instruct"
    assert real in p.generate.panel and p.generate.budgets[real] > 0
    assert real in p.irac.systems
    # Paths of the shared import placeholder resolve from real/, where the stages run.
    for path in (p.decisions.documents.path, p.corpus.qa_import.path, p.generate.import_candidates.path,
                 p.train.external_pairs.path):
        assert (ROOT / "real" / path).exists(), path
