"""Chinese segmentation (jieba) behind one lazily built, quiet, shared tokenizer, and Chinese stopwords.

jieba prints "Building prefix dict ..." on stderr and builds its dictionary on first use; a stage that
segments thousands of passages must do that once, silently, and get the same cut every run. The
dictionary is jieba's bundled one (no user dictionary), and the HMM guesser for unknown words is off:
a pure dictionary cut is a function of the text alone, so the same phrase is cut the same way in a
question, a passage and an answer.
"""

from __future__ import annotations

import functools
import logging
import threading

_LOCK = threading.Lock()
_TOKENIZER = None

# Function words, question words and the vocabulary of the task itself ("段落", "回答"): they carry no
# fact of a case. Negations (不, 未, 没有, 无, 非, 否) are kept, as "no"/"not" are in English.
STOPWORDS = frozenset(
    """的 地 得 了 着 过 是 在 和 与 及 或 或者 对 于 为 以 将 被 把 由 从 向 至 到 等 其 之 也 就 都 而 并 且
    则 即 该 此 这 那 这些 那些 这个 那个 其中 所 有 个 上 中 下 我 你 他 她 它 我们 你们 他们 她们 它们
    本 已 已经 因 因此 所以 但 但是 然而 如果 因为 由于 关于 根据 按照 依据 对于 以及 及其 还 又 再 吗
    呢 吧 啊 呀 么 嘛 什么 哪 哪些 哪个 怎么 怎样 如何 多少 几 谁 是否 何 何时 哪里 为什么 为何 能否
    可否 问题 段落 材料 回答 答案 提供 进行 可以 应当 应该 应 能 能够 会 要 需要 就是 也是 还是 以上
    以下 方面 有关 相关 一个 之后 之前 时 后 前 者 所述 上述 如下""".split()
)


def _tokenizer():
    global _TOKENIZER
    if _TOKENIZER is None:
        with _LOCK:
            if _TOKENIZER is None:
                import jieba

                # jieba logs its dictionary build at DEBUG on its own stderr handler.
                jieba.setLogLevel(logging.WARNING)
                logging.getLogger("jieba").setLevel(logging.WARNING)
                tokenizer = jieba.Tokenizer()
                tokenizer.initialize()
                _TOKENIZER = tokenizer
    return _TOKENIZER


@functools.lru_cache(maxsize=1 << 16)
def _cut(run: str) -> tuple[str, ...]:
    return tuple(w for w in _tokenizer().cut(run, HMM=False) if w.strip())


def segment(run: str) -> list[str]:
    """jieba words of a run of Chinese text (dictionary cut, cached: passages repeat across contexts)."""
    return list(_cut(run))
