"""Canonical forms of exact field values (docs/method.md §11), English and Chinese.

`normalize` maps every way of writing one value to one string with a type prefix:
"15 May 2019", "2019-05-15" and "2019年5月15日" are all "date:2019-05-15"; "HK$1.224 million" is
"money:HKD:1224000"; "百分之二十" is "percent:20". A value that is not one typed value (a name, a
citation, a range) becomes "text:" + its folded text, with every date, amount or number inside it
replaced by its canonical form, so two spellings of the same range compare equal.

How it works: one scanner finds typed values in a string (a small table of patterns per type, each
with a converter); the longest match wins where patterns overlap. A value is typed when one match
covers all of it. `mentions` runs the same scanner over a free text, which makes it consistent
with `exact_match` by construction.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from pipeline.language.numbers import ZH_DIGITS, ZH_SMALL_UNITS

# ---------------------------------------------------------------------------------------------------
# Numbers: Arabic, Chinese and English words.

_ARABIC = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_ZH_CHARS = "".join(ZH_DIGITS) + "十百千万亿"
# One numeral: Arabic runs and Chinese numeral characters in any mix ("3万5千", "12.5万", "二百二十万").
_ZH_NUM = rf"(?:{_ARABIC}|[{_ZH_CHARS}])+"

_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_EN_WORD = "|".join(sorted([*_EN_UNITS, *_EN_SCALES], key=len, reverse=True))
# "and" joins only after a scale word ("one hundred and twenty"), never "two and three".
_EN_JOIN = r"(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))\s+and\s+|\s+|-"
_EN_NUM = rf"\b(?:{_EN_WORD})(?:(?:{_EN_JOIN})(?:{_EN_WORD}))*\b"

# Number boundaries are ASCII-only: \b and \w would treat Chinese characters as word characters,
# and "年5月" must still find the 5.
_LB = r"(?<![0-9a-z_])"
_RB = r"(?![0-9a-z_])"
_SCALE_WORDS = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "k": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "bn": 10**9,
}


def _to_decimal(arabic: str) -> Decimal:
    return Decimal(arabic.replace(",", ""))


def zh_number(text: str) -> Decimal:
    """Value of a Chinese (or mixed Arabic/Chinese) numeral: 一万二千五百 -> 12500, 两千零五 -> 2005,
    3万5千 -> 35000, 十五 -> 15, 12.5万 -> 125000, 二〇一九 -> 2019 (digits without units are read in
    sequence)."""
    tokens = re.findall(rf"{_ARABIC}|[{_ZH_CHARS}]", text)
    if not tokens:
        raise ValueError(f"not a numeral: {text!r}")
    if all(t in ZH_DIGITS for t in tokens) and len(tokens) > 1:
        return Decimal("".join(str(ZH_DIGITS[t]) for t in tokens))
    total = Decimal(0)  # everything above the current 万 group
    section = Decimal(0)  # the current group below 万
    number: Decimal | None = None  # the digit waiting for its unit
    for t in tokens:
        if t in ZH_DIGITS:
            number = Decimal(ZH_DIGITS[t])
        elif t in ZH_SMALL_UNITS:
            # A unit without a digit before it means one of it: 十五 = 15, 千 = 1000.
            section += (Decimal(1) if number is None else number) * ZH_SMALL_UNITS[t]
            number = None
        elif t == "万":
            total += (section + (number or 0) or Decimal(1)) * 10**4
            section, number = Decimal(0), None
        elif t == "亿":
            total = (total + section + (number or 0) or Decimal(1)) * 10**8
            section, number = Decimal(0), None
        else:
            number = _to_decimal(t)
    return total + section + (number or 0)


def en_number(text: str) -> Decimal:
    """Value of English number words: "thirty-five" -> 35, "two hundred and twenty thousand" -> 220000."""
    total, section = 0, 0
    previous = None  # the last unit word, to refuse juxtapositions such as "two three"
    for word in re.findall(r"[a-z]+", text):
        if word == "and":
            continue
        if word in _EN_UNITS:
            value = _EN_UNITS[word]
            if previous is not None and not (previous >= 20 and previous % 10 == 0 and value < 10):
                raise ValueError(f"not one number: {text!r}")
            section += value
            previous = value
            continue
        previous = None
        if word not in _EN_SCALES:
            raise ValueError(f"not a number word: {word!r}")
        if word == "hundred":
            section = (section or 1) * 100
        else:
            total += (section or 1) * _EN_SCALES[word]
            section = 0
    return Decimal(total + section)


def parse_amount(text: str) -> Decimal:
    """Any numeral this module reads: Arabic with thousands commas, Chinese, mixed, or English words."""
    text = text.strip()
    if re.fullmatch(_ARABIC, text):
        return _to_decimal(text)
    if re.fullmatch(_ZH_NUM, text):
        return zh_number(text)
    return en_number(text)


def fmt(value: Decimal | Fraction) -> str:
    """Plain decimal digits, no exponent, no trailing zeros or '.0' (1.2240E+6 -> '1224000')."""
    if isinstance(value, Fraction):
        value = Decimal(value.numerator) / Decimal(value.denominator)
    value = value.normalize()
    if value == value.to_integral_value():
        return str(int(value))
    return format(value, "f")


# An amount in a typed value: a numeral, optionally followed by an English scale word.
# The Chinese form comes first: it extends the Arabic one ("12.5万" must not stop at "12.5").
_AMOUNT = rf"(?P<num>{_ZH_NUM}|{_EN_NUM})"
_SCALE = r"(?:\s*(?P<scale>thousand|million|billion|mn|bn|m|k)\b)?"


def _amount(m: re.Match[str]) -> Decimal:
    value = parse_amount(m.group("num"))
    scale = m.groupdict().get("scale")
    return value * _SCALE_WORDS[scale] if scale else value


# ---------------------------------------------------------------------------------------------------
# One function per type: the match -> its canonical string (None when the match is not a valid value).

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3,
    "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_ZH_SMALL = rf"(?:\d{{1,2}}|[{_ZH_CHARS}]{{1,3}})"
_ZH_YEAR = r"(?:\d{4}|[零〇一二三四五六七八九]{4})"


def _date(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    month = _MONTHS[g["mon"]] if g.get("mon") else int(zh_number(g["m"]))
    try:
        day = datetime.date(int(zh_number(g["y"])), month, int(zh_number(g["d"])))
    except ValueError:
        return None
    return f"date:{day.isoformat()}"


_CURRENCIES = {
    "hk$": "HKD", "hkd": "HKD", "港元": "HKD", "港币": "HKD", "港幣": "HKD", "hong kong dollars": "HKD",
    "rmb": "CNY", "cny": "CNY", "¥": "CNY", "人民币": "CNY", "人民幣": "CNY", "yuan": "CNY", "元": "CNY",
    "us$": "USD", "usd": "USD", "美元": "USD", "us dollars": "USD",
    "£": "GBP", "gbp": "GBP", "€": "EUR", "eur": "EUR",
    # A bare dollar sign names no currency; guessing HKD or USD would invent a match.
    "$": "$", "dollars": "$", "dollar": "$",
}  # fmt: skip
_PREFIX = r"hk\$|us\$|hkd|usd|rmb|cny|gbp|eur|人民币|人民幣|港币|港幣|港元|¥|£|€|\$"
_SUFFIX = r"hong kong dollars|us dollars|dollars|dollar|hkd|usd|rmb|cny|yuan|港元|港币|港幣|美元|元"


def _money(m: re.Match[str]) -> str | None:
    if re.fullmatch(r"[百千万亿]+", m.group("num")):
        return None  # "二百余万元" leaves "万元": a unit with no numeral before it is no amount
    # "人民币12.5万元": the prefix names the currency, the trailing 元 only repeats it.
    code = _CURRENCIES[m.group("pre")] if m.groupdict().get("pre") else _CURRENCIES[m.group("suf")]
    return f"money:{code}:{fmt(_amount(m))}"


def _percent(m: re.Match[str]) -> str:
    return f"percent:{fmt(_amount(m))}"


_FRACTION_WORDS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "tenth": 10,
    "tenths": 10,
}
_FRACTION_WORD = "|".join(sorted(_FRACTION_WORDS, key=len, reverse=True))


def _fraction(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g.get("den_word"):
        num = 1 if g["num"] in (None, "a", "an") else int(parse_amount(g["num"]))
        den = _FRACTION_WORDS[g["den_word"]]
    else:
        num, den = int(parse_amount(g["num"])), int(parse_amount(g["den"]))
    if den == 0 or not 0 < num < den:  # "15/05" is not a fraction anyone writes
        return None
    f = Fraction(num, den)
    return f"fraction:{f.numerator}/{f.denominator}"


_MULTIPLES = {"twice": 2, "thrice": 3, "double": 2, "triple": 3, "treble": 3}


def _times(m: re.Match[str]) -> str:
    word = m.groupdict().get("word")
    return f"times:{_MULTIPLES[word]}" if word else f"times:{fmt(_amount(m))}"


# Units are kept as written: "2 years" and "24 months" are different values because the decision
# chose one of them, and converting years to months would let a system's rewording pass as exact.
_UNITS = {
    "year": "year", "years": "year", "yr": "year", "yrs": "year", "年": "year",
    "month": "month", "months": "month", "个月": "month", "個月": "month",
    "week": "week", "weeks": "week", "周": "week", "星期": "week", "个星期": "week",
    "day": "day", "days": "day", "天": "day", "日": "day",
    "hour": "hour", "hours": "hour", "小时": "hour", "小時": "hour",
}  # fmt: skip


def _duration(m: re.Match[str]) -> str | None:
    num, unit = m.group("num"), m.group("unit")
    if unit == "年" and re.fullmatch(r"\d{4}|[零〇一二三四五六七八九]{4}", num):
        return None  # "2019年" is a calendar year, not 2019 years
    return f"duration:{fmt(_amount(m))}:{_UNITS[unit]}"


def _number(m: re.Match[str]) -> str | None:
    num = m.group("num")
    if not re.search(r"\d|[零〇一二两三四五六七八九十]", num):
        return None  # 千万 ("must") and 万 alone are words, not numbers
    return f"number:{fmt(_amount(m))}"


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    convert: Callable[[re.Match[str]], str | None]


def _p(kind: str, pattern: str, convert: Callable[[re.Match[str]], str | None]) -> _Pattern:
    return _Pattern(kind, re.compile(pattern), convert)


# Patterns run on NFKC-normalised, casefolded text. Listed in priority order: among matches of the
# same length the earlier type wins.
_PATTERNS: tuple[_Pattern, ...] = (
    _p("date", rf"{_LB}(?P<y>\d{{4}})[-/.](?P<m>\d{{1,2}})[-/.](?P<d>\d{{1,2}}){_RB}", _date),
    # Slashed and dotted numeric dates are read day first (Hong Kong and UK usage).
    _p("date", rf"{_LB}(?P<d>\d{{1,2}})[/.-](?P<m>\d{{1,2}})[/.-](?P<y>\d{{4}}){_RB}", _date),
    _p(
        "date",
        rf"{_LB}(?P<d>\d{{1,2}}){_ORD}(?:\s+of)?\s+(?P<mon>{_MONTH})\.?,?\s+(?P<y>\d{{4}}){_RB}",
        _date,
    ),
    _p("date", rf"{_LB}(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}}){_ORD},?\s+(?P<y>\d{{4}}){_RB}", _date),
    _p("date", rf"(?P<y>{_ZH_YEAR})\s*年\s*(?P<m>{_ZH_SMALL})\s*月\s*(?P<d>{_ZH_SMALL})\s*[日号號]", _date),
    _p("money", rf"(?<![a-z])(?P<pre>{_PREFIX})\s*{_AMOUNT}{_SCALE}(?:\s*(?:{_SUFFIX}))?", _money),
    _p("money", rf"{_LB}{_AMOUNT}{_SCALE}\s*(?P<suf>{_SUFFIX})(?![a-z])", _money),
    _p("percent", rf"{_LB}{_AMOUNT}\s*(?:%|per\s*cent\b|percent\b|pct\b)", _percent),
    _p("percent", rf"百分之\s*(?P<num>{_ZH_NUM})", _percent),
    _p("fraction", rf"\b(?P<num>{_EN_NUM}|a|an)[\s-]+(?P<den_word>{_FRACTION_WORD})\b(?!\s+part)", _fraction),
    _p("fraction", rf"(?<![0-9/]){_LB}(?P<num>\d{{1,2}})/(?P<den>\d{{1,2}})(?![0-9/])", _fraction),
    _p("fraction", rf"(?P<den>{_ZH_NUM})分之(?P<num>{_ZH_NUM})", _fraction),
    _p("times", r"\b(?P<word>twice|thrice|double|triple|treble)\b", _times),
    _p("times", rf"{_LB}{_AMOUNT}\s*(?:-?\s*(?:times|fold)\b|x{_RB}|×|倍)", _times),
    _p("duration", rf"{_LB}{_AMOUNT}\s*-?\s*(?P<unit>years?|yrs?|months?|weeks?|days?|hours?)\b", _duration),
    _p(
        "duration",
        rf"(?P<num>{_ZH_NUM})\s*(?P<unit>个月|個月|个星期|星期|周|年|天|小时|小時|日(?=内|之内|內))",
        _duration,
    ),
    _p("number", rf"{_LB}(?P<num>{_ARABIC}){_RB}(?:\s*(?P<scale>thousand|million|billion)\b)?", _number),
    _p("number", rf"{_LB}(?P<num>{_ZH_NUM}){_RB}", _number),
    _p("number", rf"(?P<num>{_EN_NUM})\s+(?P<scale>thousand|million|billion)\b", _number),
)
_PRIORITY = {kind: i for i, kind in enumerate(dict.fromkeys(p.kind for p in _PATTERNS))}


@dataclass(frozen=True)
class Found:
    start: int
    end: int
    value: str


def _fold(text: str) -> str:
    """NFKC (full-width digits and signs to ASCII), casefold, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


# The folding `scan` expects, for callers that locate values in a text (the rule system).
fold = _fold


def scan(folded: str) -> list[Found]:
    """Typed values in an already folded text, left to right, never overlapping.

    Longest match first: "HK$1,224,000" is money, not the number inside it. A lone Chinese digit is
    not reported as a number (一 in 一般 is part of a word); in a typed pattern it is ("三年").
    """
    candidates = []
    for pattern in _PATTERNS:
        for m in pattern.regex.finditer(folded):
            if m.end() == m.start():
                continue
            try:
                value = pattern.convert(m)
            except (ValueError, InvalidOperation):
                value = None  # e.g. "two three years": words that are not one number
            if value is None:
                continue
            if pattern.kind == "number" and len(m.group(0)) == 1 and m.group(0) in ZH_DIGITS:
                continue
            candidates.append((-(m.end() - m.start()), _PRIORITY[pattern.kind], m.start(), m.end(), value))
    taken: list[Found] = []
    for _, _, start, end, value in sorted(candidates):
        if all(end <= f.start or start >= f.end for f in taken):
            taken.append(Found(start, end, value))
    return sorted(taken, key=lambda f: f.start)


def _replace(folded: str, found: list[Found]) -> str:
    out, pos = [], 0
    for f in found:
        out.append(folded[pos : f.start])
        out.append(f.value)
        pos = f.end
    out.append(folded[pos:])
    return "".join(out)


# Punctuation that wraps a value without being part of it. Brackets are left alone: the ")" of
# "section 270(1)(b)" belongs to the citation.
_OUTER = " .,;:!?\"'`“”‘’「」『』。，、；：！？"
_YESNO = {"yes": "yes", "no": "no", "是": "yes", "否": "no"}
# A count noun after a number names what the field already names ("2,200,000 shares" is the number
# of shares), so it is dropped to let "2,200,000" match.
_COUNT_NOUN = re.compile(r"\s*(?:shares?|units?|persons?|people|股|人|名|件)$")
_CANONICAL = re.compile(
    r"(?:date:\d{4}-\d\d-\d\d|money:[A-Z$]+:-?[\d.]+|percent:[\d.]+|fraction:\d+/\d+|times:[\d.]+"
    r"|duration:[\d.]+:(?:year|month|week|day|hour)|number:[\d.]+|yesno:(?:yes|no)|text:.*)",
    re.DOTALL,
)


@lru_cache(maxsize=1024)
def _analyse(text: str) -> tuple[str, frozenset[str]]:
    # Cached: scoring asks about every reference field of one analysis in turn.
    folded = _fold(text)
    found = scan(folded)
    return _replace(folded, found), frozenset(f.value for f in found)


def canonical_text(text: str) -> str:
    """The folded text with every typed value in it replaced by its canonical form."""
    return _analyse(text)[0]


def _whole(folded: str) -> str | None:
    """The canonical value when one typed value makes up the whole string."""
    if folded in _YESNO:
        return f"yesno:{_YESNO[folded]}"
    found = scan(folded)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(folded):
        return found[0].value
    # Forms read only as a whole value: a lone Chinese digit or bare English number words.
    if re.fullmatch(_ZH_NUM, folded) or re.fullmatch(_EN_NUM, folded):
        try:
            return f"number:{fmt(parse_amount(folded))}"
        except (ValueError, InvalidOperation):
            return None
    return None


@lru_cache(maxsize=65536)
def normalize(value: str) -> str:
    """One canonical string per meaning, with a type prefix (see the module docstring)."""
    if _CANONICAL.fullmatch(value):
        return value  # already canonical: normalize is idempotent
    folded = _fold(value).strip(_OUTER)
    typed = _whole(folded)
    if typed is None:
        stripped = _COUNT_NOUN.sub("", folded)
        if stripped != folded and stripped:
            typed = _whole(stripped)
            typed = typed if typed and typed.startswith("number:") else None
    if typed is not None:
        return typed
    return "text:" + _replace(folded, scan(folded))


def exact_match(predicted: str, reference: str, value_type: str | None = None) -> bool:
    """Equal after normalisation, or equal as the declared `value_type` (see `typed_equal`); an empty
    prediction never matches. Without a type this is the untyped comparison of old data."""
    if not predicted or not predicted.strip():
        return False
    if normalize(predicted) == normalize(reference):
        return True
    return value_type is not None and typed_equal(predicted, reference, value_type)


# ---------------------------------------------------------------------------------------------------
# Declared types (docs/method.md §1 field_types). The untyped reading above must stay strict ("$3,000" is not
# "US$3,000", "20" is not "20%") because it cannot know what a value is; a declared type can relax
# exactly where the type makes the meaning plain: a money field's "4,665,091.79" is an amount of money.

_YES_NO_WORDS = {
    "yes": "yes", "y": "yes", "true": "yes", "是": "yes", "有": "yes", "存在": "yes", "成立": "yes",
    "构成": "yes", "已": "yes", "是的": "yes",
    "no": "no", "n": "no", "false": "no", "否": "no", "无": "no", "没有": "no", "不存在": "no",
    "不成立": "no", "不构成": "no", "未": "no", "無": "no",
}  # fmt: skip


def _amount_of(canonical: str) -> tuple[str, str] | None:
    """(currency code or "", amount) of a canonical money or number value."""
    if canonical.startswith("money:"):
        _, code, amount = canonical.split(":", 2)
        return code, amount
    if canonical.startswith("number:"):
        return "", canonical[len("number:") :]
    return None


def _single(folded: str, prefixes: tuple[str, ...]) -> str | None:
    """The one distinct typed value with one of `prefixes` in a folded text (None: none or several)."""
    found = {f.value for f in scan(folded) if f.value.startswith(prefixes)}
    return found.pop() if len(found) == 1 else None


def _squash(text: str) -> str:
    """A name folded without spaces, punctuation or symbols: "Chan Tai-man" == "chan taiman"."""
    return "".join(ch for ch in _fold(text) if unicodedata.category(ch)[0] not in "PZSC")


def typed_key(value: str, value_type: str) -> str | None:
    """The form two values of `value_type` are compared in; None when `value` is not of that type.

    money / number: the amount (money keeps its currency code, "" when none is written); date: the
    ISO date; yesno: yes or no (English and Chinese words); name: the squashed name; text: the
    untyped canonical form.
    """
    folded = _fold(value).strip(_OUTER)
    if not folded:
        return None
    if value_type in ("money", "number"):
        canonical = _whole(folded) or _single(folded, ("money:", "number:"))
        amount = _amount_of(canonical) if canonical else None
        if amount is None:
            return None
        return f"{amount[0]}:{amount[1]}" if value_type == "money" else amount[1]
    if value_type == "date":
        canonical = _whole(folded) or _single(folded, ("date:",))
        return canonical if canonical and canonical.startswith("date:") else None
    if value_type == "yesno":
        word = _YES_NO_WORDS.get(folded)
        return f"yesno:{word}" if word else None
    if value_type == "name":
        return _squash(value) or None
    return normalize(value)


def _same_money(a: str, b: str) -> bool:
    code_a, amount_a = a.split(":", 1)
    code_b, amount_b = b.split(":", 1)
    return amount_a == amount_b and (code_a == code_b or not code_a or not code_b)


def typed_equal(predicted: str, reference: str, value_type: str) -> bool:
    """Equal as values of the declared type: "4,665,091.79元" == "4,665,091.79" == "人民币4665091.79元"
    for money (a currency written on one side only is no mismatch; two different ones are), "2011年5月3日"
    == "3 May 2011" for dates, 是 == yes, names without spacing and punctuation."""
    a, b = typed_key(predicted, value_type), typed_key(reference, value_type)
    if a is None or b is None:
        return False
    return _same_money(a, b) if value_type == "money" else a == b


def mentions(text: str, reference: str, value_type: str | None = None) -> bool:
    """Whether a free text (an analysis) states the reference value.

    A typed reference must be among the values found in the text; a "text:" reference must appear in
    the text's canonical form, not inside a longer word or number ("section 27" is not in "section
    270"). A yes/no reference is never found: "Yes" cannot be stated without the question. With a
    declared `value_type`, a value of that type in the text also counts (see `typed_equal`).
    """
    if not text or not reference or not reference.strip():
        return False
    if value_type is not None and value_type != "text" and _mentions_typed(text, reference, value_type):
        return True
    ref = normalize(reference)
    if not ref.startswith("text:"):
        return ref in _analyse(text)[1]
    needle = ref[len("text:") :]
    if not needle:
        return False
    # Word edges only for ASCII letters and digits: Chinese has no spaces between words.
    left = r"(?<![0-9a-z_])" if re.match(r"[0-9a-z_]", needle) else ""
    right = r"(?![0-9a-z_]|\.\d)" if re.search(r"[0-9a-z_]$", needle) else ""
    return re.search(left + re.escape(needle) + right, canonical_text(text)) is not None


def _mentions_typed(text: str, reference: str, value_type: str) -> bool:
    """Whether the text states the reference as a value of its declared type."""
    key = typed_key(reference, value_type)
    if key is None:
        return False
    if value_type == "name":
        return len(key) >= 2 and key in _squash(text)
    if value_type == "date":
        return key in _analyse(text)[1]
    if value_type in ("money", "number"):
        for found in _analyse(text)[1]:
            amount = _amount_of(found)
            if amount is None:
                continue
            other = f"{amount[0]}:{amount[1]}" if value_type == "money" else amount[1]
            if (_same_money(other, key) if value_type == "money" else other == key):
                return True
    return False
