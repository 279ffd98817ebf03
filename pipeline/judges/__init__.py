"""Judges: `rule:<strictness>` (docs/method.md §7 offline default) and `llm:<backend spec>` (any generator backend).

`make_judge(spec, params)` builds one from a params.judge.judges entry.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline import paths
from pipeline.judges.base import Judge, JudgeItem, file_name, labels_file
from pipeline.judges.rule import RuleJudge

__all__ = ["Judge", "JudgeItem", "RuleJudge", "file_name", "labels_file", "cached_factory", "make_judge", "sampled_judge"]


def sampled_judge(spec: str, params: Any) -> bool:
    """Whether a judge labels only a sample of the candidates: a non-primary LLM judge under
    judge.llm_max_candidates (pipeline/judges/llm.py sample_items)."""
    return (spec.startswith("llm:") and bool(params.judge.llm_max_candidates)
            and spec != params.judge.judges[0])


def make_judge(spec: str, params: Any, generator_factory: Callable[[str], Any] | None = None) -> Judge:
    """`params` is the full Params; `generator_factory(backend_spec)` builds an LLM judge's generator."""
    kind, _, name = spec.partition(":")
    if kind == "rule":
        return RuleJudge(name)
    if kind == "llm":
        from pipeline.judges.llm import LLMJudge

        if not name:
            raise ValueError(f"judge {spec!r}: expected 'llm:<backend>:<model>'")
        if generator_factory is None:
            generator_factory = cached_factory(params)
        cfg = params.judge
        return LLMJudge(spec, generator_factory(name), cfg.max_retries, cfg.decoding, params.seed,
                        cfg.constrained, cfg.reason_max_chars)
    raise ValueError(
        f"unknown judge {spec!r} (expected 'rule:strict', 'rule:lenient' or 'llm:<backend spec>')"
    )


def cached_factory(params: Any, cache_dir: Path = paths.JUDGE_CACHE) -> Callable[[str], Any]:
    """Builds an LLM judge's generator whose calls go through the response cache under `cache_dir`."""
    from pipeline import backends
    from pipeline.backends.cache import CachedGenerator

    def build(backend_spec: str) -> Any:
        return CachedGenerator(backends.make_generator(backend_spec, params.generate), cache_dir)

    return build
