"""The bilingual profile (params/bilingual.yaml) through every stage: English synthetic decisions plus
Chinese mapped decisions, a Chinese SQuAD-2.0-style QA file and outside Chinese answers. The assertions
read the files the stages wrote and check the Chinese part against what the fixtures say by hand."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, make_project_copy, run

from pipeline import language
from pipeline.matching import cues_zh

FIXTURES = ROOT / "tests" / "fixtures"
# The refusal sentence of params generate.refusals.zh (the outside "refuser" answers use it verbatim).
ZH_REFUSAL = "提供的段落没有足够的信息来回答这个问题。"
# The gold sentence of the SQuAD paragraph (tests/fixtures/importers/zh_squad.json), quoted verbatim by the
# outside "quote" answers (tests/fixtures/bilingual/zh_answers.jsonl).
GOLD_QUOTE = "法院判决某物流公司向王某支付二倍工资差额93,500元。"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The project copy after one `dvc repro` of every stage on the bilingual profile."""
    base = tmp_path_factory.mktemp("bilingual")
    repo = make_project_copy(base / "repo", base / "remote")
    for folder in ("importers", "bilingual"):
        shutil.copytree(FIXTURES / folder, repo / "tests" / "fixtures" / folder)
    shutil.copy2(ROOT / "params" / "bilingual.yaml", repo / "params.yaml")
    run(["dvc", "repro"], repo)
    return repo


@pytest.fixture(scope="module")
def zh(repo: Path) -> dict:
    """The Chinese questions and everything hanging off them, plus the primary judge's labels."""
    qas = {q["id"]: q for q in read_jsonl(repo / "data/interim/qa.jsonl")}
    zh_ids = {i for i, q in qas.items() if language.detect(q["question"]) == "zh"}
    contexts = {c["id"]: c for c in read_jsonl(repo / "data/interim/contexts.jsonl")}
    candidates = [c for c in read_jsonl(repo / "data/interim/candidates.jsonl")
                  if contexts[c["context_id"]]["qa_id"] in zh_ids]
    labels = {lab["candidate_id"]: lab for lab in read_jsonl(repo / "data/interim/labels/rule-strict.jsonl")}
    pairs = {d: [p for s in ("train", "val", "test") for p in read_jsonl(repo / f"data/processed/{d}/{s}.jsonl")
                 if p["qa_id"] in zh_ids] for d in ("pairs", "pairs_aug")}
    return {"qas": {i: qas[i] for i in zh_ids}, "candidates": candidates, "labels": labels, "pairs": pairs,
            "contexts": contexts}


# ----------------------------------------------------------------------------------------- unit
@pytest.mark.parametrize(("text", "negative"), [
    ("证监会有没有没收张某的违法所得？", False),  # A-not-A asks "whether", as 是否 does
    ("他是不是本案当事人？", False),
    ("张某可不可以上诉？", False),
    ("张某没有获利。", True),
    ("张某不是本案当事人。", True),
])
def test_chinese_a_not_a_questions_are_not_negated(text, negative):
    assert cues_zh.is_negative(text) is negative


def test_a_chinese_text_field_keeps_its_amount_whole():
    """A clause of a Chinese sentence ends at ，；： but not at the thousands comma of 4,665,091.79 (the
    bilingual run's rule extractor wrote "没收张某违法所得4" before)."""
    from pipeline.irac.rule import extract_fields
    from pipeline.irac.schema import FieldSpec
    from pipeline.records import Decision, Section

    text = "我会决定：没收张某违法所得4,665,091.79元，并处以罚款。"
    decision = Decision("zh-t", "t", "zh", "x", "张某案", "", text, [Section("s1", "决定", text)], {}, {})
    got = extract_fields(decision, [FieldSpec("没收", "semantic", "text", "没收违法所得")])
    assert got == {"没收": "没收张某违法所得4,665,091.79元"}


# ---------------------------------------------------------------------------------------- stages
slow = pytest.mark.slow


@slow
def test_every_source_of_chinese_questions_is_there(zh):
    # Two mapped decisions (factual + yes/no each) and the three SQuAD questions, one of them impossible.
    assert sorted(zh["qas"]) == ["doc-CSRC-2012-7/q1", "doc-CSRC-2012-7/q2", "doc-he5a03fa52403/q1",
                                 "doc-he5a03fa52403/q2", "qa-zh-1", "qa-zh-2", "qa-zh-3"]
    assert zh["qas"]["qa-zh-2"]["answer"] == "" and zh["qas"]["qa-zh-3"]["kind"] == "yesno"


@slow
def test_rule_judge_reads_chinese(zh):
    labels = zh["labels"]

    def label(cid: str) -> tuple:
        lab = labels[cid]
        return lab["behaviour"], lab["faithfulness"], lab["correctness"]

    # A verbatim quote of the gold sentence, shown the gold passage alone or among distractors.
    for context in ("qa-zh-1/gold_only", "qa-zh-1/gold_plus_random"):
        assert label(f"{context}/import:quote") == ("attempted", "fully_supported", "correct")
    # The Chinese refusal sentence, on an answerable and on an unanswerable context.
    for context in ("qa-zh-1/gold_plus_random", "qa-zh-2/random_context"):
        assert label(f"{context}/import:refuser") == ("abstained", None, None)
    # A made-up lawyer for a question the passages cannot answer is an unsupported attempt.
    assert label("qa-zh-2/random_context/import:quote") == ("attempted", "unsupported", "incorrect")
    # The offline panel's own Chinese refusals (its wording differs from the param's) are abstentions.
    panel_refusals = [c for c in zh["candidates"] if c["text"].endswith("没有足够的信息来回答这个问题。")]
    assert len(panel_refusals) > 20 and all(labels[c["id"]]["behaviour"] == "abstained" for c in panel_refusals)
    # "是。" + the gold sentence answering the A-not-A question "法院有没有判令公司支付二倍工资差额？" (answer 是).
    assert label("qa-zh-3/gold_only/offline:confident") == ("attempted", "fully_supported", "correct")


@slow
def test_unanswerable_chinese_pairs_prefer_the_refusal(zh):
    labels = zh["labels"]
    unanswerable = [p for p in zh["pairs"]["pairs"] if not p["answerable"]]
    assert len(unanswerable) >= 10
    for p in unanswerable:
        chosen = labels[f"{p['context_id']}/{p['chosen_generator']}"]
        rejected = labels[f"{p['context_id']}/{p['rejected_generator']}"]
        assert p["dimension"] == "refusal_unanswerable"
        # Behaviour alone decides (docs/method.md §5: abstained > attempted > unusable); a pasted sentence
        # that takes no position is unusable (§4), below an attempt too.
        rank = {"abstained": 0, "attempted": 1, "unusable": 2}
        assert rank[chosen["behaviour"]] < rank[rejected["behaviour"]], p["id"]
    hand = [p for p in unanswerable if p["context_id"] == "qa-zh-2/random_context"
            and {p["chosen_generator"], p["rejected_generator"]} == {"import:refuser", "import:quote"}]
    assert len(hand) == 1 and hand[0]["chosen"] == ZH_REFUSAL and hand[0]["rejected"] == "王某的代理律师是陈律师。"


@slow
def test_no_english_template_text_in_chinese_outputs(zh):
    """The fixtures hold no Latin letters, so any in a Chinese output came from an English template."""
    latin = re.compile(r"[A-Za-z]")
    texts = [q["question"] + q["answer"] for q in zh["qas"].values()]
    texts += [c["text"] for c in zh["candidates"]]
    texts += [p[k] for d in ("pairs", "pairs_aug") for p in zh["pairs"][d] for k in ("chosen", "rejected")]
    rewritten = [p for p in zh["pairs"]["pairs_aug"] if p["augmented"]]
    assert len(rewritten) >= 10  # the augmenter did rewrite Chinese pairs
    assert [t for t in texts if latin.search(t)] == []
    # The prompt's question is Chinese too (its instructions follow the prompt template of the model).
    assert all(p["prompt"] for p in zh["pairs"]["pairs"])


@slow
def test_chinese_token_counts_within_a_fifth_of_a_chinese_models_tokenizer(repo, zh):
    """Against a tokenizer made for Chinese, count_tokens is within 20% on the profile's Chinese passages
    and answers: Qwen's 151k-entry BPE, whose vocabulary file the dashscope package ships (read from
    site-packages; nothing is downloaded). It is the kind of tokenizer a reward model on real Chinese
    decisions has, so augmentation thresholds and length diagnostics are in its units. (The profile's own
    byte-level BPE is no yardstick: 1,024 entries trained on three Chinese passages leave ~1.8 tokens per
    character.)"""
    pytest.importorskip("tiktoken")
    tokenizers = pytest.importorskip("dashscope.tokenizers")
    qwen = tokenizers.get_tokenizer("qwen-7b-chat")
    passages = [p["text"] for p in read_jsonl(repo / "data/interim/passages.jsonl") if language.detect(p["text"]) == "zh"]
    answers = sorted({c["text"] for c in zh["candidates"]})
    for texts in (passages, answers):
        assert len(texts) >= 3
        ours = sum(language.count_tokens(t, "zh") for t in texts)
        theirs = sum(len(qwen.encode(t)) for t in texts)
        assert abs(ours / theirs - 1) <= 0.2, (ours, theirs)


@slow
def test_irac_on_typed_chinese_fields(repo):
    """What the rule system achieves on the two Chinese decisions (typed 当事人 name, 违法所得 money, 处罚日期
    date). A copy-the-reference system's > 0.9 exact accuracy on typed zh money/date fields is tested at
    unit level (test_irac_metrics.py::test_copying_the_reference_in_other_formats_is_exact_on_typed_chinese_
    money_and_dates). The rule extractor fills 3 of the 6 reference fields (违法所得 twice, 当事人 once; the
    date is not in either decision's text), and all 3 match exactly, "1200000" against the reference
    1200000 and "4,665,091.79元" against itself."""
    metrics = json.loads((repo / "reports/irac_details.json").read_text())
    assert metrics["languages"] == {"en": 12, "zh": 2}
    by_zh = metrics["fields"]["rule/standard"]["by_language"]["zh"]
    assert (by_zh["cases"], by_zh["reference_fields"], by_zh["filled"]) == (2, 6, 3)
    assert by_zh["exact"] == {"accuracy": 1.0, "correct": 3, "total": 3}
    assert by_zh["overall_accuracy"]["mean"] == 1.0 and by_zh["completeness"]["mean"] == 0.5


@slow
def test_data_report_has_figures_by_language(repo, zh):
    metrics = json.loads((repo / "reports/data_details.json").read_text())
    by = metrics["by_language"]
    assert by["questions"]["zh"] == len(zh["qas"]) == 7
    assert sum(by["labels"]["zh"].values()) == len(zh["candidates"])
    assert by["labels"]["zh"]["abstained"] == sum(zh["labels"][c["id"]]["behaviour"] == "abstained"
                                                  for c in zh["candidates"])
    assert sum(row["zh"] for row in by["pairs"].values()) == len(zh["pairs"]["pairs"])
    # Six answerable zh questions (qa-zh-2 has no answer); BM25 finds every zh gold among 3 zh passages.
    assert by["recall_at_10"]["zh"]["questions"] == 6 and by["recall_at_10"]["zh"]["bm25"] == 1.0
    assert "## By language" in (repo / "reports/data.md").read_text()
