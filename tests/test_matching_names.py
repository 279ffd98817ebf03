"""Party names as pipeline.matching.names reads them, Chinese names as judgments publish them included."""

from __future__ import annotations

import pytest

from pipeline import matching as m


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("曹x0", [{"曹", "x0"}]),
        ("曹X12", [{"曹", "x12"}]),
        ("朱0", [{"朱", "0"}]),
        ("黄1", [{"黄", "1"}]),
        ("李某", [{"李", "某"}]),
        ("王某某", [{"王", "某某"}]),
        ("张某甲", [{"张", "某", "甲"}]),
        ("欧阳某", [{"欧阳", "某"}]),
    ],
)
def test_a_published_chinese_name_alone_is_a_name(text, expected):
    assert m.names(text, "zh") == [frozenset(e) for e in expected]


def test_anonymised_names_in_a_sentence_in_text_order():
    text = "经审理查明:2014年11月17日,被告曹x0向原告朱0借款,黄1与李某作证。"
    assert m.names(text, "zh") == [
        frozenset({"曹", "x0"}), frozenset({"朱", "0"}), frozenset({"黄", "1"}), frozenset({"李", "某"})]


def test_anonymised_names_keep_their_index_apart():
    # 曹x0 and 曹x1 are two parties sharing a surname, as 李某 and 张某 share 某.
    first, second = m.names("曹x0、曹x1", "zh")
    assert first != second and first & second == {"曹"}


@pytest.mark.parametrize(
    "text",
    [
        "王某仅于2017年6月30日归还本金50,000元",  # 于2017, 年6, 月30, 金50 are no names (王某 is)
        "处以60万元罚款，(2015)沪01刑初28号",
        "于12月3日支付，楼高3米，计3次",
        "黄金20克，朱红色3张",
    ],
)
def test_dates_amounts_and_case_numbers_are_no_anonymised_names(text):
    assert all("某" in "".join(n) for n in m.names(text, "zh"))


def test_a_certain_company_is_no_name_and_english_names_are_unchanged():
    assert m.names("原告赵某在被告某物流有限公司工作，孙某某作证。", "zh") == [
        frozenset({"赵", "某"}), frozenset({"孙", "某某"})]
    assert m.names("Was Yip Kin-fai sentenced?", "en", skip_first=True) == [frozenset({"yip", "kin", "fai"})]
