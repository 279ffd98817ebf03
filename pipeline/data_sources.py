"""Where the data a stage ran on came from, counted from the records rather than from the params that
asked for them, and the words a report header gives each source. Decisions are synthetic (the
generator's Decision.source) or imported, each counted by language. The module is light on purpose:
the IRAC stage counts its decisions with it and the reports print with it, and IRAC must not import
the reporting package (reporting/provenance.py adds the corpus sources on top)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pipeline.records import Decision

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


def by_language(languages: Iterable[str]) -> dict[str, int]:
    """language -> count, in language order."""
    return dict(sorted(Counter(languages).items()))


def decision_sources(decisions: Sequence[Decision]) -> dict[str, dict[str, int]]:
    """Synthetic and imported decisions by language: all a stage that reads only decisions (IRAC) ran on."""
    return {
        "synthetic_decisions": by_language(d.language for d in decisions if d.source == SYNTHETIC),
        "imported_decisions": by_language(d.language for d in decisions if d.source != SYNTHETIC),
    }


def sources_text(sources: Mapping[str, Mapping[str, Any]] | None) -> str:
    """e.g. "synthetic decisions (en 12); imported QA (zh 7)"; "" when nothing is known."""
    parts = []
    for key, words in SOURCES.items():
        counts = (sources or {}).get(key) or {}
        if counts:
            parts.append(f"{words} ({', '.join(f'{lang} {n}' for lang, n in counts.items())})")
    return "; ".join(parts)
