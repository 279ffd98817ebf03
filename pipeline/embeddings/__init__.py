"""Sentence embedders that ship inside packages (no model download) and their calibration.

builtin.py names them ("minilm", "e5", "use"): how each loads, which languages it reads and the cosine
threshold IRAC compares with by default. calibration.py measures, on the paraphrase sets in calibration/,
how well a model's cosines separate paraphrases from near-misses, per language (docs/method.md §11).
"""
