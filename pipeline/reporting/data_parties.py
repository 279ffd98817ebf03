"""The data report's party-name figures: contexts that hold passages of two decisions sharing a party name
(0 expected: the contexts stage passes such distractors over, pipeline/retrieval/parties.py), and how many
candidates the stage passed over to get there."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

from pipeline.judges.inputs import InterimData
from pipeline.params import Params
from pipeline.records import Decision
from pipeline.retrieval import languages, parties

log = logging.getLogger("data_report")


def party_clashes(corpus: InterimData, decisions: Sequence[Decision], params: Params,
                  context_stats: dict | None = None) -> dict:
    """{"contexts": contexts checked, "clashing": those holding a passage that names a party of another
    decision of the context, "by_variant": clashing per variant, "skipped_by_stage": the contexts stage's
    count of candidates passed over (None from a run before it counted)}."""
    passages = list(corpus.passages.values())
    try:
        langs: list[str | None] = list(languages.passage_languages(
            passages, {d.id: d.language for d in decisions}, languages.imported(params.corpus.qa_import)))
    except languages.UnknownDecision as exc:  # the contexts stage refuses such a corpus; read the script here
        log.warning("party names read without declared languages: %s", exc.message)
        langs = [None] * len(passages)
    index = parties.index_corpus(decisions, passages, list(corpus.qas.values()), langs)
    clashing = parties.clashing_contexts(list(corpus.contexts.values()), corpus.qas, passages, index)
    stats = context_stats or {}
    return {
        "contexts": len(corpus.contexts),
        "clashing": len(clashing),
        "by_variant": dict(sorted(Counter(c.variant for c in clashing).items())),
        "skipped_by_stage": stats.get("party_name_skips_total"),
        "skipped_by_variant": stats.get("party_name_skips", {}),
    }
