"""Dataset cards of the pair sets (pipeline/reporting/cards.py) on small English and Chinese records: the
front matter a hub reads, counts per split x dimension x language and length statistics checked by hand."""

from __future__ import annotations

import yaml

from pipeline.params import Params
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Pair, Passage
from pipeline.reporting import cards
from pipeline.stages import augment as augment_stage
from pipeline.stages import pairs as pairs_stage

REFUSAL_EN = "The provided passages do not contain enough information to answer this question."
REFUSAL_ZH = "提供的段落没有足够的信息来回答这个问题。"


def pair(i: int, split: str, dimension: str, question: str, chosen: str, rejected: str, tokens: tuple[int, int],
         prefix: str = "syn", augmented: bool = False) -> Pair:
    zh = cards.language.detect(question) == "zh"
    passages = [Passage(f"{prefix}-{i}/s1", f"{prefix}-{i}", "f", "裁决" if zh else "Ruling",
                        "被告人赔偿损失人民币5万元。" if zh else "The tenant must pay rent.")]
    prompt, spans = answer_prompt_with_spans(passages, question, REFUSAL_ZH if zh else REFUSAL_EN)
    return Pair(f"{prefix}-{i}/q1/gold_only/0", f"{prefix}-{i}/q1", f"{prefix}-{i}/q1/gold_only", "gold_only", True,
                split, dimension, prompt, chosen, rejected, "offline:confident", "offline:cautious", tokens[0],
                tokens[1], augmented, "augmented" if augmented else "generated", spans, 0)


def sample() -> list[Pair]:
    return [
        pair(1, "train", "refusal_answerable", "Who must pay rent?", "The tenant must pay rent.", REFUSAL_EN, (6, 13)),
        pair(2, "train", "completeness", "How much rent is due?", "HK$5,000 a month, in advance.", "HK$5,000.",
             (9, 3)),
        pair(3, "test", "refusal_answerable", "被告人赔偿了多少损失？", "被告人赔偿损失人民币5万元。", REFUSAL_ZH,
             (7, 10), prefix="doc", augmented=True),
        pair(4, "train", "correctness", "被告人是否赔偿了损失？", "是，赔偿了5万元。", "否。", (6, 2), prefix="doc"),
    ]


def test_question_and_language_come_from_the_prompt():
    en, _, zh, _ = sample()
    assert cards.question_of(en.prompt) == "Who must pay rent?" and cards.pair_language(en) == "en"
    assert cards.question_of(zh.prompt) == "被告人赔偿了多少损失？" and cards.pair_language(zh) == "zh"
    assert cards.question_of("no structure here") == "no structure here"


def test_card_front_matter_counts_and_lengths():
    prov = cards.Provenance("augment", {"seed": 1, "augment": {"samples": 4}}, "rule:strict", "offline:rewriter",
                            ["made from pairs"])
    text = cards.render(sample(), "pairs_aug", prov)
    head, body = text.split("---\n")[1], text.split("---\n", 2)[2]
    meta = yaml.safe_load(head)
    assert meta["language"] == ["en", "zh"] and meta["license"] == "other"
    assert meta["size_categories"] == ["n<1K"] and "text-generation" in meta["task_categories"]
    assert meta["configs"][0]["data_files"][2] == {"split": "test", "path": "test.jsonl"}
    assert meta["configs"][1]["data_files"][0] == {"split": "train", "path": "trl/train.jsonl"}
    assert f"params digest `{cards.params_digest({'augment': {'samples': 4}, 'seed': 1})}`" in body
    assert "`offline:cautious`, `offline:confident`" in body and "`rule:strict`" in body
    assert "Rewriter: `offline:rewriter`; 1 of 4 pairs" in body and "- made from pairs" in body
    assert "`doc-` 2, `syn-` 2" in body
    # split x dimension x language: en, zh, total
    assert "| train | refusal_answerable | 1 | 0 | 1 |" in body
    assert "| train | correctness | 0 | 1 | 1 |" in body
    assert "| train | **all** | 2 | 1 | 3 |" in body
    assert "| test | refusal_answerable | 0 | 1 | 1 |" in body and "| val | **all** | 0 | 0 | 0 |" in body
    # train: chosen tokens 6, 9, 6 (mean 7.0, median 6); rejected 13, 3, 2 (mean 6.0, median 3); chosen
    # longer in 2 of 3; chars of the chosen answers 25, 29, 9 (mean 21.0).
    assert "| train | 3 | 7.0 | 6.0 | 6.0 | 3.0 |" in body
    row = next(line for line in body.splitlines() if line.startswith("| train | 3 |"))
    assert row.split(" | ")[6] == "21.0" and row.endswith("| 0.667 |")
    assert "Synthetic decisions follow" in body and "machine paraphrases" in body


def test_card_digest_is_stable_and_follows_the_params():
    a = cards.params_digest({"seed": 1, "pairs": {"train": 0.8}})
    assert a == cards.params_digest({"pairs": {"train": 0.8}, "seed": 1}) and len(a) == 16
    assert a != cards.params_digest({"seed": 2, "pairs": {"train": 0.8}})
    prm = Params()
    assert set(pairs_stage.card_params(prm)) == {"seed", "pairs", "judge.judges", "generate.refusal",
                                                 "generate.refusals"}
    assert set(augment_stage.card_params(prm)) == {"seed", "augment", "judge", "generate.refusal", "generate.refusals"}


def test_chinese_only_card_and_an_empty_set():
    zh = [p for p in sample() if cards.pair_language(p) == "zh"]
    text = cards.render(zh, "pairs", cards.Provenance("pairs", {"seed": 1}, "rule:strict"))
    assert yaml.safe_load(text.split("---\n")[1])["language"] == ["zh"]
    assert "| split | dimension | zh | total |" in text and "Rewriter" not in text
    assert "Synthetic decisions follow" not in text  # no syn- question
    empty = cards.render([], "pairs", cards.Provenance("pairs", {}, "rule:strict"))
    assert "0 pairs in all" in empty and "No pairs." in empty
