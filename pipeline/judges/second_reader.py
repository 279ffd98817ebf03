"""A second reader's labels of validation items (data/validation/second_reader/*.jsonl, docs/method.md §4).

A judge is measured against one careful reader; how far two careful readers agree, labelling the same
answers blind by the same conventions, is what that measure can be read against: a judge that agrees with
the first reader as often as the second reader does is as good as a reader, and a convention the two read
differently is a convention to write down better. Each line names a validation item by its id and gives the
second reader's four labels (the second-stage three only for an attempted answer) and a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline.io import InputError, iter_json
from pipeline.judges.validation import check_second_stage
from pipeline.records import Behaviour, Completeness, Correctness, Faithfulness, Label, RecordError, parse

FOLDER = "second_reader"
JUDGE = "reader:2"


@dataclass
class ReaderLabel:
    id: str
    behaviour: Behaviour
    faithfulness: Faithfulness | None = None
    correctness: Correctness | None = None
    completeness: Completeness | None = None
    note: str = ""


def read_second_reader(folder: Path, item_ids: Mapping[str, object] | set[str]) -> dict[str, Label]:
    """The second reader's labels under `folder`/second_reader, keyed by item id, as labels of the judge
    "reader:2"; {} when there are none. A line naming no item of the set, an item twice, or second-stage
    labels that do not match the behaviour stops with file, line and field."""
    labels: dict[str, Label] = {}
    for path in sorted((Path(folder) / FOLDER).glob("*.jsonl")):
        for number, obj in iter_json(path):
            try:
                got = parse(ReaderLabel, obj)
                check_second_stage(got)
            except RecordError as exc:
                raise InputError(path, number, exc.field, exc.message) from None
            if got.id not in item_ids:
                raise InputError(path, number, "id", f"no validation item {got.id!r}")
            if got.id in labels:
                raise InputError(path, number, "id", f"{got.id!r} labelled twice")
            labels[got.id] = Label(got.id, JUDGE, got.behaviour, got.faithfulness, got.correctness,
                                   got.completeness, "ok")
    return labels
