"""The version of code written in this repository: a digest of a module's source and of the source of
every pipeline module it imports, transitively.

Generators whose behaviour lives here (the offline answerers, the offline rewriter) key their cached
responses by it (pipeline/backends/base.py cache_key), so an edit to any code they run, a helper three
imports away included, re-answers instead of serving the old code's answers from the cache. The import
graph is read statically, as Python would run it (importing a.b.c runs a/__init__ and a/b/__init__
first); tests/test_dvc_deps.py checks dvc.yaml's stage deps against the same graph.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

# The folder that holds the pipeline package (the repository root, or site-packages when installed).
ROOT = Path(__file__).resolve().parents[1]


def module_file(name: str, root: Path = ROOT) -> Path | None:
    base = root / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


@functools.cache
def imported_modules(path: Path) -> frozenset[str]:
    """The pipeline modules a file imports (absolute imports; `from a import b` may name a module b)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return frozenset(m for m in found if m == "pipeline" or m.startswith("pipeline."))


def closure(module: str, root: Path = ROOT, skip: frozenset[str] = frozenset()) -> set[str]:
    """Files (relative to root, posix) of `module` and of every pipeline module it imports, transitively;
    files in `skip` are neither included nor followed."""
    seen: set[str] = set(skip)
    todo = [module]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            path = module_file(".".join(parts[:i]), root)
            if path is None:
                continue
            rel = path.relative_to(root).as_posix()
            if rel not in seen:
                seen.add(rel)
                todo.extend(imported_modules(path))
    return seen - skip


@functools.cache
def source_version(module: str, root: Path = ROOT) -> str:
    """16 hex digits naming the source of `module` and of everything of this repo it imports. Line
    endings are normalised, so a checkout with CRLF endings gets the same version."""
    h = hashlib.sha256()
    for rel in sorted(closure(module, root)):
        text = (root / rel).read_text(encoding="utf-8").replace("\r\n", "\n")
        h.update(f"{rel}\0{len(text)}\0".encode() + text.encode("utf-8"))
    return h.hexdigest()[:16]


class CodeVersion:
    """A generator class's `version`: source_version of the module that defines the class, computed on
    first read, so importing the module parses nothing. An instance may still set its own version."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.module = owner.__module__

    def __get__(self, obj: object, owner: type | None = None) -> str:
        return source_version(self.module)
