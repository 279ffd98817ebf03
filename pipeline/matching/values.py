"""The kinds of value a text states: an amount of money, a duration (by its unit), a date, a share count,
a percentage or fraction, a clause, a section, a cited case.

A reply takes a position on a question when it states a value of a kind the reference's facts are (an
amount for "how much", a case or a range for "what authority"); a pasted passage about another matter
states none (docs/method.md §4). A fact that only situates the answer (a date, a share count) need not be
stated, but a different value of its kind is a wrong fact.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pipeline import language

_NUM = r"(?:\d[\d,]*(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_EN = {
    "money": re.compile(
        r"(?:HK|US|RMB)?\$\s?\d[\d,]*(?:\.\d+)?(?:\s*(?:million|billion))?|\b(?:HKD|USD|RMB)\s?\d[\d,]*(?:\.\d+)?"
        r"|\b\d[\d,]*(?:\.\d+)?\s*(?:million\s+|billion\s+)?(?:dollars|yuan)\b",
        re.I,
    ),
    "date": re.compile(rf"\b\d{{1,2}}\s+(?:{_MONTHS})\s+\d{{4}}\b|\b(?:{_MONTHS})\s+\d{{1,2}},?\s+\d{{4}}\b"),
    "days": re.compile(rf"\b{_NUM}[\s-]+(?:business\s+|working\s+|clear\s+)?days?\b", re.I),
    "weeks": re.compile(rf"\b{_NUM}[\s-]+weeks?\b", re.I),
    "months": re.compile(rf"\b{_NUM}[\s-]+months?\b", re.I),
    "years": re.compile(rf"\b{_NUM}[\s-]+years?\b", re.I),
    "shares": re.compile(r"\b\d[\d,]*\s+shares\b", re.I),
    "share": re.compile(
        r"\b\d+(?:\.\d+)?\s*(?:per\s*cent|percent|%)|\b(?:one|two)[-\s](?:third|half|quarter)s?\b", re.I
    ),
    # A clause by its word, or a numbered sub-clause written bare ("14(d)" of a tenancy agreement).
    "clause": re.compile(r"\b(?:clause|paragraph)\s+\d+(?:\([a-z0-9]+\))*|\b\d+\([a-z]{1,3}\)(?:\([a-z0-9]+\))*", re.I),
    # "Order 11" of the Rules of the High Court is a provision as its rules are (capitalised: "an order 2").
    "section": re.compile(r"\b(?:section|article|rule|regulation|(?-i:Order))\s+\d+[A-Z]?(?:\(\d+\))*", re.I),
    "case": re.compile(r"\b[A-Z][A-Za-z]*\s+v\.?\s+[A-Z][A-Za-z]*(?:\s+[A-Z][A-Za-z-]*)*"),
}
_ZH_NUM = r"[\d一二三四五六七八九十百千零两半]+"
_ZH = {
    "money": re.compile(
        r"(?:人民币|港币|美元)?\s*\d[\d,，]*(?:\.\d+)?\s*(?:万|亿)?(?:元|美元|港元|港币)|(?:人民币|港币|美元)\s*\d[\d,，]*(?:\.\d+)?"
        r"|[一二三四五六七八九十百千万两]+(?:万|亿)?元"
    ),
    # A date in digits or in numerals (二〇二一年三月五日), as judgments write both; a year of four
    # digits alone ("于1979年登记结婚") is a date too, never a length of 1979 years.
    "date": re.compile(
        r"(?:\d{4}|[〇零○一二三四五六七八九]{4})\s*年(?:\s*(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*月"
        r"(?:\s*(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*日)?)?"
    ),
    "days": re.compile(rf"{_ZH_NUM}\s*(?:日|天|个工作日)"),
    "months": re.compile(rf"{_ZH_NUM}\s*个\s*月"),
    "years": re.compile(rf"{_ZH_NUM}\s*年(?!\s*\d+\s*月)"),
    "shares": re.compile(r"\d[\d,，]*(?:\.\d+)?\s*(?:万|亿)?股"),
    # A rate per mille or per ten thousand (每日千分之五, 日万分之五) is a share as a percentage is.
    "share": re.compile(
        r"\d+(?:\.\d+)?\s*[%％]|[百千万]分之[\d一二三四五六七八九十点]+|[一二三四五六七八九十]分之[一二三四五六七八九十]"
    ),
    # A multiple ("1.3倍" of the loan prime rate, 三倍 of a sum); not the 二倍工资 a claim is named after.
    "multiple": re.compile(r"(?:\d+(?:\.\d+)?|[一二三四五六七八九十两]+(?:点[一二三四五六七八九])?)\s*倍(?!工资)"),
    "clause": re.compile(rf"第{_ZH_NUM}条"),
    "section": re.compile(rf"第{_ZH_NUM}款"),
    "case": re.compile(r"[（(]\d{4}[）)][^（()）]{1,12}?\d+号"),
    # How many people, times or things ("五人", "三次", "两名被告人", "两瓶"; not 一次性 or 人民币), and a grade
    # ("九级伤残", "轻伤二级"): the answers to 几人/几次/几瓶/几级.
    "count": re.compile(rf"{_ZH_NUM}\s*(?:人(?!民)|名|次(?!性)|起|件|项|位|瓶|盒|箱|袋|张|辆|台|套|份|笔|处|只|头|把)"),
    "grade": re.compile(rf"{_ZH_NUM}\s*级"),
}
# English kinds a value of which may be written without digits ("two years", "one-third", "HKSAR v Ma").
_WORDED = frozenset({"days", "weeks", "months", "years", "share", "case"})
DURATIONS = frozenset({"days", "weeks", "months", "years"})
# Kinds of fact that only situate an answer (docs/method.md §4): when, how many shares; not what.
SITUATING = frozenset({"date", "shares"})


@lru_cache(maxsize=1 << 16)
def _spans(text: str, lang: str) -> dict[str, list[str]]:
    """Each kind's values in the text. Dates go first and out of the text, so that a Chinese date is
    not also read as a duration (2016年4月12日) or an English one as a number of days."""
    table = _ZH if lang == "zh" else _EN
    if lang == "zh":
        text = language.plain_numerals(text)
    found: dict[str, list[str]] = {}
    if lang != "zh" and not any(ch.isdigit() for ch in text):
        # Without a digit only a number word, a fraction or a cited case can be a value.
        table = {k: v for k, v in table.items() if k in _WORDED}
    dates = table["date"].findall(text) if "date" in table else []
    if dates:
        found["date"] = dates
        text = table["date"].sub(" ", text)
    for kind, pattern in table.items():
        if kind != "date":
            hits = pattern.findall(text)
            if hits:
                found[kind] = hits
    return found


# An English duration that goes on past its first unit ("4 years and 6 months"): its first part is no value.
_COMPOUND = re.compile(rf"\b{_NUM}[\s-]+(?:years?|months?|weeks?)(?:,?\s+and\s+(?:a\s+half|{_NUM}[\s-]+\w+))", re.I)


def split_at(text: str, at: int) -> int | None:
    """Where the English value of `text` that position `at` falls inside begins, or None: a cut there
    leaves no whole value ("$2" of "$2 million", "14 March" of "14 March 2023", "4 years" of "4 years and
    6 months")."""
    starts = [hit.start() for pattern in (*_EN.values(), _COMPOUND) for hit in pattern.finditer(text) if hit.start() < at < hit.end()]
    return min(starts, default=None)


# A date to the month ("From July 2020, when the bank withdrew its facilities"): its year is no figure.
_EN_MONTH_YEAR = re.compile(rf"\b(?:{_MONTHS})\s+\d{{4}}\b")


def without_dates(text: str, lang: str) -> str:
    """The text with its dates blanked out, in English those given to the month too."""
    text = (_ZH if lang == "zh" else _EN)["date"].sub(" ", text)
    return text if lang == "zh" else _EN_MONTH_YEAR.sub(" ", text)


# A date that opens a period for another item ("自2020年1月1日起按……计付违约金", "interest from 12 October
# 2022"): where the period starts, not when the thing asked happened.
_PERIOD_START = {
    "zh": re.compile(r"[自从]\s*(?:\d{4}|[一二三四五六七八九〇零○]{4})年[^，,。；;起]{0,8}?起"),
    "en": re.compile(r"\b(?:from|since)\s+(?:the\s+)?(?:\d{1,2}\s+[A-Z][a-z]+\s+\d{4}|[A-Z][a-z]+\s+\d{1,2},?\s+\d{4})"),
}
_ASKS_START = {"zh": re.compile(r"[自从]|起算|开始"), "en": re.compile(r"\b(?:from|since|start|begin)", re.I)}


def without_period_starts(text: str, question: str, lang: str) -> str:
    """The text without the dates that open a period for another item, unless the question asks when
    something started."""
    key = "zh" if lang == "zh" else "en"
    return text if _ASKS_START[key].search(question) else _PERIOD_START[key].sub(" ", text)


_AGE = re.compile(r"\b\d+[\s-]+years?[\s-]+old\b|\baged\s+\d+\b", re.I)


_ZH_AGE = re.compile(r"[0-9０-９]+\s*周?岁|[一二三四五六七八九十]+周?岁")


def states_age(text: str, lang: str) -> bool:
    """Whether a text states someone's age ("aged 23", "23 years old", "23岁")."""
    return bool((_ZH_AGE if lang == "zh" else _AGE).search(text))


def without_ages(text: str) -> str:
    """The text without the ages it states ("19 years old"): an age is no length of anything."""
    return _AGE.sub(" ", text)


def kinds(text: str, lang: str) -> set[str]:
    """The kinds of value stated in the text."""
    return set(_spans(text, lang))


# An English case number ("DCCC 318/2024", "HCAL 1871/2023") names a case, not a figure.
EN_CASE_NUMBER = re.compile(r"\b[A-Z]{2,6}\s?\d{1,6}/\d{2,4}\b")


def without_values(text: str, lang: str) -> str:
    """The text with every value of a known kind blanked out: what is left of its numbers is bare
    ("第3类" keeps its 3; "256,300元" is gone; an English case number is no number either)."""
    for pattern in (_ZH if lang == "zh" else _EN).values():
        text = pattern.sub(" ", text)
    return text if lang == "zh" else EN_CASE_NUMBER.sub(" ", text)


def values(text: str, of_kinds: set[str] | frozenset[str], lang: str) -> set[str]:
    """The canonical numbers (language.numbers) of the text's values of the given kinds; a value with no
    number (a cited case) stands as its lower-cased text. A duration stands as its length ("m54" for "4 years
    and 6 months" and for 四年六个月, "d14" for "two weeks"), so that a term is not read as another one sharing
    its numbers ("reduced to 4 years" beside "6 months of the fraud sentence" is no "4 years and 6 months")."""
    out: set[str] = set()
    if of_kinds & DURATIONS:
        out |= durations(text, lang)
    for kind, hits in _spans(_without_durations(text, lang) if of_kinds & DURATIONS else text, lang).items():
        if kind in of_kinds and kind not in DURATIONS:
            for hit in hits:
                out |= language.numbers(hit, lang) or {hit.lower()}
    return out


# One duration, compound or not: "4 years and 6 months", "3 years", "14 weeks"; 三年六个月, 十个月, 15日.
_EN_UNIT = r"(?:years?|months?|weeks?|(?:business\s+|working\s+|clear\s+)?days?)"
_EN_DURATION = re.compile(
    rf"\b({_NUM})[\s-]+({_EN_UNIT})(?:,?\s+and\s+(?:(a\s+half)|({_NUM})[\s-]+({_EN_UNIT})))?", re.I
)
_ZH_DURATION = re.compile(
    rf"({_ZH_NUM})\s*(年(?!\s*\d+\s*月)|个\s*月|日|天|个工作日)(?:\s*零?\s*({_ZH_NUM})\s*(个\s*月|日|天))?"
)
# What one unit is in the unit a length is kept in: months for years, days for weeks (a month is no number
# of days).
_IN = {"year": ("m", 12), "month": ("m", 1), "week": ("d", 7), "day": ("d", 1), "年": ("m", 12), "月": ("m", 1),
       "日": ("d", 1), "天": ("d", 1)}


def _unit(word: str) -> tuple[str, int]:
    word = word.lower().replace(" ", "")
    for key, unit in _IN.items():
        if key in word:
            return unit
    return ("d", 1)


def _length(number: str, unit: str, lang: str) -> tuple[str, float] | None:
    # A Chinese numeral is read with its unit (一 alone is no number to the reader of 一年).
    found = language.numbers(f"{number}{unit}" if lang == "zh" else number, lang)
    if len(found) != 1:
        return None
    scale, per = _unit(unit)
    return scale, float(next(iter(found))) * per


def durations(text: str, lang: str) -> set[str]:
    """The lengths of the text's durations, each in months or days ("m54", "d14")."""
    if lang == "zh":
        text = language.plain_numerals(text)
        text = _ZH["date"].sub(" ", text)
        hits = [(h.group(1), h.group(2), None, h.group(3), h.group(4)) for h in _ZH_DURATION.finditer(text)]
    else:
        text = _EN["date"].sub(" ", text)
        hits = [h.groups() for h in _EN_DURATION.finditer(text)]
    out: set[str] = set()
    for number, unit, half, more, more_unit in hits:
        first = _length(number, unit, lang)
        if first is None:
            continue
        scale, total = first
        if half:
            total += _unit(unit)[1] / 2
        elif more and more_unit:
            second = _length(more, more_unit, lang)
            if second is None or second[0] != scale:
                out.add(f"{scale}{_format(total)}")
                if second is not None:
                    out.add(f"{second[0]}{_format(second[1])}")
                continue
            total += second[1]
        out.add(f"{scale}{_format(total)}")
    return out


def _format(length: float) -> str:
    return f"{length:g}"


def _without_durations(text: str, lang: str) -> str:
    return (_ZH_DURATION if lang == "zh" else _EN_DURATION).sub(" ", language.plain_numerals(text) if lang == "zh" else text)


# The period a rate is stated for: 月利率 and 年利率, "a month" and "per annum" are different values of the
# kind asked (a monthly rate of 1.5% is not an annual one of 6.5%).
_PERIOD = {
    "zh": re.compile(r"([年月日])(?:利率|息|利|化利率)"),
    "en": re.compile(
        r"\b(annual|yearly|monthly|daily)\b|\bper\s+(annum|year|month|day)\b|\ba\s+(year|month|day)\b", re.I
    ),
}
_PERIOD_OF = {"年": "year", "月": "month", "日": "day", "annual": "year", "yearly": "year", "annum": "year",
              "monthly": "month", "daily": "day"}


def rate_periods(text: str, lang: str) -> set[str]:
    """The periods ("year", "month", "day") the text states a rate for; empty when it names none."""
    found = _PERIOD["zh" if lang == "zh" else "en"].findall(text)
    hits = [h for groups in found for h in ((groups,) if isinstance(groups, str) else groups) if h]
    return {_PERIOD_OF.get(h.lower(), h.lower()) for h in hits}


# A percentage that is a change of a rate ("上浮50%", "increased by 50%"), not a rate.
_CHANGE = {
    "zh": re.compile(r"(?:上浮|下浮|上调|下调|提高|降低|增加|减少)\s*" + r"\d+(?:\.\d+)?\s*[%％]"),
    "en": re.compile(r"\b(?:increased?|raised?|reduced?|decreased?)\s+by\s+\d+(?:\.\d+)?\s*(?:per\s*cent|percent|%)", re.I),
}


# An amount stated as the whole of something ("退赔了被害人全部损失", "the whole of the loss"): a value of the
# kind "how much" asks for, without a figure. ("Pays the arrears in full" says how, not how much.)
_WHOLE = {
    "zh": re.compile(r"全部(?:损失|款项|借款|欠款|本金|货款|费用)|全额"),
    "en": re.compile(r"\bthe (?:full|whole|entire) (?:amount|sum|loss|losses|debt)\b|\bthe whole of the\b", re.I),
}


def whole_amount(text: str, lang: str) -> bool:
    return bool(_WHOLE["zh" if lang == "zh" else "en"].search(text))


# An amount stated as nothing paid ("本金至今未还", "分文未付", "has repaid nothing"): to "how much was repaid"
# it says none, to "how much is still owed" all of it. Only of the item asked (position.py checks that the
# clause names it); "借款后未按期还款" (not on time) and "欠款未还清" (not all of it) state no amount.
_NOTHING_PAID = {
    "zh": re.compile(
        r"(?:本金|借款|欠款|货款|款项|工资|租金|费用)(?:至今|仍|均|一直|尚)?(?:分文)?未(?:归还|偿还|还|支付|付|给付)"
        r"(?![清完全])|分文未(?:付|还|赔|退)"
    ),
    "en": re.compile(
        r"\b(?:paid|repaid)\s+nothing\b|\bnothing\s+(?:has\s+been|had\s+been|was)\s+(?:re)?paid\b"
        r"|\bnone\s+of\s+the\s+(?:principal|loan|debt|rent|arrears)\s+(?:has\s+been|had\s+been|was)\s+(?:re)?paid\b",
        re.I,
    ),
}


def nothing_paid(text: str, lang: str) -> bool:
    return bool(_NOTHING_PAID["zh" if lang == "zh" else "en"].search(text))


# An amount stated as nothing awarded ("精神损害抚慰金不属于……赔偿范围，本院不予支持", "The claim for the
# year-end bonus is dismissed"): to how much the court awarded for the item, none. Only of the item asked,
# as for nothing paid.
_NOTHING_AWARDED = {
    "zh": re.compile(r"不予(?:支持|赔偿|计算|认定|保护)|不属于[^，,。；;]{0,16}?范围"),
    "en": re.compile(
        r"\b(?:is|are|was|were)\s+(?:dismissed|refused|rejected|disallowed)\b|\bno\s+award\s+(?:is|was)\s+made\b"
        r"|\bnothing\s+(?:is|was)\s+awarded\b",
        re.I,
    ),
}


def nothing_awarded(text: str, lang: str) -> bool:
    return bool(_NOTHING_AWARDED["zh" if lang == "zh" else "en"].search(text))


def rates(text: str, lang: str) -> list[str]:
    """The percentages of the text that can be a rate: not those stating a change of one."""
    return _spans(_CHANGE["zh" if lang == "zh" else "en"].sub(" ", text), lang).get("share", [])


def situating(fact: str, lang: str) -> bool:
    """A fact that situates the answer rather than gives it: a date, a share count."""
    found = kinds(fact, lang)
    return bool(found) and found <= SITUATING


def duration(fact: str, lang: str) -> bool:
    """A fact that is a duration only ("3 years", "二年"): the length of an order, a qualifier of a Yes."""
    found = kinds(fact, lang)
    return bool(found) and found <= DURATIONS
