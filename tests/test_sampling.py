"""The seeded sample shared by the training cap and the score stage (pipeline/sampling.py)."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

from pipeline.sampling import seeded_sample
from pipeline.stages.score import select_pairs
from pipeline.training.data import Example, cap


def rank(seed: int, salt: str, pid: str) -> int:
    # The draw written out independently: the first 8 bytes of SHA-256 over the 0x1f-joined parts.
    return int.from_bytes(hashlib.sha256(f"{seed}\x1f{salt}\x1f{pid}".encode()).digest()[:8], "big")


def items(n: int, prefix: str = "p") -> list[SimpleNamespace]:
    return [SimpleNamespace(id=f"{prefix}{i:02d}") for i in range(n)]


def test_the_sample_is_the_smallest_hashes_in_input_order():
    pool = items(20)[::-1]  # input order is not id order
    got = seeded_sample(pool, 5, 7, "pairs")
    smallest = sorted(pool, key=lambda x: rank(7, "pairs", x.id))[:5]
    assert {x.id for x in got} == {x.id for x in smallest}
    assert got == [x for x in pool if x in smallest]
    assert seeded_sample(pool, 5, 8, "pairs") != got and seeded_sample(pool, 5, 7, "score") != got


def test_no_sample_when_the_cap_is_off_or_not_reached():
    pool = items(4)
    for n in (None, 0, -1, 4, 9):
        assert seeded_sample(pool, n, 1, "s") == pool


def test_the_score_train_sample_lies_inside_the_training_cap():
    """Scoring's train sample of a corpus (salt: the corpus name) is drawn from the pairs training kept."""
    examples = [Example(x.id, "q", "a", "b", "pairs_aug") for x in items(40)]
    kept = cap(examples, 15, seed=3)
    sample = select_pairs(examples, 6, 3, "pairs_aug")
    assert len(kept) == 15 and len(sample) == 6
    assert {e.id for e in sample} <= {e.id for e in kept}
    assert [e.id for e in sample] == sorted(e.id for e in sample)


def test_each_corpus_part_salts_its_own_ids():
    both = [Example(f"x{i}", "q", "a", "b", src) for src in ("external", "pairs") for i in range(10)]
    kept = cap(both, 8, seed=0)
    expected = sorted(both, key=lambda e: (rank(0, e.source, e.id), e.id))[:8]
    assert kept == [e for e in both if e in expected]
