"""pipeline.language: detection, words, sentences, token counts, n-grams and numbers, against hand-made
expectations (segmentations and counts written out by hand, not computed by the code under test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import language
from pipeline.text import count_tokens, split_sentences

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------ detect
@pytest.mark.parametrize(
    "text, expected",
    [
        ("中国证券监督管理委员会作出行政处罚决定。", "zh"),
        ("ST公司董事张某于2011年5月3日买入股票。", "zh"),
        ("The Tribunal imposed a penalty of HK$2,400,000.", "en"),
        # A Chinese name inside English prose leaves it English.
        ("The commission found that Mr Zhang (张三) dealt in the shares before the announcement.", "en"),
        ("", "en"),
        ("12,000", "en"),
    ],
)
def test_detect_by_cjk_share(text, expected):
    assert language.detect(text) == expected


def test_unknown_language_is_an_error():
    with pytest.raises(ValueError, match="unsupported language 'fr'"):
        language.words("bonjour", "fr")


# ------------------------------------------------------------------------------------------- words
def test_english_words_are_lowercased_pieces_with_numbers_whole():
    assert language.words("The Tribunal fined him HK$2,400,000.") == [
        "the",
        "tribunal",
        "fined",
        "him",
        "hk",
        "2,400,000",
    ]
    assert language.content_words("The Tribunal was not satisfied", "en") == ["tribunal", "not", "satisfied"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("证监会没收违法所得", ["证监会", "没收", "违法", "所得"]),
        ("房东要求租客搬离房屋", ["房东", "要求", "租客", "搬离", "房屋"]),
        # Latin words and numbers inside Chinese text stay whole and lower-cased.
        ("ST公司罚款4,665,091.79元", ["st", "公司", "罚款", "4,665,091.79", "元"]),
    ],
)
def test_chinese_words_come_from_the_segmenter(text, expected):
    assert language.words(text, "zh") == expected
    assert language.words(text) == expected  # detected


def test_chinese_content_words_drop_function_words_but_keep_negation():
    assert language.content_words("张某在内幕信息公开前买入股票", "zh") == [
        "张",
        "某",
        "内幕",
        "信息",
        "公开",
        "买入",
        "股票",
    ]
    assert language.content_words("张某没有提出异议", "zh") == ["张", "某", "没有", "提出异议"]


def test_content_ngrams_do_not_depend_on_where_the_segmenter_cuts():
    # Whether 内幕交易 is one word or two, the bigrams of the stretch are the same; 的 ends a stretch.
    assert language.content_ngrams("内幕交易的罚款", "zh") == ["内幕", "幕交", "交易", "罚款"]
    assert language.content_ngrams("被判三年", "zh") == ["被判", "三年"]


def test_segmentation_is_quiet_and_deterministic():
    code = "from pipeline import language; print('|'.join(language.words('中国证监会对内幕交易作出处罚决定', 'zh')))"
    runs = [
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stderr == "" and runs[1].stderr == ""
    assert runs[0].stdout == runs[1].stdout == "中国证监会|对|内幕|交易|作出|处罚|决定\n"


# --------------------------------------------------------------------------------------- sentences
def test_chinese_sentences_split_without_spaces():
    text = "张某买入股票。证监会认为：“该行为构成内幕交易。”张某是否提出异议？提出了；但未被采纳！\n第二段"
    assert language.sentences(text, "zh") == [
        "张某买入股票。",
        "证监会认为：“该行为构成内幕交易。”",
        "张某是否提出异议？",
        "提出了；",
        "但未被采纳！",
        "第二段",
    ]
    # A decimal point is not a sentence end.
    assert language.sentences("罚款4,665,091.79元。没收违法所得。", "zh") == [
        "罚款4,665,091.79元。",
        "没收违法所得。",
    ]
    assert split_sentences("张某买入股票。证监会作出处罚。") == ["张某买入股票。", "证监会作出处罚。"]


def test_english_sentences_are_unchanged():
    assert split_sentences("The appeal was dismissed. Costs follow! Was it fair? Yes") == [
        "The appeal was dismissed.",
        "Costs follow!",
        "Was it fair?",
        "Yes",
    ]


# ----------------------------------------------------------------------------------- token counts
def test_english_token_count_is_words_and_punctuation():
    assert count_tokens("First, yes.") == 4
    # A fine of HK $ 2 , 400 , 000 was imposed .
    assert count_tokens("A fine of HK$2,400,000 was imposed.") == 13


# Chinese legal sentences of each kind the pipeline counts: decisions with amounts and dates, a question,
# a refusal, a Latin name inside Chinese text.
ZH_SENTENCES = [
    "证监会决定没收张某违法所得4,665,091.79元。",
    "法院认为被告人赵某具有自首情节，依法可以从轻处罚。",
    "租客周某拖欠租金三个月，房东依照租赁合同解除合同并要求其搬离房屋。",
    "ST公司于2011年5月3日发布公告。",
    "对张某没收的违法所得是多少？",
    "提供的段落没有足够的信息来回答这个问题。",
]


def test_chinese_token_count_is_within_20_percent_of_a_chinese_models_tokenizer():
    """The reference is Qwen's 151k-entry BPE (its vocabulary ships in the dashscope package; nothing is
    downloaded): all of them within 20%, each within 20% or two tokens (one token is an eighth of a short
    question); one unit per character was up to 1.6 x its count."""
    pytest.importorskip("tiktoken")
    qwen = pytest.importorskip("dashscope.tokenizers").get_tokenizer("qwen-7b-chat")
    ours = theirs = 0
    for text in ZH_SENTENCES:
        counted = count_tokens(text)
        assert counted == language.count_tokens(text, "zh")
        reference = len(qwen.encode(text))
        assert abs(counted - reference) <= max(0.2 * reference, 2), (text, counted, reference)
        ours, theirs = ours + counted, theirs + reference
    assert abs(ours / theirs - 1) <= 0.2


def test_chinese_token_count_by_hand():
    # 证监会 (3 characters: 2) 决定 没收 (1 each), 9 digits, 2 commas and a point, 元, 。
    assert count_tokens("证监会决定没收4,665,091.79元。") == 18
    # ST, 公司 于, 2 0 1 1, 年, 5, 月, 3, 日, 发布 公告, 。
    assert count_tokens("ST公司于2011年5月3日发布公告。") == 15
    # The old measure counted a whole run of characters as one token.
    assert count_tokens(ZH_SENTENCES[1]) > language.count_tokens(ZH_SENTENCES[1], "en") * 2


# ------------------------------------------------------------------------------------------ n-grams
def test_ngrams_per_language():
    assert language.ngrams("内幕交易", 2, "zh") == ["内幕", "幕交", "交易"]
    assert language.ngrams("内幕交易", 3, "zh") == ["内幕交", "幕交易"]
    # Runs are cut at punctuation and Latin text; a run shorter than n stays whole.
    assert language.ngrams("罚，ST公司", 2, "zh") == ["罚", "st", "公司"]
    assert language.ngrams("The tribunal dismissed the appeal", 2, "en") == [
        "the tribunal",
        "tribunal dismissed",
        "dismissed the",
        "the appeal",
    ]
    with pytest.raises(ValueError):
        language.ngrams("内幕", 0, "zh")


# ------------------------------------------------------------------------------------------ numbers
@pytest.mark.parametrize(
    "a, b, value",
    [
        ("没收违法所得4,665,091.79元", "4665091.79", "4665091.79"),
        ("并处100万元罚款", "罚款一百万元", "1000000"),
        ("罚款1.2亿元", "罚款一亿二千万元", "120000000"),
        ("2011年5月3日", "二〇一一年五月三日", "2011-05-03"),
        ("2011-05-03", "2011年05月03日", "2011-05-03"),
        ("判处有期徒刑三年", "判处有期徒刑3年", "3"),
        # Sums in financial numerals, as loan notes and judgments write them in words.
        ("借到人民币叁拾万元整", "借到300,000元", "300000"),
        ("人民币壹拾万元整", "一十万元", "100000"),
        ("伍仟陆佰元", "5,600元", "5600"),
    ],
)
def test_chinese_numbers_normalise(a, b, value):
    assert language.numbers(a, "zh") == language.numbers(b, "zh") == {value}


def test_chinese_words_that_contain_numerals_are_not_numbers():
    assert language.numbers("统一的一般规定", "zh") == set()
    # A date is one value, not three numbers.
    assert language.numbers("2011年5月3日买入", "zh") == {"2011-05-03"}


def test_financial_numerals_are_read_only_as_amounts():
    # 陆 and 伍 are surnames too: outside an amount they stay words.
    assert language.plain_numerals("陆x8向伍某借款陆万元整") == "陆x8向伍某借款六万元"
    assert language.numbers("陆x8与伍某", "zh") == set()
    assert language.plain_numerals("没有大写数字的句子") == "没有大写数字的句子"


def test_english_numbers_are_unchanged():
    assert language.numbers("HK$2,400,000 or 2.4 million, eighteen months", "en") == {"2400000", "18"}


def test_rewriting_helpers_are_still_importable_from_the_package():
    from pipeline.language import area, declarative, focus

    assert area("Was the tenant evicted?") == "residential tenancy"
    assert declarative("Did the tribunal reduce the penalty?") == "the tribunal did reduce the penalty"
    assert focus("Did the tribunal reduce the penalty?").startswith("whether ")
