"""dvc.yaml lists every module a stage runs: a stage whose code changes must be stale in `dvc status`.

The import graph is read statically (ast, pipeline/code_version.py) from each stage module through the
pipeline package; pipeline/dvc_deps.py checks that every file reached (and what the code reads at run
time: package data, csrc/) lies under one of the stage's deps, and fixes the lists in place. Its EXEMPT
files (params.py, ranges.py, params_names.py, run_names.py) say why params code is no stage's code dep.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pipeline import dvc_deps

ROOT = Path(__file__).resolve().parents[1]


def test_every_stage_lists_the_code_it_runs():
    found = dvc_deps.problems(ROOT)
    assert not found, "\n".join(found)


def test_every_file_a_stage_needs_has_an_import_chain_from_its_module():
    """--why and the check's messages explain each file by the same graph the check walks."""
    for stage, module in dvc_deps.stage_modules(ROOT).items():
        for rel in dvc_deps.needed(module, ROOT):
            chain = dvc_deps.why(module, rel, ROOT)
            assert chain and chain[-1] == rel, (stage, rel, chain)


# A small project: stage `a` imports a package whose data folder one module names, the kernels (whose
# loader compiles csrc/), and params (exempt); the foreach stage `b` and stage `c` share one list.
FILES = {
    "pipeline/__init__.py": "",
    "pipeline/io.py": "",
    "pipeline/heavy.py": "",
    "pipeline/params.py": "import pipeline.heavy\n",
    "pipeline/stages/__init__.py": "",
    "pipeline/stages/a.py": "from pipeline import io\nfrom pipeline.params import load\n"
                            "from pipeline.pkg import used\nimport pipeline.kernels\n",
    "pipeline/stages/b.py": "def main():\n    import pipeline.io\n    from pipeline.pkg.other import x\n",
    "pipeline/stages/c.py": "import pipeline.heavy\n",
    "pipeline/pkg/__init__.py": "",
    "pipeline/pkg/used.py": "from pathlib import Path\nASSETS = Path(__file__).with_name('assets')\n",
    "pipeline/pkg/other.py": "x = 1\n",
    "pipeline/pkg/assets/page.html": "<p>页面</p>\n",
    "pipeline/pkg/notes.txt": "named by no module: it goes with every module of pkg\n",
    "pipeline/kernels/__init__.py": "from pipeline.kernels import loader\n",
    "pipeline/kernels/loader.py": "",
    "pipeline/kernels/bench.py": "import pipeline.kernels\n",
    "pipeline/kernels/__pycache__/loader.cpython-312.pyc": "",
    "csrc/ops.cpp": "",
    "csrc/cuda/k.cu": "",
    "data/in.txt": "x\n",
}
DVC_YAML = """\
# A pipeline (its header comment stays).
stages:
  a:
    cmd: python -m pipeline.stages.a --n 1
    deps:
      # The input, by hand.
      - data/in.txt
      # A module since removed: it goes, with this comment.
      - pipeline/gone.py
      - pipeline/stages/a.py
      - ${inputs.path}
    params:
      - x
    outs:
      - out.txt:
          cache: false
  b:
    foreach: [1, 2]
    do:
      cmd: python -m pipeline.stages.b --n ${item}
      deps: &shared
        - pipeline/stages  # the whole folder
        - data/in.txt:
            hash: md5
      outs:
        - b${item}.txt
  c:
    cmd: python -m pipeline.stages.c
    deps: *shared
  shell:
    cmd: cat data/in.txt > shell.txt
    deps:
      - pipeline/gone.py
"""
FIXED = """\
# A pipeline (its header comment stays).
stages:
  a:
    cmd: python -m pipeline.stages.a --n 1
    deps:
      # The input, by hand.
      - data/in.txt
      - pipeline/stages/a.py
      - pipeline/__init__.py
      - pipeline/io.py
      - pipeline/kernels
      - pipeline/pkg/__init__.py
      - pipeline/pkg/assets
      - pipeline/pkg/notes.txt
      - pipeline/pkg/used.py
      - pipeline/stages/__init__.py
      - csrc
      - ${inputs.path}
    params:
      - x
    outs:
      - out.txt:
          cache: false
  b:
    foreach: [1, 2]
    do:
      cmd: python -m pipeline.stages.b --n ${item}
      deps: &shared
        - pipeline/stages  # the whole folder
        - pipeline/__init__.py
        - pipeline/heavy.py
        - pipeline/io.py
        - pipeline/pkg/__init__.py
        - pipeline/pkg/notes.txt
        - pipeline/pkg/other.py
        - data/in.txt:
            hash: md5
      outs:
        - b${item}.txt
  c:
    cmd: python -m pipeline.stages.c
    deps: *shared
  shell:
    cmd: cat data/in.txt > shell.txt
    deps:
      - pipeline/gone.py
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    (tmp_path / "dvc.yaml").write_text(DVC_YAML, encoding="utf-8")
    return tmp_path


def test_check_names_stage_missing_file_its_import_chain_and_the_fix(project):
    found = dvc_deps.problems(project)
    fix = "run `python -m pipeline.dvc_deps --write`"
    assert (f"dvc.yaml stage 'a' runs pipeline/kernels/loader.py (pipeline/stages/a.py"
            f" -> pipeline/kernels/__init__.py -> pipeline/kernels/loader.py) but its deps do not list it: {fix}"
            ) in found
    assert (f"dvc.yaml stage 'a' runs csrc/cuda/k.cu (pipeline/stages/a.py -> "
            f"pipeline/kernels/__init__.py -> pipeline/kernels/loader.py -> csrc/cuda/k.cu) but its deps do not "
            f"list it: {fix}") in found
    assert f"dvc.yaml stage 'a' lists pipeline/gone.py, which it neither runs nor reads: {fix}" in found
    # b and c share one list: c's import of heavy.py is missing from it; params.py is exempt, and so is
    # heavy.py when only params.py imports it (stage a).
    assert any(line.startswith("dvc.yaml stage 'b' runs pipeline/heavy.py (pipeline/stages/c.py -> pipeline/heavy.py)") for line in found)
    assert not any("params.py" in line or "'a' runs pipeline/heavy.py" in line for line in found)
    assert not any("'shell'" in line for line in found)  # runs no pipeline module: left alone


def test_write_fixes_only_the_deps_lists_and_is_idempotent(project):
    changes = dvc_deps.write(project)
    assert (project / "dvc.yaml").read_text(encoding="utf-8") == FIXED
    assert "a: -pipeline/gone.py" in changes and "a: +csrc" in changes and "b: +pipeline/heavy.py" in changes
    assert dvc_deps.problems(project) == []
    assert dvc_deps.write(project) == []
    assert (project / "dvc.yaml").read_text(encoding="utf-8") == FIXED


def test_a_new_module_is_added_and_a_folder_collapses_when_all_of_it_is_needed(project):
    dvc_deps.write(project)
    (project / "pipeline" / "pkg" / "fresh.py").write_text("# 新模块\n", encoding="utf-8")
    used = project / "pipeline" / "pkg" / "used.py"
    used.write_text(used.read_text(encoding="utf-8") + "from pipeline.pkg import fresh\n", encoding="utf-8")
    (project / "pipeline" / "extra").mkdir()
    for name in ("__init__.py", "one.py"):
        (project / "pipeline" / "extra" / name).write_text("", encoding="utf-8")
    (project / "pipeline" / "stages" / "a.py").write_text(FILES["pipeline/stages/a.py"] + "import pipeline.extra.one\n")
    assert dvc_deps.problems(project) == [
        "dvc.yaml stage 'a' runs pipeline/extra/__init__.py (pipeline/stages/a.py -> "
        "pipeline/extra/__init__.py) but its deps do not list it: run `python -m pipeline.dvc_deps --write`",
        "dvc.yaml stage 'a' runs pipeline/extra/one.py (pipeline/stages/a.py -> "
        "pipeline/extra/one.py) but its deps do not list it: run `python -m pipeline.dvc_deps --write`",
        "dvc.yaml stage 'a' runs pipeline/pkg/fresh.py (pipeline/stages/a.py -> "
        "pipeline/pkg/used.py -> pipeline/pkg/fresh.py) but its deps do not list it: run `python -m "
        "pipeline.dvc_deps --write`",
    ]
    assert dvc_deps.write(project) == ["a: +pipeline/extra", "a: +pipeline/pkg/fresh.py"]
    assert dvc_deps.problems(project) == []


def test_why_ends_at_the_module_that_reads_a_data_file_or_csrc(project):
    assert dvc_deps.why("pipeline.stages.a", "pipeline/pkg/assets", project)[-2:] == [
        "pipeline/pkg/used.py", "pipeline/pkg/assets"]
    assert dvc_deps.why("pipeline.stages.a", "csrc", project)[-2:] == ["pipeline/kernels/loader.py", "csrc"]
    assert dvc_deps.why("pipeline.stages.b", "pipeline/pkg/assets", project) == []
    assert dvc_deps.why("pipeline.stages.a", "pipeline/heavy.py", project) == []  # only params.py imports it


def test_a_stage_running_pipeline_code_without_deps_is_named(project):
    (project / "dvc.yaml").write_text("stages:\n  a:\n    cmd: python -m pipeline.stages.a\n    outs:\n      - o\n")
    assert dvc_deps.problems(project) == [
        "dvc.yaml stage 'a' runs pipeline code but has no deps list (one `- path` a line) to check"]


def test_a_flow_style_deps_list_is_refused_naming_the_line(project):
    (project / "dvc.yaml").write_text("stages:\n  a:\n    cmd: python -m pipeline.stages.a\n    deps: [data/in.txt]\n")
    with pytest.raises(dvc_deps.DepsError, match=r"^dvc.yaml line 4: write stage 'a' deps as a block list"):
        dvc_deps.problems(project)


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
    answers.write_text(json.dumps({"context_id": "qa-zh-1/gold_only", "model": "m", "response": "93,500元"}) + "\n")
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
    squad.write_text(squad.read_text(encoding="utf-8").replace("王某的代理律师是谁？", "谁是王某的律师？"), encoding="utf-8")
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


DPO_RUNS = {f"train_dpo@{r}" for r in ("pairs-s0", "pairs-s1", "pairs_aug-s0", "pairs_aug-s1", "pairs_grounded-s0")}
SFT_RUNS = {"train_sft@pairs-s0", "train_sft@pairs_aug-s0"}


@pytest.mark.parametrize(("key", "readers"), [
    # DPO-only knobs never re-run SFT; the report states the training settings, so it reads them too.
    ("train.beta", DPO_RUNS | {"report"}),
    ("train.loss_type", DPO_RUNS | {"report"}),
    ("train.lr", DPO_RUNS | SFT_RUNS | {"report"}),
    # Both objectives take their log-probs from the kernel or TRL by it (the report reads every train param).
    ("train.logprobs", DPO_RUNS | SFT_RUNS | {"report"}),
    ("train.lora.r", DPO_RUNS | SFT_RUNS | {"report"}),
    # The over-long policy is shared by training and scoring.
    ("train.overlong", DPO_RUNS | SFT_RUNS | {"score", "rerank", "report"}),
    # The run matrix is no run's param: adding a seed adds a stage and changes no other (but the stages
    # that gather every run: the curves overlay, score, rerank and the report).
    ("train.runs", {"curves", "score", "rerank", "report"}),
    ("pretrain.vocab_size", {"pretrain"}),
    ("contexts.k", {"contexts", "data_report"}),
    ("generate.panel", {"generate", "data_report", "rerank", "report"}),
    ("generate.concurrency", {"generate", "irac"}),
    ("score.max_pairs", {"score", "report"}),
    # The rerank stage scores as the score stage does, but not the score stage's pair sample.
    ("score.max_length", {"score", "rerank", "report"}),
    ("reward.chunk_items", {"rerank"}),
    ("reward.serve.port", set()),
    # The report header names the IRAC decision cap when a model is one of the systems.
    ("irac.systems", {"irac", "report"}),
])
def test_a_param_marks_exactly_the_stages_that_read_it(key, readers):
    assert stages_reading(key) == readers


@pytest.mark.parametrize("objective", ["dpo", "sft"])
def test_train_stages_list_the_params_their_objective_reads(objective):
    """dvc.yaml's train_<objective> params and RUN_PARAMS (what train_meta.json records) are one list."""
    from pipeline.params import RUN_PARAMS

    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"][f"train_{objective}"]["do"]
    assert stage["params"] == list(RUN_PARAMS[objective])
