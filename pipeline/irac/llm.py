"""Model systems for the docs/method.md §11 tasks and the A/B/C grader of analyses, on any generator backend.

Both follow the house pattern of pipeline/judges/llm.py: every attempt sends the still-invalid items
to the generator as ONE batch (a served or local model sees whole batches), an invalid reply is asked
again with a note about what was wrong, and after `max_retries` retries the item is kept with status
"unparseable" -- never dropped. The generator is passed in, so the stage decides whether its calls go
through the response cache (pipeline.backends.cache.CachedGenerator).

With `constrained` on, every structured reply (the fields object, the grade) is requested under its JSON
schema (pipeline/structured/schemas.py): a local model can only decode an object the schema allows, a
server is asked for it as response_format. Replies are parsed and checked the same way either way. The
reasoning modes first ask for the reasoning alone, free (at most `reasoning_tokens` tokens), then for
the answer with that reasoning as notes; both are recorded (the reasoning in the output's meta).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.backends.base import Generator, Request, Response, generator_slug
from pipeline.irac.prompts import (
    GRADES,
    MARKER,
    MARKERS,
    MODES,
    REASONING_MODES,
    TASKS,
    analysis_prompt,
    fields_prompt,
    grader_prompt,
    retry_note,
)
from pipeline.irac.schema import FieldSpec, schema_key
from pipeline.records import SAFE_ID, Decision, IracGrade, IracOutput
from pipeline.structured.schemas import (
    choice_schema,
    choice_token_bound,
    fields_schema,
    fields_token_bound,
    problems,
    schema_text,
)
from pipeline.text import stable_hash

_FENCE = re.compile(r"```[A-Za-z]*\s*(.*?)```", re.S)
# The marker at the start of a line, as models tend to write it: any case, optional markdown around it
# (a mid-sentence "final answer:" inside the steps is not a marker).
_MARKER = re.compile(r"^[ \t*_#>]*(?:" + "|".join(re.escape(m.rstrip(":：")) for m in MARKERS) + r")[ \t]*[:：][*_ \t]*",
                     re.I | re.M)
_REASON_CHARS = 500


class ReplyError(ValueError):
    """A reply that does not have the required form; the message says what is wrong (it goes into the
    retry note and, for an item that stays invalid, into its meta)."""


def output_id(task: str, system: str, mode: str, decision_id: str, party_index: int | None = None) -> str:
    """task/system slug/mode/decision id[/p<party index>]; ValueError when that is not a valid record id."""
    out = f"{task}/{generator_slug(system)}/{mode}/{decision_id}"
    if party_index is not None:
        out += f"/p{party_index}"
    if not SAFE_ID.match(out) or ".." in out.split("/"):
        raise ValueError(f"IRAC output id {out!r} is not a valid record id (decision id too long or unsafe?)")
    return out


# ------------------------------------------------------------------------------------ reply parsing
def split_answer(reply: str, required: bool = False) -> tuple[str, int]:
    """The answer part of a reply and the length of what came before it: the text after the LAST line
    starting with a marker ("FINAL ANSWER:"), or the whole reply when it has none (ReplyError instead
    when `required`)."""
    matches = list(_MARKER.finditer(reply))
    if not matches:
        if required:
            raise ReplyError(f"no line starting with {MARKER!r} before the answer")
        return reply.strip(), 0
    last = matches[-1]
    return reply[last.end() :].strip(), len(reply[: last.start()].strip())


def _json_object(text: str) -> Any:
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ReplyError("no JSON object found")
    try:
        return json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ReplyError(f"invalid JSON ({exc.msg} at character {exc.pos})") from None


def parse_fields(text: str, names: Sequence[str]) -> tuple[dict[str, str], int]:
    """({field: value} for the known fields with a value, number of unknown keys ignored).

    Values must be strings, numbers (kept as their decimal text) or null; null or blank means the
    system left the field out.
    """
    obj = _json_object(text)
    if not isinstance(obj, dict):
        raise ReplyError(f"expected a JSON object, got {type(obj).__name__}")
    known = set(names)
    fields: dict[str, str] = {}
    for key, value in obj.items():
        if key not in known:
            continue
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ReplyError(f"the value of {key!r} must be a string or null, not {type(value).__name__}")
        if isinstance(value, float):
            text_value = str(int(value)) if value.is_integer() else repr(value)
        else:
            text_value = str(value).strip()
        if text_value:
            fields[key] = text_value
    return fields, sum(key not in known for key in obj)


def parse_analysis(text: str) -> str:
    if not text.strip():
        raise ReplyError("empty analysis")
    return text.strip()


def grade_schema(max_reason_chars: int = _REASON_CHARS) -> dict[str, Any]:
    """The reply of the grader: {"grade": A|B|C, "reason": one sentence}."""
    return choice_schema("grade", GRADES, max_reason_chars)


def parse_grade(reply: str) -> tuple[str, str]:
    """(grade, reason) of a reply {"grade": "A"|"B"|"C", "reason"?: str}: the grade schema's keys and
    grades, read leniently where a free reply differs harmlessly (a lower-case grade, no reason)."""
    schema = grade_schema()
    obj = _json_object(reply.strip())
    if isinstance(obj, dict) and isinstance(obj.get("grade"), str):
        obj = {**obj, "grade": obj["grade"].strip().upper()}
        obj.setdefault("reason", "")
        if isinstance(obj["reason"], str):
            obj["reason"] = obj["reason"].strip()[:_REASON_CHARS]
    wrong = problems(schema, obj)
    if wrong:
        raise ReplyError("; ".join(wrong))
    return obj["grade"], obj["reason"].strip()[:_REASON_CHARS]


# ------------------------------------------------------------------------------------ retry loop
@dataclass
class _Trace:
    attempts: int = 0
    finish_reason: str = ""
    problem: str = ""
    last_reply: str = ""
    constrained: str = ""


def _request(decoding: Any, prompt: str, seed: int, schema: str | None = None, max_new_tokens: int | None = None) -> Request:
    return Request(
        prompt=prompt,
        temperature=decoding.temperature,
        top_p=decoding.top_p,
        max_new_tokens=max_new_tokens or decoding.max_new_tokens,
        seed=seed,
        schema=schema,
    )


def _ask(
    generator: Generator,
    decoding: Any,
    seeds: Sequence[int],
    languages: Sequence[str],
    build: Callable[[int, str | None], str],
    parse: Callable[[int, Response], Any],
    max_retries: int,
    who: str,
    schema_of: Callable[[int], str | None] = lambda i: None,
    max_new_tokens: int | None = None,
) -> tuple[dict[int, Any], list[_Trace]]:
    """Ask every item (index into seeds) until its reply parses, at most 1 + max_retries times; a retry
    note is worded in the item's language (`languages`, parallel to seeds); `schema_of(i)` is the schema
    text item i's reply is constrained to (None: free). Returns the parsed value of each valid item and
    the trace of every item."""
    traces = [_Trace() for _ in seeds]
    done: dict[int, Any] = {}
    pending = list(range(len(seeds)))
    for _attempt in range(max_retries + 1):
        if not pending:
            break
        requests = []
        for i in pending:
            trace = traces[i]
            note = retry_note(trace.last_reply, trace.problem, trace.attempts, languages[i]) if trace.attempts else None
            requests.append(_request(decoding, build(i, note), seeds[i], schema_of(i), max_new_tokens))
        responses = generator.generate(requests)
        if len(responses) != len(requests):
            raise RuntimeError(f"{who}: generator returned {len(responses)} replies for {len(requests)}")
        still = []
        for i, response in zip(pending, responses, strict=True):
            trace = traces[i]
            trace.attempts += 1
            trace.finish_reason = response.finish_reason
            trace.constrained = str(response.meta.get("constrained", ""))
            try:
                done[i] = parse(i, response)
            except ReplyError as exc:
                trace.problem, trace.last_reply = str(exc), response.text
                still.append(i)
        pending = still
    return done, traces


# ------------------------------------------------------------------------------------ model system
class ModelSystem:
    """A generator doing the docs/method.md §11 tasks; `decoding` holds temperature, top_p and max_new_tokens
    (params.irac.decoding). Its name is the generator spec (e.g. "hf:Qwen/Qwen2.5-7B-Instruct").

    `constrained`: ask for the fields object under its schema (string values capped at `value_max_chars`),
    with a token budget that any object the schema allows fits in (fields_token_bound), so a constrained
    reply is never cut open; `reasoning_tokens` and `fields_tokens`: the token budgets of the first, free
    call of a reasoning mode and of a free fields reply (0: decoding's max_new_tokens)."""

    def __init__(self, generator: Generator, max_retries: int, decoding: Any, seed: int = 0,
                 constrained: bool = False, value_max_chars: int = 160, reasoning_tokens: int = 0,
                 fields_tokens: int = 0):
        self.generator = generator
        self.name = generator.name
        self.max_retries = max_retries
        self.decoding = decoding
        self.seed = seed
        self.constrained = constrained
        self.value_max_chars = value_max_chars
        self.reasoning_tokens = reasoning_tokens
        self.fields_tokens = fields_tokens

    def run(
        self,
        decisions: Sequence[Decision],
        specs_by_case_type: Mapping[str, Sequence[FieldSpec]],
        task: str,
        mode: str,
    ) -> list[IracOutput]:
        """One output per decision (per party of a decision with several, for task "fields"), in the
        order given; a decision whose reply never parsed is kept with status "unparseable" (fields and
        analysis None)."""
        if task not in TASKS:
            raise ValueError(f"unknown IRAC task {task!r} (expected one of {', '.join(TASKS)})")
        if mode not in MODES:
            raise ValueError(f"unknown prompt mode {mode!r} (expected one of {', '.join(MODES)})")
        # Task 1 on a decision with several parties: one output per party (docs/method.md §1).
        units: list[tuple[Decision, int | None, str]] = []
        for d in decisions:
            if task == "fields" and d.parties:
                units.extend((d, k, p.name) for k, p in enumerate(d.parties))
            else:
                units.append((d, None, ""))
        decisions = [d for d, _, _ in units]
        parties = [p for _, _, p in units]
        ids = [output_id(task, self.name, mode, d.id, k) for d, k, _ in units]
        if len(set(ids)) != len(ids):
            raise ValueError("IRAC: duplicate decision ids")
        specs = []
        for d in decisions:
            if task == "fields" and not specs_by_case_type.get(schema_key(d)):
                raise ValueError(f"decision {d.id}: no field specs for case type {d.case_type!r}")
            specs.append(list(specs_by_case_type.get(schema_key(d), ())))
        schemas: list[str | None] = [
            schema_text(fields_schema([s.name for s in sp], self.value_max_chars))
            if self.constrained and task == "fields" else None
            for sp in specs
        ]
        seeds = [stable_hash(self.seed, "irac", i) % 2**31 for i in ids]
        reasoning = self._reason(task, mode, decisions, specs, parties, seeds)
        steps_chars: dict[int, int] = {}
        unknown: dict[int, int] = {}

        def build(i: int, note: str | None) -> str:
            notes = reasoning[i][0] if reasoning else None
            if task == "fields":
                return fields_prompt(decisions[i], specs[i], mode, note, parties[i], notes)
            return analysis_prompt(decisions[i], mode, note, notes)

        def parse(i: int, response: Response) -> Any:
            # A reply that still opens with its own steps and a "FINAL ANSWER:" line is read after it.
            answer, steps_chars[i] = split_answer(response.text)
            if task == "analysis":
                return parse_analysis(answer)
            fields, unknown[i] = parse_fields(answer, [s.name for s in specs[i]])
            return fields

        languages = [d.language for d in decisions]
        budget = self.fields_tokens if task == "fields" else None
        if self.constrained and task == "fields":
            # The decoder stops when the object closes: the bound costs nothing a reply does not use.
            budget = max(fields_token_bound([s.name for s in sp], self.value_max_chars) for sp in specs)
        done, traces = _ask(self.generator, self.decoding, seeds, languages, build, parse, self.max_retries,
                            self.name, lambda i: schemas[i], budget)
        outputs = []
        for i, d in enumerate(decisions):
            trace = traces[i]
            meta: dict[str, Any] = {"attempts": trace.attempts, "finish_reason": trace.finish_reason,
                                    "constrained": trace.constrained or "none"}
            ok = i in done
            if reasoning:
                text, finish = reasoning[i]
                meta.update(reasoning=text, reasoning_finish_reason=finish, steps_chars=len(text.strip()))
            elif ok and steps_chars[i]:
                meta["steps_chars"] = steps_chars[i]
            if ok and task == "fields":
                meta["unknown_keys"] = unknown[i]
            if not ok:
                meta["problem"] = trace.problem
            outputs.append(
                IracOutput(
                    id=ids[i],
                    decision_id=d.id,
                    task=task,  # type: ignore[arg-type]
                    system=self.name,
                    mode=mode,  # type: ignore[arg-type]
                    fields=done[i] if ok and task == "fields" else None,
                    analysis=done[i] if ok and task == "analysis" else None,
                    status="ok" if ok else "unparseable",
                    meta=meta,
                    party=parties[i],
                )
            )
        return outputs

    def _reason(self, task: str, mode: str, decisions: Sequence[Decision], specs: Sequence[Sequence[FieldSpec]],
                parties: Sequence[str], seeds: Sequence[int]) -> list[tuple[str, str]]:
        """The first call of a reasoning mode, free text, one batch: (reasoning, finish reason) per unit;
        [] in standard mode. Whatever comes back is the reasoning (an empty one is recorded as such)."""
        if mode not in REASONING_MODES:
            return []
        prompts = [
            fields_prompt(d, sp, mode, None, party) if task == "fields" else analysis_prompt(d, mode)
            for d, sp, party in zip(decisions, specs, parties, strict=True)
        ]
        requests = [_request(self.decoding, p, seed, None, self.reasoning_tokens or None)
                    for p, seed in zip(prompts, seeds, strict=True)]
        responses = self.generator.generate(requests)
        if len(responses) != len(requests):
            raise RuntimeError(f"{self.name}: generator returned {len(responses)} replies for {len(requests)}")
        return [(r.text, r.finish_reason) for r in responses]


# ------------------------------------------------------------------------------------ grader
class Grader:
    """Grades analyses A (complete and rigorous), B (reasonable with gaps) or C (disorganised or wrong
    law) with a generator; its name is "llm:<generator spec>". `constrained`: ask for the grade under its
    schema (the reason capped at `reason_max_chars`), with the token budget any grade the schema allows fits
    in (choice_token_bound), so a long reason in Chinese is never cut open and retried; a free grade gets
    decoding's max_new_tokens."""

    def __init__(self, generator: Generator, max_retries: int, decoding: Any, seed: int = 0,
                 constrained: bool = False, reason_max_chars: int = _REASON_CHARS):
        self.generator = generator
        self.name = f"llm:{generator.name}"
        self.max_retries = max_retries
        self.decoding = decoding
        self.seed = seed
        self.schema = schema_text(grade_schema(reason_max_chars)) if constrained else None
        self.budget = choice_token_bound("grade", GRADES, reason_max_chars) if constrained else None

    def grade(
        self,
        outputs: Sequence[IracOutput],
        decisions_by_id: Mapping[str, Decision],
        specs: Mapping[str, Sequence[FieldSpec]],
    ) -> list[IracGrade]:
        """One grade per output, in the order given. An unparseable output is graded "unparseable"
        without asking the model; a reply that never parses gives grade None, status "unparseable"."""
        for o in outputs:
            if o.task != "analysis":
                raise ValueError(f"{o.id}: only analyses are graded, not task {o.task!r}")
            if o.decision_id not in decisions_by_id:
                raise ValueError(f"{o.id}: decision {o.decision_id!r} not found")
        todo = [o for o in outputs if o.status == "ok" and o.analysis]
        reasons: dict[int, str] = {}

        def build(i: int, note: str | None) -> str:
            o = todo[i]
            decision = decisions_by_id[o.decision_id]
            return grader_prompt(decision, specs.get(schema_key(decision), ()), o.analysis or "", note)

        def parse(i: int, response: Response) -> str:
            grade, reasons[i] = parse_grade(response.text)
            return grade

        seeds = [stable_hash(self.seed, "irac-grade", o.id) % 2**31 for o in todo]
        languages = [decisions_by_id[o.decision_id].language for o in todo]
        done, traces = _ask(self.generator, self.decoding, seeds, languages, build, parse, self.max_retries, self.name,
                            lambda i: self.schema, self.budget)
        graded: dict[str, IracGrade] = {}
        for i, o in enumerate(todo):
            if i in done:
                graded[o.id] = IracGrade(o.id, self.name, done[i], "ok", reasons[i])
            else:
                why = f"no valid grade after {traces[i].attempts} attempts: {traces[i].problem}"
                graded[o.id] = IracGrade(o.id, self.name, None, "unparseable", why)
        out = []
        for o in outputs:
            if o.id in graded:
                out.append(graded[o.id])
                continue
            why = "the system's analysis was unparseable" if o.status != "ok" else "the analysis is empty"
            out.append(IracGrade(o.id, self.name, None, "unparseable", f"not graded: {why}"))
        return out
