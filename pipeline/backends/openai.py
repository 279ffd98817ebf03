"""Any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, Ollama, hosted APIs), standard library only.

Spec: `openai:<base_url>|<model>`, e.g. `openai:http://localhost:8000/v1|meta-llama/Llama-3.1-8B-Instruct`.
The API key is read from an environment variable at call time and only ever placed in the
Authorization header: never in params, the cache, logs or error messages.
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from pipeline.backends.base import BackendError, Request, Response

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


def parse_model(model: str) -> tuple[str, str]:
    base_url, sep, name = model.partition("|")
    if not sep or not name or not base_url.startswith(("http://", "https://")):
        raise BackendError(
            f"openai backend: expected 'openai:<http(s) base url>|<model>', got 'openai:{model}'"
        )
    return base_url.rstrip("/"), name


def endpoint(base_url: str) -> str:
    """base_url ends with /v1 as for OpenAI clients; a bare host gets /v1 added."""
    if urlsplit(base_url).path in ("", "/"):
        base_url += "/v1"
    return f"{base_url}/chat/completions"


class OpenAIGenerator:
    def __init__(
        self,
        model: str,
        concurrency: int = 4,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        api_key_env: str = "OPENAI_API_KEY",
        backoff_s: float = 1.0,
    ):
        self.name = f"openai:{model}"
        self.base_url, self.model = parse_model(model)
        self.url = endpoint(self.base_url)
        self.concurrency = max(1, concurrency)
        self.batch_size = self.concurrency * 2
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.api_key_env = api_key_env
        self.backoff_s = backoff_s

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        if len(requests) <= 1:
            return [self._call(r) for r in requests]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            return list(pool.map(self._call, requests))

    def _body(self, request: Request) -> bytes:
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_new_tokens,
            "seed": request.seed,
        }
        return json.dumps(body).encode("utf-8")

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _call(self, request: Request) -> Response:
        data = self._body(request)
        last = ""
        for attempt in range(self.max_retries + 1):
            delay = self.backoff_s * (2**attempt)
            try:
                req = urllib.request.Request(self.url, data=data, headers=self._headers(), method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    return self._parse(json.loads(resp.read().decode("utf-8")))
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:300].decode("utf-8", errors="replace")
                if exc.code not in RETRY_STATUS:
                    raise BackendError(f"{self.url}: HTTP {exc.code}: {detail}") from None
                last = f"HTTP {exc.code}"
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                if retry_after and retry_after.replace(".", "", 1).isdigit():
                    delay = max(delay, float(retry_after))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                raise BackendError(f"{self.url}: unexpected reply ({exc})") from None
            if attempt < self.max_retries:
                log.warning(
                    "%s: %s, retry %d/%d in %.1fs", self.url, last, attempt + 1, self.max_retries, delay
                )
                time.sleep(delay)
        raise BackendError(f"{self.url}: giving up after {self.max_retries + 1} attempts ({last})")

    def _parse(self, reply: dict) -> Response:
        choice = reply["choices"][0]
        text = choice["message"]["content"] or ""
        meta = {"model": reply.get("model", self.model)}
        usage = reply.get("usage") or {}
        if "completion_tokens" in usage:
            meta["completion_tokens"] = usage["completion_tokens"]
        return Response(text.strip(), choice.get("finish_reason") or "stop", meta)
