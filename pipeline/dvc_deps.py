"""Keeps each stage's code deps in dvc.yaml complete, from the import graph of the module the stage runs.

    python -m pipeline.dvc_deps --check              # exit 1 naming every stage whose deps miss code it runs
    python -m pipeline.dvc_deps --write              # add what is missing, drop what no longer applies
    python -m pipeline.dvc_deps --why judge pipeline/models/packaged.py   # the imports that bring a file in

A stage's code is the static import closure of its `python -m` module (pipeline/code_version.py, the graph
that also keys the offline generators' caches), plus the files that code reads at run time:
- a package's data files (pipeline/reporting/explorer_assets) go with the modules of that package whose
  source names them, or with every module of the package when none does;
- csrc/, which the kernels' loader compiles (RUNTIME_READS).
The lists stay hand-written and commented; --write edits them in place, line by line: an entry under
pipeline/ or csrc/ that tracks nothing the stage runs goes (with its comment lines), and the files no entry
tracks are added after the stage's last code entry, as one folder when they are all of the folder that
any stage runs. Entries that still apply are left as they are, so a stage turns stale in `dvc status` only
when its list gains code it really runs (DVC ignores a dep dropped from the list).
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from pipeline.code_version import ROOT, closure, imported_modules, module_file

CODE_ROOTS = ("pipeline", "csrc")
# Params reach a stage through its `params:` section (params.yaml holds every key), not through its code;
# the range and name checks only refuse values, never change what a stage computes from the values they
# accept; the run-name grammar parses train.runs, which reaches the stages through their params and
# foreach keys. These files, and what only they import, are no stage's code deps.
EXEMPT = frozenset({"pipeline/params.py", "pipeline/ranges.py", "pipeline/params_names.py", "pipeline/run_names.py"})
# Files read at run time rather than imported: the loader builds the extension from csrc/'s sources.
RUNTIME_READS = {"pipeline/kernels/loader.py": ("csrc",)}
# What DVC leaves out when it hashes a folder (.dvcignore).
IGNORED = re.compile(r"(^|/)(__pycache__|\.pytest_cache|\.hypothesis)(/|$)|\.pyc$")
FIX = "python -m pipeline.dvc_deps --write"
MODULE = re.compile(r"python -m (pipeline(?:\.\w+)+)")
STAGE = re.compile(r"^  ([\w-]+):\s*(#.*)?$")
DEPS = re.compile(r"^(\s+)deps:\s*(&[\w-]+)?\s*(#.*)?$")


class DepsError(ValueError):
    """dvc.yaml has a shape this tool will not rewrite (the message names file and line)."""


# ------------------------------------------------------------------------------------- what a stage needs
@functools.cache
def tracked_files(rel: str, root: Path) -> frozenset[str]:
    """Files DVC hashes for the dep `rel` (a file, or every file under a folder)."""
    path = root / rel
    if path.is_file():
        return frozenset({rel})
    found = (p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file())
    return frozenset(f for f in found if not IGNORED.search(f))


@functools.cache
def _strings(path: Path) -> tuple[str, ...]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))


@functools.cache
def package_data(module_rel: str, root: Path) -> frozenset[str]:
    """The non-Python files beside `module_rel` in its package that the module may read: each item (a file
    or a folder without __init__.py) named in one of the package's modules goes with those modules only."""
    folder = (root / module_rel).parent
    modules = sorted(folder.glob("*.py"))
    out: set[str] = set()
    for item in sorted(folder.iterdir()):
        if IGNORED.search(item.name) or item.suffix == ".py" or (item / "__init__.py").exists():
            continue
        readers = [m for m in modules if any(item.name in s for s in _strings(m))] or modules
        if root / module_rel in readers:
            out |= tracked_files(item.relative_to(root).as_posix(), root)
    return frozenset(out)


def registry_readers(rel: str, root: Path = ROOT) -> set[str]:
    """The reader modules a module dispatches to through the importer registry: its calls
    `reader("<section>", ...)` with a literal section name select every format registered for that
    section (pipeline/importers/registry.py). The registry imports readers by name at run time, which no
    import graph sees, so a new format is its module and one registry line, and its stages' deps follow."""
    from pipeline.importers.registry import IMPORTERS

    tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    sections = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "reader"
        and node.args and isinstance(node.args[0], ast.Constant)
    }
    return {e.module for e in IMPORTERS if e.section in sections}


def needed(module: str, root: Path = ROOT) -> set[str]:
    """Every file (relative, posix) of pipeline/ and csrc/ that `python -m <module>` runs or reads."""
    code = set(closure(module, root, skip=EXEMPT))
    for rel in list(code):
        for reader_module in registry_readers(rel, root):
            code |= closure(reader_module, root, skip=EXEMPT)
    files = set(code)
    for rel in code:
        files |= package_data(rel, root)
        for extra in RUNTIME_READS.get(rel, ()):
            files |= tracked_files(extra, root)
    return files


def additions(missing: set[str], run_anywhere: set[str], root: Path = ROOT) -> list[str]:
    """Entries that track the `missing` files: a folder when every file of it that some stage runs is
    missing (a benchmark no stage runs does not keep its folder from collapsing), else the files."""
    out: list[str] = []

    def walk(rel: str) -> None:
        tracked = tracked_files(rel, root)
        if not tracked & missing:
            return
        if (root / rel).is_file() or tracked & run_anywhere <= missing:
            out.append(rel)
            return
        for child in sorted((root / rel).iterdir(), key=lambda p: p.name):
            walk(f"{rel}/{child.name}")

    for top in CODE_ROOTS:
        if (root / top).exists():
            walk(top)
    return out


@functools.cache
def import_tree(module: str, root: Path = ROOT) -> dict[str, str | None]:
    """Each file `python -m module` runs -> the file that imports it first, breadth first (None for the
    files the command starts with); walked as closure() walks it, in the order found, a registry dispatch
    (registry_readers) counting as an import."""
    queue = _files_of(module, root)
    parent: dict[str, str | None] = dict.fromkeys(queue)
    for rel in queue:
        for name in [*imported_modules(root / rel), *sorted(registry_readers(rel, root))]:
            for dep in _files_of(name, root):
                if dep not in parent and dep not in EXEMPT:
                    parent[dep] = rel
                    queue.append(dep)
    return parent


def why(module: str, target: str, root: Path = ROOT) -> list[str]:
    """The shortest import chain of files from `module` to `target` (a file or folder); a data file or
    csrc/ ends the chain at the module that reads it. [] when the stage neither runs nor reads it."""
    def hit(rel: str) -> bool:
        return rel == target or rel.startswith(f"{target}/")

    parent = import_tree(module, root)
    for rel in parent:
        if hit(rel):
            return _chain(parent, rel)
        reads = package_data(rel, root).union(*(tracked_files(x, root) for x in RUNTIME_READS.get(rel, ())))
        if any(hit(r) for r in reads):
            return [*_chain(parent, rel), target]
    return []


def _files_of(name: str, root: Path) -> list[str]:
    # Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
    parts = name.split(".")
    paths = (module_file(".".join(parts[:i]), root) for i in range(1, len(parts) + 1))
    return [p.relative_to(root).as_posix() for p in paths if p is not None]


def _chain(parent: dict[str, str | None], rel: str) -> list[str]:
    out = [rel]
    while (up := parent[out[-1]]) is not None:
        out.append(up)
    return out[::-1]


# ------------------------------------------------------------------------------- the deps lists of dvc.yaml
def is_code(entry: str) -> bool:
    return any(entry == top or entry.startswith(f"{top}/") for top in CODE_ROOTS)


@dataclass
class Entry:
    path: str
    lines: list[str]  # its comment lines, the item line and any option lines under it


@dataclass
class DepsBlock:
    stage: str
    start: int  # index of the first line after `deps:`
    end: int  # index one past the block's last line
    indent: str
    entries: list[Entry] = field(default_factory=list)
    trailing: list[str] = field(default_factory=list)  # comments after the last item

    def code(self) -> list[str]:
        return [e.path for e in self.entries if is_code(e.path)]

    def render(self, dead: list[str], add: list[str]) -> list[str]:
        """The block without the `dead` entries, with `add` after its last code entry."""
        kept = [e for e in self.entries if e.path not in dead]
        at = max((i + 1 for i, e in enumerate(kept) if is_code(e.path)), default=len(kept))
        new = [Entry(a, [f"{self.indent}- {a}"]) for a in add]
        return [line for e in kept[:at] + new + kept[at:] for line in e.lines] + self.trailing


def _item_path(text: str, where: str) -> str:
    value = text[2:].split(" #", 1)[0].strip()
    if value.endswith(":"):  # an entry with options (`- path:` then indented keys)
        value = value[:-1].strip()
    value = value.strip("'\"")
    if not value or value.startswith(("[", "{")):
        raise DepsError(f"{where}: a deps item this tool cannot read: {text!r}")
    return value


def deps_blocks(lines: list[str], name: str = "dvc.yaml") -> list[DepsBlock]:
    """The block-style deps lists of the stages (a `deps: *alias` reuses another stage's list)."""
    blocks, stage, in_stages, i = [], None, False, 0
    while i < len(lines):
        line = lines[i]
        if line and not line[0].isspace() and not line.startswith("#"):
            in_stages = line.rstrip() == "stages:"
        elif in_stages and (m := STAGE.match(line)):
            stage = m.group(1)
        m = DEPS.match(line) if in_stages else None
        if m is None:
            if in_stages and re.match(r"^\s+deps:\s*[\[{]", line):
                raise DepsError(f"{name} line {i + 1}: write stage {stage!r} deps as a block list, one `- path` a line")
            i += 1
            continue
        block = DepsBlock(stage or "?", i + 1, i + 1, "")
        key_indent, item_indent, pending = len(m.group(1)), None, []
        j = i + 1
        while j < len(lines):
            text, ind = lines[j].strip(), len(lines[j]) - len(lines[j].lstrip())
            if not text or ind <= key_indent:
                break
            if item_indent is None and text.startswith("- "):
                item_indent, block.indent = ind, lines[j][:ind]
            if text.startswith("#"):
                pending.append(lines[j])
            elif item_indent is not None and ind == item_indent and text.startswith("- "):
                block.entries.append(Entry(_item_path(text, f"{name} line {j + 1}"), [*pending, lines[j]]))
                pending = []
            elif item_indent is not None and ind > item_indent and block.entries and not pending:
                block.entries[-1].lines.append(lines[j])
            else:
                raise DepsError(f"{name} line {j + 1}: stage {stage!r} deps: unexpected line {text!r}")
            j += 1
        block.trailing, block.end = pending, j
        blocks.append(block)
        i = j
    return blocks


@dataclass
class Plan:
    block: DepsBlock
    stages: list[str]  # the stages that use this list (a `deps: *alias` shares it)
    modules: list[str]
    need: set[str]
    covered: set[str]  # what the listed deps track now

    def dead(self) -> list[str]:
        """Code entries that track nothing the stages run or read."""
        return [p for p in self.block.code() if not any(_under(f, p) for f in self.need)]

    def missing(self) -> set[str]:
        return self.need - self.covered


def _under(path: str, entry: str) -> bool:
    return path == entry or path.startswith(f"{entry}/")


def plan(root: Path = ROOT) -> tuple[list[str], list[Plan], list[str]]:
    """dvc.yaml's lines, a Plan per deps list of the stages that run a pipeline module, and the stages
    that run one with no deps list to check."""
    # Files may have changed since an earlier call in this process: read them afresh.
    for cached in (imported_modules, _strings, tracked_files, package_data, import_tree):
        cached.cache_clear()
    text = (root / "dvc.yaml").read_text(encoding="utf-8")
    stages = (yaml.safe_load(text) or {}).get("stages") or {}
    modules, lists = {}, {}
    for name, stage in stages.items():
        stage = stage.get("do", stage)  # a foreach stage keeps its definition under `do`
        if m := MODULE.search(str(stage.get("cmd", ""))):
            modules[name], lists[name] = m.group(1), stage.get("deps") or []
    lines = text.splitlines()
    plans = []
    for block in deps_blocks(lines):
        if block.stage not in modules:
            continue
        users = [s for s in modules if lists[s] is lists[block.stage]]  # yaml aliases load as one object
        listed = [e.path for e in block.entries if "${" not in e.path and (root / e.path).exists()]
        plans.append(Plan(block, users, [modules[s] for s in users],
                          set().union(*(needed(modules[s], root) for s in users)),
                          set().union(set(), *(tracked_files(p, root) for p in listed))))
    planned = {s for p in plans for s in p.stages}
    return lines, plans, [s for s in modules if s not in planned]


def stage_modules(root: Path = ROOT) -> dict[str, str]:
    return {s: m for p in plan(root)[1] for s, m in zip(p.stages, p.modules, strict=True)}


def problems(root: Path = ROOT) -> list[str]:
    """One line per file a stage runs but its deps do not track (the stage would not rerun when the file
    changes), and per code entry that tracks nothing the stage runs."""
    _, plans, unlisted = plan(root)
    out = [f"dvc.yaml stage {s!r} runs pipeline code but has no deps list (one `- path` a line) to check" for s in unlisted]
    for p in plans:
        for rel in sorted(p.missing()):
            module = next(m for m in p.modules if rel in needed(m, root))
            chain = " -> ".join(why(module, rel, root))
            out.append(f"dvc.yaml stage {p.block.stage!r} runs {rel} ({chain}) but its deps do not list it: run `{FIX}`")
        out += [f"dvc.yaml stage {p.block.stage!r} lists {d}, which it neither runs nor reads: run `{FIX}`"
                for d in p.dead()]
    return out


def write(root: Path = ROOT) -> list[str]:
    """Fix every deps list of dvc.yaml in place; the lines changed, as `stage: +entry` / `stage: -entry`."""
    lines, plans, _ = plan(root)
    run_anywhere = set().union(*(p.need for p in plans))
    changes = []
    for p in sorted(plans, key=lambda p: p.block.start, reverse=True):
        dead, add = p.dead(), additions(p.missing(), run_anywhere, root)
        if dead or add:
            lines[p.block.start:p.block.end] = p.block.render(dead, add)
            changes += [f"{p.block.stage}: -{d}" for d in dead] + [f"{p.block.stage}: +{a}" for a in add]
    if changes:
        (root / "dvc.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sorted(changes)


def generated_profiles(root: Path = ROOT) -> list[str]:
    """Profiles whose <name>/dvc.yaml scripts/profile_pipeline.py writes from dvc.yaml."""
    return sorted(p.parent.name for p in root.glob("*/dvc.yaml")
                  if p.read_text(encoding="utf-8").startswith("# Generated by scripts/profile_pipeline.py"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipeline.dvc_deps", description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 naming each stage whose deps miss code it runs")
    mode.add_argument("--write", action="store_true", help="fix the code deps of dvc.yaml's stages in place")
    mode.add_argument("--why", nargs=2, metavar=("STAGE", "PATH"), help="the import chain that brings PATH in")
    args = ap.parse_args(argv)
    try:
        if args.why:
            stage, target = args.why
            modules = stage_modules(ROOT)
            if stage not in modules:
                ap.error(f"no pipeline stage {stage!r} in dvc.yaml (stages: {', '.join(modules)})")
            chain = why(modules[stage], target.rstrip("/"), ROOT)
            print(" -> ".join(chain) if chain else f"stage {stage!r} does not run or read {target}")
            return 0 if chain else 1
        if args.check:
            found = problems(ROOT)
            print("\n".join(found) or "dvc_deps: every stage lists the code it runs", file=sys.stderr if found else sys.stdout)
            return 1 if found else 0
        changes = write(ROOT)
        print("\n".join(f"dvc_deps: dvc.yaml {c}" for c in changes) or "dvc_deps: dvc.yaml already lists the code of every stage")
        for name in generated_profiles(ROOT):
            subprocess.run([sys.executable, str(ROOT / "scripts" / "profile_pipeline.py"), name], check=True)
        return 0
    except DepsError as err:
        print(f"dvc_deps: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
