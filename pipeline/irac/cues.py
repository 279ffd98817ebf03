"""Cue words of the rule-based IRAC system, per language (docs/method.md §1: cue words follow the record's language).

The rule system ranks a decision's sentences by the cue words of a field or of an IRAC part. English
cues come from the field guide's names and descriptions; Chinese decisions name their fields in Chinese
("违法所得", "罚款金额") and phrase the same facts with other words, so the cues of a Chinese field are
its name plus the words listed here for any keyword its name contains. The table is written for
Chinese securities penalty decisions (insider trading: 内幕信息, 敏感期, 交易, 违法所得, 没收, 罚款) and
carries the common words of other penalty and judgment texts.
"""

from __future__ import annotations

# Keyword in a Chinese (or English) field name -> Chinese words that sit next to its value.
ZH_FIELD_CUES: dict[str, str] = {
    "内幕信息": "内幕信息 重大事项 筹划 公告 知悉 形成 公开",
    "敏感期": "敏感期 内幕信息 形成 公开 期间",
    "交易": "交易 买入 卖出 账户 成交 累计",
    "买入": "买入 交易 账户 成交 累计",
    "卖出": "卖出 交易 账户 成交 累计",
    "违法所得": "违法所得 没收 获利 盈利 所得",
    "获利": "获利 盈利 违法所得",
    "盈利": "盈利 获利 违法所得",
    "亏损": "亏损 避损 损失",
    "没收": "没收 违法所得",
    "罚款": "罚款 处以 并处 罚",
    "罚金": "罚金 处以 并处",
    "处罚": "处罚 决定 处以",
    "倍": "倍 罚款",
    "日期": "日期 决定 作出",
    "时间": "时间 日期",
    "当事人": "当事人 被处罚人",
    "姓名": "当事人 姓名",
    "名称": "名称 当事人",
    "公司": "公司 股份 有限公司 上市",
    "证券": "证券 股票 简称 代码",
    "股票": "股票 证券 简称 代码",
    "数量": "数量 股",
    "股数": "股 数量 买入",
    "金额": "金额 元",
    "依据": "依据 根据 规定 违反 条",
    "法律": "证券法 规定 违反 条",
    "规定": "规定 违反 条 证券法",
    # English field names on a Chinese decision (an import that kept English keys).
    "penalty": "罚款 处以 并处",
    "fine": "罚款 处以 并处",
    "profit": "违法所得 没收 获利",
    "gain": "违法所得 没收 获利",
    "confiscat": "没收 违法所得",
    "date": "日期 决定 作出",
    "respondent": "当事人",
    "party": "当事人",
    "company": "公司 股份 有限公司",
    "shares": "股 买入 卖出",
    "period": "期间 敏感期",
    "section": "规定 违反 条",
    "rule": "规定 违反 条 证券法",
}

# Words that introduce a name in Chinese decisions ("当事人：张三，男，…") without saying which side the
# party is on: a field named by one of them (当事人) may take any party's name.
ZH_NAME_LEADS = ("当事人", "被处罚人", "名称", "姓名")
# Procedural roles that label a party in a judgment ("上诉人（原审被告）：某公司"), longest first, so that
# 被上诉人 is never read as 上诉人 nor 被申请人 as 申请人. A field named by one takes only that role's names.
ZH_PARTY_ROLES = ("再审申请人", "被上诉人", "被申请人", "上诉人", "申请人", "被告人", "原告人", "被告", "原告", "第三人")
# One role under its criminal and civil names; a former role drops its instance ("原审被告" was 被告).
ZH_SAME_ROLE = {"被告人": "被告", "原告人": "原告"}
ZH_FORMER_ROLE_PREFIXES = ("原审", "一审", "二审", "再审")

# What an amount in a Chinese decision is, by the words of its own clause: a fine (罚款, criminal 罚金),
# a confiscation ordered (没收, 追缴), or a gain found as fact (违法所得, 获利).
ZH_AMOUNT_WORDS: dict[str, tuple[str, ...]] = {
    "fine": ("罚款", "罚金"),
    "confiscation": ("没收", "追缴", "收缴"),
    "gain": ("违法所得", "非法所得", "获利", "盈利", "获益"),
}
# Keyword in a field's name -> the kind of amount it asks for ("没收违法所得" names both a confiscation
# and a gain: it is the confiscation).
ZH_FIELD_AMOUNT: dict[str, str] = {
    "罚款": "fine", "罚金": "fine", "fine": "fine", "penalty": "fine",
    "没收": "confiscation", "追缴": "confiscation", "confiscat": "confiscation", "disgorge": "confiscation",
    "违法所得": "gain", "获利": "gain", "盈利": "gain", "profit": "gain", "gain": "gain",
}  # fmt: skip

# Cue words of the four IRAC parts for the analysis writer, and its headings, per language.
PART_CUES: dict[str, dict[str, str]] = {
    "en": {
        "Issue": "issue question whether decide determine matter dispute",
        "Rule": "law rule section clause ordinance provision principle guideline statutory legal",
        "Application": "facts find found finds established satisfied evidence applying because therefore",
        "Conclusion": "conclusion order ordered orders penalty sentence sentenced granted pay accordingly",
    },
    "zh": {
        "Issue": "是否 涉嫌 案件 调查 立案 审理 争议 告知",
        "Rule": "证券法 规定 根据 依据 违反 法律 条 款 内幕信息",
        "Application": "经查 查明 事实 证据 敏感期 知悉 买入 卖出 交易 账户 获利 违法所得 上述",
        "Conclusion": "决定 没收 罚款 处以 并处 责令 处罚",
    },
}
PART_HEADINGS: dict[str, dict[str, str]] = {
    "en": {"Issue": "Issue", "Rule": "Rule", "Application": "Application", "Conclusion": "Conclusion"},
    "zh": {"Issue": "问题", "Rule": "规则", "Application": "适用", "Conclusion": "结论"},
}
PART_SENTENCES = {"Issue": 1, "Rule": 2, "Application": 3, "Conclusion": 2}

YES_NO = {"en": ("Yes", "No"), "zh": ("是", "否")}


def zh_field_cues(name: str, description: str) -> str:
    """A Chinese field's cue text: its name, its description and the words of every keyword it contains."""
    lowered = name.lower()
    extra = [words for key, words in ZH_FIELD_CUES.items() if key in lowered or key in description]
    return " ".join([name.replace("_", " "), description, *extra])
