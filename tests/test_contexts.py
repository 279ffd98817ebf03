"""The contexts stage: docs/method.md §2 variants, family exclusion, gold slot, seeded randomness, errors."""

from __future__ import annotations

import json
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from pipeline.io import InputError, write_records
from pipeline.records import QA, Context, Decision, Passage, Section
from pipeline.retrieval.bm25 import BM25Retriever
from pipeline.retrieval.rank import top_outside
from pipeline.retrieval.tokenize import tokenize
from pipeline.retrieval.variants import VARIANTS, ContextError, build_contexts, gold_slot


class MatrixRetriever:
    """A retriever whose scores come from a callable query -> score vector over the corpus."""

    def __init__(self, score_fn):
        self._score_fn = score_fn

    def top(self, query, n, exclude, ties=None):
        return top_outside(self._score_fn(query), n, exclude, ties)


ALL = list(VARIANTS)
TOPICS = {
    "insider": [
        "shares",
        "insider",
        "dealing",
        "profit",
        "penalty",
        "tribunal",
        "price-sensitive",
        "disclosure",
    ],
    "tenancy": ["tenant", "landlord", "rent", "arrears", "lease", "flat", "termination", "deposit"],
    "criminal": [
        "sentence",
        "imprisonment",
        "robbery",
        "defendant",
        "plea",
        "mitigation",
        "appeal",
        "remorse",
    ],
}


def corpus(n_decisions: int = 9, per_decision: int = 5) -> tuple[list[Passage], list[QA]]:
    """Hand-built decisions of three topics: every passage text is distinct, the family is the decision."""
    passages, qas = [], []
    topics = list(TOPICS)
    for d in range(n_decisions):
        words = TOPICS[topics[d % 3]]
        did = f"dec{d:02d}"
        for p in range(per_decision):
            text = " ".join(words[(p + j) % len(words)] for j in range(5)) + f" case {did} paragraph {p}."
            passages.append(Passage(f"{did}/p{p}", did, did, f"Section {p}", text))
            passages[-1].position = p
        gold = f"{did}/p{d % per_decision}"
        q = f"What did the {words[0]} and {words[3]} finding in case {did} say?"
        qas.append(QA(f"q{d:02d}", q, "ref", gold, did, "factual", ["x"], []))
    return passages, qas


def retrievers(passages, qas):
    docs = [f"{p.heading}\n{p.text}" for p in passages]
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(len(qas), len(passages)))
    return {
        "bm25": BM25Retriever(docs, [q.question for q in qas]),
        "dense": MatrixRetriever(lambda i: dense[i]),
    }


def build(passages, qas, variants=ALL, k=4, seed=13, pool=8):
    return build_contexts(passages, qas, variants, k, seed, retrievers(passages, qas), pool)


def test_every_variant_has_the_right_shape():
    passages, qas = corpus()
    by_id = {p.id: p for p in passages}
    contexts = build(passages, qas)
    assert [c.id for c in contexts] == sorted(c.id for c in contexts)
    assert len(contexts) == len(qas) * len(ALL)
    qa_of = {q.id: q for q in qas}
    for c in contexts:
        qa = qa_of[c.qa_id]
        assert c.id == f"{qa.id}/{c.variant}"
        assert c.answerable == VARIANTS[c.variant].answerable
        assert len(set(c.passage_ids)) == len(c.passage_ids)
        families = [by_id[p].family for p in c.passage_ids]
        if c.variant == "gold_only":
            assert c.passage_ids == [qa.gold_passage_id] and c.gold_slot == 0
        elif c.variant == "gold_surrounding":
            assert set(families) == {qa.family} and len(c.passage_ids) == 4
            positions = [by_id[p].position for p in c.passage_ids]
            assert positions == list(range(positions[0], positions[0] + 4))  # consecutive neighbours
            assert c.passage_ids[c.gold_slot] == qa.gold_passage_id
        elif c.answerable:
            assert len(c.passage_ids) == 4
            assert c.gold_slot == gold_slot(qa.id, c.variant, 4) == c.passage_ids.index(qa.gold_passage_id)
            assert families.count(qa.family) == 1  # the gold alone
        else:
            assert len(c.passage_ids) == 4 and c.gold_slot is None
            assert qa.family not in families


def test_gold_slot_is_a_stable_hash_and_varies_over_questions():
    assert gold_slot("q1", "gold_plus_bm25", 10) == gold_slot("q1", "gold_plus_bm25", 10)
    slots = {gold_slot(f"q{i}", "gold_plus_bm25", 10) for i in range(200)}
    assert slots == set(range(10))


def test_bm25_distractors_are_the_top_hits_outside_the_family_in_rank_order():
    passages, qas = corpus()
    contexts = {c.id: c for c in build(passages, qas, ["gold_plus_bm25", "bm25_hard_negative"])}
    # Independent reference: rank-bm25 scores straight from the library, sorted by hand.
    bm25 = BM25Okapi([tokenize(f"{p.heading}\n{p.text}") for p in passages])
    for qa in qas:
        scores = bm25.get_scores(tokenize(qa.question))
        order = sorted(
            (i for i, p in enumerate(passages) if p.family != qa.family), key=lambda i: (-scores[i], i)
        )
        expected = [passages[i].id for i in order]
        neg = contexts[f"{qa.id}/bm25_hard_negative"]
        assert neg.passage_ids == expected[:4]
        pos = contexts[f"{qa.id}/gold_plus_bm25"]
        assert [p for p in pos.passage_ids if p != qa.gold_passage_id] == expected[:3]


def test_random_variants_are_seeded():
    passages, qas = corpus(n_decisions=12)
    variants = ["gold_plus_random", "random_context"]
    a = build(passages, qas, variants, seed=1)
    assert a == build(passages, qas, variants, seed=1)
    b = build(passages, qas, variants, seed=2)
    assert [c.passage_ids for c in a] != [c.passage_ids for c in b]


def test_duplicate_texts_are_skipped_as_distractors():
    passages, qas = corpus()
    gold = next(p for p in passages if p.id == qas[0].gold_passage_id)
    twin = Passage("copy/p0", "copy", "copy", "Copy", "  " + gold.text.upper() + " ")
    passages.append(twin)
    qas[0].question = gold.text  # the twin would be the top BM25 hit
    for c in build(
        passages, qas, ["gold_plus_bm25", "bm25_hard_negative", "gold_plus_random", "random_context"]
    ):
        if c.qa_id == qas[0].id:
            assert "copy/p0" not in c.passage_ids


def test_unfillable_variant_fails_with_a_clear_message():
    passages, qas = corpus(n_decisions=2, per_decision=3)  # 3 passages outside each family
    with pytest.raises(ContextError, match="needs 4 distractors outside family"):
        build(passages, qas, ["random_context"], k=4)
    assert len(build(passages, qas, ["gold_plus_random"], k=4)) == 2  # 3 distractors are enough


def test_bad_references_name_the_question_and_field():
    passages, qas = corpus(n_decisions=3)
    qas[1].gold_passage_id = "nowhere/p0"
    with pytest.raises(ContextError, match="gold_passage_id") as info:
        build(passages, qas)
    assert info.value.qa_id == qas[1].id
    passages, qas = corpus(n_decisions=3)
    qas[2].family = "dec00"
    with pytest.raises(ContextError, match="family"):
        build(passages, qas)


@st.composite
def random_corpus(draw):
    n_fam = draw(st.integers(2, 7))
    sizes = draw(st.lists(st.integers(1, 6), min_size=n_fam, max_size=n_fam))
    passages = []
    for f, size in enumerate(sizes):
        # Imported-corpus style families: several families may share one decision.
        decision = f"d{f // 2}"
        for j in range(size):
            passages.append(
                Passage(f"f{f}/p{j}", decision, f"fam{f}", "H", f"text {f} {j}", position=f * 10 + j)
            )
    qas = []
    for qi in range(draw(st.integers(1, 6))):
        gold = draw(st.sampled_from(passages))
        qas.append(QA(f"q{qi}", "question?", "a", gold.id, gold.family, "factual", [], []))
    k = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**31))
    scores = np.array(
        draw(st.lists(st.floats(-5, 5), min_size=len(qas) * len(passages), max_size=len(qas) * len(passages)))
    )
    return passages, qas, k, seed, scores.reshape(len(qas), len(passages))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_corpus())
def test_family_exclusion_is_never_violated(case):
    passages, qas, k, seed, scores = case
    fake = MatrixRetriever(lambda i: scores[i])
    by_id = {p.id: p for p in passages}
    try:
        contexts = build_contexts(passages, qas, ALL, k, seed, {"bm25": fake, "dense": fake}, pool=k + 2)
    except ContextError as exc:
        # Only allowed when some question really has too few passages outside its family.
        qa = next(q for q in qas if q.id == exc.qa_id)
        outside = sum(p.family != qa.family for p in passages)
        assert outside < k  # hard negatives need k, answerable variants k-1
        return
    for c in contexts:
        qa = next(q for q in qas if q.id == c.qa_id)
        gold = by_id[qa.gold_passage_id]
        families = [by_id[p].family for p in c.passage_ids]
        if c.variant == "gold_surrounding":
            assert {by_id[p].decision_id for p in c.passage_ids} == {gold.decision_id}
            assert c.passage_ids[c.gold_slot] == gold.id
        elif c.answerable:
            assert c.passage_ids[c.gold_slot] == gold.id
            assert 0 <= c.gold_slot < k
            assert families.count(qa.family) == 1
        else:
            assert qa.family not in families and c.gold_slot is None


# ------------------------------------------------------------------------------------------- stage
def write_decisions(path, passages, languages=None):
    """One Decision record per decision id of `passages`: the contexts stage reads only id and language."""
    languages = languages or {}
    ids = sorted({p.decision_id for p in passages})
    write_records(path, [
        Decision(d, "t", languages.get(d, "en"), "x", d, "", "text", [Section("s1", "H", "text")]) for d in ids
    ])  # fmt: skip


def test_stage_writes_sorted_contexts_deterministically(tmp_path, monkeypatch):
    from pipeline.stages import contexts as stage

    passages, qas = corpus(n_decisions=6, per_decision=4)
    write_records(tmp_path / "passages.jsonl", passages)
    write_records(tmp_path / "qa.jsonl", qas)
    write_decisions(tmp_path / "decisions.jsonl", passages)
    params = tmp_path / "params.yaml"
    params.write_text("seed: 5\ncontexts:\n  k: 3\n  pool: 6\n")
    args = [
        "--params", str(params), "--passages", str(tmp_path / "passages.jsonl"), "--qa", str(tmp_path / "qa.jsonl"),
        "--out", str(tmp_path / "contexts.jsonl"), "--cache-dir", str(tmp_path / "emb"),
        "--decisions", str(tmp_path / "decisions.jsonl"), "--stats", str(tmp_path / "stats.json"),
    ]  # fmt: skip
    stage.main(args)
    first = (tmp_path / "contexts.jsonl").read_bytes()
    rows = [json.loads(line) for line in first.decode().splitlines()]
    assert len(rows) == 6 * 8 and [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    assert Context(**rows[0])  # same fields as the record
    shards = sorted(p.name for p in (tmp_path / "emb").rglob("*"))
    assert shards
    stage.main(args)
    assert (tmp_path / "contexts.jsonl").read_bytes() == first
    assert sorted(p.name for p in (tmp_path / "emb").rglob("*")) == shards  # cache hit: nothing new


def test_stage_reports_file_line_and_field_for_a_bad_question(tmp_path):
    from pipeline.stages import contexts as stage

    passages, qas = corpus(n_decisions=3)
    qas[2].gold_passage_id = "ghost/p1"
    write_records(tmp_path / "passages.jsonl", passages)
    write_records(tmp_path / "qa.jsonl", qas)
    write_decisions(tmp_path / "decisions.jsonl", passages)
    (tmp_path / "params.yaml").write_text("contexts:\n  k: 3\n  pool: 6\n  variants: [gold_plus_bm25]\n")
    with pytest.raises(InputError) as info:
        stage.main([
            "--params", str(tmp_path / "params.yaml"), "--passages", str(tmp_path / "passages.jsonl"),
            "--qa", str(tmp_path / "qa.jsonl"), "--out", str(tmp_path / "contexts.jsonl"),
            "--decisions", str(tmp_path / "decisions.jsonl"),
        ])  # fmt: skip
    assert "qa.jsonl, line 3, field 'gold_passage_id'" in str(info.value)
    assert not (tmp_path / "contexts.jsonl").exists()


def test_a_second_dense_model_is_its_own_variant():
    passages, qas = corpus()
    rets = retrievers(passages, qas)
    other = np.random.default_rng(1).normal(size=(len(qas), len(passages)))
    rets["dense.alt"] = MatrixRetriever(lambda i: other[i])
    contexts = build_contexts(
        passages, qas, ["dense_hard_negative", "dense_hard_negative.alt"], 4, 0, rets, 8
    )
    by_id = {c.id: c for c in contexts}
    assert by_id["q00/dense_hard_negative.alt"].answerable is False
    expected = [
        passages[i].id
        for i in rets["dense.alt"].top(0, 4, {i for i, p in enumerate(passages) if p.family == "dec00"})
    ]
    assert by_id["q00/dense_hard_negative.alt"].passage_ids == expected
    with pytest.raises(ValueError, match="unknown context variant"):
        build_contexts(passages, qas, ["gold_plus_bm25.alt"], 4, 0, rets, 8)
    with pytest.raises(ValueError, match="no retriever"):
        build_contexts(passages, qas, ["gold_plus_dense.zzz"], 4, 0, rets, 8)


# ------------------------------------------------------------------------------- language coverage
ZH_PASSAGES = [
    Passage("zh1/p0", "zh1", "zh1", "事实", "经查明，张某在内幕信息敏感期内买入某公司股票，获利4,665,091.79元。"),
    Passage("zh2/p0", "zh2", "zh2", "决定", "我会决定：没收李某违法所得1200000元，并处以罚款。"),
    Passage("en1/p0", "en1", "en1", "Facts", "The tenant owed rent arrears of HK$48,000 to the landlord."),
]
ZH_QAS = [
    QA("qz", "张某通过这次交易赚了多少钱？", "4,665,091.79元", "zh1/p0", "zh1", "factual", ["4,665,091.79元"], []),
    QA("qe", "How much rent did the tenant owe?", "HK$48,000", "en1/p0", "en1", "factual", ["HK$48,000"], []),
]
# Declared by the passages' decisions (pipeline/retrieval/languages.py), not read off their script.
ZH_LANGUAGES = ["zh", "zh", "en"]


class NoUnknownTokenizer:
    """A byte-level stand-in (no unknown token): what a multilingual model's tokenizer looks like to the check."""

    unk_token_id = None

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": list(text.encode())}


def test_an_english_only_dense_model_on_chinese_text_stops_naming_the_param():
    """The bundled MiniLM (WordPiece, English vocabulary) turns most Chinese characters into [UNK]: the
    stage stops before embedding anything and names the per-language model param and the opt-in (here with
    Chinese left to dense_model: the shipped params route it to e5)."""
    from pipeline.params import ContextsParams
    from pipeline.retrieval.build import make_retrievers
    from pipeline.retrieval.coverage import CoverageError

    with pytest.raises(CoverageError) as info:
        make_retrievers(ZH_PASSAGES, ZH_QAS, {"dense"}, ContextsParams(dense_language_models={}), None, ZH_LANGUAGES)
    message = str(info.value)
    assert "'minilm'" in message and "language 'zh'" in message
    assert "contexts.dense_language_models.zh" in message and "contexts.allow_uncovered_language" in message


def test_opting_in_or_mapping_a_model_per_language_routes_questions(tmp_path):
    """With allow_uncovered_language the check passes (rate still measured); with a zh model mapped, a zh
    question is ranked by the zh model's embeddings and an English one by dense_model's. Vectors come
    from a pre-filled embedding cache, so no model is loaded."""
    from pipeline.params import ContextsParams
    from pipeline.retrieval.build import check_languages, make_retrievers, passage_text
    from pipeline.retrieval.coverage import load_tokenizer
    from pipeline.retrieval.dense import EmbeddingCache, text_key

    allowed = ContextsParams(allow_uncovered_language=True)
    rates = check_languages({"zh": ("minilm", "contexts.dense_language_models.zh")},
                            {"zh": [p.text for p in ZH_PASSAGES[:2]]}, allowed, lambda m: load_tokenizer(m))
    assert rates["zh"] > 0.05  # measured, not hidden

    docs = [passage_text(p) for p in ZH_PASSAGES]
    # "en-model" ranks passage 2 first for every text; "zh-model" ranks passage 1 first.
    for model, best in (("en-model", 2), ("zh-model", 1)):
        cache = EmbeddingCache(tmp_path, model)
        rows = np.eye(3, dtype=np.float32)
        texts = docs + [q.question for q in ZH_QAS]
        vectors = np.stack([rows[i] for i in range(3)] + [rows[best]] * len(ZH_QAS))
        cache.add([text_key(t) for t in texts], vectors)
    cfg = ContextsParams(dense_model="en-model", dense_language_models={"zh": "zh-model"})
    rets = make_retrievers(ZH_PASSAGES, ZH_QAS, {"dense"}, cfg, tmp_path, ZH_LANGUAGES,
                           tokenizer_for=lambda m: NoUnknownTokenizer())
    assert rets["dense"].top(0, 1, set()) == [1]  # the zh question: zh-model
    assert rets["dense"].top(1, 1, set()) == [2]  # the English question: en-model


def test_a_question_goes_to_the_model_of_its_declared_language_whatever_its_script(tmp_path):
    """A Chinese question (gold passage in a zh decision) full of Latin names reads as English by its
    script; an English question quoting a Chinese statute reads as Chinese. Each goes to the model of
    its declared language, and the coverage check sees it among that language's texts."""
    from pipeline import language
    from pipeline.params import ContextsParams
    from pipeline.retrieval import build
    from pipeline.retrieval.build import make_retrievers, passage_text
    from pipeline.retrieval.dense import EmbeddingCache, text_key

    zh_latin = QA("qz", "Goldman Sachs Asia LLC 向 SFC 缴纳了多少 penalty？", "a", "zh2/p0", "zh2", "factual", ["a"], [])
    en_quoting = QA("qe", "What penalty did the court impose under 《证券法》第二百零二条 for 内幕交易 and 没收违法所得?",
                    "a", "en1/p0", "en1", "factual", ["a"], [])
    qas = [zh_latin, en_quoting]
    assert [language.detect(q.question) for q in qas] == ["en", "zh"]  # the script says the opposite
    docs = [passage_text(p) for p in ZH_PASSAGES]
    for model, best in (("en-model", 2), ("zh-model", 1)):
        rows = np.eye(3, dtype=np.float32)
        EmbeddingCache(tmp_path, model).add([text_key(t) for t in docs + [q.question for q in qas]],
                                            np.stack([*rows, rows[best], rows[best]]))
    seen = {}

    def coverage(model, lang, texts, *args):
        seen[model, lang] = list(texts)
        return 0.0

    cfg = ContextsParams(dense_model="en-model", dense_language_models={"zh": "zh-model"})
    with mock.patch.object(build, "check_coverage", side_effect=coverage):
        rets = make_retrievers(ZH_PASSAGES, qas, {"dense"}, cfg, tmp_path, ZH_LANGUAGES)
    assert rets["dense"].top(0, 1, set()) == [1]  # zh-model
    assert rets["dense"].top(1, 1, set()) == [2]  # en-model
    assert seen["zh-model", "zh"] == [zh_latin.question, *docs[:2]]
    assert seen["en-model", "en"] == [en_quoting.question, docs[2]]


def test_gold_recall_per_language_counts_hits_in_the_top_k(tmp_path):
    """recall@1 worked out by hand: BM25 finds each question's gold (it shares the question's words);
    the pre-filled "dense" vectors point both questions at the English passage, so dense finds the
    English gold only. The unanswerable question is left out."""
    from pipeline.params import ContextsParams
    from pipeline.retrieval import build
    from pipeline.retrieval.build import passage_text
    from pipeline.retrieval.dense import EmbeddingCache, text_key
    from pipeline.retrieval.recall import gold_recall

    qas = [*ZH_QAS, QA("qx", "张某的辩护律师是谁？", "", "zh1/p0", "zh1", "factual", [], [])]
    texts = [passage_text(p) for p in ZH_PASSAGES] + [q.question for q in qas]
    rows = np.eye(3, dtype=np.float32)
    EmbeddingCache(tmp_path, "m").add([text_key(t) for t in texts], np.stack([*rows, rows[2], rows[2], rows[2]]))
    cfg = ContextsParams(dense_model="m", dense_language_models={}, allow_uncovered_language=True)
    # "m" has no tokenizer to load: the coverage check is not what this test is about.
    with mock.patch.object(build, "check_coverage", return_value=0.0):
        recall = gold_recall(ZH_PASSAGES, qas, cfg, tmp_path, ZH_LANGUAGES, k=1)
    assert recall == {"en": {"questions": 1, "bm25": 1.0, "dense": 1.0},
                      "zh": {"questions": 1, "bm25": 1.0, "dense": 0.0}}
