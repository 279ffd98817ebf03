"""The rule extractor on Chinese decisions as published sets write them: each error class the messy
profile's decisions showed (tests/fixtures/importers/messy), pinned on hand-written sentences with the
value a lawyer reads off them. Old behaviour is in each test's comment."""

from __future__ import annotations

import pytest

from pipeline.irac import zh_scope
from pipeline.irac.normalize import fold, scan
from pipeline.irac.rule import RuleSystem, extract_fields
from pipeline.irac.schema import FieldSpec, field_specs
from pipeline.records import Decision, Party, Section


def decision(text: str, types: dict[str, str], parties: dict[str, dict[str, str]] | None = None) -> Decision:
    """A zh decision of one section per line; the reference values only say which fields exist."""
    lines = [t for t in text.split("\n") if t]
    sections = [Section(f"s{i}", "", t) for i, t in enumerate(lines)]
    shared = {} if parties else {name: "-" for name in types}
    return Decision("zh-t", "test", "zh", "case", "案", "", text, sections, shared, {k: "exact" for k in types},
                    field_types=dict(types), parties=[Party(n, f) for n, f in (parties or {}).items()])  # type: ignore[arg-type]


def fields(text: str, types: dict[str, str], party: str = "", parties: dict | None = None) -> dict[str, str]:
    d = decision(text, types, parties)
    specs = [FieldSpec(name, "exact", t, name) for name, t in types.items()]  # type: ignore[arg-type]
    return extract_fields(d, specs, party)


def per_party(text: str, types: dict[str, str], parties: list[str]) -> dict[str, dict[str, str]]:
    d = decision(text, types, {p: {name: "-" for name in types} for p in parties})
    return {o.party: o.fields for o in RuleSystem().run([d], field_specs([d]), "fields", "standard")}


MONEY = {"罚款金额": "money", "没收违法所得": "money"}


# ------------------------------------------------------------------- 1. a unit with no numeral
def test_a_unit_with_no_numeral_before_it_is_no_amount():
    # "二百余万元" is "over two million": the numeral stops at 余, and "万元" alone was read as 10,000 yuan.
    assert [f.value for f in scan(fold("非法获利二百余万元"))] == ["number:200"]
    assert not [f for f in scan(fold("涉案金额达千万元")) if f.value.startswith("money:")]
    assert [f.value for f in scan(fold("获利二百万元，罚款十万元"))] == ["money:CNY:2000000", "money:CNY:100000"]


def test_an_approximate_gain_gives_no_bare_unit_but_a_stated_amount_is_found():
    text = "二人利用亲属的证券账户买入该公司股票，非法获利二百余万元。违法所得予以追缴。"
    assert fields(text, {"违法所得": "money"}) == {}  # was "万元"
    text += "\n经审计，周某某实际获利2,150,000元。"
    assert fields(text, {"违法所得": "money"}) == {"违法所得": "2,150,000元"}


# ------------------------------------------------------------ 2. a fine is not a confiscation
def test_fine_and_confiscation_in_one_order_are_told_apart():
    text = "依据《中华人民共和国反不正当竞争法》第二十条第一款的规定，我局决定：责令当事人停止违法行为，没收违法所得18,650.00元，并处罚款20万元。"
    # 罚款金额 was "18,650.00元": 罚款 of "并处罚款" and the 元 cue were as near to it as to 20万元.
    assert fields(text, MONEY) == {"罚款金额": "20万元", "没收违法所得": "18,650.00元"}


def test_a_fine_named_after_its_amount_and_a_fine_without_one():
    text = "我会决定：没收张某违法所得4,665,091.79元，并处以13,995,275.37元罚款。"
    assert fields(text, MONEY) == {"罚款金额": "13,995,275.37元", "没收违法所得": "4,665,091.79元"}
    # No amount is fined: the confiscated sum was taken for the fine before.
    text = "经查明，张某获利4,665,091.79元。\n我会决定：没收张某违法所得4,665,091.79元，并处以罚款。"
    assert fields(text, {**MONEY, "违法所得": "money"}) == {"没收违法所得": "4,665,091.79元", "违法所得": "4,665,091.79元"}


def test_nothing_confiscated_gives_no_confiscation():
    # Asked for 李某 (whose name makes every sentence naming him a candidate), the fine was taken for a
    # confiscation and for the gain before.
    text = "当事人：李某。经查明，李某在内幕信息敏感期内买入某公司股票。我会决定：对李某罚款2,628,976.50元。"
    assert fields(text, {**MONEY, "违法所得": "money"}, party="李某") == {"罚款金额": "2,628,976.50元"}


def test_a_criminal_fine_is_a_fine_and_recovery_without_a_sum_is_nothing():
    text = "一、被告人周某某犯内幕交易罪，判处有期徒刑五年，并处罚金人民币2,200,000元。\n三、违法所得予以追缴。"
    assert fields(text, MONEY) == {"罚款金额": "人民币2,200,000元"}


def test_a_judgment_without_a_fine_gives_none_but_its_sums_stay_for_other_fields():
    text = "判决如下：被告王某于本判决生效之日起十日内偿还原告李某借款本金人民币250,000元。"
    # 罚款金额 was the loan: any amount near 金额 and 元 filled it.
    assert fields(text, {"罚款金额": "money", "还款金额": "money"}) == {"还款金额": "人民币250,000元"}
    text = "其家属代为赔偿被害人近亲属各项经济损失共计人民币820,000元，并取得了被害人近亲属的谅解。"
    assert fields(text, {"罚款金额": "money", "赔偿金额": "money"}) == {"赔偿金额": "人民币820,000元"}


@pytest.mark.parametrize(("sentence", "kind"), [
    ("并处以1,836,420.00元罚款", "fine"),
    ("判处有期徒刑五年,并处罚金人民币2,200,000元", "fine"),
    ("处以违法所得三倍即1,836,420元的罚款", "fine"),
    ("处以违法所得一倍的罚款,即612,140元", "fine"),
    ("没收违法所得,计18,650元", "confiscation"),
    ("没收张某违法所得4,665,091.79元", "confiscation"),
    ("追缴违法所得18,650元", "confiscation"),
    ("违法所得18,650.00元", "gain"),
    ("上述账户合计获利3,415,226.37元", "gain"),
    ("相关菜品销售额为93,250.00元", None),
])  # fmt: skip
def test_an_amount_is_what_its_own_clause_calls_it(sentence, kind):
    folded = fold(sentence)
    money = [f for f in scan(folded) if f.value.startswith("money:")]
    assert zh_scope.amount_kind(folded, money[-1].start, money[-1].end) == kind


def test_the_kind_a_field_name_asks_for():
    assert [zh_scope.field_amount_kind(n) for n in ("罚款金额", "罚金", "没收违法所得", "违法所得", "获利金额", "fine_amount",
                                                    "罚没款合计", "成交金额")] == [
        "fine", "fine", "confiscation", "gain", "gain", "fine", None, None]  # fmt: skip


# ------------------------------------------------------------------ 3. the right party's value
def test_each_party_takes_the_order_made_against_it():
    text = ("当事人：吴某，男，1979年出生。\n当事人：冯某，男，1985年出生，系吴某雇用的交易员。\n"
            "依据《证券法》第二百零三条的规定，我会决定：对吴某没收违法所得3,415,226.37元，并处以6,830,452.74元罚款；对冯某处以60万元罚款。")
    got = per_party(text, MONEY, ["吴某", "冯某"])
    # 冯某 had 吴某's fine and confiscation: the first sentence ranked higher on the cue words.
    assert got == {"吴某": {"罚款金额": "6,830,452.74元", "没收违法所得": "3,415,226.37元"}, "冯某": {"罚款金额": "60万元"}}


def test_parties_of_one_sentence_split_at_commas_and_a_name_list():
    text = "当事人：李某、王某。经查明，李某、王某在内幕信息敏感期内买入某公司股票。我会决定：对李某罚款2,628,976.50元，对王某罚款93.6万元。"
    got = per_party(text, {"当事人": "name", "罚款金额": "money"}, ["李某", "王某"])
    # 王某 had 李某's name and fine.
    assert got == {"李某": {"当事人": "李某", "罚款金额": "2,628,976.50元"}, "王某": {"当事人": "王某", "罚款金额": "93.6万元"}}


def test_the_payer_owns_the_sum_not_the_party_paid():
    text = "判决如下：被告王某于本判决生效之日起十日内偿还原告李某借款本金250,000元，并支付原告李某利息12,000元。"
    # Both parties had 250,000元: the nearest party name to it was the one paid.
    assert per_party(text, {"还款金额": "money"}, ["王某", "李某"]) == {"王某": {"还款金额": "250,000元"}, "李某": {}}


def test_a_clause_without_a_party_takes_the_one_named_beside_it():
    folded = fold("2015年9月2日，李某买入35万股；2015年9月7日，王某买入12.6万股，获利31万元。")
    owner = zh_scope.owners(folded, ["李某", "王某"])
    assert [owner(folded.index(s)) for s in ("2015年9月2日", "35万", "2015年9月7日", "31万")] == [
        {"李某"}, {"李某"}, {"王某"}, {"王某"}]  # fmt: skip
    joint = fold("孙某、钱某的上述行为违反了《证券法》第七十三条的规定。")
    assert zh_scope.owners(joint, ["孙某", "钱某"])(joint.index("《")) == {"孙某", "钱某"}


# ----------------------------------------------------------------- 4. names under their role
APPEAL = ("被上诉人（原审原告）：赵某，男，1990年出生。\n上诉人（原审被告）：某某物流有限公司，住所地上海市浦东新区。\n"
          "上诉人某某物流有限公司因与被上诉人赵某劳动争议一案，不服一审判决，向本院提起上诉。")


def test_an_appellant_is_not_the_respondent_and_keeps_its_former_role():
    # Each was {}: no label of these roles was read.
    assert fields(APPEAL, {"上诉人": "name", "被上诉人": "name"}) == {"上诉人": "某某物流有限公司", "被上诉人": "赵某"}
    assert fields(APPEAL, {"原告": "name", "被告": "name"}) == {"原告": "赵某", "被告": "某某物流有限公司"}


def test_the_applicant_is_not_the_respondent():
    text = "被申请人：乙贸易有限公司，住所地广州市天河区。\n申请人：甲科技有限公司，住所地深圳市南山区。"
    # 申请人 was "乙贸易有限公司": the lead 申请人 matched inside 被申请人.
    assert fields(text, {"申请人": "name", "被申请人": "name"}) == {"申请人": "甲科技有限公司", "被申请人": "乙贸易有限公司"}


def test_labels_without_a_colon_at_the_head_of_a_party_paragraph():
    text = "原告李某，女，1980年出生，住北京市朝阳区。\n被告王某，男，1979年出生。\n被告人张某，男，1975年出生，汉族。"
    assert fields(text, {"原告": "name"}) == {"原告": "李某"}
    assert [(folded[n.start:n.end], n.role) for folded in map(fold, text.split("\n")) for n in zh_scope.names(folded)] == [
        ("李某", "原告"), ("王某", "被告"), ("张某", "被告")]  # fmt: skip
    # Running text is no label: "被告人周某某、郑某在…" names no one.
    assert zh_scope.names(fold("本院认为，被告人周某某、郑某在信息尚未公开前买入该证券。")) == []


def test_the_role_a_field_name_asks_for():
    assert [zh_scope.field_role(n) for n in ("被上诉人", "上诉人名称", "被告人", "原审原告", "当事人", "罚款金额")] == [
        "被上诉人", "上诉人", "被告", "原告", None, None]  # fmt: skip
