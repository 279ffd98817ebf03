"""judge -> pairs -> augment -> data_report on the hand-built corpus of test_pairs, and on that corpus
mixed with imported Chinese and English records, checked against counts worked out by hand from how each
corpus was built."""

from __future__ import annotations

import json

import pytest
import yaml
from test_pairs import N_QUESTIONS, REFUSAL, build_corpus, read_pairs, write_corpus

from pipeline.io import write_records
from pipeline.params import Params, to_dict
from pipeline.records import QA, Candidate, Context, Decision, Passage, Section
from pipeline.stages import augment as augment_stage
from pipeline.stages import data_report
from pipeline.stages import judge as judge_stage
from pipeline.stages import pairs as pairs_stage


def run_stages_to_the_report(root) -> None:
    """judge -> pairs -> augment -> data_report on the corpus written under root."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        judge_stage.main([])
        pairs_stage.main([])
        augment_stage.main([])
        data_report.main([])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    write_corpus(root)
    run_stages_to_the_report(root)
    metrics = json.loads((root / "reports/data_details.json").read_text())
    return root, metrics, (root / "reports/data.md").read_text()


def test_corpus_statistics(report):
    _, m, _ = report
    c = m["corpus"]
    assert (c["decisions"], c["passages"], c["questions"]) == (N_QUESTIONS, N_QUESTIONS, N_QUESTIONS)
    assert c["contexts_by_variant"] == {"gold_plus_bm25": 20, "random_context": 20, "gold_surrounding": 20}
    assert c["candidates_by_generator"] == {
        g: 60 for g in ("offline:cautious", "offline:confident", "offline:terse", "offline:verbose")
    }
    assert c["decisions_by_case_type"] == {"tenancy": 10, "criminal": 10}


def test_answer_quality(report):
    _, m, _ = report
    q = m["quality"]
    # Per answerable context: cautious refuses, confident quotes the gold sentence (ideal), terse gives the
    # bare amount (incomplete), verbose is degenerate for 7 of 20 questions and quotes a distractor otherwise.
    assert q["gold_plus_bm25"]["all"]["ideal_rate"] == pytest.approx(20 / 80)
    assert q["gold_plus_bm25"]["all"]["attempted_rate"] == pytest.approx((20 + 20 + 13) / 80)
    assert q["gold_plus_bm25"]["offline:confident"]["ideal_rate"] == 1.0
    assert q["gold_plus_bm25"]["offline:cautious"]["attempted_rate"] == 0.0
    # Unanswerable: cautious and terse refuse.
    assert q["random_context"]["all"]["correct_refusal_rate"] == pytest.approx(40 / 80)
    assert "ideal_rate" not in q["random_context"]["all"]


def test_pair_counts_match_the_pair_files(report):
    root, m, _ = report
    pairs = read_pairs(root)
    counts = m["pairs"]["counts"]
    for split in ("train", "val", "test"):
        in_split = [p for p in pairs if p.split == split]
        assert counts[split]["total"] == len(in_split)
        for dim in (
            "refusal_answerable",
            "refusal_unanswerable",
            "faithfulness",
            "correctness",
            "completeness",
        ):
            assert counts[split][dim] == sum(p.dimension == dim for p in in_split)
    assert m["pairs"]["augmented"] == sum(p.augmented for p in read_pairs(root, "pairs_aug")) > 0


def test_lengths_before_and_after_augmentation(report):
    root, m, _ = report
    before = {p.id: p for p in read_pairs(root)}
    after = {p.id: p for p in read_pairs(root, "pairs_aug")}
    row = m["length"]["unanswerable: abstained>attempted"]
    # The rejected side is attempted unless it is verbose's degenerate text (every third question).
    ids = [
        i
        for i, p in before.items()
        if p.dimension == "refusal_unanswerable"
        and not (p.rejected_generator == "offline:verbose" and int(p.qa_id[1:]) % 3 == 0)
    ]
    assert row["n"] == len(ids)
    assert row["mean_chosen_before"] == pytest.approx(sum(before[i].chosen_tokens for i in ids) / len(ids))
    assert row["mean_chosen_after"] == pytest.approx(sum(after[i].chosen_tokens for i in ids) / len(ids))
    # Rewritten refusals say what is missing, so they are longer than the one-sentence originals.
    assert 0 < row["augmented"] <= row["n"] and row["mean_chosen_after"] > row["mean_chosen_before"]
    aug = m["augmentation"]
    meta = json.loads((root / "data/processed/pairs_aug/meta.json").read_text())
    # The data report shows the augment stage's own outcome counts, task by task.
    for task, v in aug.items():
        assert v["rewritten"] == meta["outcomes"].get(f"{task}:rewritten", 0)
        assert v["planned"] == v["kept_for_balance"] + v["rewritten"] + v["failed_check"] + v["dropped_by_judge"]
    assert sum(v["rewritten"] for v in aug.values()) == m["pairs"]["augmented"]
    comp = m["length"]["answerable: completeness complete>incomplete"]
    assert comp["mean_rejected_after"] >= comp["mean_rejected_before"]


def test_judges_agreement_and_robustness(report):
    _, m, md = report
    assert m["judges"]["rule:strict"] == {"labels": 240, "unparseable": 0}
    assert set(m["agreement"]) == {"behaviour", "faithfulness", "correctness", "completeness"}
    assert m["agreement"]["behaviour"]["items"] == 240
    rob = m["robustness"]["rule:lenient"]
    for scope in ("overall", "test"):
        assert rob[scope]["kept"] + rob[scope]["reversed"] + rob[scope]["lost"] == pytest.approx(1.0)
    assert rob["overall"]["pairs"] == sum(m["pairs"]["counts"][s]["total"] for s in ("train", "val", "test"))
    assert rob["test"]["pairs"] == m["pairs"]["counts"]["test"]["total"]
    assert "offline profile: extractive panel, rule judge" in md
    assert "Fleiss kappa" in md and "answerable: attempted>abstained" in md


def test_report_is_deterministic(report):
    root, _, md = report
    before = (root / "reports/data_details.json").read_bytes()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        data_report.main([])
    assert (root / "reports/data_details.json").read_bytes() == before
    assert (root / "reports/data.md").read_text() == md


def test_figures_by_language(report):
    """The hand-built corpus is English only: every label, pair and question counts under "en", the
    per-language pair counts add up to the split x dimension table, and recall@10 covers its 20 questions
    (its exact value is tested on a corpus built for it in test_contexts.py)."""
    root, m, md = report
    by = m["by_language"]
    assert by["questions"] == {"en": 20}
    assert sum(by["labels"]["en"].values()) == 240 and set(by["labels"]) == {"en"}
    assert by["labels"]["en"]["abstained"] == sum(
        1 for line in (root / "data/interim/labels/rule-strict.jsonl").read_text().splitlines()
        if json.loads(line)["behaviour"] == "abstained"
    )
    for dim, row in by["pairs"].items():
        assert row == {"en": sum(m["pairs"]["counts"][s][dim] for s in ("train", "val", "test"))}
    recall = by["recall_at_10"]["en"]
    assert recall["questions"] == 20 and 0 <= recall["dense"] <= 1 and 0 <= recall["bm25"] <= 1
    assert "## By language" in md and "Gold recall@10" in md


def test_contexts_sharing_a_party_name_are_counted(report):
    # test_pairs' corpus names no party ("party 3" is no name): nothing to clash (test_data_report_parties.py
    # counts a corpus that does).
    _, m, md = report
    assert m["party_clashes"] == {"contexts": 60, "clashing": 0, "by_variant": {}, "skipped_by_stage": None,
                                  "skipped_by_variant": {}}
    assert "share a party name (a passage naming a party of another decision of the context, the question's own " \
           "decision included): **0** of 60; the contexts stage did not count" in md


# ------------------------------------------------------------------------------- what ran (header)
ZH_REFUSAL = "提供的段落没有足够的信息来回答这个问题。"


def _zh_case(i: int) -> tuple[str, str, str]:
    """(passage text, question, answer) of the i-th Chinese item."""
    amount = f"{(i + 1) * 1000}元"
    return f"经查明，张某{i}在敏感期内买入股票，获利{amount}。证监会决定没收其违法所得。", f"张某{i}获利多少？", amount


def write_mixed_corpus(root):
    """Six synthetic English decisions (test_pairs) plus, by hand: two imported Chinese decisions with one
    question each; an imported QA set of two Chinese questions and one English one, whose passages belong
    to no decision; outside answers on two Chinese contexts and one English; three outside pairs, two
    English and one Chinese."""
    decisions, passages, qas, contexts, candidates = build_corpus(6)
    items = []  # (decision or None, passage, qa)
    for i in range(2):
        text, question, answer = _zh_case(i)
        decision = Decision(f"doc-{i}", "csrc", "zh", "insider_trading", f"张某{i}案", "2011-01-01", text,
                            [Section("s1", "决定", text)])
        items.append((decision, Passage(f"doc-{i}/p0", f"doc-{i}", f"doc-{i}", "决定", text, 0),
                      QA(f"doc-{i}/q0", question, answer, f"doc-{i}/p0", f"doc-{i}", "factual", [answer], [])))
    for i in range(2, 4):
        text, question, answer = _zh_case(i)
        pid = f"qa-a1/p{i}"
        items.append((None, Passage(pid, "qa-a1", "qa-a1", "张某案", text, i),
                      QA(f"qa-zh-{i}", question, answer, pid, "qa-a1", "factual", [answer], [])))
    text = "The lessee paid a deposit of HK$5,000 to the landlord."
    items.append((None, Passage("qa-a2/p0", "qa-a2", "qa-a2", "Deposit", text, 0),
                  QA("qa-en-1", "How much deposit did the lessee pay?", "HK$5,000", "qa-a2/p0", "qa-a2", "factual",
                     ["HK$5,000"], [])))
    for k, (decision, passage, qa) in enumerate(items):
        decisions += [decision] if decision else []
        passages.append(passage)
        qas.append(qa)
        zh = qa.id != "qa-en-1"
        refusal = ZH_REFUSAL if zh else REFUSAL
        other = passages[k].id  # an English synthetic passage: off topic
        for variant, answerable, pids in (("gold_plus_bm25", True, [other, passage.id]),
                                          ("random_context", False, [other])):
            cid = f"{qa.id}/{variant}"
            contexts.append(Context(cid, qa.id, variant, answerable, pids, 1 if answerable else None))
            texts = {"offline:cautious": refusal, "offline:confident": passage.text if answerable else refusal,
                     "offline:terse": f"{qa.answer}。" if answerable and zh else refusal}
            candidates += [Candidate(f"{cid}/{g}", cid, g, t, "stop") for g, t in texts.items()]
    # Outside answers: two on Chinese contexts (an imported decision's, an imported question's), one English.
    for cid, text in (("doc-0/q0/gold_plus_bm25", "张某0获利1000元。"), ("qa-zh-2/random_context", ZH_REFUSAL),
                      ("qa-en-1/gold_plus_bm25", "The lessee paid HK$5,000.")):
        candidates.append(Candidate(f"{cid}/import-gpt", cid, "import:gpt", text, "stop"))
    outside = [{"prompt": "Question: was notice given?", "chosen": "Yes, in writing.", "rejected": "No."},
               {"prompt": "Question: who paid the deposit?", "chosen": "The lessee.", "rejected": "Nobody."},
               {"prompt": "问题：张某是否获利？", "chosen": "是，获利4,665,091.79元。", "rejected": "否。"}]
    (root / "outside.jsonl").write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outside),
                                        encoding="utf-8")
    raw = to_dict(Params())
    raw["train"]["external_pairs"] = {"format": "jsonl", "path": "outside.jsonl", "on_invalid": "stop"}
    # Recall@10 per language ranks with the English-only MiniLM for both languages (Chinese taken off e5).
    raw["contexts"]["dense_language_models"] = {}
    raw["contexts"]["allow_uncovered_language"] = True
    # The contexts stage's language counts, worked out by hand: each Chinese question's two contexts hold one
    # distractor, an English passage (a fill-in); the English questions' distractors are all English.
    row = {"contexts": 4, "distractors": 4, "fill_ins": 4, "contexts_filled": 4}
    stats = {"fill_ins": {"en": {v: {"contexts": 7, "distractors": 7, "fill_ins": 0, "contexts_filled": 0}
                                 for v in ("gold_plus_bm25", "random_context")},
                          "zh": {"gold_plus_bm25": row, "random_context": row}},
             "fill_ins_total": 8}
    (root / "data/interim").mkdir(parents=True)
    (root / "data/interim/contexts_stats.json").write_text(json.dumps(stats), encoding="utf-8")
    candidates.sort(key=lambda c: c.id)
    for name, records in (("raw/decisions", decisions), ("interim/passages", passages), ("interim/qa", qas),
                          ("interim/contexts", contexts), ("interim/candidates", candidates)):
        write_records(root / f"data/{name}.jsonl", records)
    (root / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    root = tmp_path_factory.mktemp("mixed")
    write_mixed_corpus(root)
    run_stages_to_the_report(root)
    metrics = json.loads((root / "reports/data_details.json").read_text(encoding="utf-8"))
    return metrics, (root / "reports/data.md").read_text(encoding="utf-8")


def test_header_says_what_data_ran_by_language(mixed):
    """Counted from the records by hand (write_mixed_corpus), not from the params: the params name no
    import of decisions, questions or answers at all."""
    m, md = mixed
    assert m["data_sources"] == {
        "synthetic_decisions": {"en": 6},
        "imported_decisions": {"zh": 2},
        "imported_qa": {"en": 1, "zh": 2},
        "outside_answers": {"en": 1, "zh": 2},
        "outside_pairs": {"en": 2, "zh": 1},
    }
    header = md.splitlines()[2]
    assert header.startswith("**What ran:** offline profile: extractive panel, rule judge. Data: synthetic "
                             "decisions (en 6); imported decisions (zh 2); imported QA (en 1, zh 2); outside "
                             "answers (en 1, zh 2); outside pairs (en 2, zh 1). Primary judge `rule:strict`")
    assert "synthetic decisions," not in header  # the old fixed wording of the offline profile


def test_cross_language_fill_ins_are_shown(mixed, report):
    m, md = mixed
    assert m["by_language"]["fill_ins"]["zh"]["random_context"]["fill_ins"] == 4
    assert ("| question language | variant | contexts | distractors | fill-ins | contexts with a fill-in |\n"
            "|---|---|---|---|---|---|\n| zh | gold_plus_bm25 | 4 | 4 | 4 | 4 |\n| zh | random_context | 4 | 4 | 4 | 4 |\n\n"
            ) in md
    # No stats file (a run before the contexts stage counted them): no fill-in figures, and no failure.
    assert "fill_ins" not in report[1]["by_language"] and "fill-ins" not in report[2]


def test_header_of_the_synthetic_only_default(report):
    _, m, md = report
    assert m["data_sources"]["synthetic_decisions"] == {"en": 20}
    assert not any(m["data_sources"][k] for k in ("imported_decisions", "imported_qa", "outside_answers",
                                                  "outside_pairs"))
    assert "Data: synthetic decisions (en 20). Primary judge" in md


def test_a_sampled_judge_is_shown_against_each_full_judge_on_its_sample():
    """Hand-counted: on the 3 candidates the sampled judge labelled, it agrees with `full` on behaviour for
    2 of 3 (raw agreement of 2 raters = share of agreeing items); the rendered table says so."""
    from pipeline.records import Label
    from pipeline.reporting.data_render import render_sampled_judges

    def lab(cid: str, judge: str, behaviour: str) -> Label:
        return Label(cid, judge, behaviour, None, None, None, "ok")

    full = {c: lab(c, "rule:strict", b) for c, b in zip("abcd", ["attempted", "abstained", "attempted", "abstained"], strict=True)}
    sampled = {c: lab(c, "llm:x", b) for c, b in zip("abc", ["attempted", "abstained", "abstained"], strict=True)}
    out = data_report.sampled_agreement([("rule:strict", full)], [("llm:x", sampled)])
    behaviour = out["llm:x"]["agreement_with"]["rule:strict"]["behaviour"]
    assert behaviour["items"] == 3 and behaviour["raw"] == pytest.approx(2 / 3)
    text = "\n".join(render_sampled_judges(out))
    assert "| llm:x | rule:strict | 3 | 0 | 0.67 / " in text
    assert "n/a" in text  # no faithfulness value on either side: nothing to compare
