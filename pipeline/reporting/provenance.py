"""What data ran, counted from the records that flowed rather than from the params that asked for them:
synthetic and imported decisions (pipeline/data_sources.py), an imported QA set, outside answers and
outside pairs, each by language. The data report computes it (reports/data_details.json `data_sources`);
every report header prints it with data_sources.sources_text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pipeline import language
from pipeline.data_sources import by_language, decision_sources
from pipeline.judges.base import item_language
from pipeline.records import Decision
from pipeline.reporting.cards import question_of

if TYPE_CHECKING:  # annotations only: a stage that counts decisions alone need not import these
    from pipeline.importers.pairs import OutsidePairRecord
    from pipeline.judges.inputs import InterimData

# Outside answers enter as candidates of generator `import:<model>` (pipeline/importers/candidates.py).
OUTSIDE_GENERATOR = "import:"


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
        "imported_qa": by_language(qa_lang[qid] for qid in imported_qa),
        "outside_answers": by_language(qa_lang[corpus.contexts[c.context_id].qa_id] for c in corpus.candidates
                                        if c.generator.startswith(OUTSIDE_GENERATOR)),
        "outside_pairs": by_language(language.detect(question_of(p.prompt)) for p in outside_pairs),
    }
