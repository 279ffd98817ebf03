"""Canonical numbers of a text, so that a figure matches however it is written.

en: "HK$2,400,000", "2.4 million" and "2400000" all give "2400000"; number words up to sixty count.
zh: "4,665,091.79元" and "4665091.79" give "4665091.79"; "100万元" and "一百万元" give "1000000";
"1.2亿" gives "120000000"; dates "2011年5月3日", "二〇一一年五月三日" and "2011-05-03" give
"2011-05-03" (a date is one value, not three numbers). Chinese numerals count only before a unit
(年, 元, 倍, 条 ...), so words like 一般 or 统一 give no number.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_EN_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*(million|billion|thousand|bn|m|k)\b)?", re.I)
_EN_SCALE = {"million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "thousand": 1e3, "k": 1e3}
_EN_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_EN_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_EN_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60})

ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "○": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
ZH_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_LARGE = {"万": 10**4, "亿": 10**8}
_ZH_NUMERAL = "零〇○一二两三四五六七八九十百千万亿"
_ZH_UNITS = "年月日天个名人次倍元股项周岁份户家件宗起条款章节号期届万亿"
_Y = rf"(?:\d{{4}}|[{_ZH_NUMERAL}]{{4}})"
_MD = rf"(?:\d{{1,2}}|[{_ZH_NUMERAL}]{{1,3}})"
_ZH_DATE = re.compile(rf"({_Y})\s*年\s*({_MD})\s*月(?:\s*({_MD})\s*[日号])?")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_ZH_ARABIC = re.compile(r"(?<![0-9A-Za-z.])(\d[\d,]*(?:\.\d+)?)\s*(万亿|亿|万|千)?")
# A numeral word starts with a digit character or 十 and is not the scale of an Arabic number (100万).
_ZH_WORDS = re.compile(
    rf"(?<![\d.,])([零〇○一二两三四五六七八九十][{_ZH_NUMERAL}]*(?:点[{_ZH_NUMERAL}]+)?)(?=[{_ZH_UNITS}%％])"
)


# Amounts written in financial numerals, as judgments and loan notes write sums in words (人民币叁拾万元整):
# read as the plain numerals they stand for, only in a run that ends in a unit, so that a surname (陆x8,
# 伍某) stays a name.
_FINANCIAL = str.maketrans("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟萬圆", "一二二三三四五六六七八九十百千万元")
_FINANCIAL_RUN = re.compile(r"[零〇壹贰貳叁參肆伍陆陸柒捌玖拾佰仟萬亿一二两三四五六七八九十百千万]+(?:元|圆)整?")


def plain_numerals(text: str) -> str:
    """The text with amounts in financial numerals written in plain ones ("叁拾万元整" -> "三十万元")."""
    if not any(ch in "壹贰貳叁參肆伍陆陸柒捌玖拾佰仟萬圆" for ch in text):
        return text
    return _FINANCIAL_RUN.sub(lambda run: run.group(0).translate(_FINANCIAL).removesuffix("整"), text)


def numbers(text: str, lang: str = "en") -> set[str]:
    """The canonical numbers (and zh dates) of a text, as strings."""
    return _zh_numbers(text) if lang == "zh" else _en_numbers(text)


def _en_numbers(text: str) -> set[str]:
    found: set[str] = set()
    for match in _EN_NUMBER.finditer(text):
        digits, scale = match.group(1).replace(",", ""), match.group(2)
        if not digits or digits.count(".") > 1:
            continue
        try:
            value = float(digits.rstrip("."))
        except ValueError:
            continue
        if scale:
            value *= _EN_SCALE[scale.lower()]
        found.add(_en_canonical(value))
    for word in _EN_WORD.findall(text.lower()):
        if word in _EN_NUMBER_WORDS:
            found.add(str(_EN_NUMBER_WORDS[word]))
    return found


def _en_canonical(value: float) -> str:
    return str(int(round(value))) if abs(value - round(value)) < 1e-9 else f"{value:.6g}"


def _zh_numbers(text: str) -> set[str]:
    found: set[str] = set()
    text = plain_numerals(text)

    def date(match: re.Match) -> str:
        parts = [zh_numeral(p, digitwise=i == 0) for i, p in enumerate(match.groups()) if p]
        if None not in parts:
            found.add("-".join(f"{int(p):02d}" if i else str(int(p)) for i, p in enumerate(parts)))
        return " "

    text = _ISO_DATE.sub(date, _ZH_DATE.sub(date, text))
    for match in _ZH_ARABIC.finditer(text):
        digits = match.group(1).rstrip(",").replace(",", "")
        try:
            value = Decimal(digits)
        except InvalidOperation:
            continue
        if match.group(2):
            value *= _scale(match.group(2))
        found.add(canonical(value))
    for match in _ZH_WORDS.finditer(text):
        value = zh_numeral(match.group(1))
        if value is not None:
            found.add(canonical(value))
    return found


def _scale(unit: str) -> int:
    value = 1
    for ch in unit:
        value *= _ZH_LARGE.get(ch, ZH_SMALL_UNITS.get(ch, 1))
    return value


def canonical(value: Decimal | int) -> str:
    """Plain decimal text without exponent or trailing zeros: 4665091.790 -> "4665091.79"."""
    text = format(Decimal(value), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def zh_numeral(text: str, digitwise: bool = False) -> Decimal | None:
    """Value of Arabic digits or a Chinese numeral ("一百二十万" -> 1200000, "三点五" -> 3.5,
    "二〇一一" -> 2011 read digit by digit); None when it is not a well-formed number."""
    text = text.strip()
    if not text:
        return None
    if text.isdigit():
        return Decimal(int(text))
    if "点" in text:
        whole, _, frac = text.partition("点")
        head = zh_numeral(whole) if whole else Decimal(0)
        if head is None or not frac or any(ch not in ZH_DIGITS for ch in frac):
            return None
        return head + Decimal("0." + "".join(str(ZH_DIGITS[ch]) for ch in frac))
    if digitwise or all(ch in ZH_DIGITS for ch in text):
        if any(ch not in ZH_DIGITS for ch in text):
            return None
        return Decimal(int("".join(str(ZH_DIGITS[ch]) for ch in text)))
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in ZH_DIGITS:
            digit = ZH_DIGITS[ch]
        elif ch in ZH_SMALL_UNITS:
            section += (1 if digit is None else digit) * ZH_SMALL_UNITS[ch]
            digit = None
        elif ch in _ZH_LARGE:
            section += digit or 0
            total = (
                (total + section) * _ZH_LARGE[ch]
                if _ZH_LARGE[ch] > 10**4
                else total + section * _ZH_LARGE[ch]
            )
            section, digit = 0, None
        else:
            return None
    return Decimal(total + section + (digit or 0))
