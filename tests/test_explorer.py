"""The pair explorer (explore stage) built from small English and Chinese fixture records, opened in
headless Chromium with networking off (scripts/check_explorer.py drives it over the DevTools pipe)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from pipeline.io import write_records
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import QA, Candidate, Label, Pair, Passage, Score
from pipeline.stages import explore

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_explorer", ROOT / "scripts" / "check_explorer.py")
check_explorer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_explorer)

REFUSAL_EN = "The provided passages do not contain enough information to answer this question."
REFUSAL_ZH = "提供的段落没有足够的信息来回答这个问题。"
ZH_QUESTION = "被告人赔偿了被害人多少经济损失？"
ZH_ANSWER = "被告人赔偿被害人经济损失人民币五万元，并取得了被害人的谅解，本院依法予以从轻处罚。" * 3
GOLD_EN = "The tenant must give four weeks notice in writing."


def project(root: Path) -> dict[str, str]:
    """Fixture records under `root`: 3 English pairs and 1 Chinese, in pairs and pairs_aug (one rewritten),
    with labels of one judge and base-model scores."""
    qas, cands, labels, pairs, aug, scores = [], [], [], [], [], []
    specs = [  # (qa, question, passages, gold slot, chosen, rejected, dimension, split)
        ("syn-1/q1", "How much notice must the tenant give?", ["Rent is due monthly.", GOLD_EN], 1,
         "Four weeks in writing.", REFUSAL_EN, "refusal_answerable", "test"),
        ("syn-2/q1", "Was the landlord's claim upheld?", ["The claim was dismissed.", "Costs follow the event."], 0,
         "No. The claim was dismissed.", "No.", "completeness", "test"),
        ("syn-3/q1", "What penalty was imposed?", ["The hearing was adjourned.", "Bail was granted."], None,
         REFUSAL_EN, "A fine of HK$5,000.", "refusal_unanswerable", "val"),
        ("doc-4/q1", ZH_QUESTION, ["本案系盗窃案件。", "被告人赔偿被害人经济损失人民币五万元。"], 1,
         ZH_ANSWER, REFUSAL_ZH, "refusal_answerable", "test"),
    ]
    for n, (qa_id, question, texts, gold, chosen, rejected, dim, split) in enumerate(specs):
        zh = qa_id.startswith("doc")
        passages = [Passage(f"{qa_id}-p{k}", qa_id, "f", "裁判" if zh else "Ruling", t) for k, t in enumerate(texts)]
        prompt, spans = answer_prompt_with_spans(passages, question, REFUSAL_ZH if zh else REFUSAL_EN)
        variant = "gold_plus_bm25" if gold is not None else "random_context"
        ctx = f"{qa_id}/{variant}"
        qas.append(QA(qa_id, question, chosen if gold is not None else "", passages[gold or 0].id, "f", "factual", [], []))
        for gen, text in (("offline:a", chosen), ("offline:b", rejected)):
            cands.append(Candidate(f"{ctx}/{gen}", ctx, gen, text, "stop"))
            refusal = text in (REFUSAL_EN, REFUSAL_ZH)
            labels.append(Label(f"{ctx}/{gen}", "rule:strict", "abstained" if refusal else "attempted",
                                None if refusal else "fully_supported", None if refusal else "correct",
                                None if refusal else "complete", "ok"))
        pair = Pair(f"{ctx}/0", qa_id, ctx, variant, gold is not None, split, dim, prompt, chosen, rejected,
                    "offline:a", "offline:b", len(chosen.split()), len(rejected.split()), False, "generated",
                    spans, gold)
        pairs.append(pair)
        rewritten = n == 1
        aug.append(Pair(**{**pair.__dict__, "rejected": "No, the claim failed." if rewritten else rejected,
                           "augmented": rewritten, "source": "augmented" if rewritten else "generated"}))
        for scoring in ("sum", "mean", "ref_sum"):
            margin = [2.0, -1.5, 0.5, 3.0][n]
            scores.append(Score(pair.id, "base", scoring, margin, 0.0, margin, margin > 0, 5, 7))
    write_records(root / "interim/qa.jsonl", qas)
    write_records(root / "interim/candidates.jsonl", cands)
    write_records(root / "interim/labels/rule-strict.jsonl", labels)
    for corpus, rows in (("pairs", pairs), ("pairs_aug", aug)):
        for split in ("test", "val"):
            write_records(root / f"processed/{corpus}/{split}.jsonl", [p for p in rows if p.split == split])
    write_records(root / "scores/base/pairs.jsonl", scores)
    (root / "scores/meta.json").write_text(json.dumps({"models": ["base"], "corpora": {"pairs": {}}}))
    return {"en": pairs[0].id, "rewritten": pairs[1].id, "zh": pairs[3].id}


def build(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    ids = project(tmp_path / "data")
    out = tmp_path / "explorer"
    explore.main(["--pairs-root", str(tmp_path / "data/processed"), "--interim", str(tmp_path / "data/interim"),
                  "--scores", str(tmp_path / "data/scores"), "--out", str(out)])
    return out, ids


def test_explorer_files_and_data(tmp_path):
    out, ids = build(tmp_path)
    assert sorted(p.name for p in out.iterdir()) == ["data-test.js", "data-val.js", "index.html"]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert not re.findall(r"""(?:src|href|url)\s*[=(]\s*["']?(?:https?:)?//""", html), "the page names an outside URL"
    text = (out / "data-test.js").read_text(encoding="utf-8")
    assert text.startswith('explorerData("test",') and ZH_QUESTION in text
    data = json.loads(text[len('explorerData("test",'):-3])
    by_id = {p["id"]: p for p in data["pairs"]}
    rw = by_id[ids["rewritten"]]
    assert rw["u"]["rw"] == 1 and rw["u"]["x"][1] == "No, the claim failed." and "x" not in by_id[ids["en"]]["u"]
    assert rw["m"]["pairs"]["base"] == [-1.5, -1.5, -1.5] and "pairs_aug" not in rw["m"]
    assert data["labels"][by_id[ids["en"]]["L"][0][1]] == "abstained"
    assert by_id[ids["zh"]]["gs"] == 1 and data["qas"]["doc-4/q1"][2] == "zh"


@pytest.mark.skipif(check_explorer.find_browser() is None, reason="no Chromium (Debian: apt-get install chromium)")
def test_explorer_in_headless_chromium(tmp_path):
    out, ids = build(tmp_path)
    with check_explorer.Page(check_explorer.find_browser()) as page:
        page.open((out / "index.html").as_uri())
        # Test split, both corpora: 3 pairs x 2 rows.
        assert page.eval("document.getElementById('count').dataset.n") == "6"
        assert page.eval("""(() => { const s = document.getElementById('f-dimension'); s.value = 'completeness';
            s.dispatchEvent(new Event('change')); return document.getElementById('count').dataset.n })()""") == "2"
        assert page.eval("""(() => { const s = document.getElementById('f-lang'); s.value = 'zh';
            s.dispatchEvent(new Event('change')); return document.getElementById('count').dataset.n })()""") == "0"
        page.eval("document.getElementById('reset').click()")
        assert page.eval("""(() => { const s = document.getElementById('f-wrong'); s.value = 'base';
            s.dispatchEvent(new Event('change')); return document.getElementById('count').dataset.n })()""") == "1"

        page.eval(f"explorer.go({json.dumps(ids['en'])}); new Promise(r => setTimeout(r, 200))")
        gold = page.eval("[...document.querySelectorAll('.passage.gold')].map(e => e.innerText)")
        assert len(gold) == 1 and GOLD_EN in gold[0]
        view = page.eval(check_explorer.VIEW_TEXT)
        assert "Four weeks in writing." in view and REFUSAL_EN in view and "prefers chosen" in view

        # A deep link to a pair of another split loads that split's file.
        page.eval("location.hash = '#pair=syn-3/q1/random_context/0'; new Promise(r => setTimeout(r, 500))")
        assert page.eval("explorer.state.split") == "val"
        assert "unanswerable: no passage holds the answer" in page.eval(check_explorer.VIEW_TEXT)

        page.eval(f"explorer.go({json.dumps(ids['zh'])}); new Promise(r => setTimeout(r, 500))")
        question = page.eval("(() => { const q = document.querySelector('#view .q'); "
                             "return [q.lang, q.innerText, q.getBoundingClientRect().height] })()")
        assert question[0] == "zh" and question[1] == ZH_QUESTION and question[2] > 0
        # The long Chinese answer wraps inside its box (no horizontal overflow) over several lines.
        box = page.eval("(() => { const t = document.querySelector('.answer.chosen .text'); "
                        "return [t.lang, t.innerText, t.scrollWidth <= t.clientWidth, t.getBoundingClientRect().height] })()")
        assert box[0] == "zh" and box[1] == ZH_ANSWER and box[2] and box[3] > 40
        assert page.eval("document.querySelector('.passage.gold').innerText").endswith("被告人赔偿被害人经济损失人民币五万元。")

        page.eval("document.getElementById('reset').click(); explorer.random20()")
        assert page.eval("document.getElementById('count').dataset.n") == "6"  # fewer than 20 in the split
        first = page.eval("explorer.state.sample.map(r => r.i + r.c).join()")
        page.eval("explorer.random20()")
        assert page.eval("explorer.state.sample.map(r => r.i + r.c).join()") == first  # seeded
        assert page.errors() == []
        assert check_explorer.outside(page.requests(), out) == []
        assert {u.rsplit("/", 1)[-1] for u in page.requests()} == {"index.html", "data-test.js", "data-val.js"}
