"""Distractors in the question's language (pipeline/retrieval/variants.py, pipeline/retrieval/languages.py).

A mixed English + Chinese corpus: with enough passages every context of a question is in its language;
where a language runs short the other fills in, and the counts below are worked out by hand from the
corpus sizes (k, family sizes), not read back from the code.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_contexts import ALL, MatrixRetriever, write_decisions

from pipeline.io import InputError, write_records
from pipeline.records import QA, Passage
from pipeline.retrieval import languages as langs
from pipeline.retrieval.bm25 import BM25Retriever
from pipeline.retrieval.rank import top_outside
from pipeline.retrieval.variants import ContextError, build_contexts
from pipeline.text import stable_hash

SOURCED = [v for v in ALL if v != "gold_only"]


ZH_SURNAMES = "张李王赵陈刘杨黄周吴"


def mixed_corpus(
    zh_decisions: int, zh_per_decision: int, en_decisions: int = 6, en_per_decision: int = 4, zh_names=()
):
    """English and Chinese decisions (family = decision), one question per decision on its first passage.
    Chinese decision d is named zh_names[d] when given, else zh<d>; each is about a party of its own (张某,
    李某, ...: two cases of one 张某 would keep each other's passages out of their contexts)."""
    passages, languages, qas = [], [], []
    for d in range(en_decisions):
        did = f"en{d}"
        for p in range(en_per_decision):
            text = f"Zhang (张某) bought shares in case {did}; paragraph {p} sets out the penalty of {p + 1} million."
            passages.append(Passage(f"{did}/p{p}", did, did, "Facts", text, position=p))
            languages.append("en")
        qas.append(QA(f"q-{did}", f"What penalty did the tribunal impose on Zhang in case {did}?", "a",
                      f"{did}/p0", did, "factual", ["a"], []))  # fmt: skip
    for d in range(zh_decisions):
        did = zh_names[d] if d < len(zh_names) else f"zh{d}"
        party = ZH_SURNAMES[d % len(ZH_SURNAMES)] + "某"
        for p in range(zh_per_decision):
            text = f"经查明，{party}在第{d}号案件中买入股票，第{p}段认定其获利{p + 1}万元。"
            passages.append(Passage(f"{did}/p{p}", did, did, "事实", text, position=p))
            languages.append("zh")
        qas.append(QA(f"q-{did}", f"{party}在第{d}号案件中获利多少？", "答", f"{did}/p0", did, "factual", ["答"], []))
    return passages, languages, qas


def retrievers(passages, qas):
    dense = np.random.default_rng(3).normal(size=(len(qas), len(passages)))
    return {
        "bm25": BM25Retriever([f"{p.heading}\n{p.text}" for p in passages], [q.question for q in qas]),
        "dense": MatrixRetriever(lambda i: dense[i]),
    }


def build(passages, languages, qas, k=4, pool=8, variants=ALL, seed=7):
    return build_contexts(passages, qas, variants, k, seed, retrievers(passages, qas), pool, languages=languages)


def test_with_enough_passages_every_context_is_in_the_questions_language():
    passages, languages, qas = mixed_corpus(zh_decisions=6, zh_per_decision=4)
    lang_of = {p.id: lang for p, lang in zip(passages, languages, strict=True)}
    q_lang = {q.id: lang_of[q.gold_passage_id] for q in qas}
    contexts = build(passages, languages, qas)
    assert len(contexts) == len(qas) * len(ALL)
    for c in contexts:
        assert {lang_of[p] for p in c.passage_ids} == {q_lang[c.qa_id]}, c.id
    stats = langs.fill_ins(contexts, qas, passages, languages, ALL)
    assert stats["fill_ins_total"] == 0
    assert stats["passages_by_language"] == {"en": 24, "zh": 24}
    assert stats["questions_by_language"] == {"en": 6, "zh": 6}
    # The same corpus without languages mixes them in the random and dense variants: the rule, not the
    # data, keeps those apart (BM25 already prefers passages of the question's script here).
    mixed = build(passages, None, qas)
    crossed = {c.variant for c in mixed if q_lang[c.qa_id] == "zh" and "en" in {lang_of[p] for p in c.passage_ids}}
    assert {"gold_plus_random", "random_context", "gold_plus_dense", "dense_hard_negative"} <= crossed


def test_a_short_language_is_filled_in_and_every_fill_in_is_counted():
    """Two Chinese decisions of two passages: a Chinese question has 2 Chinese passages outside its
    family. With k=4 an answerable variant needs 3 distractors (2 zh + 1 en fill-in), a hard negative 4
    (2 zh + 2 en). Two Chinese questions: 2 fill-ins per answerable variant, 4 per hard negative."""
    passages, languages, qas = mixed_corpus(zh_decisions=2, zh_per_decision=2)
    lang_of = {p.id: lang for p, lang in zip(passages, languages, strict=True)}
    contexts = build(passages, languages, qas)
    for c in contexts:
        if c.qa_id.startswith("q-en"):
            assert {lang_of[p] for p in c.passage_ids} == {"en"}
        elif c.variant not in ("gold_only", "gold_surrounding"):
            other = "zh1" if c.qa_id == "q-zh0" else "zh0"
            # Its own language is used up before any English passage comes in.
            assert {f"{other}/p0", f"{other}/p1"} <= set(c.passage_ids), c.id
    stats = langs.fill_ins(contexts, qas, passages, languages, ALL)
    answerable = {"contexts": 2, "distractors": 6, "fill_ins": 2, "contexts_filled": 2}
    hard = {"contexts": 2, "distractors": 8, "fill_ins": 4, "contexts_filled": 2}
    assert stats["fill_ins"]["zh"] == {
        "gold_plus_random": answerable, "gold_plus_bm25": answerable, "gold_plus_dense": answerable,
        "random_context": hard, "bm25_hard_negative": hard, "dense_hard_negative": hard,
        # A window of the two-passage decision: one neighbour, Chinese.
        "gold_surrounding": {"contexts": 2, "distractors": 2, "fill_ins": 0, "contexts_filled": 0},
    }  # fmt: skip
    assert all(row["fill_ins"] == 0 for row in stats["fill_ins"]["en"].values())
    assert stats["fill_ins_total"] == 3 * 2 + 3 * 4


def test_fill_ins_come_only_once_the_language_ran_dry_not_when_duplicates_ate_the_pool():
    """Six Chinese passages outside the question's family, all the same text: with pool 3 the top 3 are
    one distinct text and the language may hold more, so the stage stops as before; with pool 6 every
    Chinese candidate was seen, so 1 zh + 2 en (k=3 hard negative)."""
    passages, languages, qas = mixed_corpus(zh_decisions=1, zh_per_decision=1)
    for d in range(6):
        passages.append(Passage(f"dup{d}/p0", f"dup{d}", f"dup{d}", "事实", "张某的违法所得予以没收。"))
        languages.append("zh")
    zh_q = [q for q in qas if q.id == "q-zh0"]
    rets = retrievers(passages, zh_q)
    with pytest.raises(ContextError, match="pool 3, other languages filling in once 'zh' runs out"):
        build_contexts(passages, zh_q, ["bm25_hard_negative"], 3, 0, rets, 3, languages=languages)
    [ctx] = build_contexts(passages, zh_q, ["bm25_hard_negative"], 3, 0, rets, 6, languages=languages)
    lang_of = dict(zip([p.id for p in passages], languages, strict=True))
    assert [lang_of[p] for p in ctx.passage_ids] == ["zh", "en", "en"]


def test_one_language_gives_the_contexts_it_gave_without_languages():
    """The English-only default must not move: declaring every passage "en" draws exactly what the
    language-blind build drew (same random draws, same retriever exclusions)."""
    passages, languages, qas = mixed_corpus(zh_decisions=0, zh_per_decision=0, en_decisions=9)
    assert set(languages) == {"en"}
    assert build(passages, languages, qas, seed=11) == build(passages, None, qas, seed=11)


def test_zero_scores_follow_the_given_order_after_every_positive_one():
    """Worked by hand: positives by score, ties by index (0 and 5 tie at 2.0); then the zero scores in
    the order `ties` gives (4, 1, 3), then a zero it leaves out (6); the excluded 7 never."""
    scores = np.array([2.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0])
    assert top_outside(scores, 8, {7}, lambda: [4, 1, 3]) == [0, 5, 2, 4, 1, 3, 6]
    assert top_outside(scores, 8, {7}) == [0, 5, 2, 1, 3, 4, 6]  # without: by index

    def never():
        raise AssertionError("asked for the zero-score order though no zero made the top")

    assert top_outside(scores, 3, {7}, never) == [0, 5, 2]


def fill_in_corpus(en_passages: int = 30):
    """Three Chinese decisions of one passage each (a question on each) and English decisions that share
    no BM25 token with the Chinese questions, except en0, which names the regulator "SFC" as they do."""
    passages, languages, qas = [], [], []
    for d in range(3):
        did = f"zh{d}"
        passages.append(Passage(f"{did}/p0", did, did, "事实", f"经查明，第{d}号案当事人被证监会处以罚款。", 0))
        languages.append("zh")
        qas.append(QA(f"q-{did}", f"SFC 对第{d}号案当事人罚了多少？", "答", f"{did}/p0", did, "factual", ["答"], []))
    for d in range(en_passages):
        did = f"en{d}"
        regulator = "the SFC" if d == 0 else "the tribunal"
        text = f"In matter {chr(97 + d % 26)}{chr(97 + d // 26)} {regulator} heard the tenant's appeal."
        passages.append(Passage(f"{did}/p0", did, did, "Facts", text, 0))
        languages.append("en")
    return passages, languages, qas


def test_zero_score_fill_ins_are_a_seeded_draw_per_question_after_the_scored_ones():
    """BM25 scores every English passage 0 for a Chinese question, but en0 (it shares "sfc"). With k=4
    a hard negative takes the 2 other zh passages, then 2 fill-ins: en0 first (a positive score keeps
    its rank), then one of the zero-score rest, which is the first of that question's own seeded order
    (stable_hash of the params seed, the question id and the passage id, as pipeline/sampling.py draws),
    not the lowest index, so the three questions do not all take en1."""
    passages, languages, qas = fill_in_corpus()
    lang_of = dict(zip([p.id for p in passages], languages, strict=True))

    def fill_ins(seed):
        rets = {"bm25": BM25Retriever([f"{p.heading}\n{p.text}" for p in passages], [q.question for q in qas])}
        contexts = build_contexts(passages, qas, ["bm25_hard_negative", "gold_plus_bm25"], 4, seed, rets, 40,
                                  languages=languages)  # fmt: skip
        return {c.id: [p for p in c.passage_ids if lang_of[p] == "en"] for c in contexts}

    def seeded_first(seed, qa_id):
        zero = [p.id for p in passages if lang_of[p.id] == "en" and p.id != "en0/p0"]
        return min(zero, key=lambda pid: (stable_hash(seed, f"contexts.fill_in_ties/{qa_id}", pid), pid))

    got = fill_ins(5)
    for q in qas:
        expected = ["en0/p0", seeded_first(5, q.id)]
        assert got[f"{q.id}/bm25_hard_negative"] == expected
        # The answerable variant needs one fill-in fewer: the scored one.
        assert got[f"{q.id}/gold_plus_bm25"] == ["en0/p0"]
    drawn = {got[f"{q.id}/bm25_hard_negative"][1] for q in qas}
    assert len(drawn) == 3 and "en1/p0" not in drawn  # hand-checked for seed 5: three distinct, none en1
    assert fill_ins(5) == got  # the same on every run
    other = fill_ins(6)
    assert [other[f"{q.id}/bm25_hard_negative"][1] for q in qas] == [seeded_first(6, q.id) for q in qas]


@st.composite
def bilingual_corpus(draw):
    sizes = draw(st.lists(st.integers(1, 5), min_size=2, max_size=7))
    family_lang = draw(st.lists(st.sampled_from(["en", "zh"]), min_size=len(sizes), max_size=len(sizes)))
    passages, languages = [], []
    for f, (size, lang) in enumerate(zip(sizes, family_lang, strict=True)):
        for j in range(size):
            passages.append(Passage(f"f{f}/p{j}", f"d{f}", f"fam{f}", "H", f"text {f} {j}", position=j))
            languages.append(lang)
    qas = []
    for qi in range(draw(st.integers(1, 5))):
        gold = draw(st.sampled_from(passages))
        qas.append(QA(f"q{qi}", "question?", "a", gold.id, gold.family, "factual", [], []))
    k = draw(st.integers(1, 5))
    scores = np.array(draw(st.lists(st.floats(-5, 5), min_size=len(qas) * len(passages),
                                    max_size=len(qas) * len(passages))))  # fmt: skip
    return passages, languages, qas, k, draw(st.integers(0, 2**31)), scores.reshape(len(qas), len(passages))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bilingual_corpus())
def test_fill_ins_are_exactly_what_the_questions_language_lacks(case):
    """Every text is distinct and the pool covers the corpus, so a question's context of n distractors
    holds min(n, own) passages of its language (own: those outside its family) and n - own fill-ins."""
    passages, languages, qas, k, seed, scores = case
    fake = MatrixRetriever(lambda i: scores[i])
    lang_of = dict(zip([p.id for p in passages], languages, strict=True))
    family_of = {p.id: p.family for p in passages}
    pool = len(passages) + k
    try:
        contexts = build_contexts(passages, qas, SOURCED, k, seed, {"bm25": fake, "dense": fake}, pool,
                                  languages=languages)  # fmt: skip
    except ContextError as exc:
        qa = next(q for q in qas if q.id == exc.qa_id)
        assert sum(p.family != qa.family for p in passages) < k  # only when the whole corpus is short
        return
    for c in contexts:
        if c.variant == "gold_surrounding":
            continue
        qa = next(q for q in qas if q.id == c.qa_id)
        lang = lang_of[qa.gold_passage_id]
        own = sum(lang_of[p.id] == lang and p.family != qa.family for p in passages)
        distractors = [p for p in c.passage_ids if p != qa.gold_passage_id]
        foreign = sum(lang_of[p] != lang for p in distractors)
        assert foreign == max(0, len(distractors) - own)
        assert all(family_of[p] != qa.family for p in distractors)


# ------------------------------------------------------------------------------------------- stage
def test_stage_reads_languages_from_decisions_and_the_import_and_writes_the_counts(tmp_path):
    """English decisions, one Chinese decision of two passages (language from its record) and a
    Chinese imported article of two paragraphs (qa-a1, language from corpus.qa_import): 4 zh passages.
    A zh question has 2 zh passages outside its family; k=4 gold_plus_random needs 3 (1 fill-in),
    random_context 4 (2 fill-ins); two zh questions."""
    from pipeline.stages import contexts as stage

    passages, languages, qas = mixed_corpus(zh_decisions=2, zh_per_decision=2, zh_names=("zh0", "qa-a1"))
    decisions = [p for p in passages if not p.decision_id.startswith("qa-")]
    write_records(tmp_path / "passages.jsonl", passages)
    write_records(tmp_path / "qa.jsonl", qas)
    write_decisions(tmp_path / "decisions.jsonl", decisions, {"zh0": "zh"})
    (tmp_path / "params.yaml").write_text(
        "seed: 3\ncontexts:\n  k: 4\n  pool: 8\n  variants: [gold_plus_random, random_context]\n"
        "corpus:\n  qa_import:\n    format: squad\n    language: zh\n    id_prefix: qa-\n"
    )
    args = [
        "--params", str(tmp_path / "params.yaml"), "--passages", str(tmp_path / "passages.jsonl"),
        "--qa", str(tmp_path / "qa.jsonl"), "--decisions", str(tmp_path / "decisions.jsonl"),
        "--out", str(tmp_path / "contexts.jsonl"), "--stats", str(tmp_path / "stats.json"),
    ]  # fmt: skip
    stage.main(args)
    stats = json.loads((tmp_path / "stats.json").read_text(encoding="utf-8"))
    assert stats["passages_by_language"] == {"en": 24, "zh": 4}
    assert stats["questions_by_language"] == {"en": 6, "zh": 2}
    assert stats["fill_ins"]["zh"] == {
        "gold_plus_random": {"contexts": 2, "distractors": 6, "fill_ins": 2, "contexts_filled": 2},
        "random_context": {"contexts": 2, "distractors": 8, "fill_ins": 4, "contexts_filled": 2},
    }
    assert stats["fill_ins_total"] == 6

    # A passage no record declares a language for: one line naming file, line and field.
    (tmp_path / "params.yaml").write_text("contexts:\n  k: 4\n  pool: 8\n  variants: [gold_plus_random]\n")
    with pytest.raises(InputError) as info:
        stage.main(args)
    first_import = next(n for n, p in enumerate(passages, start=1) if p.decision_id == "qa-a1")
    assert f"passages.jsonl, line {first_import}, field 'decision_id'" in str(info.value)
    assert "'qa-a1'" in str(info.value) and "corpus.qa_import is off" in str(info.value)


def test_unknown_decision_names_the_passage():
    with pytest.raises(langs.UnknownDecision, match=r"passage 'x/p0': decision 'x' .*id_prefix 'qa-'") as info:
        langs.passage_languages([Passage("x/p0", "x", "x", "H", "t")], {}, ("qa-", "zh"))
    assert info.value.index == 0
    got = langs.passage_languages(
        [Passage("a/p0", "a", "a", "H", "t"), Passage("qa-a1/p1", "qa-a1", "qa-a1", "H", "t")],
        {"a": "en"}, ("qa-", "zh"),
    )  # fmt: skip
    assert got == ["en", "zh"]


def test_a_question_is_in_its_gold_passages_language_and_a_missing_gold_is_named():
    passages = [Passage("a/p0", "a", "a", "H", "Zhang bought shares."), Passage("b/p0", "b", "b", "H", "张某买入股票。")]
    # Scripts say the opposite of the declared languages: the declaration wins.
    qas = [QA("q1", "张某买了什么？", "x", "a/p0", "a", "factual", ["x"], []),
           QA("q2", "What did Zhang buy?", "x", "b/p0", "b", "factual", ["x"], [])]
    assert langs.question_languages(qas, passages, ["en", "zh"]) == ["en", "zh"]
    lost = QA("q3", "What?", "x", "c/p0", "c", "factual", ["x"], [])
    with pytest.raises(langs.UnknownGold, match=r"question 'q3', field 'gold_passage_id': unknown passage 'c/p0'"):
        langs.question_languages([*qas, lost], passages, ["en", "zh"])
