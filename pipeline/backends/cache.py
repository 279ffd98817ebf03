"""The response cache: every generator call, keyed by a hash of (backend, model, prompt, decoding).

One append-only JSON Lines shard per generator under the cache folder. Each response is written and
flushed as it arrives (the OS holds it even if the process is killed the next instant), so an
interrupted stage loses at most the calls in flight. A torn last line (the process died
mid-write) is cut off when the shard is opened. Records hold the key and the response only: no
prompt (it is in the key), no credentials.

The cache folder is a DVC output (persist: kept across runs, pushed and pulled like any other), so its
bytes must follow from the stage's inputs, not from history: a stage runs inside `compacting(root)`,
and when it succeeds every shard under root is rewritten (atomically) to exactly the entries this run
used, sorted by key; shards it did not use are removed, and index.json names the shards and their entry
counts (a run that called no cached model, such as the rule judge, leaves an index of none: the folder is
never empty, which DVC would warn about). A stage that fails or is killed leaves the appended shards as
they are, and its rerun resumes from them.

Compaction never throws a paid answer away: the entries of a model called over HTTP or run locally
(every shard but the offline answerers', whose answers cost nothing and are keyed by their code
version) that this run did not use move to `<root>.retired/`, a folder beside the cache that DVC does
not version and git ignores. A later run that asks for them again (a variant narrowed for a quick look
and widened back) is answered from there and pays for nothing twice.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from pipeline.backends.base import Generator, Request, Response, cache_key, safe_name
from pipeline.io import atomic_file, write_json

log = logging.getLogger(__name__)

INDEX = "index.json"
RETIRED_SUFFIX = ".retired"
INDEX_NOTE = ("model responses keyed by a hash of (backend, model, prompt, decoding), one JSON Lines shard per "
              "model; exactly the calls of the run that wrote them (pipeline/backends/cache.py)")
# Shard (resolved path) -> the entries this process read or wrote there since its `compacting` began.
_USED: dict[Path, dict[str, Response]] = {}
# Open caches, closed before their shards are compacted (an append handle must not outlive the rename).
_OPEN: weakref.WeakSet[ResponseCache] = weakref.WeakSet()


class ResponseCache:
    def __init__(self, root: str | Path, generator_name: str):
        self.path = Path(root) / f"{safe_name(generator_name)}.jsonl"
        self._fh = None
        self._rows: dict[str, Response] = read_shard(self.path, repair=True)
        self._retired = read_shard(retired_root(root) / self.path.name)

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: str) -> Response | None:
        hit = self._rows.get(key)
        if hit is None:
            hit = self._retired.get(key)
        if hit is not None:
            self._used()[key] = hit
        return hit

    def _used(self) -> dict[str, Response]:
        return _USED.setdefault(self.path.resolve(), {})

    def put(self, key: str, response: Response) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", newline="\n")
            _OPEN.add(self)
        self._fh.write(_line(key, response))
        self._fh.flush()
        self._rows[key] = response
        self._used()[key] = response

    def close(self) -> None:
        _OPEN.discard(self)
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_shard(path: Path, repair: bool = False) -> dict[str, Response]:
    """The entries of a shard, key -> response (none if it does not exist). A torn last line (a process
    killed mid-write) is left out, and with `repair` cut off the file, so appends start on a new line."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        log.warning("response cache %s: dropping a torn last line (%d bytes)", path.name, len(data) - keep)
        if repair:
            with open(path, "r+b") as fh:
                fh.truncate(keep)
        data = data[:keep]
    rows: dict[str, Response] = {}
    # Split on "\n" only: answers are written unescaped (ensure_ascii=False), and str.splitlines()
    # would also break a line at U+2028, U+2029, U+0085 or a form feed inside a paid answer.
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.decode("utf-8", errors="replace")
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            rows[obj["key"]] = Response(obj["text"], obj["finish_reason"], obj.get("meta") or {})
        except (ValueError, KeyError, TypeError):
            log.warning("response cache %s: skipping unreadable line %d", path.name, number)
    return rows


def retired_root(root: str | Path) -> Path:
    """Where compaction keeps the paid entries a run did not use (beside `root`, outside DVC)."""
    root = Path(root)
    return root.with_name(f"{root.name}{RETIRED_SUFFIX}")


def _paid(shard: Path) -> bool:
    """Whether a shard holds answers that cost something to make: all but the offline answerers' (their
    shard names start with the backend, pipeline.backends.base.safe_name)."""
    return not shard.name.startswith("offline_")


def _retire(shard: Path, retired: Path, used: dict[str, Response]) -> int:
    """Move the entries of `shard` that this run did not use into the retired shard of the same name, and
    take the ones it used back out of it; the number retired now."""
    kept = read_shard(retired)
    dropped = {k: v for k, v in read_shard(shard).items() if k not in used}
    merged = {k: v for k, v in {**kept, **dropped}.items() if k not in used}
    if merged != kept:
        with atomic_file(retired) as fh:
            fh.writelines(_line(key, merged[key]) for key in sorted(merged))
    return len(dropped)


# A lone surrogate (a server's "\\ud800") is a valid Python str but not UTF-8: it is written escaped, as
# JSON allows, so the line is readable and reads back as the same string.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _line(key: str, response: Response) -> str:
    record = {"key": key, "text": response.text, "finish_reason": response.finish_reason, "meta": response.meta}
    text = json.dumps(record, ensure_ascii=False, sort_keys=True)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@contextlib.contextmanager
def compacting(root: str | Path) -> Iterator[Path]:
    """Run a stage's cached calls; if the block succeeds, compact the cache folder `root` (compact)."""
    root = Path(root)
    resolved = root.resolve()
    for shard in [p for p in _USED if _under(p, resolved)]:
        del _USED[shard]
    yield root
    compact(root)


def compact(root: str | Path) -> dict[str, int]:
    """Rewrite every shard under `root` to exactly the entries used since `compacting(root)` began, sorted
    by key (same inputs, same bytes), each atomically; remove shards nothing used and temporary files
    left by killed writes; write the index (INDEX). Open caches under root are closed first. Returns shard
    name -> entries kept."""
    root = Path(root)
    # A DVC output must exist, even when this run used no cached generator.
    root.mkdir(parents=True, exist_ok=True)
    resolved = root.resolve()
    for cache in list(_OPEN):
        if _under(cache.path.resolve(), resolved):
            cache.close()
    used = {p: rows for p, rows in _USED.items() if _under(p, resolved)}
    for p in used:
        del _USED[p]
    kept: dict[str, int] = {}
    on_disk = sorted(root.rglob("*.jsonl"))
    retired_dir = retired_root(resolved)
    for shard in on_disk:
        shard = shard.resolve()
        if _paid(shard):
            moved = _retire(shard, retired_dir / shard.relative_to(resolved), used.get(shard, {}))
            if moved:
                log.info("response cache %s: %d entries this run did not use kept in %s", root, moved, retired_dir)
    for shard, rows in sorted(used.items()):
        with atomic_file(shard) as fh:
            fh.writelines(_line(key, rows[key]) for key in sorted(rows))
        kept[str(shard.relative_to(resolved))] = len(rows)
    for path in on_disk:
        if path.resolve() not in used:
            path.unlink()
            log.info("response cache %s: removed %s (unused by this run)", root, path.name)
    for stale in sorted(root.rglob(".*.tmp")):
        stale.unlink(missing_ok=True)
    write_json(root / INDEX, {"entries": kept, "what": INDEX_NOTE})
    return kept


def run_cached(
    generator: Generator,
    requests: Sequence[Request],
    cache: ResponseCache | None,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Response], int]:
    """Responses for all requests (in order) and the number of requests actually sent to the backend.

    Cached requests are never sent again; identical requests are sent once. A generator that streams
    (the HTTP backend: `streams_responses`) gets every missing request at once and each response is
    committed as it arrives, so a kill loses only the calls in flight; any other generator is fed
    `batch_size` requests at a time and each batch is committed when it returns.
    """
    version = getattr(generator, "version", "")
    keys = [cache_key(generator.name, r, version) for r in requests]
    results: dict[str, Response] = {}
    todo: list[int] = []
    pending: set[str] = set()
    for i, key in enumerate(keys):
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            results[key] = hit
        elif key not in pending:
            pending.add(key)
            todo.append(i)
    if progress:
        progress(len(requests) - len(todo))

    def commit(i: int, response: Response) -> None:
        results[keys[i]] = response
        if cache is not None:
            cache.put(keys[i], response)

    if getattr(generator, "streams_responses", False) and todo:

        def arrived(j: int, response: Response) -> None:
            commit(todo[j], response)
            if progress:
                progress(1)

        generator.generate([requests[i] for i in todo], on_response=arrived)  # type: ignore[call-arg]
        missing = [i for i in todo if keys[i] not in results]
        if missing:
            raise RuntimeError(f"{generator.name}: no response for {len(missing)} of {len(todo)} requests")
        return [results[k] for k in keys], len(todo)
    step = max(1, int(generator.batch_size))
    for start in range(0, len(todo), step):
        chunk = todo[start : start + step]
        responses = generator.generate([requests[i] for i in chunk])
        if len(responses) != len(chunk):
            raise RuntimeError(f"{generator.name}: {len(responses)} responses for {len(chunk)} requests")
        for i, response in zip(chunk, responses, strict=True):
            commit(i, response)
        if progress:
            progress(len(chunk))
    return [results[k] for k in keys], len(todo)


class CachedGenerator:
    """A generator whose calls go through the response cache (a rerun makes no repeated calls)."""

    def __init__(self, generator: Generator, cache_dir: str | Path):
        self.generator = generator
        self.name = generator.name
        self.batch_size = generator.batch_size
        self.cache = ResponseCache(cache_dir, generator.name)

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        return run_cached(self.generator, requests, self.cache)[0]

    def close(self) -> None:
        self.cache.close()
