"""dvc.yaml lists every module a stage runs: a stage whose code changes must be stale in `dvc status`.

The import graph is read statically (ast, pipeline/code_version.py) from each stage module through the
pipeline package; every module reached must lie under one of the stage's deps, and a stage using the extension lists csrc/.
pipeline/params.py, pipeline/ranges.py and pipeline/params_names.py are the exceptions, with what only
they import: params reach a stage through the `params:` section (params.yaml holds every key), not
through its code, and the range and name checks only refuse values, never change what a stage computes
from the values they accept.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pipeline.code_version import closure

ROOT = Path(__file__).resolve().parents[1]
EXEMPT = frozenset({"pipeline/params.py", "pipeline/ranges.py", "pipeline/params_names.py"})


def stages() -> list[tuple[str, str, list[str]]]:
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    out = []
    for name, stage in spec.items():
        stage = stage.get("do", stage)  # a foreach stage keeps its definition under `do`
        cmd = stage["cmd"]
        module = cmd.split("python -m ", 1)[1].split()[0]
        deps = [d if isinstance(d, str) else next(iter(d)) for d in stage.get("deps", [])]
        out.append((name, module, deps))
    return out


@pytest.mark.parametrize(("stage", "module", "deps"), stages(), ids=[s[0] for s in stages()])
def test_stage_deps_cover_the_code_it_runs(stage, module, deps):
    def covered(path: str) -> bool:
        return any(path == d or path.startswith(d.rstrip("/") + "/") for d in deps)

    code = closure(module, skip=EXEMPT)
    missing = sorted(p for p in code if not covered(p))
    assert not missing, f"dvc.yaml stage {stage!r} runs code it does not list under deps: {missing}"
    # The kernels' loader compiles csrc/ at run time: its C++ sources are code of the stage too.
    if any(p.startswith("pipeline/kernels/") for p in code):
        assert covered("csrc/ops.cpp"), f"dvc.yaml stage {stage!r} uses the log-prob extension but not csrc"


# ------------------------------------------------------------------------------------ imported data
@pytest.mark.slow
def test_edits_to_imported_files_anywhere_make_their_stage_stale(tmp_path):
    """Imported files are DVC dependencies wherever they live: dvc.yaml interpolates the import paths of
    params (decisions.documents, corpus.qa_import, generate.import_candidates), so editing one makes
    exactly the stage that reads it (and what follows) stale in `dvc status`."""
    from conftest import make_project_copy, run

    fixtures = ROOT / "tests" / "fixtures" / "importers"
    repo = make_project_copy(tmp_path / "repo", tmp_path / "remote")
    outside = tmp_path / "elsewhere" / "zh_cases"  # outside the repository altogether
    shutil.copytree(fixtures / "zh_cases", outside)
    (repo / "imports").mkdir()  # inside the repository, outside data/external
    shutil.copy2(fixtures / "zh_squad.json", repo / "imports" / "zh_squad.json")
    answers = repo / "imports" / "answers.jsonl"
    answers.write_text(json.dumps({"context_id": "qa-zh-1/gold_only", "model": "m", "response": "4,665,091.79元"}) + "\n")
    raw = yaml.safe_load((repo / "params.yaml").read_text())
    raw["decisions"]["n_decisions"] = 6
    raw["decisions"]["documents"].update(
        format="json_folder",
        path=str(outside),
        language="zh",
        mapping={"案号": "id", "标题": "title", "全文": "text", "段落": "sections", "违法所得": "fields.gains"},
        optional=["全文", "段落"],
        field_types={"gains": "money"},
    )
    raw["corpus"]["qa_import"].update(format="squad", path="imports/zh_squad.json", language="zh")
    few = ["gold_only", "gold_plus_random", "random_context"]
    raw["contexts"].update(variants=few, k=3, pool=5)
    raw["generate"].update(variants=few, panel=raw["generate"]["panel"][:1])
    raw["generate"]["import_candidates"].update(format="jsonl", path="imports/answers.jsonl")
    (repo / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True))
    run(["dvc", "repro", "generate"], repo)
    assert stale(repo) == {}

    doc = outside / "case2.json"
    doc.write_text(doc.read_text(encoding="utf-8").replace("1200000元。\"", "1300000元。\""), encoding="utf-8")
    assert stale(repo)["decisions"] == {str(outside): "modified"}
    run(["dvc", "repro", "generate"], repo)

    squad = repo / "imports" / "zh_squad.json"
    squad.write_text(squad.read_text(encoding="utf-8").replace("张某的辩护律师是谁？", "谁是张某的律师？"), encoding="utf-8")
    changed = stale(repo)
    assert "decisions" not in changed and changed["corpus"] == {"imports/zh_squad.json": "modified"}
    run(["dvc", "repro", "generate"], repo)

    answers.write_text(answers.read_text(encoding="utf-8").replace('"m"', '"m2"'), encoding="utf-8")
    changed = stale(repo)
    assert set(changed) == {"generate"} and changed["generate"] == {"imports/answers.jsonl": "modified"}


def stale(repo: Path) -> dict[str, dict[str, str]]:
    """Stages of `dvc status` (up to generate) -> their changed deps {path: change}."""
    from conftest import run

    out = json.loads(run(["dvc", "status", "--with-deps", "generate", "--json"], repo).stdout or "{}")
    changed: dict[str, dict[str, str]] = {}
    for stage, entries in out.items():
        for entry in entries:
            if isinstance(entry, dict):
                changed.setdefault(stage, {}).update(entry.get("changed deps", {}))
    return changed


# ------------------------------------------------------------------------------------------- params
def stages_reading(key: str) -> set[str]:
    """Stages whose `params:` (as DVC resolves dvc.yaml: foreach expanded) cover the dotted `key`: the
    ones `dvc status` marks changed when that key alone changes."""
    from dvc.dependency.param import ParamsDependency
    from dvc.repo import Repo

    with Repo(str(ROOT)) as repo:
        return {
            stage.addressing
            for stage in repo.index.stages
            if Path(stage.path) == ROOT / "dvc.yaml"  # not the real-model profile's real/dvc.yaml
            for dep in stage.deps
            if isinstance(dep, ParamsDependency)
            and any(key == p or key.startswith(f"{p}.") for p in dep.params)
        }


DPO_RUNS = {f"train_dpo@{r}" for r in ("pairs-s0", "pairs-s1", "pairs_aug-s0", "pairs_aug-s1")}
SFT_RUNS = {"train_sft@pairs-s0", "train_sft@pairs_aug-s0"}


@pytest.mark.parametrize(("key", "readers"), [
    # DPO-only knobs never re-run SFT; the report states the training settings, so it reads them too.
    ("train.beta", DPO_RUNS | {"report"}),
    ("train.loss_type", DPO_RUNS | {"report"}),
    ("train.lr", DPO_RUNS | SFT_RUNS | {"report"}),
    ("train.lora.r", DPO_RUNS | SFT_RUNS | {"report"}),
    # The over-long policy is shared by training and scoring.
    ("train.overlong", DPO_RUNS | SFT_RUNS | {"score", "report"}),
    # The run matrix is no run's param: adding a seed adds a stage and changes no other (but the stages
    # that gather every run: the curves overlay, score and the report).
    ("train.runs", {"curves", "score", "report"}),
    ("pretrain.vocab_size", {"pretrain"}),
    ("contexts.k", {"contexts", "data_report"}),
    ("generate.panel", {"generate", "data_report", "report"}),
    ("generate.concurrency", {"generate", "irac"}),
    ("score.max_pairs", {"score", "report"}),
    ("irac.systems", {"irac"}),
])
def test_a_param_marks_exactly_the_stages_that_read_it(key, readers):
    assert stages_reading(key) == readers


@pytest.mark.parametrize("objective", ["dpo", "sft"])
def test_train_stages_list_the_params_their_objective_reads(objective):
    """dvc.yaml's train_<objective> params and RUN_PARAMS (what train_meta.json records) are one list."""
    from pipeline.params import RUN_PARAMS

    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"][f"train_{objective}"]["do"]
    assert stage["params"] == list(RUN_PARAMS[objective])
