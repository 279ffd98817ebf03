"""Where the stages read and write: every data, model and report path of the pipeline, and the readers of the
pair split files, in one place.

Paths are relative to the stage's working directory: the repository root for the default profile, the profile
folder for the others (dvc.yaml's `wdir`). dvc.yaml names the same files in its deps and outs;
tests/test_paths.py checks that each path a stage uses here appears there, so the two cannot drift apart.
The stage each path belongs to is the one that writes it (docs/method.md §1 for the records they hold).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pipeline.io import read_records
from pipeline.records import SPLITS, Pair

# Inputs a user places (DVC-tracked as one folder; data/external/README.md documents each format).
EXTERNAL = Path("data/external")

# The validation set labelled by reading, shared by every profile (docs/method.md §4; data/validation/README.md).
VALIDATION = Path("data/validation")

# decisions
DECISIONS = Path("data/raw/decisions.jsonl")

# corpus, contexts, generate, judge: the generated data the judge, pairs and report stages share
INTERIM = Path("data/interim")
PASSAGES = INTERIM / "passages.jsonl"
QAS = INTERIM / "qa.jsonl"
CONTEXTS = INTERIM / "contexts.jsonl"
CONTEXT_STATS = INTERIM / "contexts_stats.json"
CANDIDATES = INTERIM / "candidates.jsonl"
LABELS = INTERIM / "labels"

# pairs, augment, pairs_grounded: the preference corpora, one folder each with a file per split
PROCESSED = Path("data/processed")
PAIRS = PROCESSED / "pairs"
PAIRS_AUG = PROCESSED / "pairs_aug"
AUGMENT_META = PAIRS_AUG / "meta.json"
# pairs_grounded: the pairs under the grounded hierarchy (docs/method.md §5), a run set's corpus beside pairs.
PAIRS_GROUNDED = PROCESSED / "pairs_grounded"
CORPORA = {"pairs": PAIRS, "pairs_aug": PAIRS_AUG, "pairs_grounded": PAIRS_GROUNDED}

# score, irac
SCORES = Path("data/scores")
IRAC = Path("data/irac")
# rerank: every test context's answers, rewards and picks
RERANK = Path("data/rerank")
RERANK_PICKS = RERANK / "picks.jsonl"

# Caches of paid or slow work (generation, judging, rewriting, embeddings, converted packaged models): kept
# out of the stage outputs so that a rerun reuses them (docs/method.md §3).
CACHE = Path("data/cache")
GENERATE_CACHE = CACHE / "generate"
JUDGE_CACHE = CACHE / "judge"
AUGMENT_CACHE = CACHE / "augment"
EMBEDDING_CACHE = CACHE / "embeddings"
IRAC_CACHE = CACHE / "irac"
# Models a Python package ships, converted on first use by whichever stage loads them; not a stage output.
MODEL_CACHE = CACHE / "models"

# pretrain (or the real profile's packaged base), train
BASE = Path("models/base")
BASE_META = BASE / "meta.json"
# Where `python -m pipeline.models.packaged` converts a packaged model when run by hand; not a stage output.
REAL_BASE = Path("models/real_base")
ADAPTERS = Path("models/adapters")

# reports
REPORTS = Path("reports")
RERANK_REPORT = REPORTS / "rerank.md"
RERANK_DETAILS = REPORTS / "rerank_details.json"
RERANK_METRICS = REPORTS / "rerank_metrics.json"
TRAINING_CURVES = REPORTS / "training"
PRETRAIN_CURVE = TRAINING_CURVES / "pretrain.csv"
CURVE_PLOTS = REPORTS / "plots" / "curves"
# judge_eval: every judge against the validation set
JUDGE_VALIDITY = REPORTS / "judge_validity.json"
JUDGE_EVAL_CACHE = CACHE / "judge_eval"
EXPLORER = REPORTS / "explorer"
# The bench commands' JSON (make bench); not stage outputs.
BENCH = REPORTS / "bench"


def split_file(corpus_dir: Path, split: str) -> Path:
    """The file of one split of a pair corpus folder (pairs/train.jsonl, ...)."""
    return Path(corpus_dir) / f"{split}.jsonl"


def read_split(corpus_dir: Path, split: str) -> list[Pair]:
    """One split of a pair corpus, in file order."""
    return read_records(split_file(corpus_dir, split), Pair)


def read_pairs(corpus_dir: Path, splits: Iterable[str] = SPLITS, missing_ok: bool = False) -> list[Pair]:
    """The pairs of `splits` of a corpus folder, split by split; with missing_ok, a split file that is not
    there (a corpus the user never built) reads as empty rather than stopping."""
    return [p for split in splits if not missing_ok or split_file(corpus_dir, split).exists()
            for p in read_split(corpus_dir, split)]
