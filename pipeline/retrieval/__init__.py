"""Retrieval for the contexts stage and the offline answerers: language-aware tokens, BM25, dense."""
