"""What data ran, counted from the records that flowed rather than from the params that asked for them:
synthetic and imported decisions, an imported QA set, outside answers and outside pairs, each by language.
The data report computes it (reports/data_details.json `data_sources`); every report header prints it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pipeline import language
from pipeline.judges.base import item_language
from pipeline.records import Decision
from pipeline.reporting.cards import question_of

if TYPE_CHECKING:  # annotations only: a stage that counts decisions alone need not import these
    from pipeline.importers.pairs import OutsidePairRecord
    from pipeline.judges.inputs import InterimData

# Source -> its words in a header, in header order.
SOURCES = {
    "synthetic_decisions": "synthetic decisions",
    "imported_decisions": "imported decisions",
    "imported_qa": "imported QA",
    "outside_answers": "outside answers",
    "outside_pairs": "outside pairs",
}
# The synthetic generator's Decision.source (pipeline/synth/common.py); any other source was imported.
SYNTHETIC = "synthetic"
# Outside answers enter as candidates of generator `import:<model>` (pipeline/importers/candidates.py).
OUTSIDE_GENERATOR = "import:"


def _by_language(languages: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(languages).items()))


def decision_sources(decisions: Sequence[Decision]) -> dict[str, dict[str, int]]:
    """Synthetic and imported decisions by language: all a stage that reads only decisions (IRAC) ran on."""
    return {
        "synthetic_decisions": _by_language(d.language for d in decisions if d.source == SYNTHETIC),
        "imported_decisions": _by_language(d.language for d in decisions if d.source != SYNTHETIC),
    }


def data_sources(decisions: Sequence[Decision], corpus: InterimData,
                 outside_pairs: Sequence[OutsidePairRecord]) -> dict[str, dict[str, int]]:
    """Source -> language -> records (an empty mapping where nothing of that source ran). A question is
    imported when its gold passage belongs to no decision (an imported QA set brings its own passages);
    an outside answer counts in the language of its question, an outside pair in that of its question."""
    decision_ids = {d.id for d in decisions}
    qa_lang = {qid: item_language(qa) for qid, qa in corpus.qas.items()}
    imported_qa = [qid for qid, qa in corpus.qas.items()
                   if corpus.passages[qa.gold_passage_id].decision_id not in decision_ids]
    return {
        **decision_sources(decisions),
        "imported_qa": _by_language(qa_lang[qid] for qid in imported_qa),
        "outside_answers": _by_language(qa_lang[corpus.contexts[c.context_id].qa_id] for c in corpus.candidates
                                        if c.generator.startswith(OUTSIDE_GENERATOR)),
        "outside_pairs": _by_language(language.detect(question_of(p.prompt)) for p in outside_pairs),
    }


def sources_text(sources: Mapping[str, Mapping[str, Any]] | None) -> str:
    """e.g. "synthetic decisions (en 12); imported QA (zh 7)"; "" when nothing is known."""
    parts = []
    for key, words in SOURCES.items():
        counts = (sources or {}).get(key) or {}
        if counts:
            parts.append(f"{words} ({', '.join(f'{lang} {n}' for lang, n in counts.items())})")
    return "; ".join(parts)
