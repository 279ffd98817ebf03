"""The corpus stage's pure core: decisions -> passages (with families) -> QA triples."""

from pipeline.corpus.passages import chunk_text, family_of, split_passages
from pipeline.corpus.questions import contains, longest_shared_ngram, make_questions

__all__ = ["chunk_text", "contains", "family_of", "longest_shared_ngram", "make_questions", "split_passages"]
