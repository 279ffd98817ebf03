"""The generator interface every backend implements, and the pieces shared by all of them.

A generator takes a batch of requests (a prompt plus decoding parameters) and returns one response per
request, in order. Backends are named `backend:model` in params (e.g. "offline:cautious",
"hf:Qwen/Qwen2.5-0.5B-Instruct", "openai:http://localhost:8000/v1|some-model", or with a fleet of servers
"openai:http://gpu1:8000/v1,http://gpu2:8000/v1|some-model").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pipeline.text import digest


class BackendError(RuntimeError):
    """A generator that cannot be built or a call that failed after its retries."""


@dataclass(frozen=True)
class Request:
    prompt: str
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 256
    # Only used when temperature > 0: the same seed gives the same sample.
    seed: int = 0
    # A JSON schema (canonical text, pipeline/structured/schemas.py schema_text) the reply must follow:
    # local backends constrain decoding to it, servers are asked for it as response_format; None = free text.
    schema: str | None = None

    def decoding(self) -> dict[str, Any]:
        """The decoding parameters that can change the output (the seed only matters when sampling)."""
        out: dict[str, Any] = {
            "temperature": float(self.temperature),
            "top_p": float(self.top_p),
            "max_new_tokens": int(self.max_new_tokens),
        }
        if self.temperature > 0:
            out["seed"] = int(self.seed)
        if self.schema is not None:  # absent for free text: those keys stay as they were
            out["schema"] = self.schema
        return out


@dataclass(frozen=True)
class Response:
    text: str
    # "stop" (finished on its own), "length" (hit max_new_tokens) or a backend-specific reason.
    finish_reason: str
    # Deterministic, JSON-serialisable details (no timings, no secrets): same request, same meta.
    meta: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Generator(Protocol):
    # The panel entry this generator was built from, e.g. "offline:cautious".
    name: str
    # How many requests the stage hands over at once (results are cached after each batch).
    # A generator whose class sets `streams_responses = True` instead takes every request in one call,
    # generate(requests, on_response=callback), and calls back as each response arrives, which the
    # cache commits at once (pipeline/backends/cache.py run_cached).
    batch_size: int

    def generate(self, requests: Sequence[Request]) -> list[Response]: ...


def split_spec(spec: str) -> tuple[str, str]:
    """'backend:model' -> (backend, model); the model part may itself contain ':' (URLs, tags)."""
    backend, sep, model = spec.partition(":")
    if not sep or not backend or not model:
        raise BackendError(f"generator {spec!r}: expected 'backend:model'")
    return backend, model


def cache_key(name: str, request: Request, version: str = "") -> str:
    """Hash of (backend, model, prompt, decoding params): the response cache's key.

    `version` is for generators whose behaviour lives in this repository (the offline panel and
    rewriter, pipeline/code_version.py): a change to their code must not be answered from the cache of
    the old code.
    """
    backend, model = split_spec(name)
    decoding = ",".join(f"{k}={v!r}" for k, v in sorted(request.decoding().items()))
    parts = (backend, model, request.prompt, decoding) + ((version,) if version else ())
    return digest(*parts)


_SAFE_PART = re.compile(r"^[A-Za-z0-9._:-]+$")


def generator_slug(name: str) -> str:
    """A generator's part of a record id: the panel entry itself when it is id-safe (e.g.
    "offline:cautious"), else a readable cleaned name plus a hash of the original."""
    if _SAFE_PART.match(name):
        return name
    return f"{re.sub(r'[^A-Za-z0-9._:-]+', '_', name)[:60]}-{digest(name)[:8]}"


def safe_name(name: str) -> str:
    """A file-name-safe form of a generator name: readable prefix + hash of the full name."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:48] or "generator"
    return f"{readable}-{digest(name)[:10]}"
