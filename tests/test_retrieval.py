"""Retrieval pieces: language-aware tokens, BM25, deterministic top-n, dense MiniLM, embedding cache."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.language import has_cjk
from pipeline.retrieval.bm25 import BM25Retriever
from pipeline.retrieval.dense import DenseRetriever, Embedder, model_key
from pipeline.retrieval.rank import top_outside
from pipeline.retrieval.tokenize import stem, tokenize


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


# A hand-written zh fixture: 17 passages of four decisions (each decision's passages share names and
# vocabulary, so the gold passage must win on the question's specific words) and one paraphrased
# question per passage.
ZH_PASSAGES = [
    "中国证监会查明，张某在担任甲公司董事期间获悉公司重大资产重组的内幕信息。",
    "张某在内幕信息公开前使用本人证券账户买入甲公司股票共计三十万股。",
    "张某卖出上述股票后获利4,665,091.79元。",
    "证监会决定没收张某违法所得4,665,091.79元，并处以违法所得一倍的罚款。",
    "张某辩称其买入股票系基于公开信息的独立判断，证监会未予采纳。",
    "李某系乙公司财务总监，负责编制公司定期报告，知悉公司业绩预亏的情况。",
    "李某在业绩预亏公告发布前卖出所持乙公司股票，避免损失约120万元。",
    "证监会认为李某的行为构成内幕交易，决定对其处以60万元罚款，并给予警告。",
    "李某提出其卖出股票是为了偿还个人债务，证监会认为该理由不能成立。",
    "被告人陈某多次进入超市盗窃他人财物，价值共计三万元。",
    "法院认为陈某到案后如实供述自己的罪行，可以从轻处罚。",
    "法院判处陈某有期徒刑二年，并处罚金五千元。",
    "陈某的辩护人提出其系初犯，请求适用缓刑，法院未予采纳。",
    "租客周某自2019年3月起拖欠租金，累计三个月未支付。",
    "房东依照租赁合同的约定书面通知周某解除合同，并要求其在十五日内搬离房屋。",
    "法院判决周某支付拖欠的租金并返还房屋，押金用于抵扣部分欠款。",
    "周某主张房屋存在漏水问题，房东未及时维修，但法院认为这不构成拒付租金的理由。",
]
ZH_QUESTIONS = [
    ("张某是在担任什么职务时得知重组消息的？", 0),
    ("张某用谁的账户买了多少股？", 1),
    ("张某通过交易赚了多少钱？", 2),
    ("证监会对张某的非法收益如何处理？", 3),
    ("张某关于独立判断的抗辩是否被接受？", 4),
    ("李某在公司负责什么工作？", 5),
    ("李某提前抛售股票减少了多少亏损？", 6),
    ("李某被罚款多少？", 7),
    ("李某说卖股票是为了还债，这个理由成立吗？", 8),
    ("陈某偷了多少钱的东西？", 9),
    ("陈某为什么可以从轻处罚？", 10),
    ("陈某被判了几年徒刑？", 11),
    ("陈某是否获得缓刑？", 12),
    ("周某从什么时候开始欠房租？", 13),
    ("房东要求周某在多长时间内搬走？", 14),
    ("押金最后怎么处理？", 15),
    ("房屋漏水能否作为不交房租的理由？", 16),
]


def _gold_ranks(rank_lists) -> list[int]:
    return [order.index(gold) + 1 for order, (_, gold) in zip(rank_lists, ZH_QUESTIONS, strict=True)]


def test_bm25_on_chinese_finds_the_gold_passage_and_bigrams_beat_jieba_words():
    from rank_bm25 import BM25Okapi

    from pipeline import language

    bm25 = BM25Retriever(ZH_PASSAGES, [q for q, _ in ZH_QUESTIONS])
    bigram_ranks = _gold_ranks([bm25.top(i, len(ZH_PASSAGES), ()) for i in range(len(ZH_QUESTIONS))])
    assert all(r <= 3 for r in bigram_ranks)  # gold recall@3 = 1.0
    assert sum(r == 1 for r in bigram_ranks) >= 13
    # The alternative the tokenizer's docstring compares: jieba content words.
    words = BM25Okapi([language.content_words(p, "zh") for p in ZH_PASSAGES])
    jieba_ranks = _gold_ranks(
        [
            list(np.argsort(-words.get_scores(language.content_words(q, "zh")), kind="stable"))
            for q, _ in ZH_QUESTIONS
        ]
    )
    mrr = lambda ranks: sum(1 / r for r in ranks) / len(ranks)  # noqa: E731
    assert sum(r <= 3 for r in bigram_ranks) >= sum(r <= 3 for r in jieba_ranks)
    assert mrr(bigram_ranks) >= mrr(jieba_ranks)
