"""An LLM judge (`llm:<backend spec>`): one prompt per dimension, a JSON reply checked against a schema,
retries with a note about the invalid reply, then status "unparseable" -- the label is kept, never dropped.

Calls go through the generator interface of pipeline/backends/base.py, batched per dimension so a
served model sees whole batches; only the items whose reply was invalid are asked again.

With `constrained` on, each dimension's reply is asked for under its JSON schema ({"label": one of the
dimension's labels, "reason": at most `reason_max_chars` characters}, pipeline/structured/schemas.py):
a local model can only decode an allowed label, a server gets it as response_format. The same schema
checks every reply. `sample_items` picks the seeded sample a judge labels when judge.llm_max_candidates
caps it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.backends.base import Generator, Request
from pipeline.judges.base import JudgeItem, as_judged, cap_cut_off, item_language, unusable
from pipeline.prompts import render_passages
from pipeline.records import LABEL_DIMENSIONS, Label
from pipeline.structured.schemas import choice_schema, choice_token_bound, problems, schema_text
from pipeline.text import stable_hash

# How long a reason a free (unconstrained) reply may give before it is cut, and the schema's cap by default.
REASON_CHARS = 200

# What each dimension asks, per language (a record's language picks its wording, as for the answer
# prompt); the labels themselves are the schema's values and stay as they are in every language.
_QUESTIONS = {
    "en": {
        "behaviour": (
            "Classify the RESPONSE's behaviour. attempted: it gives an answer (even if it also says the "
            "passages are insufficient). abstained: it only declines or says the information is missing. "
            "unusable: empty, unreadable or degenerate (e.g. repeated tokens), or it takes no position on "
            "what was asked (asked how much or when, it gives no figure)."
        ),
        "faithfulness": (
            "Judge the RESPONSE only against the PASSAGES shown. fully_supported: every claim is supported. "
            "partially_supported: the main conclusion is supported but a secondary claim is not. "
            "unsupported: the main conclusion is not supported. contradicted: the passages say otherwise."
        ),
        "correctness": (
            "Compare the RESPONSE with the REFERENCE answer. correct: same bottom line (facts, amounts, "
            "yes/no). incorrect: a different or missing bottom line."
        ),
        "completeness": (
            "Compare the RESPONSE with the REFERENCE answer. complete: it states the essential rule, "
            "conditions, exceptions and qualifications. incomplete: it misses any of them."
        ),
    },
    "zh": {
        "behaviour": (
            "判断【回答】的行为。attempted：给出了答案（即使同时说明段落信息不足）。abstained：只是拒绝回答，"
            "或只说明信息不足。unusable：空白、无法阅读或内容失常（例如同一词语反复出现），"
            "或没有就所问的内容表明立场（问多少、何时，却没有给出任何数字）。"
        ),
        "faithfulness": (
            "只依据下面给出的【段落】判断【回答】。fully_supported：每一项陈述都有段落依据。"
            "partially_supported：主要结论有依据，但某项次要陈述没有。unsupported：主要结论没有依据。"
            "contradicted：段落的内容与回答相反。"
        ),
        "correctness": (
            "将【回答】与【参考答案】比较。correct：结论相同（事实、金额、是或否）。"
            "incorrect：结论不同或没有给出结论。"
        ),
        "completeness": (
            "将【回答】与【参考答案】比较。complete：写明了关键规则、条件、例外和限定。"
            "incomplete：遗漏了其中任何一项。"
        ),
    },
}


@dataclass(frozen=True)
class _Frame:
    """The scaffolding around a dimension's question, in one language."""

    intro: str
    passages: str
    question: str
    reference: str
    response: str
    reply: str  # holds {labels}
    retry: str  # holds {attempt} and {reply}


_FRAMES = {
    "en": _Frame(
        "You are grading an answer to a legal question.",
        "PASSAGES:\n",
        "QUESTION: ",
        "REFERENCE: ",
        "RESPONSE: ",
        'Reply with one JSON object and nothing else: {{"label": "<one of: {labels}>", "reason": "<one sentence>"}}',
        "Attempt {attempt}. Your previous reply was not a valid JSON object with an allowed label: {reply}",
    ),
    "zh": _Frame(
        "你正在评判一个法律问题的回答。",
        "【段落】\n",
        "【问题】",
        "【参考答案】",
        "【回答】",
        '只回复一个 JSON 对象，不要写其他内容：{{"label": "<以下之一：{labels}>", "reason": "<一句话理由>"}}',
        "第 {attempt} 次尝试。你上一次的回复不是带有允许标签的有效 JSON 对象：{reply}",
    ),
}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


@dataclass
class _Slot:
    item: JudgeItem
    label: Label


class LLMJudge:
    """Judges with a generator; `decoding` holds temperature, top_p and max_new_tokens."""

    def __init__(self, name: str, generator: Generator, max_retries: int, decoding: Any, seed: int = 0,
                 constrained: bool = False, reason_max_chars: int = REASON_CHARS):
        self.name = name
        self.generator = generator
        self.max_retries = max_retries
        self.decoding = decoding
        self.seed = seed
        self.schemas = {
            dim: schema_text(label_schema(dim, reason_max_chars)) if constrained else None for dim in LABEL_DIMENSIONS
        }
        # A constrained reply gets the budget any label its schema allows fits in, so it is never cut open
        # and retried (a 120-character Chinese reason alone can pass 128 tokens); the decoder stops when the
        # object closes, so the bound costs nothing a reply does not use. Free replies keep decoding's.
        self.budgets = {
            dim: choice_token_bound("label", LABEL_DIMENSIONS[dim], reason_max_chars) if constrained
            else decoding.max_new_tokens for dim in LABEL_DIMENSIONS
        }

    def judge(self, items: Sequence[JudgeItem]) -> list[Label]:
        # A cut-off answer is shown with its finished sentences only, and one with none is unusable
        # without a call (the rule of docs/method.md §4 that every judge shares).
        judged = [as_judged(i) for i in items]
        slots = [_Slot(j, Label(j.candidate.id, self.name, None, None, None, None, "ok")) for j in judged if j]
        self._ask("behaviour", slots)
        attempted = [s for s in slots if s.label.status == "ok" and s.label.behaviour == "attempted"]
        for dimension in ("faithfulness", "correctness", "completeness"):
            self._ask(dimension, [s for s in attempted if s.label.status == "ok"])
        labels = iter(s.label for s in slots)
        return [unusable(i, self.name) if j is None else cap_cut_off(i, next(labels))
                for i, j in zip(items, judged, strict=True)]

    def _ask(self, dimension: str, slots: list[_Slot]) -> None:
        pending = list(slots)
        last: dict[int, str] = {}
        for attempt in range(self.max_retries + 1):
            if not pending:
                return
            prompts = [judge_prompt(dimension, s.item, last.get(id(s)), attempt) for s in pending]
            replies = self._generate(prompts, self.budgets[dimension], self.schemas[dimension])
            still = []
            for slot, reply in zip(pending, replies, strict=True):
                value = parse_reply(reply, LABEL_DIMENSIONS[dimension])
                if value is None:
                    last[id(slot)] = reply
                    still.append(slot)
                else:
                    setattr(slot.label, dimension, value)
            pending = still
        for slot in pending:
            slot.label.status = "unparseable"

    def _generate(self, prompts: list[str], max_new_tokens: int, schema: str | None = None) -> list[str]:
        requests = [
            Request(
                prompt=p,
                temperature=self.decoding.temperature,
                top_p=self.decoding.top_p,
                max_new_tokens=max_new_tokens,
                seed=self.seed,
                schema=schema,
            )
            for p in prompts
        ]
        responses = self.generator.generate(requests)
        if len(responses) != len(requests):
            raise RuntimeError(
                f"{self.name}: generator returned {len(responses)} replies for {len(requests)}"
            )
        return [r.text for r in responses]


def judge_prompt(dimension: str, item: JudgeItem, invalid_reply: str | None = None, attempt: int = 0) -> str:
    """The prompt for one dimension of one item, worded in the item's language (item_language)."""
    lang = item_language(item.qa)
    frame = _FRAMES[lang]
    parts = [f"{frame.intro}{'' if lang == 'zh' else ' '}{_QUESTIONS[lang][dimension]}"]
    if dimension == "faithfulness":
        parts.append(f"{frame.passages}{render_passages(item.passages)}")
    parts.append(f"{frame.question}{item.qa.question}")
    if dimension in ("correctness", "completeness"):
        parts.append(f"{frame.reference}{item.qa.answer}")
    parts.append(f"{frame.response}{item.candidate.text}")
    parts.append(frame.reply.format(labels=", ".join(LABEL_DIMENSIONS[dimension])))
    if invalid_reply is not None:
        # A changed prompt keeps the response cache from answering a retry with the failed reply; the
        # attempt number keeps two identical failed replies from giving two identical retry prompts.
        parts.append(frame.retry.format(attempt=attempt + 1, reply=json.dumps(invalid_reply[:200], ensure_ascii=False)))
    return "\n\n".join(parts)


def label_schema(dimension: str, reason_max_chars: int = REASON_CHARS) -> dict[str, Any]:
    """The reply to one dimension: {"label": one of its labels, "reason": one sentence}."""
    return choice_schema("label", LABEL_DIMENSIONS[dimension], reason_max_chars)


def parse_reply(reply: str, allowed: Sequence[str]) -> str | None:
    """The label of a reply matching {"label": <allowed>, "reason"?: str} (the label schema, read
    leniently where a free reply differs harmlessly: no reason, a long one, spaces around the label);
    None when it does not."""
    text = reply.strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    obj = dict(obj)
    if isinstance(obj.get("label"), str):
        obj["label"] = obj["label"].strip()
    obj.setdefault("reason", "")
    if isinstance(obj["reason"], str):
        obj["reason"] = obj["reason"][:REASON_CHARS]
    if problems(choice_schema("label", allowed, REASON_CHARS), obj):
        return None
    return obj["label"]


def sample_items(items: Sequence[JudgeItem], cap: int, seed: int) -> list[JudgeItem]:
    """The items an LLM judge capped at `cap` candidates labels (0: all): whole contexts, taken in an order
    fixed by a hash of (seed, context id), while they fit under the cap, so that every pair of a sampled
    context can be rebuilt from the sample; returned in the order given."""
    if not cap or len(items) <= cap:
        return list(items)
    by_context: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        by_context.setdefault(it.candidate.context_id, []).append(i)
    chosen: list[int] = []
    for context in sorted(by_context, key=lambda c: (stable_hash(seed, "judge-sample", c), c)):
        group = by_context[context]
        if len(chosen) + len(group) <= cap:
            chosen.extend(group)
        if len(chosen) == cap:
            break
    return [items[i] for i in sorted(chosen)]
