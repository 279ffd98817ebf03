"""Structured legal reasoning (docs/method.md §11): systems extract a decision's annotated IRAC fields or write its
legal analysis; metrics compare both with the annotation.

schema (what each field means) -> rule / llm (the systems) -> normalize + metrics (the scores) ->
evaluate (stage wiring) -> report (reports/irac.md).
"""
