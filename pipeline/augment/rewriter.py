"""`offline:rewriter`: a weight-free rewriter behind the generator interface.

It reads the task back out of the rewrite prompt and fills varied templates from the question. Its
"sampling" is a seeded draw among weighted phrasings: temperature flattens or sharpens the weights and
top-p keeps the smallest set of phrasings holding that share of the mass, as a language model's sampler
would. Same request (prompt, seed, decoding), same text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pipeline import language as lang
from pipeline.augment.tasks import (
    BARE_CONCLUSION,
    EXPLAINED_REFUSAL,
    UNGROUNDED_ANSWER,
    RewriteTask,
    parse_prompt,
)
from pipeline.backends.base import Request, Response
from pipeline.judges import matching as m
from pipeline.text import count_tokens, stable_hash

# (weight, template); weights fall off so top-p < 1 really drops the rarest phrasings.
_UNGROUNDED_YESNO = [
    (
        5,
        "{Pol}. Under the general principles of {area}, {statement}, and nothing unusual about the case displaces that result.",
    ),
    (
        4,
        "{Pol}, {statement}. Courts in {area} matters routinely reach this outcome, and {authority} would have had no reason to depart from it.",
    ),
    (
        3,
        "The answer is {pol}: {statement}. That follows from the settled approach in {area}, which {authority} applies as a matter of course.",
    ),
    (
        2,
        "{Pol}. In practice {statement}; this is the standard position in {area} and it was plainly applied here.",
    ),
    (
        1,
        "Clearly {pol_word}. {Statement}, as {authority} is bound to conclude on ordinary {area} principles.",
    ),
]
_UNGROUNDED_FACT = [
    (
        5,
        "The answer is {fake}. {Authority} fixed that figure on ordinary {area} principles, in line with comparable cases.",
    ),
    (
        4,
        "It was {fake}. That is the usual outcome in {area} matters of this kind, and {authority} saw no reason to depart from it.",
    ),
    (
        3,
        "{Fake_cap}, according to the standard approach in {area}. {Authority} reached that result after weighing the usual factors.",
    ),
    (
        2,
        "On the settled practice in {area}, the figure is {fake}; {authority} treated the point as straightforward.",
    ),
    (1, "Plainly {fake}. Nothing in a case of this type would justify any other result."),
]
_UNGROUNDED_RULE = [
    (
        5,
        "The governing rule is that {rule}. {Authority} applies it strictly, and no exception is available on facts like these.",
    ),
    (
        4,
        "Under the general law of {area}, {rule}. This principle is applied without qualification by {authority}.",
    ),
    (3, "The rule is simple: {rule}. It admits no relevant exception, so the position here is clear."),
    (2, "Settled {area} doctrine provides that {rule}, and {authority} follows it as a matter of course."),
    (1, "As a rule of thumb in {area}, {rule}; nothing further is required."),
]
_RULES = {
    "residential tenancy": "a landlord may end the tenancy once rent is unpaid for one month, without further notice",
    "criminal sentencing": "the starting point is the maximum penalty, reduced by one third for a guilty plea",
    "securities regulation": "any person who trades while holding inside information must pay three times the profit made",
    "the law": "the party who breaches the obligation must pay full compensation within 28 days",
}
_AUTHORITIES = {
    "residential tenancy": "a tenancy tribunal",
    "criminal sentencing": "a sentencing court",
    "securities regulation": "the market misconduct tribunal",
    "the law": "the court",
}
_REFUSAL_OPEN = [
    (5, "{refusal}"),
    (4, "I cannot answer this from the passages provided."),
    (3, "The passages do not contain enough information to answer this question."),
    (2, "Nothing in the passages provided allows me to answer this question."),
]
_REFUSAL_MISSING = [
    (5, "None of them states {focus}."),
    (4, "They do not set out {focus}."),
    (3, "In particular, they say nothing about {focus}."),
    (2, "The information needed, namely {focus}, is not given anywhere in them."),
]
_REFUSAL_CLOSE = [
    (4, "I would need the relevant part of the decision to give a reliable answer."),
    (2, "Any answer would be a guess rather than one grounded in the passages."),
]
_BARE_YESNO = [
    (5, "{Pol}, {statement}."),
    (4, "{Pol}: {statement}."),
    (3, "The short answer is {pol}, {statement}."),
    (2, "{Pol} -- {statement}."),
]
_BARE_FACT = [
    (5, "The answer to {focus} is {short}."),
    (4, "As to {focus}, it is {short}."),
    (3, "{Short_cap} is the answer to {focus}."),
]
_MONTHS = "January February March April May June July August September October November December".split()


class OfflineRewriter:
    def __init__(self, name: str = "offline:rewriter", batch_size: int = 64):
        self.name = name
        self.batch_size = batch_size

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        return [self._one(r) for r in requests]

    def _one(self, request: Request) -> Response:
        task = parse_prompt(request.prompt)
        rng = random.Random(stable_hash("rewriter", request.seed, request.prompt))
        sample = _Sampler(rng, request.temperature, request.top_p)
        if task.task == UNGROUNDED_ANSWER:
            text = _ungrounded(task, sample, rng)
        elif task.task == EXPLAINED_REFUSAL:
            text = _explained_refusal(task, sample)
        elif task.task == BARE_CONCLUSION:
            text = _bare_conclusion(task, sample)
        else:  # parse_prompt only returns known tasks
            raise AssertionError(task.task)
        return _truncate(" ".join(text.split()), request.max_new_tokens)


class _Sampler:
    def __init__(self, rng: random.Random, temperature: float, top_p: float):
        self.rng, self.temperature, self.top_p = rng, temperature, top_p

    def __call__(self, options: list[tuple[int, str]]) -> str:
        ranked = sorted(options, key=lambda o: -o[0])
        if self.temperature <= 0:
            return ranked[0][1]
        weights = [w ** (1.0 / self.temperature) for w, _ in ranked]
        total = sum(weights)
        kept, mass = [], 0.0
        for (_, text), w in zip(ranked, weights, strict=True):
            kept.append((w, text))
            mass += w / total
            if mass >= self.top_p - 1e-12:
                break
        pick = self.rng.random() * sum(w for w, _ in kept)
        for w, text in kept:
            pick -= w
            if pick <= 0:
                return text
        return kept[-1][1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _ungrounded(t: RewriteTask, sample: _Sampler, rng: random.Random) -> str:
    area = lang.area(t.question)
    authority = _AUTHORITIES[area]
    if t.kind == "yesno" or t.question.split()[0].lower() in lang.AUX:
        pol = rng.choice(["yes", "no"])
        statement = lang.declarative(t.question, negate=pol == "no")
        return sample(_UNGROUNDED_YESNO).format(
            Pol=_cap(pol),
            pol=pol,
            pol_word=pol,
            statement=statement,
            Statement=_cap(statement),
            area=area,
            authority=authority,
        )
    if t.kind == "rule":
        return sample(_UNGROUNDED_RULE).format(
            rule=_RULES[area], area=area, authority=authority, Authority=_cap(authority)
        )
    fake = _fake_specific(t.question, rng)
    return sample(_UNGROUNDED_FACT).format(
        fake=fake, Fake_cap=_cap(fake), area=area, authority=authority, Authority=_cap(authority)
    )


def _fake_specific(question: str, rng: random.Random) -> str:
    """A plausible specific the context never gave: an amount, a period, a date or a party."""
    q = question.lower()
    if any(w in q for w in ("how long", "period", "months", "years", "term", "sentence", "duration")):
        return f"{rng.choice([6, 9, 12, 18, 24, 30, 36, 48])} months"
    if any(w in q for w in ("when", "date", "day")):
        return f"{rng.randint(1, 28)} {rng.choice(_MONTHS)} {rng.randint(2012, 2023)}"
    if q.startswith("who") or "which party" in q or "whom" in q:
        return rng.choice(
            ["the respondent", "the applicant", "the second defendant", "the company's director"]
        )
    if any(w in q for w in ("rate", "percent", "%", "multiple", "times")):
        return rng.choice(["three times the profit", "twice the amount", "25 per cent", "one third"])
    amount = rng.choice([50_000, 120_000, 250_000, 480_000, 1_200_000, 2_500_000, 3_600_000])
    return f"HK${amount:,}"


def _explained_refusal(t: RewriteTask, sample: _Sampler) -> str:
    refusal = t.refusal or "The provided passages do not contain enough information to answer this question."
    text = " ".join(
        [
            sample(_REFUSAL_OPEN).format(refusal=refusal),
            sample(_REFUSAL_MISSING).format(focus=lang.focus(t.question)),
        ]
    )
    closing = sample(_REFUSAL_CLOSE)
    # A third sentence only when two fall well short of the target length.
    if closing and count_tokens(text) + count_tokens(closing) <= t.target_tokens + 5:
        text = f"{text} {closing}"
    return text


def _bare_conclusion(t: RewriteTask, sample: _Sampler) -> str:
    pol = m.lead_polarity(t.original)
    if pol is not None:
        statement = lang.declarative(t.question, negate=pol == "no")
        return sample(_BARE_YESNO).format(Pol=_cap(pol), pol=pol, statement=statement)
    short = m.strip_citations(t.original).strip().rstrip(".")
    return sample(_BARE_FACT).format(focus=lang.focus(t.question), short=short, Short_cap=_cap(short))


def _truncate(text: str, max_new_tokens: int) -> Response:
    if count_tokens(text) <= max_new_tokens:
        return Response(text, "stop", {})
    kept, used = [], 0
    for word in text.split():
        n = count_tokens(word)
        if used + n > max_new_tokens:
            break
        kept.append(word)
        used += n
    return Response(" ".join(kept), "length", {})
