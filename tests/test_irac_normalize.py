"""Normalisation of exact field values (docs/method.md §11): each family in English and Chinese, Chinese numerals,
values inside texts, and false friends that must stay apart."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.irac.normalize import _analyse as analyse
from pipeline.irac.normalize import (
    en_number,
    exact_match,
    fmt,
    mentions,
    normalize,
    typed_key,
    zh_number,
)


def values_in(text: str) -> set[str]:
    """The canonical typed values the scanner finds in a free text (what `mentions` looks in)."""
    return set(analyse(text)[1])


SAME = {
    "date:2019-05-15": ["15 May 2019", "May 15, 2019", "2019-05-15", "15/05/2019", "2019年5月15日",
                        "二〇一九年五月十五日", "15th May 2019", "15 May 2019."],
    "money:HKD:1224000": ["HK$1,224,000", "HKD 1.224 million", "HK$ 1224000", "ＨＫ＄１，２２４，０００"],
    "money:CNY:125000": ["人民币12.5万元", "RMB125,000", "¥125000", "125000元", "人民币十二万五千元"],
    "money:USD:3000": ["US$3,000", "USD 3,000", "3,000 US dollars"],
    "money:$:3000": ["$3,000"],
    "percent:20": ["20 per cent", "20%", "twenty per cent", "百分之二十", "20 percent", "２０％"],
    "times:2": ["two times", "2 times", "twice", "2x", "两倍", "二倍", "2倍"],
    "duration:35:month": ["35 months", "三十五个月", "thirty-five months"],
    "duration:2:year": ["2 years", "two years", "二年", "两年"],
    "duration:15:day": ["15 days", "十五天"],
    "duration:6:week": ["6 weeks"],
    "number:2200000": ["2,200,000", "2.2 million", "二百二十万", "2200000", "220万", "2,200,000 shares"],
    "yesno:yes": ["Yes", "yes", "是", "YES."],
    "yesno:no": ["No", "否"],
    "fraction:1/3": ["one-third", "one third", "a third", "三分之一"],
}  # fmt: skip


@pytest.mark.parametrize(("canonical", "forms"), SAME.items())
def test_every_spelling_of_a_value_has_one_canonical_form(canonical, forms):
    assert {form: normalize(form) for form in forms} == {form: canonical for form in forms}


@pytest.mark.parametrize(
    ("numeral", "value"),
    [("一万二千五百", 12500), ("两千零五", 2005), ("3万5千", 35000), ("十五", 15), ("三十五", 35),
     ("二百二十万", 2_200_000), ("12.5万", 125_000), ("一亿二千万", 120_000_000), ("二〇一九", 2019),
     ("一百零八", 108), ("十", 10), ("两", 2)],
)  # fmt: skip
def test_chinese_numerals(numeral, value):
    assert zh_number(numeral) == value
    assert normalize(numeral) == f"number:{value}"


@pytest.mark.parametrize(
    ("words", "value"),
    [("thirty-five", 35), ("one hundred and twenty", 120), ("two million", 2_000_000), ("twenty one", 21)],
)
def test_english_number_words(words, value):
    assert en_number(words) == value


def test_english_words_that_are_not_one_number_are_refused():
    with pytest.raises(ValueError):
        en_number("two three")
    # "two and three" is two numbers, not five.
    assert "duration:5:year" not in values_in("between two and three years")


def test_decimal_output_has_no_float_noise_or_trailing_zero():
    assert fmt(Decimal("1.2240E+6")) == "1224000"
    assert fmt(Decimal("12.50")) == "12.5"
    assert normalize("1.1 million") == "number:1100000"  # float would give 1100000.0000000002
    assert normalize("3.0%") == "percent:3"
    assert normalize("HK$0.35 million") == "money:HKD:350000"


@pytest.mark.parametrize(
    ("a", "b"),
    [("HK$1,224,000", "HK$1,224"), ("15 May 2019", "15 May 2018"), ("two times", "three times"),
     ("Yes", "No"), ("$3,000", "US$3,000"), ("HK$3,000", "RMB3,000"), ("2 years", "24 months"),
     ("20 per cent", "20"), ("35 months", "35 days"), ("section 270(1)(b)", "section 270(1)(a)"),
     ("2 years to 5 years", "2 years to 6 years"), ("05/06/2019", "2019-05-06")],
)  # fmt: skip
def test_false_friends_do_not_match(a, b):
    assert not exact_match(a, b)
    assert not exact_match(b, a)


def test_day_first_numeric_dates():
    assert normalize("05/06/2019") == "date:2019-06-05"
    assert normalize("31/02/2019").startswith("text:")  # no such day: not a date


def test_texts_are_folded_with_their_values_canonical():
    assert normalize("between 20 Nov 2017 and 28 November 2017") == normalize(
        "Between 20 November 2017 and 28 November 2017"
    )
    assert normalize("between 20 November 2017 and 28 November 2017") == (
        "text:between date:2017-11-20 and date:2017-11-28"
    )
    assert normalize("2 years to 5 years") == "text:duration:2:year to duration:5:year"
    assert normalize("  Leung   Sze-wing ") == "text:leung sze-wing"
    assert normalize("“Leung Sze-wing”.") == "text:leung sze-wing"
    assert normalize("section 270(1)(b)") == "text:section number:270(number:1)(b)"  # the bracket stays
    assert normalize("有期徒刑三年") == "text:有期徒刑duration:3:year"
    assert exact_match("Section 270(1)(b)", "section 270(1)(b)")
    assert exact_match("２年至５年", "二年至五年")


def test_calendar_year_in_chinese_is_not_a_duration():
    assert "duration:2019:year" not in values_in("2019年的交易")


def test_empty_prediction_never_matches():
    assert not exact_match("", "")
    assert not exact_match("   ", "Yes")
    assert exact_match("yes", "Yes")


def test_values_in_a_text():
    text = (
        "On 15 May 2019 the Tribunal ordered a penalty of HK$2,448,000, two times the profit; "
        "a cold shoulder order of 3 years. 被告人被判处有期徒刑三十五个月。"
    )
    assert values_in(text) == {
        "date:2019-05-15",
        "money:HKD:2448000",
        "times:2",
        "duration:3:year",
        "duration:35:month",
    }
    # A lone Chinese digit inside a word is not a number; 千万 ("must") is not one either.
    assert values_in("一般而言，千万不要") == set()


def test_mentions():
    analysis = (
        "The respondent dealt between 20 Nov 2017 and 28 Nov 2017 contrary to section 270(1)(b). "
        "The penalty is HK$1.224 million, twice the profit."
    )
    assert mentions(analysis, "between 20 November 2017 and 28 November 2017")
    assert mentions(analysis, "HK$1,224,000")
    assert mentions(analysis, "two times")
    assert mentions(analysis, "section 270(1)(b)")
    assert not mentions(analysis, "section 270(1)(a)")
    assert not mentions(analysis, "section 27")  # not inside "section 270"
    assert not mentions(analysis, "HK$1,224")
    assert not mentions(analysis, "three times")
    assert not mentions(analysis, "Yes")  # a bare yes cannot be stated without the question
    assert not mentions("", "HK$1,224,000")
    assert mentions("The tenant is Leung Sze-wing.", "Leung Sze-wing")  # sentence full stop
    assert mentions("判处罚款人民币十二万五千元。", "¥125,000")


@given(st.integers(min_value=0, max_value=10**15))
def test_formatted_integers_are_numbers(n):
    assert normalize(f"{n:,}") == f"number:{n}"
    assert normalize(str(n)) == f"number:{n}"


@given(st.integers(min_value=1, max_value=99_999_999))
def test_chinese_numerals_agree_with_a_reference_writer(n):
    assert zh_number(_to_chinese(n)) == n


@given(st.sampled_from([v for forms in SAME.values() for v in forms] + ["Leung Sze-wing", "clause 11(c)"]))
def test_normalize_is_idempotent(value):
    once = normalize(value)
    assert normalize(once) == once


@given(st.integers(min_value=1, max_value=10**9), st.sampled_from(["HK$", "US$", "RMB"]))
def test_money_matches_itself_in_other_formats(n, currency):
    assert exact_match(f"{currency}{n:,}", f"{currency} {n}")
    assert not exact_match(f"{currency}{n:,}", f"{currency}{n + 1:,}")


def _to_chinese(n: int) -> str:
    """An independent writer of standard Chinese numerals below 10^8 (零 for gaps, 十五 not 一十五)."""
    digits = "零一二三四五六七八九"

    def below_10000(k: int, leading: bool) -> str:
        parts: list[str] = []
        gap = False
        for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
            d = k // value % 10
            if d == 0:
                gap = gap or bool(parts)
                continue
            if gap:
                parts.append("零")
                gap = False
            parts.append("十" if (d == 1 and unit == "十" and not parts and leading) else digits[d] + unit)
        return "".join(parts)

    high, low = divmod(n, 10_000)
    if not high:
        return below_10000(low, True)
    text = below_10000(high, True) + "万"
    if low:
        text += ("零" if low < 1000 else "") + below_10000(low, False)
    return text


# ---------------------------------------------------------------------------------------------------
# Declared types (Decision.field_types): the comparison a typed field gets.

TYPED_SAME = [
    ("money", "4,665,091.79元", "4,665,091.79"),
    ("money", "人民币4665091.79元", "4,665,091.79元"),
    ("money", "4665091.79", "4,665,091.79元"),
    ("money", "466.5万元", "4,665,000元"),
    ("money", "人民币四百六十六万五千元", "4,665,000"),
    ("money", "1.2亿元", "120,000,000"),
    ("money", "3千元", "3000"),
    ("money", "HK$960,000", "960000"),
    ("number", "120万股", "1,200,000"),
    ("number", "12.6万", "126,000股"),
    ("date", "2011年5月3日", "2011-05-03"),
    ("date", "3 May 2011", "2011年5月3日"),
    ("date", "二〇一一年五月三日", "May 3, 2011"),
    ("yesno", "是", "Yes"),
    ("yesno", "有", "yes"),
    ("yesno", "否", "No"),
    ("yesno", "无", "no"),
    ("name", "张 三", "张三"),
    ("name", "Chan Tai-man", "chan taiman"),
    ("name", "“李某”", "李某"),
]  # fmt: skip


@pytest.mark.parametrize(("value_type", "a", "b"), TYPED_SAME)
def test_typed_values_match_across_formats(value_type, a, b):
    assert exact_match(a, b, value_type)
    assert exact_match(b, a, value_type)


TYPED_DIFFERENT = [
    ("money", "4,665,091.79元", "4,665,091.78"),
    ("money", "HK$3,000", "RMB3,000"),  # two different currencies are a mismatch, one missing is not
    ("money", "466.5万元", "466.5元"),
    ("number", "120万股", "120"),
    ("date", "2011年5月3日", "2011-05-04"),
    ("date", "2011年5月", "2011-05-01"),  # a month is not a day
    ("yesno", "是", "No"),
    ("yesno", "有", "无"),
    ("name", "张三", "张四"),
    ("money", "违法所得100元，罚款300元", "100"),  # two amounts: not one value of the type
]  # fmt: skip


@pytest.mark.parametrize(("value_type", "a", "b"), TYPED_DIFFERENT)
def test_typed_values_that_differ_do_not_match(value_type, a, b):
    assert not exact_match(a, b, value_type)
    assert not exact_match(b, a, value_type)


def test_without_a_declared_type_the_old_strict_comparison_stays():
    # Old data without field_types: money and a bare number differ (the reading cannot know the type).
    assert not exact_match("4,665,091.79元", "4,665,091.79")
    assert not exact_match("是", "有")
    assert exact_match("4,665,091.79元", "人民币4665091.79元")


def test_typed_keys():
    assert typed_key("人民币4,665,091.79元", "money") == "CNY:4665091.79"
    assert typed_key("4,665,091.79", "money") == ":4665091.79"
    assert typed_key("120万股", "number") == "1200000"
    assert typed_key("三年", "number") is None  # a duration is not a number
    assert typed_key("2011年5月3日", "date") == "date:2011-05-03"
    assert typed_key("maybe", "yesno") is None


def test_typed_mentions_in_a_chinese_analysis():
    analysis = "经查，张某于2011年4月8日买入120万股，违法所得4,665,091.79元。我会决定：并处以466.5万元罚款。"
    assert mentions(analysis, "4665091.79", "money")
    assert mentions(analysis, "4,665,000", "money")
    assert mentions(analysis, "2011-04-08", "date")
    assert mentions(analysis, "1,200,000", "number")
    assert mentions(analysis, "张 某", "name")
    assert not mentions(analysis, "4,665,091.78", "money")
    assert not mentions(analysis, "2011-04-09", "date")
    assert not mentions(analysis, "4665091.79")  # untyped: a bare number is not the money in the text
