"""How a pair's two labels differ, named once for the data report and the pair explorer."""

from __future__ import annotations

from pipeline.records import Label, Pair


def transition(pair: Pair, chosen: Label | None, rejected: Label | None) -> str:
    """e.g. "answerable: attempted>abstained" or "answerable: faithfulness fully_supported>unsupported";
    "<where>: unknown" when a side has no label of the primary judge."""
    where = "answerable" if pair.answerable else "unanswerable"
    if chosen is None or rejected is None:
        return f"{where}: unknown"
    if pair.dimension.startswith("refusal_"):
        return f"{where}: {chosen.behaviour}>{rejected.behaviour}"
    return f"{where}: {pair.dimension} {getattr(chosen, pair.dimension)}>{getattr(rejected, pair.dimension)}"
