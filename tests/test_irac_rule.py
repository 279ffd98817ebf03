"""The offline IRAC system (rule-based extractor and analysis writer) and the field guide."""

from __future__ import annotations

import logging

from pipeline.irac.normalize import exact_match, mentions
from pipeline.irac.rule import RuleSystem, extract_fields, write_analysis
from pipeline.irac.schema import FieldSpec, field_specs, infer_type
from pipeline.records import SAFE_ID, Decision, Party, Section
from pipeline.synth import generate_decisions
from pipeline.text import split_sentences

SECTIONS = [
    ("The question", "The question for the Tribunal is whether Chan Tai-man dealt while knowing of a takeover offer."),
    ("The law", "Under section 270(1)(a) of the Ordinance, a connected person who knows inside information must not deal."),
    (
        "Findings",
        "On 3 March 2020 the respondent bought 150,000 shares. The dealings gained a profit of HK$480,000 "
        "after the announcement on 9 March 2020.",
    ),
    (
        "Orders",
        "The Tribunal orders a pecuniary penalty of HK$960,000, which is two times the profit. "
        "The Tribunal makes no cold shoulder order because the respondent has retired. "
        "Costs are ordered against the respondent in full.",
    ),
    ("Conclusion", "This decision was handed down on 14 June 2022."),
]


def decision(fields: dict[str, str] | None = None) -> Decision:
    sections = [Section(f"s{i}", h, t) for i, (h, t) in enumerate(SECTIONS)]
    text = "\n\n".join(f"{s.heading}\n{s.text}" for s in sections)
    fields = fields or {"penalty_amount": "HK$960,000"}
    kinds = {k: "exact" for k in fields}
    return Decision("d-1", "test", "en", "insider_trading", "Re Chan", "14 June 2022", text, sections, fields, kinds)


def spec(name: str, value_type: str, description: str) -> FieldSpec:
    return FieldSpec(name, "exact", value_type, description)  # type: ignore[arg-type]


def test_values_are_taken_next_to_the_words_that_name_them():
    specs = [
        spec("penalty_amount", "money", "the pecuniary penalty ordered"),
        spec("profit_amount", "money", "the profit gained or loss avoided by the dealings"),
        spec("multiplier", "times", "the penalty as a multiple of the profit"),
        spec("rule_section", "citation", "the section of the Ordinance applied"),
        spec("shares_traded", "number", "the number of shares bought or sold"),
        spec("decision_date", "date", "the date the decision was handed down"),
    ]
    got = extract_fields(decision(), specs)
    assert got == {
        "penalty_amount": "HK$960,000",
        "profit_amount": "HK$480,000",
        "multiplier": "two times",
        "rule_section": "section 270(1)(a)",
        "shares_traded": "150,000",
        "decision_date": "14 June 2022",
    }


def test_yes_no_follows_the_polarity_of_the_best_sentence():
    specs = [
        spec("cold_shoulder_ordered", "yesno", "whether a cold shoulder order was made"),
        spec("costs_ordered", "yesno", "whether the respondent was ordered to pay costs"),
    ]
    assert extract_fields(decision(), specs) == {"cold_shoulder_ordered": "No", "costs_ordered": "Yes"}


def test_a_field_no_sentence_speaks_of_is_left_out_not_guessed():
    specs = [spec("vessel_tonnage", "number", "the gross tonnage of the vessel")]
    assert extract_fields(decision(), specs) == {}


def test_a_type_absent_from_every_cued_sentence_gives_nothing():
    # "penalty" is cued, but no sentence holds a percentage.
    specs = [spec("penalty_discount", "percent", "the discount on the penalty")]
    assert extract_fields(decision(), specs) == {}


def test_the_analysis_is_decision_sentences_in_irac_order():
    text = write_analysis(decision())
    lines = text.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == ["Issue", "Rule", "Application", "Conclusion"]
    assert "whether Chan Tai-man dealt" in lines[0]
    assert "section 270(1)(a)" in lines[1]
    source = {s for _, body in SECTIONS for s in split_sentences(body)}
    written = [s for line in lines for s in split_sentences(line.split(": ", 1)[1])]
    assert set(written) <= source  # extractive: it never writes a sentence of its own
    assert len(written) == len(set(written))  # no sentence serves two parts


def test_rule_system_outputs_one_safe_record_per_decision_and_task():
    decisions = generate_decisions(6, {"insider_trading": 1, "criminal_sentencing": 1, "residential_tenancy": 1}, 7)
    specs = field_specs(decisions)
    system = RuleSystem()
    fields = system.run(decisions, specs, "fields", "standard")
    analyses = system.run(decisions, specs, "analysis", "standard")
    assert [o.decision_id for o in fields] == [d.id for d in decisions]
    for o in fields + analyses:
        assert SAFE_ID.match(o.id) and o.status == "ok" and o.system == "rule"
    asked = {d.id: {s.name for s in specs[d.case_type]} for d in decisions}
    for o in fields:
        assert o.fields and set(o.fields) <= asked[o.decision_id] and o.analysis is None
    assert all(o.analysis and o.fields is None for o in analyses)


def test_rule_system_finds_most_money_and_dates_of_synthetic_decisions():
    # The synthetic decisions state every annotated value verbatim: the cue-based rules should recover
    # most amounts and dates; the rest are genuine misses of a baseline, not bugs.
    decisions = generate_decisions(30, {"insider_trading": 1, "criminal_sentencing": 1, "residential_tenancy": 1}, 3)
    specs = field_specs(decisions)
    hits = total = 0
    for d in decisions:
        got = extract_fields(d, specs[d.case_type])
        for s in specs[d.case_type]:
            if s.type in ("money", "date") and s.name in d.fields:
                total += 1
                hits += got.get(s.name) == d.fields[s.name]
    assert total > 60
    assert hits / total > 0.6


def test_field_guide_asks_each_case_type_for_the_union_of_its_fields():
    a = decision({"penalty_amount": "HK$1", "cold_shoulder_period": "2 years"})
    b = decision({"penalty_amount": "HK$2"})
    specs = field_specs([a, b])
    assert [s.name for s in specs["insider_trading"]] == ["cold_shoulder_period", "penalty_amount"]
    assert specs["insider_trading"][0].type == "duration"  # from the written guide
    other = Decision("x", "t", "en", "maritime", "T", "", "text", [Section("s", "h", "text")],
                     {"collision_date": "1 May 2020", "master": "A"}, {"collision_date": "exact", "master": "exact"})
    guessed = {s.name: (s.type, s.description) for s in field_specs([other])["maritime"]}
    assert guessed == {"collision_date": ("date", "collision date"), "master": ("text", "master")}


def test_type_inference_from_field_names():
    assert infer_type("tenancy_end") == "date"
    assert infer_type("fine_amount") == "money"
    assert infer_type("injunction_granted") == "yesno"
    assert infer_type("reasons") == "text"


# ---------------------------------------------------------------------------------------------------
# Chinese decisions: hand-written insider-trading penalty decisions in the style of the real ones
# (values as they are written there: "4,665,091.79元", "2011年5月3日", "120万股", "二〇一六年三月十八日").

ZH_SECTIONS = [
    ("当事人", "当事人：张某，男，1970年3月出生，住址：北京市海淀区。"),
    ("调查经过", "依据《证券法》的有关规定，我会对张某内幕交易某某股份股票的行为进行了立案调查、审理，并依法向当事人告知了作出行政处罚的事实、理由、依据及当事人依法享有的权利。"),
    ("违法事实", "经查明，2011年3月15日，某某股份开始筹划重大资产重组。2011年5月3日，某某股份发布重组公告，内幕信息公开。内幕信息敏感期为2011年3月15日至2011年5月3日。张某作为公司董事参与了重组筹划，是内幕信息知情人。敏感期内，张某使用本人账户于2011年4月8日买入某某股份股票120万股，成交金额1,032万元。2011年5月10日张某卖出全部股票，违法所得4,665,091.79元。以上事实，有相关公告、交易记录、询问笔录等证据证明，足以认定。"),
    ("法律适用", "张某的上述行为违反了《证券法》第七十三条、第七十六条的规定，构成《证券法》第二百零二条所述内幕交易行为。"),
    ("处罚决定", "根据当事人违法行为的事实、性质、情节与社会危害程度，依据《证券法》第二百零二条的规定，我会决定：没收张某违法所得4,665,091.79元，并处以13,995,275.37元罚款。当事人应自收到本处罚决定书之日起15日内，将罚没款汇交中国证券监督管理委员会。本决定于2013年6月20日作出。"),
]
ZH_FIELDS = {"当事人": "张某", "内幕信息公开日": "2011年5月3日", "买入日期": "2011年4月8日", "买入股数": "120万股",
          "违法所得": "4,665,091.79元", "罚款金额": "13,995,275.37元", "决定日期": "2013年6月20日",
          "违反条款": "《证券法》第七十三条", "没收违法所得": "是", "内幕信息": "某某股份筹划重大资产重组"}
ZH_TYPES = {"当事人": "name", "内幕信息公开日": "date", "买入日期": "date", "买入股数": "number", "违法所得": "money",
         "罚款金额": "money", "决定日期": "date", "违反条款": "text", "没收违法所得": "yesno", "内幕信息": "text"}
ZH_KINDS = {k: ("semantic" if k == "内幕信息" else "exact") for k in ZH_FIELDS}
def zh_decision() -> Decision:
    secs = [Section(f"s{i}", h, t) for i, (h, t) in enumerate(ZH_SECTIONS)]
    text = "\n\n".join(f"{s.heading}\n{s.text}" for s in secs)
    return Decision("zh-1", "test", "zh", "insider_trading_zh", "张某内幕交易案", "2013年6月20日", text, secs,
                    dict(ZH_FIELDS), dict(ZH_KINDS), field_types=dict(ZH_TYPES))  # fmt: skip

# A second decision, written before the rule system was run on it: two parties, each with own values.
ZH2_SECTIONS = [
    ("当事人", "当事人：李某，女，1982年7月出生。当事人：王某，男，1979年1月出生，系李某配偶。"),
    ("案件来源", "李某、王某涉嫌内幕交易甲乙科技股票一案，我会依法立案调查，当事人未提出陈述、申辩意见，也未要求听证。"),
    ("违法事实", "2015年8月20日，甲乙科技与丙公司开始洽谈收购事项，该事项属于内幕信息。2015年10月9日，甲乙科技公告收购事项，内幕信息公开。王某作为丙公司财务总监，于2015年8月25日知悉内幕信息。2015年9月2日，李某使用其本人账户买入甲乙科技股票35万股，买入金额人民币2,120,450元，账户获利876,325.50元。2015年9月7日，王某控制的账户买入甲乙科技股票12.6万股，获利人民币三十一万二千元。"),
    ("处理依据", "李某、王某的上述行为违反了《证券法》第七十三条的规定，构成内幕交易。依据《证券法》第二百零二条的规定，我会决定：一、没收李某违法所得876,325.50元，并处以2,628,976.50元罚款；二、没收王某违法所得312,000元，并处以936,000元罚款。"),
    ("尾部", "上述当事人应自收到本处罚决定书之日起15日内缴纳罚没款。二〇一六年三月十八日"),
]
ZH2_SHARED = {"决定日期": "2016年3月18日", "内幕信息公开日": "2015-10-09", "违反条款": "《证券法》第七十三条"}
ZH2_PARTIES = [
    ("李某", {"当事人": "李某", "买入日期": "2015年9月2日", "买入股数": "35万股", "违法所得": "876,325.50元",
             "罚款金额": "2,628,976.50元", "没收违法所得": "是"}),
    ("王某", {"当事人": "王某", "买入日期": "2015年9月7日", "买入股数": "126,000", "违法所得": "人民币312,000元",
             "罚款金额": "93.6万元", "没收违法所得": "是"}),
]
def zh_two_parties() -> Decision:
    secs = [Section(f"s{i}", h, t) for i, (h, t) in enumerate(ZH2_SECTIONS)]
    text = "\n\n".join(f"{s.heading}\n{s.text}" for s in secs)
    names = {*ZH2_SHARED, *ZH2_PARTIES[0][1]}
    return Decision("zh-2", "test", "zh", "insider_trading_zh", "李某、王某内幕交易案", "2016年3月18日", text, secs,
                    dict(ZH2_SHARED), {k: "exact" for k in names}, field_types={k: ZH_TYPES[k] for k in names},
                    parties=[Party(n, dict(f)) for n, f in ZH2_PARTIES])  # fmt: skip


def test_chinese_rule_extraction_finds_amounts_dates_and_names():
    d = zh_decision()
    got = extract_fields(d, field_specs([d])["insider_trading_zh/zh"])
    # The spans as the decision writes them, found next to their cue words (违法所得 / 罚款 / 买入 ...).
    assert got["违法所得"] == "4,665,091.79元"
    assert got["罚款金额"] == "13,995,275.37元"
    assert got["买入日期"] == "2011年4月8日"
    assert got["内幕信息公开日"] == "2011年5月3日"
    assert got["决定日期"] == "2013年6月20日"
    assert got["买入股数"] == "120万"
    assert got["当事人"] == "张某"
    assert got["违反条款"] == "《证券法》第七十三条"
    assert got["没收违法所得"] == "是"


def test_chinese_rule_extraction_per_party():
    d = zh_two_parties()
    outputs = RuleSystem().run([d], field_specs([d]), "fields", "standard")
    assert [(o.id, o.party) for o in outputs] == [
        ("fields/rule/standard/zh-2/p0", "李某"), ("fields/rule/standard/zh-2/p1", "王某"),
    ]  # fmt: skip
    by_party = {o.party: o.fields for o in outputs}
    assert by_party["李某"]["违法所得"] == "876,325.50元"
    assert by_party["王某"]["违法所得"] == "312,000元"
    assert by_party["王某"]["罚款金额"] == "936,000元"
    assert by_party["李某"]["买入日期"] == "2015年9月2日"
    assert by_party["王某"]["买入日期"] == "2015年9月7日"
    # Typed comparison against the reference as annotated ("93.6万元", "人民币312,000元", "126,000").
    for party, reference in d.references():
        for name in ("违法所得", "罚款金额", "买入日期", "买入股数"):
            assert exact_match(by_party[party][name], reference[name], d.field_types[name]), (party, name)


def test_chinese_analysis_is_in_chinese_irac_order_and_states_the_facts_found():
    d = zh_decision()
    specs = field_specs([d])
    [output] = RuleSystem().run([d], specs, "analysis", "standard")
    assert output.status == "ok"
    lines = output.analysis.splitlines()
    assert [line.split("：", 1)[0] for line in lines] == ["问题", "规则", "适用", "结论"]
    for name in ("违法所得", "罚款金额", "买入日期", "决定日期", "内幕信息公开日"):
        assert mentions(output.analysis, ZH_FIELDS[name], ZH_TYPES[name]), name
    assert "Issue" not in output.analysis  # no English headings around Chinese text


def test_an_analysis_with_nothing_in_it_is_unparseable_not_an_empty_ok():
    zh = Decision("zh-9", "t", "zh", "x", "题", "", "今天天气很好。", [Section("s", "一", "今天天气很好。")], {"金额": "1元"}, {})
    en = Decision("en-9", "t", "en", "x", "T", "", "Blue skies.", [Section("s", "One", "Blue skies.")], {"a": "1"}, {})
    outputs = RuleSystem().run([zh, en], {"x": []}, "analysis", "standard")
    assert [(o.status, o.analysis) for o in outputs] == [("unparseable", None), ("unparseable", None)]
    assert "zh cue words" in outputs[0].meta["problem"]


def test_declared_types_drive_the_field_guide_and_missing_ones_are_inferred_with_one_warning(caplog):
    d = zh_decision()
    specs = {s.name: s.type for s in field_specs([d])["insider_trading_zh/zh"]}
    assert specs == ZH_TYPES  # declared, nothing guessed from the (Chinese) names
    untyped = Decision("u-1", "t", "en", "salvage_untyped", "T", "", "text", [Section("s", "h", "text")],
                       {"award_amount": "HK$1", "vessel": "Sea Star"}, {})  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="pipeline.irac.schema"):
        field_specs([untyped])
        field_specs([untyped])
    warnings = [r for r in caplog.records if "inferred" in r.getMessage()]
    assert len(warnings) == 1 and "salvage_untyped" in warnings[0].getMessage()
    assert {s.name: s.type for s in field_specs([untyped])["salvage_untyped"]} == {"award_amount": "money", "vessel": "text"}


def test_chinese_and_english_decisions_of_one_case_type_are_asked_their_own_fields():
    """A zh insider-trading decision is never asked for the English decisions' fields (and vice versa)."""
    import dataclasses

    zh = dataclasses.replace(zh_decision(), case_type="insider_trading")
    en = next(d for d in generate_decisions(6, {"insider_trading": 1.0}, 3) if d.case_type == "insider_trading")
    specs = field_specs([zh, en])
    assert set(specs) == {"insider_trading", "insider_trading/zh"}
    assert {s.name for s in specs["insider_trading/zh"]} == set(ZH_FIELDS)
    assert {s.name for s in specs["insider_trading"]} == set(en.field_names())
