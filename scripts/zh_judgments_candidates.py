"""Interim record files (passages, qa, contexts, candidates) of the Chinese judgments fixture
(tests/fixtures/zh_judgments.json), for scripts/sample_validation_zh.py to draw validation items from.

    python scripts/zh_judgments_candidates.py OUT_FOLDER

The fixture has no DVC profile: tests/test_zh_judgments.py builds its contexts (gold_only,
gold_plus_random, random_context per question) and runs the offline panel in process. This script runs
those same two functions (imported from the test, so the candidates are the ones the test checks) at the
bilingual profile's max_new_tokens (256) and writes what they made.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import test_zh_judgments as fixture  # noqa: E402

from pipeline.io import write_records  # noqa: E402
from pipeline.params import QaImportParams  # noqa: E402


def main(out: Path) -> None:
    passages, qas = fixture.load_squad(QaImportParams(format="squad", path=str(fixture.FIXTURE), language="zh"))
    by_passage = {p.id: p for p in passages}
    by_question = {q.id: q for q in qas}
    contexts = fixture.contexts_of(by_passage, by_question)
    candidates = fixture.panel_answers(by_passage, by_question, contexts, 256)
    write_records(out / "passages.jsonl", passages)
    write_records(out / "qa.jsonl", qas)
    write_records(out / "contexts.jsonl", list(contexts.values()))
    write_records(out / "candidates.jsonl", candidates)
    print(f"{len(qas)} questions, {len(contexts)} contexts, {len(candidates)} candidates -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
