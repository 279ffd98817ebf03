"""Data outputs are a function of their inputs only: the same bytes whatever the thread count or the
process's string-hash seed (two copies of the smoke project, one with 1 thread and hash seed 0, one with
2 threads and hash seed 4242). Float sums taken in set order and thread-dependent reductions are what
usually breaks this; tests/test_dvc_deps.py covers the stage side (params and code)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import make_project_copy, run

# Every data output up to the reward models (training is covered by the adapters' own reproducibility
# check in the e2e test), the IRAC outputs and the two data-side reports.
# The response caches are outputs too (pushed with the data): their bytes must follow from the inputs.
OUTPUTS = ("data/raw", "data/interim", "data/processed", "data/irac", "data/cache/generate", "data/cache/judge",
           "data/cache/augment", "data/cache/irac/responses", "reports/data.md",
           "reports/data_metrics.json", "reports/data_details.json", "reports/irac.md",
           "reports/irac_metrics.json", "reports/irac_details.json")


def digests(repo: Path) -> dict[str, str]:
    out = {}
    for name in OUTPUTS:
        root = repo / name
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            out[path.relative_to(repo).as_posix()] = hashlib.md5(path.read_bytes()).hexdigest()
    return out


@pytest.mark.slow
def test_data_stages_give_the_same_bytes_with_1_and_2_threads_and_any_hash_seed(tmp_path, monkeypatch):
    results = []
    for threads, hash_seed in ((1, 0), (2, 4242)):
        repo = make_project_copy(tmp_path / f"t{threads}" / "repo", tmp_path / f"t{threads}" / "remote")
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            monkeypatch.setenv(var, str(threads))
        monkeypatch.setenv("PYTHONHASHSEED", str(hash_seed))
        run(["dvc", "repro", "data_report", "irac"], repo)
        results.append(digests(repo))
    one, two = results
    assert len(one) > 20 and one.keys() == two.keys()
    differ = sorted(k for k in one if one[k] != two[k])
    assert not differ, f"outputs that depend on threads or hash seed: {differ}"


RANK_SCRIPT = """
from pipeline.backends.offline import rank_sentences
passages = [("Orders", "The tribunal ordered the tenant Chan Tai-man to pay arrears of rent of HK$24,000 within "
             "fourteen days of the hearing. The landlord kept the deposit."),
            ("Facts", "The premises at Flat 3, Tower 2 were let for two years at a monthly rent of HK$9,000 payable "
             "in advance.")]
question = ("Within how many days did the tribunal order tenant Chan Tai-man to pay the arrears of monthly rent "
            "for the premises?")
print([r.score.hex() for r in rank_sentences(passages, question)])
"""


def test_offline_sentence_scores_are_the_same_floats_under_any_hash_seed():
    """The offline answerers pick the best sentence by a float score; summing IDF weights in set order gave
    last-bit differences between processes (one of 19,200 default candidates quoted another passage)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    seen = set()
    for seed in range(12):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        out = subprocess.run([sys.executable, "-c", RANK_SCRIPT], cwd=root, env=env, capture_output=True,
                             text=True, check=True).stdout
        seen.add(out)
    assert len(seen) == 1, seen
