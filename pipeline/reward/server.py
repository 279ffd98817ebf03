"""The reward model over HTTP: `python -m pipeline.reward serve --model models/adapters/<run> --port 8765`.

    POST /v1/score   {"items": [item, ...], "scoring": "ref_sum"}   (scoring optional; items as the command's)
                  -> {"model": ..., "scoring": ..., "results": [one record per item, as the command writes]}
    GET  /health  -> {"status": "ok", "model": ..., "base": ..., "scorings": [...], "counts": {...}}

Requests that arrive together are scored together: a queue takes the first waiting request, waits up to
reward.serve.batch_wait_ms for others, and scores up to reward.serve.max_batch_items items (whole requests)
in one model call on one worker thread, so the shared prompt and trunk batch across clients while
parsing and tokenizing (on a thread of their own) go on. A body over reward.serve.max_body_bytes gets 413, more than
reward.serve.max_items items or a wrong field 422 naming it ("items[2].responses"). A client that goes
away before its answer is dropped from the queue if it was not scored yet. Only counts are logged: no
text, id or address of a request (uvicorn's access log is off).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.requests import ClientDisconnect

from pipeline.models.fitting import FittedItem
from pipeline.params import ServeParams
from pipeline.reward.items import FieldError, Item, parse_item
from pipeline.reward.model import ItemError, RewardModel, Scored, ScoringError

log = logging.getLogger("pipeline.reward.server")


class RequestError(Exception):
    """A request refused before scoring: HTTP status, the field at fault, what is wrong."""

    def __init__(self, status: int, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.status, self.field, self.message = status, field_name, message

    def body(self) -> dict[str, str]:
        return {"error": str(self), "field": self.field}


@dataclass
class Pending:
    items: list[Item]
    fitted: list[FittedItem]
    future: asyncio.Future = field(repr=False)


class Batcher:
    """One worker scores the queued requests, several at a time (the module doc)."""

    def __init__(self, rm: RewardModel, wait_s: float, max_items: int, counts: Counter):
        self.rm, self.wait_s, self.max_items, self.counts = rm, wait_s, max_items, counts
        self.queue: asyncio.Queue[Pending] = asyncio.Queue()
        self.carry: Pending | None = None  # a request that did not fit the last batch: first of the next

    async def submit(self, items: list[Item], fitted: list[FittedItem]) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        await self.queue.put(Pending(items, fitted, future))
        return future

    async def _next_batch(self) -> list[Pending]:
        first = self.carry or await self.queue.get()
        self.carry = None
        batch, size = [first], len(first.items)
        deadline = asyncio.get_running_loop().time() + self.wait_s
        while size < self.max_items:
            left = deadline - asyncio.get_running_loop().time()
            try:
                more = self.queue.get_nowait() if left <= 0 else await asyncio.wait_for(self.queue.get(), left)
            except (asyncio.QueueEmpty, TimeoutError):
                break
            if size + len(more.items) > self.max_items:
                self.carry = more
                break
            batch.append(more)
            size += len(more.items)
        return batch

    async def run(self) -> None:
        while True:
            batch = [p for p in await self._next_batch() if not p.future.done()]  # gone clients are done
            if not batch:
                continue
            items = [i for p in batch for i in p.items]
            fitted = [f for p in batch for f in p.fitted]
            started = time.perf_counter()
            try:
                scored = await asyncio.to_thread(self.rm.score_fitted, items, fitted)
            except Exception as exc:  # a failure of the model is every waiting request's 500
                for p in batch:
                    if not p.future.done():
                        p.future.set_exception(exc)
                continue
            self.counts["batches"] += 1
            self.counts["items"] += len(items)
            log.info("scored %d items (%d responses) of %d requests in %.3fs", len(items),
                     sum(len(i.responses) for i in items), len(batch), time.perf_counter() - started)
            at = 0
            for p in batch:
                if not p.future.done():
                    p.future.set_result(scored[at:at + len(p.items)])
                at += len(p.items)


def parse_request(obj: Any, rm: RewardModel, limits: ServeParams) -> tuple[list[Item], str]:
    """(items, scoring) of a decoded body; RequestError (422) naming the first wrong field."""
    if not isinstance(obj, dict):
        raise RequestError(422, "body", f"must be a JSON object with items, got {type(obj).__name__}")
    try:
        scoring = rm.check_scoring(obj.get("scoring") or rm.scoring)
    except ScoringError as exc:
        raise RequestError(422, "scoring", str(exc)) from None
    raw = obj.get("items")
    if not isinstance(raw, list) or not raw:
        raise RequestError(422, "items", "must be a non-empty list of items")
    if len(raw) > limits.max_items:
        raise RequestError(422, "items", f"{len(raw)} items, at most {limits.max_items} (reward.serve.max_items)")
    items, seen = [], set()
    for k, entry in enumerate(raw):
        try:
            item = parse_item(entry, str(k), rm.settings.max_responses)
        except FieldError as exc:
            raise RequestError(422, f"items[{k}].{exc.field}", exc.message) from None
        if item.id in seen:
            raise RequestError(422, f"items[{k}].id", f"duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items, scoring


def create_app(rm: RewardModel, limits: ServeParams) -> Any:
    from pipeline.reward.cli import output_record

    counts: Counter = Counter()
    batcher = Batcher(rm, limits.batch_wait_ms / 1000, limits.max_batch_items, counts)
    # One thread tokenizes: a fast tokenizer used from two threads at once can fail ("Already borrowed").
    encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode")

    @contextlib.asynccontextmanager
    async def lifespan(app: Any):
        worker = asyncio.create_task(batcher.run())
        yield
        encoder.shutdown(wait=False, cancel_futures=True)
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker

    app = FastAPI(title="legal reward model", lifespan=lifespan, docs_url=None, redoc_url=None)

    async def read_body(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
            raise RequestError(413, "body", f"{declared} bytes, at most {limits.max_body_bytes} "
                                            "(reward.serve.max_body_bytes)")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limits.max_body_bytes:
                raise RequestError(413, "body", f"over {limits.max_body_bytes} bytes (reward.serve.max_body_bytes)")
            chunks.append(chunk)
        return b"".join(chunks)

    async def gone(request: Request) -> None:
        """Returns when the client disconnects (the body is read: the next message is the disconnect)."""
        while (await request.receive())["type"] != "http.disconnect":
            pass

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "model": rm.name, "base": rm.loaded.base_id, "scorings": list(rm.scorings),
                "scoring": rm.scoring, "max_length": rm.settings.max_length, "counts": dict(sorted(counts.items()))}

    @app.post("/v1/score")
    async def score(request: Request) -> Response:
        counts["requests"] += 1
        try:
            body = await read_body(request)
            try:
                obj = json.loads(body)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise RequestError(422, "body", f"not JSON ({type(exc).__name__})") from None
            items, scoring = parse_request(obj, rm, limits)
            try:
                fitted = await asyncio.get_running_loop().run_in_executor(encoder, rm.encode, items)
            except ItemError as exc:
                raise RequestError(422, f"items[{exc.index}].{exc.field}", exc.message) from None
        except RequestError as exc:
            counts[f"refused_{exc.status}"] += 1
            return JSONResponse(exc.body(), status_code=exc.status)
        except ClientDisconnect:
            counts["disconnected"] += 1
            return Response(status_code=400)
        future = await batcher.submit(items, fitted)
        watcher = asyncio.ensure_future(gone(request))
        try:
            await asyncio.wait({future, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
        if not future.done():  # the client went away first: nobody waits for these scores
            future.cancel()
            counts["disconnected"] += 1
            return Response(status_code=499)
        scored: list[Scored] = future.result()
        counts["answered"] += 1
        return JSONResponse({"model": rm.name, "scoring": scoring,
                             "results": [output_record(rm, s, scoring, rank=True) for s in scored]})

    return app


def wait_healthy(url: str, proc: Any, timeout_s: float) -> bool:
    """Poll `url`/health until the server `proc` (a subprocess.Popen) answers 200: True; False when the
    process exits first or `timeout_s` passes (the caller says why, with the server's log)."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.5)


def serve(rm: RewardModel, limits: ServeParams, host: str | None = None, port: int | None = None) -> None:
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    host, port = host or limits.host, port or limits.port
    print(f"reward serve: {rm.name} ({rm.loaded.base_id}) on http://{host}:{port}", flush=True)
    uvicorn.run(create_app(rm, limits), host=host, port=port, access_log=False, log_level="warning")
