"""Retrieval pieces: language-aware tokens, BM25, deterministic top-n, dense MiniLM, embedding cache."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.retrieval.bm25 import BM25Retriever
from pipeline.retrieval.dense import DenseRetriever, Embedder, model_key
from pipeline.retrieval.rank import top_outside
from pipeline.retrieval.tokenize import has_cjk, stem, tokenize


def test_english_tokens_are_lowercased_stemmed_without_stopwords():
    assert tokenize("The Tribunal DISMISSED the appeals of the tenants.") == [
        "tribunal",
        "dismiss",
        "appeal",
        "tenant",
    ]
    assert stem("dismisses") == stem("dismissed") == stem("dismissing") == "dismiss"
    assert stem("admitted") == "admit" and stem("penalties") == "penalty"
    assert stem("imposed") == stem("impose") == stem("imposes") == stem("imposing")
    assert stem("shares") == stem("share") and stem("sentenced") == stem("sentence")
    # Polarity words are kept: yes/no answers depend on them.
    assert "not" in tokenize("He was not guilty") and "no" in tokenize("There was no profit")
    # Numbers with separators stay whole.
    assert "2,400,000" in tokenize("a penalty of HK$2,400,000.")


def test_chinese_is_split_into_character_bigrams():
    assert has_cjk("内幕交易") and not has_cjk("insider dealing")
    assert tokenize("内幕交易") == ["内幕", "幕交", "交易"]
    assert tokenize("罚") == ["罚"]
    # Latin words and numbers inside Chinese text are tokenised as English, separately from the CJK run.
    assert tokenize("罚款200万元 Penalties") == ["罚款", "200", "万元", "penalty"]


def test_bm25_ranks_chinese_documents_by_shared_bigrams():
    docs = [
        "被告人因盗窃罪被判处有期徒刑一年。",
        "证监会对内幕交易行为处以罚款二百万元。",
        "租客拖欠租金三个月，业主终止租约。",
    ]
    bm25 = BM25Retriever(docs, ["内幕交易的罚款是多少？", "租金拖欠"])
    assert bm25.top(0, 3, ())[0] == 1
    assert bm25.top(1, 1, ()) == [2]


def test_bm25_ranks_english_and_respects_exclusion():
    docs = [
        "The landlord terminated the tenancy for unpaid rent.",
        "The Tribunal imposed a pecuniary penalty for insider dealing.",
        "Insider dealing in the shares of the company was proved; the penalty was doubled.",
        "The defendant was sentenced to 18 months' imprisonment.",
        "The appeal against conviction was dismissed.",
        "The tenant paid the arrears before the hearing.",
    ]
    bm25 = BM25Retriever(docs, ["What penalty was imposed for insider dealing?"])
    top = bm25.top(0, 4, ())
    assert set(top[:2]) == {1, 2}
    assert bm25.top(0, 2, {1, 2}) == [i for i in top if i not in {1, 2}][:2]


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.integers(-3, 3), min_size=1, max_size=40),
    n=st.integers(0, 45),
    data=st.data(),
)
def test_top_outside_matches_a_brute_force_reference(scores, n, data):
    exclude = data.draw(st.sets(st.integers(0, len(scores) - 1)))
    reference = sorted((i for i in range(len(scores)) if i not in exclude), key=lambda i: (-scores[i], i))[:n]
    assert top_outside(np.array(scores, dtype=float), n, exclude) == reference


# ------------------------------------------------------------------------------------------- dense
class CountingEncoder:
    """Deterministic fake embeddings (a hash of the text) that count how many texts were encoded."""

    def __init__(self):
        self.seen: list[str] = []

    def __call__(self, texts):
        self.seen.extend(texts)
        out = np.stack([np.random.default_rng(abs(hash(t)) % 2**32).normal(size=8) for t in texts])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def test_embedding_cache_hit_encodes_nothing_on_the_second_run(tmp_path):
    texts = [f"passage number {i}" for i in range(10)] + ["passage number 3"]  # one duplicate
    enc = CountingEncoder()
    first = Embedder("fake", tmp_path, encoder=enc, shard_size=4).embed(texts)
    assert len(enc.seen) == 10  # duplicates encoded once
    assert len(list((tmp_path / model_key("fake")).glob("*.keys.json"))) == 3  # shards of 4, 4, 2

    enc2 = CountingEncoder()
    second = Embedder("fake", tmp_path, encoder=enc2).embed(texts)
    assert enc2.seen == [] and np.array_equal(first, second)

    # A new text only costs one encoding; another model never shares the cache.
    enc3 = CountingEncoder()
    Embedder("fake", tmp_path, encoder=enc3).embed(texts + ["a new one"])
    assert enc3.seen == ["a new one"]
    enc4 = CountingEncoder()
    Embedder("other-model", tmp_path, encoder=enc4).embed(texts[:2])
    assert len(enc4.seen) == 2


def test_interrupted_shard_without_keys_is_ignored(tmp_path):
    enc = CountingEncoder()
    Embedder("fake", tmp_path, encoder=enc, shard_size=2).embed(["a", "b", "c", "d"])
    folder = tmp_path / model_key("fake")
    victim = sorted(folder.glob("*.keys.json"))[0]
    victim.unlink()  # as if the process died between the array and its keys
    enc2 = CountingEncoder()
    Embedder("fake", tmp_path, encoder=enc2).embed(["a", "b", "c", "d"])
    assert len(enc2.seen) == 2


@pytest.fixture(scope="module")
def minilm_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("emb")


def test_real_minilm_ranks_a_paraphrase_above_unrelated_passages(minilm_cache):
    passages = [
        "The landlord raised the monthly rent of the flat and the tenant moved out.",
        "The court sentenced the defendant to eighteen months in prison for the robbery.",
        "The company announced a merger with a rival firm in the shipping industry.",
    ]
    questions = [
        "How long was the offender jailed for the hold-up?",
        "Why did the renter leave the apartment?",
    ]
    embedder = Embedder("minilm", minilm_cache)
    p = embedder.embed(passages)
    q = embedder.embed(questions)
    assert p.shape == (3, 384) and np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    dense = DenseRetriever(p, q)
    assert dense.top(0, 3, ())[0] == 1
    assert dense.top(1, 3, ())[0] == 0
    assert dense.top(0, 2, {1}) == sorted({0, 2}, key=lambda i: -float(p[i] @ q[0]))

    # Second run: everything from the cache, the model is never loaded.
    again = Embedder("minilm", minilm_cache)
    assert np.array_equal(again.embed(passages), p)
    assert again.encoded == 0 and again._encoder is None


def test_postings_scores_equal_rank_bm25_get_scores():
    docs = [
        "The landlord terminated the tenancy for unpaid rent and rent arrears.",
        "The Tribunal imposed a pecuniary penalty for insider dealing.",
        "Insider dealing in the shares of the company was proved; the penalty was doubled.",
        "The defendant was sentenced to 18 months' imprisonment.",
        "The appeal against conviction was dismissed.",
        "被告人因盗窃罪被判处有期徒刑一年。",
    ]
    queries = [
        "rent rent arrears of the landlord",
        "insider dealing penalty",
        "盗窃罪 sentence",
        "nothing matches",
    ]
    bm25 = BM25Retriever(docs, queries, k1=1.2, b=0.6)
    for i, q in enumerate(queries):
        np.testing.assert_allclose(bm25.scores(i), bm25.bm25.get_scores(tokenize(q)), rtol=1e-12, atol=1e-12)
