"""Language-dependent text handling in one place: pick the behaviour by the record's language.

Text API (core): detect, words, content_words, content_ngrams, sentences, count_tokens,
longest_prefix_within, ngrams,
is_numeral, has_cjk, check. Refusals (refusal.py): refusal_of(question, refusals) is the one rule for
which refusal sentence a record is held to (its question's language); question_of_prompt finds a pair's
question. Numbers (numbers.py): numbers(text, lang) gives canonical amounts and dates
(numbers.canonical and numbers.zh_numeral are there for other normalisers). Chinese segmentation (zh.py)
is jieba's, built once, quietly. English question-rewriting helpers used by the offline generators and
the augmenter live in rewrite_en and are re-exported (area, declarative, focus) so
`from pipeline.language import area` keeps working.
"""

from pipeline.language.core import (
    CJK,
    LANGUAGES,
    STOPWORDS,
    check,
    content_ngrams,
    content_words,
    count_tokens,
    detect,
    has_cjk,
    is_numeral,
    longest_prefix_within,
    ngrams,
    sentences,
    words,
)
from pipeline.language.numbers import numbers, plain_numerals
from pipeline.language.refusal import question_of_prompt, refusal_of
from pipeline.language.rewrite_en import area, declarative, focus

__all__ = [
    "CJK",
    "LANGUAGES",
    "STOPWORDS",
    "area",
    "check",
    "content_ngrams",
    "content_words",
    "count_tokens",
    "declarative",
    "detect",
    "focus",
    "has_cjk",
    "is_numeral",
    "longest_prefix_within",
    "ngrams",
    "numbers",
    "plain_numerals",
    "question_of_prompt",
    "refusal_of",
    "sentences",
    "words",
]
