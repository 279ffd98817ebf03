"""Chinese QA as published (params/zh_published.yaml, tests/fixtures/zh_published/judgments.json): half-width
punctuation inside Chinese text, questions bound to their judgment, and the set's own label noise.

The expected values were counted by hand from the fixture (its README lists what is where): 44 questions in
14 paragraphs of 9 judgments; pub-11 (a reference found nowhere in its paragraph) and pub-18 (answerable, no
reference) are left out by validation; of the 42 others, pub-6, pub-12 (曹x0), pub-31 (王x1) and pub-40
(周x3) name a party, the 38 others name nobody (all but pub-25 and pub-37 by a role or 本案-like word);
article 6 has neither title nor case number, so its two bound questions (pub-29, pub-30) cannot be prefixed;
seven questions are marked impossible, and pub-39's own paragraph answers it (花去医疗费23,417.60元)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, make_project_copy, run

from pipeline import language
from pipeline.backends import make_generator
from pipeline.backends.base import Request
from pipeline.importers import Skips
from pipeline.importers.squad import load_squad
from pipeline.importers.standalone import has_anchor, identifier, is_deictic, prefixed
from pipeline.params import QaImportParams, load
from pipeline.prompts import answer_prompt
from pipeline.records import QA, Passage
from pipeline.reporting.label_noise import answering_sentence

FIXTURE = Path("tests/fixtures/zh_published/judgments.json")
STYLES = ("cautious", "confident", "terse", "verbose")
# The test's own half- to full-width table (independent of pipeline.language.zh_punct); a comma or colon
# between two digits stays, as typeset judgments write 80,000元 and 19:30.
FULL = {",": "，", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）"}


def full_width(text: str) -> str:
    out = []
    for i, ch in enumerate(text):
        digits = ch in ",:" and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        out.append(ch if digits else FULL.get(ch, ch))
    return "".join(out)


def articles() -> list[dict]:
    return json.loads((ROOT / FIXTURE).read_text(encoding="utf-8"))["data"]


def paragraphs() -> list[tuple[str, str]]:
    return [(a["title"], p["context"]) for a in articles() for p in a["paragraphs"]]


def squad(standalone: str = "prefix") -> tuple[list[Passage], list[QA], dict]:
    cfg = QaImportParams(format="squad", path=str(FIXTURE), language="zh", on_invalid="skip", standalone=standalone)
    skips = Skips("corpus.qa_import", "skip")
    passages, qas = load_squad(cfg, ROOT, skips)
    return passages, qas, skips.summary()


# ------------------------------------------------------------------------------- punctuation
def test_the_fixture_is_written_half_width_but_for_one_judgment():
    def marks(c: str) -> set[str]:  # punctuation outside numbers (80,000元) and times (19:30)
        return set(re.sub(r"(?<=\d)[,:](?=\d)", "", c)) & {",", ":", "，", "："}

    half = [c for _, c in paragraphs() if marks(c) and marks(c) <= {",", ":"}]
    full = [c for _, c in paragraphs() if marks(c) == {"，", "："}]
    assert len(half) == 13 and len(full) == 1


def test_sentences_are_the_same_written_either_way():
    """Every paragraph, half-width as published and full-width as typeset: the same sentences."""
    for _, text in paragraphs():
        assert language.sentences(full_width(text), "zh") == [full_width(s) for s in language.sentences(text, "zh")]
    # By hand: a half-width ; ends a sentence as ； does, and the thousands comma stays inside its number.
    text = "经审理查明:被告借款80,000元;借款到期后,被告仅偿还利息6,000元。本院认为:应予支持。"
    assert language.sentences(text, "zh") == ["经审理查明:被告借款80,000元;", "借款到期后,被告仅偿还利息6,000元。",
                                             "本院认为:应予支持。"]


def test_clauses_break_at_half_width_marks_but_not_inside_numbers_or_times():
    from pipeline.language import zh_punct

    text = "2016年4月3日19:30许,被告人驾车行驶至炉桥镇时,与行人发生碰撞;赔偿460,000元。"
    assert zh_punct.clauses(text) == ["2016年4月3日19:30许,", "被告人驾车行驶至炉桥镇时,", "与行人发生碰撞;",
                                      "赔偿460,000元。"]
    assert zh_punct.clauses(full_width(text)) == [full_width(c) for c in zh_punct.clauses(text)]


# (title of the judgment, question, a fact the answer must hold): hand-picked answers in long chained findings.
ASKED = [
    ("某银行股份有限公司滁州分行与陈x2金融借款合同纠纷一审民事判决书", "截至2020年4月30日,陈x2尚欠本金多少?", "218,452.37元"),
    ("孙0与周x3、某物业服务有限公司物业服务合同纠纷一审民事判决书", "孙0住院治疗了多少天?", "12天"),
    ("孙0与周x3、某物业服务有限公司物业服务合同纠纷一审民事判决书", "孙0的伤情构成几级伤残?", "十级伤残"),
]


@pytest.mark.parametrize(("title", "question", "fact"), ASKED, ids=["loan-principal", "hospital-days", "disability"])
def test_the_offline_panel_answers_the_same_written_either_way(title, question, fact):
    """The whole fixture as one context (its long findings chained with ; and ,), written as published and
    as typeset: every style gives the same answer, finished, without pasting the finding, with the fact."""
    def context(convert) -> list[Passage]:
        return [Passage(f"p{k}", f"d{k}", f"d{k}", convert(t), convert(c)) for k, (t, c) in enumerate(paragraphs())]

    for style in STYLES:
        gen = make_generator(f"offline:{style}")
        half = gen.generate([Request(answer_prompt(context(str), question, "提供的段落没有足够的信息来回答这个问题。"))])[0]
        full = gen.generate([Request(answer_prompt(context(full_width), full_width(question),
                                                   "提供的段落没有足够的信息来回答这个问题。"))])[0]
        assert full_width(half.text) == full_width(full.text), style
        assert half.finish_reason == full.finish_reason == "stop", style
        assert language.count_tokens(half.text, "zh") <= 150, (style, half.text)  # a finding is ~330
        if style != "terse":  # terse quotes one clause, which may be the neighbour of the figure
            assert fact in half.text, (style, half.text)


# ------------------------------------------------------------------------------- standalone questions
@pytest.mark.parametrize(("question", "anchor", "deictic"), [
    ("被告向原告借了多少钱?", False, True),
    ("本案借款约定的月利率是多少?", False, True),
    ("该车的保险金额是多少?", False, True),
    ("借款合同约定的年利率是多少?", False, False),
    ("曹x0是哪一年出生的?", True, False),
    ("被告周x3应赔偿原告多少钱?", True, True),
    ("黄1在事故中负什么责任?", True, False),
    ("李某是否到庭?", True, False),
    ("某物业服务有限公司应承担多少赔偿责任?", True, False),
    ("在（2015）定民一初字第01234号案中，被告借了多少钱?", True, True),
    ("被告尚欠本金多少?", False, True),  # 尚 is a surname, 尚欠 is not a name
    ("原告借款80万元后偿还了多少?", False, True),  # 款80 is not 曹x0-like
])
def test_a_chinese_question_is_bound_when_it_names_nobody(question, anchor, deictic):
    assert has_anchor(question, "zh") is anchor
    assert is_deictic(question, "zh") is deictic


@pytest.mark.parametrize(("question", "anchor"), [
    ("How much did the tenant have to pay?", False),
    ("Did the Tribunal grant possession to the Applicant?", False),
    ("How much did Chan Tai-man have to pay?", True),
    ("Was the fine in HKSAR v Leung upheld?", True),
    # An office, a law, a date or Hong Kong names no party or case of the question's own.
    ("Under which Order of the Rules of the High Court did the plaintiff apply?", False),
    ("Within what time must the defendant surrender his travel documents to the Bailiff?", False),
    ("Was the defendant convicted under the Theft Ordinance, Cap 210?", False),
    ("What did the tenant pay on 3 March 2024?", False),
    ("Was the defendant allowed to leave Hong Kong?", False),
    ("Under which section of the Import and Export Ordinance was Lung Tsz-wang charged?", True),
    ("Did Wing Fat Limited leave Hong Kong?", True),
])
def test_an_english_question_is_bound_when_it_names_nobody(question, anchor):
    assert has_anchor(question, "en") is anchor


def test_the_prefix_names_the_judgment_as_the_reader_sees_it():
    # A case number in the title wins; one that opens the paragraph is the judgment's own; one further in is
    # another court's (the appeal cites the first instance), so the title is used.
    assert identifier("（2016）皖1125刑初219号 曹x0交通肇事罪一审刑事判决书", "经审理查明:", "zh") == "（2016）皖1125刑初219号案"
    assert identifier("曹x0与朱0民间借贷纠纷一审民事判决书", "(2015)定民一初字第01234号。原告:曹x0", "zh") == \
        "(2015)定民一初字第01234号案"
    assert identifier("朱0、李某离婚纠纷二审民事判决书", "上诉人朱0不服(2017)皖1125民初3321号民事判决", "zh") == \
        "《朱0、李某离婚纠纷二审民事判决书》"
    assert identifier("", "经审理查明:", "zh") is None
    assert prefixed("被告向原告借了多少钱?", "《曹x0与朱0民间借贷纠纷一审民事判决书》", "zh") == \
        "在《曹x0与朱0民间借贷纠纷一审民事判决书》中，被告向原告借了多少钱?"
    assert prefixed("How much did the tenant have to pay?", "Chan v Wong", "en") == \
        "In Chan v Wong, how much did the tenant have to pay?"


def test_standalone_prefix_skip_and_keep_on_the_fixture():
    _, qas, summary = squad("prefix")
    counts = summary["standalone"]
    assert (counts["questions"], counts["bound"], counts["deictic"], counts["prefixed"]) == (42, 38, 36, 36)
    assert counts["skipped"] == {"bound_no_identifier": 2} and summary["by_reason"]["bound_no_identifier"] == 2
    by_id = {q.id: q.question for q in qas}
    assert "qa-pub-29" not in by_id and "qa-pub-30" not in by_id and by_id["qa-pub-31"] == "王x1在工地从事什么工作?"
    assert by_id["qa-pub-7"] == "在（2016）皖1125刑初219号案中，被告人在事故中负什么责任?"
    assert by_id["qa-pub-2"] == "在《曹x0与朱0民间借贷纠纷一审民事判决书》中，本案借款约定的月利率是多少?"
    # Every question kept now names its judgment or a party of its own.
    assert all(has_anchor(q.question, "zh") for q in qas)

    _, qas, summary = squad("skip")
    assert sorted(q.id for q in qas) == ["qa-pub-12", "qa-pub-31", "qa-pub-40", "qa-pub-6"]
    assert summary["standalone"]["skipped"] == {"document_bound": 38} == {
        k: v for k, v in summary["by_reason"].items() if k == "document_bound"}

    _, qas, summary = squad("keep")
    assert len(qas) == 42 and summary["standalone"]["kept_bound"] == 38 and "bound_no_identifier" not in summary["by_reason"]
    assert {q.id: q.question for q in qas}["qa-pub-1"] == "被告向原告借了多少钱?"


def test_standalone_skips_never_stop_an_import():
    """A bound question left out is a choice of params, not an invalid record: on_invalid stop goes on."""
    cfg = QaImportParams(format="squad", path=str(FIXTURE), language="zh", on_invalid="skip", standalone="skip")
    skips = Skips("corpus.qa_import", "stop")
    with pytest.raises(Exception, match="pub-11"):  # the broken reference still stops it
        load_squad(cfg, ROOT, skips)
    assert skips.counts.get("document_bound", 0) >= 1


# ------------------------------------------------------------------------------- label noise
def test_reference_checks_of_the_fixture():
    refs = squad()[2]["references"]
    assert refs["answerable"] == 37 and refs["failed"] == {"empty_reference": 1, "reference_not_in_passage": 1}
    assert [e["id"] for e in refs["examples"]["empty_reference"]] == ["pub-18"]
    assert [e["reference"] for e in refs["examples"]["reference_not_in_passage"]] == ["全权由对方承担"]


def test_reference_checks_by_hand():
    from pipeline.importers.reference_checks import ReferenceChecks, reference_problem

    text = "经定远县公安局交通管理大队认定,被告人曹x0负事故的主要责任,黄1负事故的次要责任。"
    assert reference_problem(["次要责任"], text, "zh") is None
    assert reference_problem(["全部次要责任"], text, "zh") is None  # shares 次要, 责任: not "no overlap"
    assert reference_problem(["全权由对方承担"], text, "zh") == "reference_not_in_passage"
    assert reference_problem(["。", " "], text, "zh") == "empty_reference"
    assert reference_problem(["HK$48,000"], "The tenant must pay arrears of HK$48,000.", "en") is None
    assert reference_problem(["a deposit refund"], "The tenant must pay arrears of HK$48,000.", "en") == \
        "reference_not_in_passage"
    checks = ReferenceChecks()
    for flag, answers in (("false", [{"text": "YES", "answer_start": -1}]), ("maybe", []), (True, []), (False, [])):
        checks.check({"id": "q", "question": "?", "answers": answers, "is_impossible": flag}, text, "zh", "x",
                     frozenset({"yes", "no"}))
    # The yes/no answer passes; "maybe" and true are not called answerable; the last one has no reference.
    assert checks.answerable == 2 and checks.failed == {"empty_reference": 1, "reference_not_in_passage": 0}


def test_the_leak_check_finds_the_impossible_question_its_paragraph_answers():
    passages, qas, _ = squad()
    by_id = {q.id: q for q in qas}
    gold = {p.id: p for p in passages}
    tau = load(ROOT / "params" / "zh_published.yaml").report.leak_coverage
    found = {q.id for q in qas if not q.facts
             and answering_sentence(q, gold[q.gold_passage_id].heading, gold[q.gold_passage_id].text, "zh", tau)}
    assert found == {"qa-pub-39"}
    p = gold[by_id["qa-pub-39"].gold_passage_id]
    # Written full-width, the same sentence is found; under another judgment's title, nothing is.
    assert answering_sentence(by_id["qa-pub-39"], p.heading, full_width(p.text), "zh", tau)
    assert answering_sentence(by_id["qa-pub-39"], "马某盗窃罪一审刑事判决书", p.text.replace("孙0", "张某"), "zh", tau) is None
    # 朱0 pays the costs of his divorce appeal, not of the loan case that names another 朱0.
    divorce = next(x for x in passages if "二审案件受理费300元" in x.text)
    assert answering_sentence(by_id["qa-pub-4"], divorce.heading, divorce.text, "zh", tau) is None


# ---------------------------------------------------------------------------------------- stages
@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The project copy after `dvc repro data_report` on the zh_published profile, and the explorer built
    from it (without scores: explore's own stage waits for training)."""
    base = tmp_path_factory.mktemp("zh_published")
    repo = make_project_copy(base / "repo", base / "remote")
    shutil.copytree(ROOT / FIXTURE.parent, repo / FIXTURE.parent)
    shutil.copy2(ROOT / "params" / "zh_published.yaml", repo / "params.yaml")
    run(["dvc", "repro", "data_report"], repo)
    subprocess.run([sys.executable, "-m", "pipeline.stages.explore", "--scores", "no-scores"], cwd=repo, check=True,
                   capture_output=True)
    return repo


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.slow
def test_every_bound_question_is_made_standalone_or_counted(repo):
    qas = [q for q in read_jsonl(repo / "data/interim/qa.jsonl") if q["id"].startswith("qa-")]
    assert len(qas) == 40 and all(has_anchor(q["question"], "zh") for q in qas)
    details = json.loads((repo / "reports/data_details.json").read_text(encoding="utf-8"))
    counts = details["label_noise"]["standalone"]
    assert counts["bound"] == counts["prefixed"] + sum(counts["skipped"].values()) == 38


@pytest.mark.slow
def test_no_passage_dumps_in_the_offline_panel(repo):
    """No Chinese answer cut at max_new_tokens, and none pastes a long stretch of the fixture's two findings
    chained into one 。-sentence with half-width ; and , (the bank loan, the falling flowerpot: ~330 tokens
    each). Before half-width marks were read, 183 of 1,316 answers did both, 104 of them cut before the
    reference's fact."""
    from difflib import SequenceMatcher

    contexts = {c["id"]: c for c in read_jsonl(repo / "data/interim/contexts.jsonl")}
    candidates = [c for c in read_jsonl(repo / "data/interim/candidates.jsonl")
                  if contexts[c["context_id"]]["qa_id"].startswith("qa-")]
    assert len(candidates) == (40 * 8 - 7) * 4  # no gold_surrounding for the 7 impossible questions
    findings = [s for _, text in paragraphs() for s in re.split(r"(?<=。)", text)
                if language.count_tokens(s, "zh") > 120]
    assert len(findings) == 2
    assert [c["id"] for c in candidates if c["finish_reason"] == "length"] == []

    def pasted(text: str) -> int:
        return max(SequenceMatcher(None, text, f, autojunk=False).find_longest_match().size for f in findings)

    assert [c["id"] for c in candidates if pasted(c["text"]) >= 150] == []
    assert max(pasted(c["text"]) for c in candidates) > 40  # the findings are quoted, a clause run at a time


@pytest.mark.slow
def test_the_data_report_and_explorer_show_the_label_noise(repo):
    noise = json.loads((repo / "reports/data_details.json").read_text(encoding="utf-8"))["label_noise"]
    assert noise["references"]["failed"] == {"empty_reference": 1, "reference_not_in_passage": 1}
    leaks = noise["leaks"]["corpus.qa_import"]
    # pub-39's own paragraph is in its four gold_* contexts (built unanswerable: it is marked impossible).
    assert (leaks["with_answer"], leaks["questions"], leaks["impossible_questions"]) == (4, 1, 1)
    assert {e["context"].split("/")[0] for e in leaks["examples"]} == {"qa-pub-39"}
    text = (repo / "reports/data.md").read_text(encoding="utf-8")
    assert "## Label noise of the imported QA set" in text and "| 42 | 38 | 36 | 36 | 0 | bound_no_identifier 2 |" in text
    page = (repo / "reports/explorer/index.html").read_text(encoding="utf-8")
    meta = json.loads(page.split('<script id="meta" type="application/json">', 1)[1].split("</script>", 1)[0])
    kinds = sorted(n["kind"] for n in meta["noise"])
    assert kinds == ["empty_reference", "leak", "leak", "leak", "leak", "reference_not_in_passage"]
    leak = next(n for n in meta["noise"] if n["kind"] == "leak")
    assert "23,417.60元" in leak["s"] and len(leak["ans"]) == 4


@pytest.mark.slow
def test_the_explorer_page_lists_the_label_noise(repo):
    """The page's "label noise" button lists every flagged item, the leak with its answers (headless
    Chromium, networking off, as tests/test_explorer.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_explorer", ROOT / "scripts" / "check_explorer.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    if check.find_browser() is None:
        pytest.skip("no Chromium (Debian: apt-get install chromium)")
    out = repo / "reports/explorer"
    with check.Page(check.find_browser()) as page:
        page.open((out / "index.html").as_uri())
        assert page.eval("document.getElementById('noise').innerText") == "label noise (6)"
        page.eval("document.getElementById('noise').click()")
        view = page.eval(check.VIEW_TEXT)
        assert "Label noise (6)" in view and "花去医疗费23,417.60元" in view and "全权由对方承担" in view
        assert view.count("built unanswerable, but passage") == 4
        # Pairs of a flagged context carry the note; the filter keeps only those.
        flagged = page.eval("""(() => { const s = document.getElementById('f-noise'); s.value = 'flagged';
            s.dispatchEvent(new Event('change')); return document.getElementById('count').dataset.n })()""")
        assert flagged.isdigit()
        assert page.errors() == []
        assert check.outside(page.requests(), out) == []
