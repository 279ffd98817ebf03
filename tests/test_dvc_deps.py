"""dvc.yaml lists every module a stage runs: a stage whose code changes must be stale in `dvc status`.

The import graph is read statically (ast) from each stage module through the pipeline package; every
module reached must lie under one of the stage's deps, and a stage using the extension lists csrc/.
pipeline/params.py is the one exception: params
reach a stage through the `params:` section (params.yaml holds every key), not through its code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
EXEMPT = {"pipeline/params.py"}


def module_file(name: str) -> Path | None:
    base = ROOT / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m == "pipeline" or m.startswith("pipeline.")}


def closure(module: str) -> set[str]:
    """Files of `module` and of every pipeline module it imports, transitively (packages' __init__ too)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ first
            path = module_file(".".join(parts[:i]))
            if path is None:
                continue
            rel = path.relative_to(ROOT).as_posix()
            if rel not in seen:
                seen.add(rel)
                todo.extend(imported_modules(path))
    return seen


def stages() -> list[tuple[str, str, list[str]]]:
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    out = []
    for name, stage in spec.items():
        cmd = stage["cmd"]
        module = cmd.split("python -m ", 1)[1].split()[0]
        deps = [d if isinstance(d, str) else next(iter(d)) for d in stage.get("deps", [])]
        out.append((name, module, deps))
    return out


@pytest.mark.parametrize(("stage", "module", "deps"), stages(), ids=[s[0] for s in stages()])
def test_stage_deps_cover_the_code_it_runs(stage, module, deps):
    def covered(path: str) -> bool:
        return any(path == d or path.startswith(d.rstrip("/") + "/") for d in deps)

    code = closure(module)
    missing = sorted(p for p in code - EXEMPT if not covered(p))
    assert not missing, f"dvc.yaml stage {stage!r} runs code it does not list under deps: {missing}"
    # The kernels' loader compiles csrc/ at run time: its C++ sources are code of the stage too.
    if any(p.startswith("pipeline/kernels/") for p in code):
        assert covered("csrc/ops.cpp"), f"dvc.yaml stage {stage!r} uses the log-prob extension but not csrc"
