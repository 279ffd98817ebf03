"""scripts/sample_validation_zh.py: the Chinese draw of unlabelled validation items (the stratified draw of
scripts/sample_validation.py restricted to Chinese questions, bare refusals thinned by a seeded share).

The interim folder is built here from real record types, English and Chinese side by side, with a labels/
folder the script must never open (an audit hook sees every file open of the process)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from pipeline.io import write_records
from pipeline.records import QA, Candidate, Context, Passage

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
spec = importlib.util.spec_from_file_location("sample_validation_zh", ROOT / "scripts" / "sample_validation_zh.py")
svz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(svz)

ZH_REFUSAL = "提供的段落没有足够的信息来回答这个问题。"
VARIANTS = ("gold_only", "gold_plus_random", "random_context")
GENERATORS = ("offline:cautious", "offline:confident")
OPENED: list[str] = []
WATCHING = [False]


def _audit(event: str, args: tuple) -> None:
    if WATCHING[0] and event == "open" and args and isinstance(args[0], (str, Path)):
        OPENED.append(str(args[0]))


sys.addaudithook(_audit)


def build_interim(root: Path) -> Path:
    """Twelve Chinese factual questions (anonymised names, half-width punctuation), one English one and one
    Chinese yes/no question (reference 否), in three variants, answered by two generators: the cautious one
    refuses with the bare sentence on every context, and once with a reason added; the confident one
    quotes its gold sentence, after a 是 on the yes/no question."""
    interim = root / "data" / "interim"
    passages, qas, contexts, candidates = [], [], [], []
    for q in range(14):
        dec = f"zh-{q:02d}"
        zh = q != 12
        text = (f"经审理查明:被告朱{q}向原告曹x{q}借款{q + 1}0,000元。" if zh
                else f"Chan Wai-man must pay HK${q},000 in arrears.")
        gold = Passage(f"{dec}/p1", dec, dec, "", text, 0)
        passages.append(gold)
        question = f"被告朱{q}借了多少钱?" if zh else "How much must Chan Wai-man pay?"
        qa = QA(f"{dec}/q1", question, text, gold.id, dec, "factual", [text], [])
        if q == 13:
            qa = QA(f"{dec}/q1", "被告朱13是否归还了借款?", "否", gold.id, dec, "yesno", ["No"], [])
        qas.append(qa)
        for variant in VARIANTS:
            answerable = variant != "random_context"
            ids = [gold.id] if answerable else [passages[0].id if q else gold.id]
            ctx = Context(f"{qa.id}/{variant}", qa.id, variant, answerable, ids, 0 if answerable else None)
            contexts.append(ctx)
            for gen in GENERATORS:
                if gen == "offline:cautious":
                    said = ZH_REFUSAL if zh else "The passages do not say."
                    if q == 3 and variant == "gold_only":
                        said = "本案借款金额不明。" + ZH_REFUSAL
                else:
                    said = ("是。" + text) if q == 13 else text
                candidates.append(Candidate(f"{ctx.id}/{gen}", ctx.id, gen, said, "stop", {}))
    write_records(interim / "passages.jsonl", passages)
    write_records(interim / "qa.jsonl", qas)
    write_records(interim / "contexts.jsonl", contexts)
    write_records(interim / "candidates.jsonl", candidates)
    (interim / "labels").mkdir()
    (interim / "labels" / "rule-strict.jsonl").write_text('{"secret": "a judge label"}\n', encoding="utf-8")
    return interim


def draw(tmp_path: Path, keep: float, name: str, *extra: str) -> list[dict]:
    interim = build_interim(tmp_path / name)
    out = tmp_path / f"{name}.jsonl"
    WATCHING[0] = True
    try:
        svz.main(["--interim", str(interim), "--source", "t", "--params", str(ROOT / "params" / "bilingual.yaml"),
                  "--per-stratum", "13", "--keep-refusals", str(keep), "--seed", "3", "--out", str(out), *extra])
    finally:
        WATCHING[0] = False
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def bare(items: list[dict]) -> list[str]:
    return [i["id"] for i in items if i["candidate"]["text"] == ZH_REFUSAL]


def test_only_chinese_items_and_every_answer_that_is_not_a_bare_refusal(tmp_path):
    every = draw(tmp_path, 1.0, "all")
    none = draw(tmp_path, 0.0, "none")
    assert {i["language"] for i in every} == {"zh"} and all(i["refusal"] == ZH_REFUSAL for i in every)
    assert len(every) == 13 * len(VARIANTS) * len(GENERATORS)  # every Chinese candidate drawn
    assert bare(none) == [] and len(bare(every)) > 0
    # Thinning only removes bare refusals; the refusal with a reason added stays.
    assert [i for i in every if i["id"] not in bare(every)] == none
    assert [i["id"] for i in none if i["candidate"]["text"].startswith("本案借款金额不明")] == [
        "t/zh-03/q1/gold_only/offline:cautious"]


def test_a_share_of_bare_refusals_is_kept_the_same_way_every_time(tmp_path):
    every = set(bare(draw(tmp_path, 1.0, "all")))
    half_a = bare(draw(tmp_path, 0.5, "a"))
    half_b = bare(draw(tmp_path, 0.5, "b"))
    assert half_a == half_b and set(half_a) < every and half_a


def test_judge_labels_are_never_opened(tmp_path):
    OPENED.clear()
    draw(tmp_path, 0.5, "audit")
    assert any(p.endswith("candidates.jsonl") for p in OPENED)  # the hook does see the sampler's opens
    assert [p for p in OPENED if "labels" in Path(p).parts] == []


def test_yes_no_flips_are_answers_against_the_reference_on_answerable_contexts(tmp_path):
    # Only the flip extras (no strata): the 是 answers of the two answerable contexts, not the one on
    # random_context (unanswerable) nor any factual answer.
    only = draw(tmp_path, 0.0, "only", "--yesno-flips", "10", "--per-stratum", "0")
    assert sorted(i["id"] for i in only) == ["t/zh-13/q1/gold_only/offline:confident",
                                             "t/zh-13/q1/gold_plus_random/offline:confident"]
    # Beside the strata, the extras add no candidate twice.
    both = draw(tmp_path, 1.0, "both", "--yesno-flips", "10")
    assert len({i["id"] for i in both}) == len(both) == 13 * len(VARIANTS) * len(GENERATORS)
