"""`offline:rewriter`: a weight-free rewriter behind the generator interface.

It reads the task back out of the rewrite prompt and fills varied templates from the question, in the
question's language: a Chinese question gets Chinese templates only (the _ZH_* tables), so no English
template text ever surrounds Chinese text. Its
"sampling" is a seeded draw among weighted phrasings: temperature flattens or sharpens the weights and
top-p keeps the smallest set of phrasings holding that share of the mass, as a language model's sampler
would. Same request (prompt, seed, decoding), same text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pipeline import language as lang
from pipeline import matching as m
from pipeline.augment.tasks import (
    BARE_CONCLUSION,
    EXPLAINED_REFUSAL,
    UNGROUNDED_ANSWER,
    RewriteTask,
    parse_prompt,
)
from pipeline.backends.base import Request, Response
from pipeline.code_version import CodeVersion
from pipeline.language import zh_forms as zh
from pipeline.language.rewrite_en import AUX
from pipeline.matching import cues_zh
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
# Further confident sentences, added while an ungrounded answer falls well short of its target length
# (the length balance may ask for an answer longer than the grounded one it loses to).
_UNGROUNDED_MORE = [
    (4, "Courts dealing with {area} disputes apply that approach routinely, and {authority} had no reason to treat this case differently."),
    (3, "The same result follows in practically every comparable {area} matter, so the point hardly needed argument."),
    (3, "Any other outcome would have been inconsistent with how {authority} has handled {area} questions for years."),
    (2, "That conclusion reflects the settled understanding of {area}, which the parties themselves did not seriously dispute."),
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
    "law": "the party who breaches the obligation must pay full compensation within 28 days",
}
_AUTHORITIES = {
    "residential tenancy": "a tenancy tribunal",
    "criminal sentencing": "a sentencing court",
    "securities regulation": "the market misconduct tribunal",
    "law": "the court",
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
# The rewriter's panel name is offline:<REWRITER_MODEL> (registered in pipeline/augment/__init__.py).
REWRITER_MODEL = "rewriter"
_MONTHS = "January February March April May June July August September October November December".split()


class OfflineRewriter:
    # Cached rewrites are keyed by the version of this module and all it imports: editing it re-writes.
    version = CodeVersion()

    def __init__(self, name: str = f"offline:{REWRITER_MODEL}", batch_size: int = 64):
        self.name = name
        self.batch_size = batch_size

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        return [self._one(r) for r in requests]

    def _one(self, request: Request) -> Response:
        task = parse_prompt(request.prompt)
        rng = random.Random(stable_hash("rewriter", request.seed, request.prompt))
        sample = _Sampler(rng, request.temperature, request.top_p)
        if lang.detect(task.question) == "zh":
            # A zh pair is rewritten with Chinese wording only (no English template around zh text).
            return _truncate_zh(_rewrite_zh(task, sample, rng), request.max_new_tokens)
        if task.task == UNGROUNDED_ANSWER:
            text = _lengthen(_ungrounded(task, sample, rng), task, sample)
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
    if t.kind == "yesno" or t.question.split()[0].lower() in AUX:
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


def _lengthen(text: str, t: RewriteTask, sample: _Sampler, most: int = 2) -> str:
    """Up to `most` further confident sentences while the answer is short of its target length."""
    area = lang.area(t.question)
    for _ in range(most):
        more = sample(_UNGROUNDED_MORE).format(area=area, authority=_AUTHORITIES[area])
        if count_tokens(text) + count_tokens(more) > t.target_tokens + 5:
            break
        text = f"{text} {more}"
    return text


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


# ------------------------------------------------------------------------------------------- Chinese
# Same roles and weights as the English tables; wording written for this project. Yes/no answers open
# with 是 or 否 (pipeline.language.zh_forms).
_ZH_UNGROUNDED_YESNO = [
    (5, "{pol}。按照{area}的一般原则，{statement}，本案也没有任何特殊情况足以改变这一结论。"),
    (4, "{pol}，{statement}。{area}案件通常都是这样处理的，{authority}没有理由偏离这一做法。"),
    (3, "答案是{verdict}的：{statement}。这是{area}领域的既定做法，{authority}向来如此适用。"),
    (2, "{pol}。实践中{statement}；这是{area}的标准立场，本案显然也照此处理。"),
    (1, "答案显然是{verdict}的。依照通常的{area}原则，{authority}必然认定{statement}。"),
]
_ZH_UNGROUNDED_FACT = [
    (5, "答案是{fake}。{authority}依照{area}的一般原则确定了这一结果，与同类案件一致。"),
    (4, "结果为{fake}。这类{area}案件通常都是这个结果，{authority}没有理由另作处理。"),
    (3, "按照{area}的标准做法，答案是{fake}。{authority}在综合考虑通常因素后得出了这一结论。"),
    (2, "依照{area}的惯常做法，结果是{fake}；{authority}认为这一点并无争议。"),
    (1, "结果显然为{fake}。这类案件没有任何理由得出其他结果。"),
]
_ZH_UNGROUNDED_RULE = [
    (5, "适用的规则是：{rule}。{authority}一贯严格适用这一规则，本案情形不存在任何例外。"),
    (4, "按照{area}的一般规定，{rule}。{authority}适用这一原则时从不附加条件。"),
    (3, "规则很简单：{rule}。它没有可以适用的例外，因此本案的结论十分明确。"),
    (2, "{area}的既定规则是{rule}，{authority}理所当然地遵循这一规则。"),
    (1, "按照{area}的惯例，{rule}；无需考虑其他因素。"),
]
_ZH_RULES = {
    "住宅租赁": "租客拖欠租金满一个月的，房东无需另行通知即可解除租约",
    "刑事量刑": "量刑以法定最高刑为起点，被告人认罪的减少三分之一",
    "证券监管": "任何人在掌握内幕信息期间买卖证券的，一律须缴纳所获利润三倍的罚款",
    "法律": "违反义务的一方须在二十八日内全额赔偿对方的损失",
}
_ZH_AUTHORITIES = {"住宅租赁": "租赁审裁处", "刑事量刑": "量刑法院", "证券监管": "证券监管机构", "法律": "法院"}
_ZH_REFUSAL_OPEN = [
    (5, "{refusal}"),
    (4, "我无法根据所提供的段落回答这个问题。"),
    (3, "这些段落所含的信息不足以回答这个问题。"),
    (2, "所提供的段落中没有任何内容可以让我回答这个问题。"),
]
_ZH_REFUSAL_MISSING = [
    (5, "这些段落都没有说明{focus}。"),
    (4, "它们没有载明{focus}。"),
    (3, "尤其是，它们对{focus}只字未提。"),
    (2, "回答所需的信息，即{focus}，在这些段落中都找不到。"),
]
_ZH_REFUSAL_CLOSE = [
    (4, "需要看到决定的相关部分，才能给出可靠的回答。"),
    (2, "任何回答都只会是猜测，而不是以这些段落为依据。"),
]
_ZH_BARE_YESNO = [
    (5, "{pol}，{statement}。"),
    (4, "{pol}：{statement}。"),
    (3, "简单地说，答案是{verdict}的，{statement}。"),
]
_ZH_BARE_FACT = [
    (5, "关于{focus}，答案是{short}。"),
    (4, "{focus}，答案是{short}。"),
    (3, "对于“{focus}”这一问题，答案是{short}。"),
]
_VERDICT = {zh.YES: "肯定", zh.NO: "否定"}
# Further confident sentences for a Chinese ungrounded answer short of its target (as _UNGROUNDED_MORE).
_ZH_UNGROUNDED_MORE = [
    (4, "{area}案件的审理机关一贯采取这一做法，{authority}没有理由对本案另作处理。"),
    (3, "几乎所有同类{area}案件都会得出相同的结果，这一点本无需争论。"),
    (3, "任何其他结果都会与{authority}多年来处理{area}问题的方式相矛盾。"),
    (2, "这一结论反映了{area}领域的既定理解，当事人对此也没有提出实质性异议。"),
]


def _zh_lead_polarity(text: str) -> str | None:
    """是/否 when the answer being rewritten opens with its bottom line (the rule judge's reading)."""
    lead = cues_zh.lead_polarity(text)
    return None if lead is None else {"yes": zh.YES, "no": zh.NO}[lead]


def _rewrite_zh(t: RewriteTask, sample: _Sampler, rng: random.Random) -> str:
    area = zh.area(t.question)
    authority = _ZH_AUTHORITIES[area]
    if t.task == UNGROUNDED_ANSWER:
        if t.kind == "yesno" or zh.is_yesno(t.question):
            pol = rng.choice([zh.YES, zh.NO])
            statement = zh.declarative(t.question, negate=pol == zh.NO)
            text = sample(_ZH_UNGROUNDED_YESNO).format(
                pol=pol, verdict=_VERDICT[pol], statement=statement, area=area, authority=authority
            )
        elif t.kind == "rule":
            text = sample(_ZH_UNGROUNDED_RULE).format(rule=_ZH_RULES[area], area=area, authority=authority)
        else:
            fake = _zh_fake_specific(t.question, rng)
            text = sample(_ZH_UNGROUNDED_FACT).format(fake=fake, area=area, authority=authority)
        return _zh_lengthen(text, t, sample)
    if t.task == EXPLAINED_REFUSAL:
        refusal = t.refusal if t.refusal and lang.detect(t.refusal) == "zh" else zh.REFUSAL
        text = sample(_ZH_REFUSAL_OPEN).format(refusal=refusal) + sample(_ZH_REFUSAL_MISSING).format(
            focus=zh.focus(t.question)
        )
        closing = sample(_ZH_REFUSAL_CLOSE)
        if lang.count_tokens(text + closing, "zh") <= t.target_tokens + 5:
            text += closing
        return text
    pol = _zh_lead_polarity(t.original)
    if pol is not None:
        statement = zh.declarative(t.question, negate=pol == zh.NO)
        return sample(_ZH_BARE_YESNO).format(pol=pol, verdict=_VERDICT[pol], statement=statement)
    short = m.strip_citations(t.original).strip().rstrip("。.")
    return sample(_ZH_BARE_FACT).format(focus=zh.focus(t.question), short=short)


def _zh_lengthen(text: str, t: RewriteTask, sample: _Sampler) -> str:
    """Further confident sentences, up to three in all, while the answer is short of its target length in
    Chinese tokens (the length balance may ask for more than the grounded answer it loses to)."""
    area = zh.area(t.question)
    for _ in range(3 - len(lang.sentences(text, "zh"))):
        more = sample(_ZH_UNGROUNDED_MORE).format(area=area, authority=_ZH_AUTHORITIES[area])
        if lang.count_tokens(text + more, "zh") > t.target_tokens + 5:
            break
        text += more
    return text


def _zh_fake_specific(question: str, rng: random.Random) -> str:
    """A plausible Chinese specific the context never gave: a penalty, a period, a date, a party, a rate or
    an amount."""
    if any(w in question for w in ("刑罚", "判处", "判了", "判刑")):
        return f"有期徒刑{rng.choice(['一年', '二年', '三年', '五年', '七年', '十年'])}"
    if any(w in question for w in ("多长", "期限", "刑期", "几个月", "几年", "多久")):
        return f"{rng.choice([6, 9, 12, 18, 24, 30, 36, 48])}个月"
    if any(w in question for w in ("何时", "哪一天", "日期", "什么时候", "哪天")):
        return f"{rng.randint(2012, 2023)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日"
    if any(w in question for w in ("是谁", "哪一方", "何人", "谁")):
        return rng.choice(["被申请人", "申请人", "第二被告", "该公司董事"])
    if any(w in question for w in ("比例", "倍", "百分", "税率", "利率")):
        return rng.choice(["获利的三倍", "金额的两倍", "百分之二十五", "三分之一"])
    amount = rng.choice([50_000, 120_000, 250_000, 480_000, 1_200_000, 2_500_000, 3_600_000])
    return f"{amount:,}元"


def _truncate_zh(text: str, max_new_tokens: int) -> Response:
    """max_new_tokens counted the Chinese way (language.count_tokens): keep the longest prefix that fits."""
    kept = lang.longest_prefix_within(text, max_new_tokens, "zh")
    return Response(kept, "stop" if kept == text else "length", {})
