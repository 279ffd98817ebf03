"""Generator backends behind one interface (pipeline.backends.base.Generator).

`make_generator("backend:model", params.generate)` builds one panel member:
- offline:<style>  the weight-free extractive answerers (cautious, confident, terse, verbose), or any
                   offline model another module registered with `register_offline` (e.g. the augment
                   stage's rewriter);
- hf:<id or path>  local transformers model; hf:<packaged name> (smollm2-135m-instruct) the real model a
                   Python package ships, converted once into data/cache/models/;
- openai:<base_url>|<model>  any OpenAI-compatible chat endpoint; several servers of one model as
                   openai:<url>,<url>,...|<model>.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline.backends.base import BackendError, Generator, Request, Response, cache_key, split_spec

__all__ = [
    "BackendError",
    "Generator",
    "Request",
    "Response",
    "cache_key",
    "make_generator",
    "register_offline",
    "split_spec",
]

# Offline models other than the answerer styles: name -> factory(generate params or None).
_OFFLINE: dict[str, Callable[[Any | None], Generator]] = {}


def register_offline(model: str, factory: Callable[[Any | None], Generator]) -> None:
    """Make `offline:<model>` buildable by make_generator (factory receives params.generate or None)."""
    _OFFLINE[model] = factory


def make_generator(spec: str, cfg: Any | None = None) -> Generator:
    """Build the generator for a panel entry; `cfg` is params.generate (defaults when None)."""
    if cfg is None:
        from pipeline.params import GenerateParams

        cfg = GenerateParams()
    backend, model = split_spec(spec)
    if backend == "offline":
        from pipeline.backends.offline import DEFAULT_THRESHOLDS, STYLES, OfflineAnswerer

        if model in STYLES:
            thresholds = {**DEFAULT_THRESHOLDS, **cfg.offline_thresholds}
            return OfflineAnswerer(model, thresholds[model])
        if model in _OFFLINE:
            return _OFFLINE[model](cfg)
        raise BackendError(f"offline model {model!r} unknown; known: {sorted([*STYLES, *_OFFLINE])}")
    if backend == "hf":
        from pipeline.backends.hf import HFGenerator
        from pipeline.models.packaged import PACKAGED, converted

        if model in PACKAGED:  # a real model a Python package ships (pipeline/models/packaged.py)
            return HFGenerator(str(converted(model)), batch_size=cfg.batch_size, name=spec,
                               version=PACKAGED[model].portable_id, prefix_cache_tokens=cfg.prefix_cache_tokens)
        return HFGenerator(model, batch_size=cfg.batch_size, trust_remote_code=cfg.trust_remote_code,
                           prefix_cache_tokens=cfg.prefix_cache_tokens)
    if backend == "openai":
        from pipeline.backends.openai import OpenAIGenerator

        return OpenAIGenerator(
            model,
            concurrency=cfg.concurrency,
            timeout_s=cfg.timeout_s,
            max_retries=cfg.max_retries,
            api_key_env=cfg.api_key_env,
            backoff_s=cfg.retry_backoff_s,
            max_wait_s=cfg.retry_max_wait_s,
            rate_limit_rps=cfg.rate_limit_rps,
            routing=cfg.routing,
        )
    raise BackendError(f"generator {spec!r}: unknown backend {backend!r} (offline, hf, openai)")
