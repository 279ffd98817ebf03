"""Cost of schema-constrained decoding on the real packaged model: the same prompts decoded free and under
their schema, side by side in one run, on the `hf:` backend (SmolLM2-135M-Instruct, CPU).

    python -m pipeline.structured.bench [--decisions 3] [--grades 6] [--fields-tokens 256] [--out ...]

Two reply kinds, as the irac stage asks for them: the fields object of a synthetic decision (standard
prompt; a long object with every field of the case type; free with --fields-tokens, constrained with the
bound any object its schema allows fits in) and the A/B/C grade of the rule system's
analysis of one (a short choice). For each kind and way it records wall seconds, generated tokens,
tokens/s, the share of replies the stage's own parser accepts, the share that conforms to the schema
exactly, and the share cut off at the token budget; then the ratios constrained / free. The JSON (default
reports/bench/structured_decoding.json) also records the machine's load average before and after, since
on a shared machine that moves tokens/s more than anything measured here.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any

from pipeline import paths
from pipeline.backends.base import Request, Response
from pipeline.io import write_json

OUT = str(paths.BENCH / "structured_decoding.json")
MODEL = "smollm2-135m-instruct"


def _run(generator: Any, requests: Sequence[Request], parsers: Sequence[Callable[[str], Any]],
         schemas: Sequence[dict]) -> dict:
    from pipeline.structured.schemas import problems

    started = time.perf_counter()
    responses: list[Response] = generator.generate(list(requests))
    seconds = time.perf_counter() - started
    tokens = sum(int(r.meta.get("new_tokens", 0)) for r in responses)
    parsed = conforming = 0
    for r, parse, schema in zip(responses, parsers, schemas, strict=True):
        try:
            parse(r.text)
            parsed += 1
        except ValueError:
            pass
        try:
            conforming += not problems(schema, json.loads(r.text))
        except ValueError:
            pass
    n = len(responses)
    return {
        "replies": n,
        "seconds": round(seconds, 3),
        "new_tokens": tokens,
        "tokens_per_s": round(tokens / seconds, 3) if seconds else None,
        "parsed_share": round(parsed / n, 4),
        "schema_conforming_share": round(conforming / n, 4),
        "cut_off_share": round(sum(r.finish_reason == "length" for r in responses) / n, 4),
        "example": responses[0].text[:300] if responses else "",
    }


def _side_by_side(generator: Any, prompts: Sequence[str], schemas: Sequence[dict], budget: int,
                  parsers: Sequence[Callable[[str], Any]], constrained_budget: int | None = None) -> dict:
    """Free first, then constrained, on the same prompts (each reply parsed by its own parser and checked
    against its own schema); the constrained budget is the free one unless given (as the irac stage gives
    a fields object the bound its schema allows)."""
    from pipeline.structured.schemas import schema_text

    free = [Request(p, max_new_tokens=budget) for p in prompts]
    constrained = [Request(p, max_new_tokens=constrained_budget or budget, schema=schema_text(s))
                   for p, s in zip(prompts, schemas, strict=True)]
    out = {"free": _run(generator, free, parsers, schemas), "constrained": _run(generator, constrained, parsers, schemas)}
    f, c = out["free"], out["constrained"]
    out["ratios"] = {
        "tokens_per_s_constrained_over_free": _ratio(c["tokens_per_s"], f["tokens_per_s"]),
        "seconds_constrained_over_free": _ratio(c["seconds"], f["seconds"]),
        "parsed_share_constrained_minus_free": round(c["parsed_share"] - f["parsed_share"], 4),
    }
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 4) if a is not None and b else None


def workload(n_decisions: int, n_grades: int, value_chars: int, seed: int = 13) -> dict[str, Any]:
    """The prompts and schemas of both reply kinds, from seeded synthetic decisions (one case type per
    decision in turn, so every fields schema is exercised) and the rule system's analyses of them."""
    from pipeline.irac.llm import grade_schema
    from pipeline.irac.prompts import fields_prompt, grader_prompt
    from pipeline.irac.rule import RuleSystem
    from pipeline.irac.schema import field_specs, schema_key
    from pipeline.params import Params
    from pipeline.structured.schemas import fields_schema
    from pipeline.synth import generate_decisions

    decisions = generate_decisions(max(n_decisions, n_grades), Params().decisions.case_mix, seed)
    specs = field_specs(decisions)
    chosen = decisions[:n_decisions]
    analyses = RuleSystem().run(decisions[:n_grades], specs, "analysis", "standard")
    by_id = {d.id: d for d in decisions}
    return {
        "fields": ([fields_prompt(d, specs[schema_key(d)], "standard") for d in chosen],
                   [fields_schema([s.name for s in specs[schema_key(d)]], value_chars) for d in chosen]),
        "grade": ([grader_prompt(by_id[o.decision_id], specs[schema_key(by_id[o.decision_id])], o.analysis or "")
                   for o in analyses], [grade_schema() for _ in analyses]),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=3, help="fields prompts (one per synthetic decision)")
    ap.add_argument("--grades", type=int, default=6, help="grade prompts (rule analyses)")
    ap.add_argument("--fields-tokens", type=int, default=256)
    ap.add_argument("--grade-tokens", type=int, default=64)
    ap.add_argument("--value-chars", type=int, default=48)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)

    from pipeline.backends import make_generator
    from pipeline.irac.llm import parse_fields, parse_grade
    from pipeline.params import GenerateParams

    load_before = os.getloadavg()
    # Prefix reuse off: the constrained run would otherwise reuse the free run's prompts and look faster.
    generator = make_generator(f"hf:{MODEL}", GenerateParams(batch_size=args.batch_size, prefix_cache_tokens=0))
    work = workload(args.decisions, args.grades, args.value_chars)
    generator.generate([Request("Say hello.", max_new_tokens=4)])  # warm-up: first-call allocations
    started = time.perf_counter()
    from pipeline.structured.schemas import fields_token_bound

    field_parsers = [_fields_parser(parse_fields, list(s["properties"])) for s in work["fields"][1]]
    bound = max(fields_token_bound(list(s["properties"]), args.value_chars) for s in work["fields"][1])
    kinds = {
        "fields": _side_by_side(generator, work["fields"][0], work["fields"][1], args.fields_tokens, field_parsers,
                                bound),
        "grade": _side_by_side(generator, work["grade"][0], work["grade"][1], args.grade_tokens,
                               [parse_grade] * len(work["grade"][0])),
    }
    report = {
        "model": f"hf:{MODEL}",
        "engine": "llguidance",
        "batch_size": args.batch_size,
        "budgets": {"fields": args.fields_tokens, "fields_constrained": bound, "grade": args.grade_tokens,
                    "value_chars": args.value_chars},
        "seconds_total": round(time.perf_counter() - started, 1),
        "cpus": os.cpu_count(),
        "torch_threads": _threads(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "machine": platform.machine(),
        "python": platform.python_version(),
        "kinds": kinds,
    }
    write_json(args.out, report)
    for kind, r in kinds.items():
        f, c = r["free"], r["constrained"]
        print(f"{kind:>6}: free {f['tokens_per_s']} tok/s, parsed {f['parsed_share']:.2f}; constrained "
              f"{c['tokens_per_s']} tok/s, parsed {c['parsed_share']:.2f} "
              f"(x{r['ratios']['tokens_per_s_constrained_over_free']} tokens/s)")
    print(f"-> {args.out}")


def _fields_parser(parse_fields: Callable, names: list[str]) -> Callable[[str], Any]:
    return lambda text: parse_fields(text, names)


def _threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    main()
