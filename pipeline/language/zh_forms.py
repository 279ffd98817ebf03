"""Chinese question forms: what the question generator, the offline answerers and the rewriter need to
read and write a Chinese yes/no or wh-question (the Chinese counterpart of pipeline.language.rewrite_en).

Chinese marks a yes/no question by an A-not-A form (是否, 能否, 有无, 是不是 ...) or a final 吗, not by
word order, so the declarative form is a substitution, not a reordering: "被告是否应当赔偿？" ->
"被告应当赔偿" / "被告不应当赔偿". Heuristics, like the English helpers: they only need fluent-enough
sentences. Convention for answers: a Chinese yes/no answer opens with 是 or 否 followed by 。
(the Chinese counterpart of "Yes." / "No."), so one character carries the polarity for every reader.
"""

from __future__ import annotations

import re

YES, NO = "是", "否"
# Used when a zh prompt carries no zh refusal sentence (the prompt's own refusal is echoed when it is zh).
REFUSAL = "提供的段落没有足够的信息来回答这个问题。"

# (A-not-A form, affirmative, negative): the declarative form replaces the first one found.
_ANOTA = (
    ("是不是", "是", "不是"),
    ("有没有", "有", "没有"),
    ("是否", "", "不"),
    ("能否", "能", "不能"),
    ("可否", "可以", "不可以"),
    ("应否", "应当", "不应当"),
    ("会否", "会", "不会"),
    ("有无", "有", "没有"),
)
_YESNO = re.compile(r"是不是|有没有|是否|能否|可否|应否|会否|有无|吗\s*[？?]?\s*$")
# Words that make a statement negative. The A-not-A forms are removed before looking (是否 holds 否).
_NEG = re.compile(r"没有|未|不|无|非|否|驳回|拒绝|免予|免除|撤销")
_ASKING = re.compile("|".join(f for f, _, _ in _ANOTA))
# A leading frame such as "根据《……》，" or "在2011年5月3日作出的决定中，" names the source, not the question.
_FRAME = re.compile(r"^(?:根据|依据|按照|依照|在)[^，,]{0,60}[，,]\s*")
_AREAS = (
    ("证券监管", re.compile(r"内幕|证券|股票|股份|上市|证监会|操纵|交易")),
    ("刑事量刑", re.compile(r"刑|犯罪|罪|被告人|量刑|监禁|缓刑|判处")),
    ("住宅租赁", re.compile(r"租|房东|租客|承租|出租|押金|房屋|腾退")),
)


def is_yesno(question: str) -> bool:
    return _YESNO.search(question) is not None


def negation_cues(text: str) -> set[str]:
    return set(_NEG.findall(_ASKING.sub("", text)))


def polarity(question: str, sentence: str) -> str:
    """YES unless the sentence and the question disagree on a negation cue (as the English reader)."""
    q, s = negation_cues(question), negation_cues(sentence)
    return NO if bool(s - q) != bool(q - s) else YES


def _bare(question: str) -> str:
    return _FRAME.sub("", question.strip()).rstrip("？?。！! ")


def declarative(question: str, negate: bool = False) -> str:
    """The statement a yes/no question asks about (no final punctuation), optionally negated."""
    text = _bare(question)
    for form, yes, no in _ANOTA:
        if form in text:
            return text.replace(form, no if negate else yes, 1)
    if text.endswith("吗"):
        text = text[:-1]
    return f"并非{text}" if negate else text


def focus(question: str) -> str:
    """What the question asks for, usable after "这些段落没有说明" (the question without its frame)."""
    return _bare(question)


def area(question: str) -> str:
    for name, pattern in _AREAS:
        if pattern.search(question):
            return name
    return "法律"
