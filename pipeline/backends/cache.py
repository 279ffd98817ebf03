"""The response cache: every generator call, keyed by a hash of (backend, model, prompt, decoding).

One append-only JSON Lines shard per generator under the cache folder. Each response is written and
flushed as it arrives (the OS holds it even if the process is killed the next instant), so an
interrupted stage loses at most the calls in flight. A torn last line (the process died
mid-write) is cut off when the shard is opened. Records hold the key and the response only: no
prompt (it is in the key), no credentials.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.backends.base import Generator, Request, Response, cache_key, safe_name

log = logging.getLogger(__name__)


class ResponseCache:
    def __init__(self, root: str | Path, generator_name: str):
        self.path = Path(root) / f"{safe_name(generator_name)}.jsonl"
        self._rows: dict[str, Response] = {}
        self._fh = None
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            log.warning(
                "response cache %s: dropping a torn last line (%d bytes)", self.path.name, len(data) - keep
            )
            with open(self.path, "r+b") as fh:
                fh.truncate(keep)
            data = data[:keep]
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                self._rows[obj["key"]] = Response(obj["text"], obj["finish_reason"], obj.get("meta") or {})
            except (ValueError, KeyError, TypeError):
                log.warning("response cache %s: skipping unreadable line %d", self.path.name, number)

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: str) -> Response | None:
        return self._rows.get(key)

    def put(self, key: str, response: Response) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", newline="\n")
        record = {
            "key": key,
            "text": response.text,
            "finish_reason": response.finish_reason,
            "meta": response.meta,
        }
        self._fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        self._fh.flush()
        self._rows[key] = response

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
