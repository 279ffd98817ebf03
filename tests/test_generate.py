"""The generate stage: prompts, candidate ids, the cache-backed run and resuming after a kill."""

from __future__ import annotations

import json
import re

import pytest

from pipeline import language
from pipeline.backends import Request, Response, make_generator
from pipeline.io import InputError, read_records, write_records
from pipeline.params import GenerateParams
from pipeline.prompts import answer_prompt
from pipeline.records import QA, Candidate, Context, Passage
from pipeline.stages import generate as stage

REFUSAL = GenerateParams().refusal

PASSAGES = [
    Passage(
        "a/p0", "a", "a", "Orders", "The Tribunal ordered Mr Chan Tai-man to pay a penalty of HK$2,400,000."
    ),
    Passage(
        "a/p1", "a", "a", "Facts", "Mr Chan bought 200,000 shares of Pacific Harbour Holdings on 3 May 2019."
    ),
    Passage(
        "b/p0", "b", "b", "Background", "The tenant fell behind with the rent of the flat for four months."
    ),
    Passage("c/p0", "c", "c", "Sentence", "The defendant received 18 months' imprisonment for robbery."),
]
QAS = [
    QA("q1", "What penalty did the Tribunal order Mr Chan Tai-man to pay?", "HK$2,400,000", "a/p0", "a", "factual",
       ["HK$2,400,000"], []),
    QA("q2", "How many shares of Pacific Harbour Holdings did Mr Chan buy?", "200,000", "a/p1", "a", "factual",
       ["200,000"], []),
]  # fmt: skip
CONTEXTS = [
    Context("q1/gold_plus_random", "q1", "gold_plus_random", True, ["b/p0", "a/p0", "c/p0"], 1),
    Context("q1/random_context", "q1", "random_context", False, ["b/p0", "c/p0"], None),
    Context("q2/gold_only", "q2", "gold_only", True, ["a/p1"], 0),
    Context("q2/random_context", "q2", "random_context", False, ["c/p0", "b/p0"], None),
]


def jobs(cfg=None):
    cfg = cfg or GenerateParams()
    return stage.build_requests(CONTEXTS, {p.id: p for p in PASSAGES}, {q.id: q for q in QAS}, cfg, seed=13)


def test_requests_carry_the_spec_prompt_in_passage_order_and_the_decoding():
    cfg = GenerateParams()
    out = jobs(cfg)
    assert [c.id for c, _ in out] == [c.id for c in CONTEXTS]
    ctx, req = out[0]
    expected = answer_prompt([PASSAGES[2], PASSAGES[0], PASSAGES[3]], QAS[0].question, cfg.refusal)
    assert req.prompt == expected
    assert (req.temperature, req.top_p, req.max_new_tokens) == (0.0, 1.0, 256)
    assert len({r.seed for _, r in out}) == len(out)  # per-context seeds for sampling runs


def test_generator_slug_keeps_safe_names_and_hashes_the_rest():
    assert stage.generator_slug("offline:cautious") == "offline:cautious"
    slug = stage.generator_slug("openai:http://localhost:8000/v1|meta/Llama 3")
    assert "/" not in slug and "|" not in slug and " " not in slug
    assert slug != stage.generator_slug("openai:http://localhost:8001/v1|meta/Llama 3")


def test_offline_panel_answers_and_refuses_from_what_the_context_holds(tmp_path):
    gens = [make_generator(f"offline:{s}") for s in ("cautious", "confident", "terse", "verbose")]
    candidates, calls = stage.generate_candidates(jobs(), gens, tmp_path, progress=False)
    assert calls == {g.name: 4 for g in gens}
    assert len(candidates) == 16 and [c.id for c in candidates] == sorted(c.id for c in candidates)
    by_id = {c.id: c for c in candidates}
    for g in gens:
        assert "HK$2,400,000" in by_id[f"q1/gold_plus_random/{g.name}"].text
        assert by_id[f"q1/random_context/{g.name}"].text == REFUSAL
        assert by_id[f"q2/random_context/{g.name}"].text == REFUSAL
        assert "200,000" in by_id[f"q2/gold_only/{g.name}"].text
    # Every record passes the schema (ids are safe, fields typed).
    write_records(tmp_path / "c.jsonl", candidates)
    assert read_records(tmp_path / "c.jsonl", Candidate) == candidates


ZH_PASSAGES = [
    Passage("z/p0", "z", "z", "处罚决定", "本会决定没收张某某违法所得4,665,091.79元，并处以同等金额的罚款。"),
    Passage("z/p1", "z", "z", "违法事实", "张某某于2011年5月3日获悉重组信息，次日买入华兴股份股票120,000股。"),
    Passage("y/p0", "y", "y", "裁决", "出租人李某不得扣留租客押金，审裁处驳回其反申索。"),
]
ZH_QAS = [
    QA("zq1", "根据《张某某内幕交易案》，违法所得是多少？", "违法所得为4,665,091.79元。", "z/p0", "z", "factual",
       ["4,665,091.79元"], []),
    QA("zq2", "根据《张某某内幕交易案》，是否没收张某某的违法所得？", "是。", "z/p0", "z", "yesno", ["Yes"], []),
]  # fmt: skip
ZH_CONTEXTS = [
    Context("zq1/gold_plus_random", "zq1", "gold_plus_random", True, ["y/p0", "z/p0"], 1),
    Context("zq1/random_context", "zq1", "random_context", False, ["y/p0"], None),
    Context("zq2/gold_plus_random", "zq2", "gold_plus_random", True, ["z/p1", "z/p0"], 1),
]


def test_offline_panel_answers_chinese_questions_in_chinese(tmp_path):
    gens = [make_generator(f"offline:{s}") for s in ("cautious", "confident", "terse", "verbose")]
    requests = stage.build_requests(
        ZH_CONTEXTS, {p.id: p for p in ZH_PASSAGES}, {q.id: q for q in ZH_QAS}, GenerateParams(), seed=13
    )
    candidates, _ = stage.generate_candidates(requests, gens, tmp_path, progress=False)
    by_id = {c.id: c.text for c in candidates}
    for g in gens:
        assert "4,665,091.79元" in by_id[f"zq1/gold_plus_random/{g.name}"]
        assert by_id[f"zq1/random_context/{g.name}"] == "提供的段落没有足够的信息来回答这个问题。"
        assert by_id[f"zq2/gold_plus_random/{g.name}"].startswith("是。")
    # Chinese answers carry no Latin letters: no English template text around the Chinese.
    assert not [t for t in by_id.values() if re.search("[A-Za-z]", t)]


class Flaky:
    """Counts calls; dies (like a killed process) after `die_after` of them."""

    batch_size = 1

    def __init__(self, name, die_after=None):
        self.name, self.die_after, self.calls = name, die_after, 0

    def generate(self, requests):
        if self.die_after is not None and self.calls >= self.die_after:
            raise KeyboardInterrupt
        self.calls += len(requests)
        return [Response(f"answer {len(r.prompt)}", "stop", {}) for r in requests]


def test_a_restarted_run_reuses_the_cache_and_makes_no_repeated_calls(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        stage.generate_candidates(jobs(), [Flaky("x:model", die_after=3)], tmp_path, progress=False)
    again = Flaky("x:model")
    first, calls = stage.generate_candidates(jobs(), [again], tmp_path, progress=False)
    assert calls == {"x:model": 1} and again.calls == 1
    third = Flaky("x:model")
    second, calls = stage.generate_candidates(jobs(), [third], tmp_path, progress=False)
    assert calls == {"x:model": 0} and third.calls == 0 and second == first
    # A changed decoding parameter is a different request.
    other = Flaky("x:model")
    cfg = GenerateParams(decoding=GenerateParams().decoding.__class__(max_new_tokens=64))
    stage.generate_candidates(jobs(cfg), [other], tmp_path, progress=False)
    assert other.calls == 4


def write_inputs(tmp_path, contexts=CONTEXTS, extra_params=""):
    write_records(tmp_path / "passages.jsonl", PASSAGES)
    write_records(tmp_path / "qa.jsonl", QAS)
    write_records(tmp_path / "contexts.jsonl", contexts)
    (tmp_path / "params.yaml").write_text(
        "generate:\n  variants: [gold_plus_random, gold_only, random_context]\n" + extra_params
    )
    return [
        "--params", str(tmp_path / "params.yaml"), "--passages", str(tmp_path / "passages.jsonl"),
        "--qa", str(tmp_path / "qa.jsonl"), "--contexts", str(tmp_path / "contexts.jsonl"),
        "--out", str(tmp_path / "candidates.jsonl"), "--cache-dir", str(tmp_path / "cache"),
    ]  # fmt: skip


def test_stage_end_to_end_is_deterministic_and_resumable(tmp_path, capsys):
    args = write_inputs(tmp_path)
    stage.main(args)
    out = capsys.readouterr().out
    assert "16 candidates (4 contexts x 4 generators); 16 backend calls, 0 from cache" in out
    first = (tmp_path / "candidates.jsonl").read_bytes()
    stage.main(args)
    assert "0 backend calls, 16 from cache" in capsys.readouterr().out
    assert (tmp_path / "candidates.jsonl").read_bytes() == first
    rows = [json.loads(line) for line in first.decode().splitlines()]
    assert {r["generator"] for r in rows} == {
        "offline:cautious",
        "offline:confident",
        "offline:terse",
        "offline:verbose",
    }


def test_stage_only_answers_the_configured_variants(tmp_path, capsys):
    args = write_inputs(tmp_path)
    (tmp_path / "params.yaml").write_text("generate:\n  variants: [gold_only]\n  panel: [offline:terse]\n")
    stage.main(args)
    rows = [json.loads(line) for line in (tmp_path / "candidates.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q2/gold_only/offline:terse"]
    assert rows[0]["text"].startswith("200,000") or "200,000" in rows[0]["text"]


def test_stage_names_file_line_and_field_of_a_dangling_reference(tmp_path):
    bad = CONTEXTS[:2] + [Context("q2/gold_only", "q2", "gold_only", True, ["a/p9"], 0)]
    args = write_inputs(tmp_path, contexts=bad)
    with pytest.raises(InputError) as info:
        stage.main(args)
    assert "contexts.jsonl, line 3, field 'passage_ids'" in str(info.value)
    assert not (tmp_path / "candidates.jsonl").exists()


def test_request_decoding_only_keys_the_seed_when_sampling():
    assert "seed" not in Request("p", seed=4).decoding()
    assert Request("p", temperature=0.5, seed=4).decoding()["seed"] == 4


# A sentence of a criminal judgment in the manner of tests/fixtures/zh_judgments.json: one finding
# chained with ，, far past what an answer should quote.
LONG_ZH = ("公诉机关指控，被告人周某虚构其能够低价购得二手工程车辆的事实，先后以收取购车款、过户费等名义，"
           "骗取被害人吴某、郑某、冯某等七人钱款共计人民币1,367,500元，其中骗取吴某的钱款为412,000元，"
           "骗取冯某的钱款为198,000元，案发后，公安机关从周某处扣押现金23,600元及手机两部，"
           "周某到案后虽对基本事实予以供认，但辩称部分款项系正常借款，公诉机关认为其辩解不能成立。")


@pytest.mark.parametrize(("question", "span"), [
    # 冯某 singles the clause out among the three that name 钱款.
    ("周某骗取冯某的钱款是多少？", "骗取冯某的钱款为198,000元"),
    ("公安机关从周某处扣押了多少现金？", "公安机关从周某处扣押现金23,600元及手机两部"),
    # The two clauses before add key terms the best clause lacks (收取, 过户费, 名义; then 周某); the one
    # after (其中骗取吴某的钱款为412,000元) adds none.
    ("周某以收取过户费等名义骗取了七人多少钱款？",
     "被告人周某虚构其能够低价购得二手工程车辆的事实，先后以收取购车款、过户费等名义，"
     "骗取被害人吴某、郑某、冯某等七人钱款共计人民币1,367,500元"),
    ("周某到案后是否对基本事实予以供认？", "周某到案后虽对基本事实予以供认"),
])
def test_a_long_chinese_sentence_is_answered_from_the_clauses_that_hold_the_answer(question, span):
    from pipeline.backends.offline import zh_span

    assert zh_span(LONG_ZH, question) == span
    # A short sentence is quoted whole, as before.
    short = "经查明，张某于2010年3月买入某公司股票，获利4,665,091.79元。"
    assert zh_span(short, "张某获利多少？") == short


def test_a_chinese_answer_shrinks_to_fit_max_new_tokens_instead_of_being_cut():
    """The verbose style quotes two sentences; under a small cap it quotes shorter clause runs of them
    rather than being cut. Only a cap below the answering clause plus the style's frame cuts it."""
    verdict = ("本院认为，被告人周某以非法占有为目的，虚构事实骗取他人财物，数额特别巨大，其行为已构成诈骗罪，"
               "鉴于其到案后如实供述基本犯罪事实，且部分赃款已被扣押，依法可以从轻处罚，判处有期徒刑十年六个月，"
               "并处罚金人民币100,000元。")
    prompt = answer_prompt([Passage("d/p0", "d", "d", "判决", LONG_ZH + verdict, 0)], "周某骗取冯某的钱款是多少？",
                           "提供的段落没有足够的信息来回答这个问题。")
    lengths = []
    for cap in (256, 60, 40):
        r = make_generator("offline:verbose").generate([Request(prompt, 0.0, 1.0, cap, 1)])[0]
        assert r.finish_reason == "stop" and "骗取冯某的钱款为198,000元。" in r.text, (cap, r.text)
        lengths.append(language.count_tokens(r.text, "zh"))
    assert lengths[0] == lengths[1] <= 60 and lengths[2] < lengths[1] and lengths[2] <= 40
    cut = make_generator("offline:verbose").generate([Request(prompt, 0.0, 1.0, 20, 1)])[0]
    assert cut.finish_reason == "length" and language.count_tokens(cut.text, "zh") <= 20
