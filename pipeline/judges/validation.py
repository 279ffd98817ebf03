"""The validation set labelled by reading (docs/method.md §4, "Judges measured against reading").

Each item is one candidate answer with everything its reader saw (question, reference, facts and
qualifiers, the passages of its context in order, the answer) and the reader's labels (`gold`). Items are
self-contained: they do not depend on the corpus a profile happens to build, so a judge is measured on the
same items whatever the run. A question's items all fall in one half (`half_of`): rules are developed on
`dev` and reported on `test`.

`evaluate` compares a judge's labels with the reader's per dimension: agreement with its Wilson interval,
Cohen's kappa and the confusion matrix. Behaviour is compared on every item; the other dimensions on the
items both the reader and the judge call attempted (a dimension is only defined there).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pipeline.agreement import cohen
from pipeline.io import InputError, iter_json
from pipeline.judges.base import JudgeItem
from pipeline.judges.validation_passages import read_table, resolve
from pipeline.records import (
    LABEL_DIMENSIONS,
    QA,
    Behaviour,
    Candidate,
    Completeness,
    Context,
    Correctness,
    Faithfulness,
    Label,
    Passage,
    RecordError,
    parse,
)
from pipeline.stats import wilson_interval

Half = Literal["dev", "test"]
HALVES: tuple[str, ...] = ("dev", "test")
LANGUAGES: tuple[str, ...] = ("en", "zh")
# Dimensions defined only for attempted answers.
SECOND_STAGE = ("faithfulness", "correctness", "completeness")


@dataclass
class Gold:
    behaviour: Behaviour
    faithfulness: Faithfulness | None
    correctness: Correctness | None
    completeness: Completeness | None


@dataclass
class ValidationItem:
    id: str
    source: str
    language: Literal["en", "zh"]
    half: Half
    qa: QA
    context: Context
    passages: list[Passage]
    candidate: Candidate
    refusal: str
    gold: Gold
    note: str = ""


def half_of(qa_id: str) -> str:
    """The half a question's items fall in: a fixed hash of its id, so the split never follows labels."""
    digest = int(hashlib.sha256(f"validation:{qa_id}".encode()).hexdigest(), 16)
    return "dev" if digest % 2 == 0 else "test"


def read_validation(files: Iterable[Path]) -> list[ValidationItem]:
    """Every item of `files`, checked: the schema, the reader's labels against the conventions (the
    second-stage dimensions set exactly when behaviour is attempted), the passages in the context's
    order, the half from the question id, ids unique across files. Passages named by their key are read
    from the folder's table (pipeline/judges/validation_passages.py). A bad item stops with file, line and
    field."""
    items: list[ValidationItem] = []
    seen: dict[str, tuple[Path, int]] = {}
    tables: dict[Path, dict] = {}
    for path in files:
        table = tables.setdefault(path.parent, read_table(path.parent))
        for number, obj in iter_json(path):
            try:
                item = parse(ValidationItem, resolve(obj, table, path, number))
                _check(item)
            except RecordError as exc:
                raise InputError(path, number, exc.field, exc.message) from None
            if item.id in seen:
                first = seen[item.id]
                raise InputError(path, number, "id", f"duplicate id {item.id!r} (first in {first[0]}:{first[1]})")
            seen[item.id] = (path, number)
            items.append(item)
    return items


def check_second_stage(labels: Gold | Any, prefix: str = "") -> None:
    """The reader's second-stage labels set exactly when the behaviour is attempted (RecordError naming
    `prefix` + the dimension otherwise)."""
    behaviour = labels.behaviour
    for dim in SECOND_STAGE:
        if (getattr(labels, dim) is not None) != (behaviour == "attempted"):
            state = "set" if behaviour != "attempted" else "missing"
            raise RecordError(f"{prefix}{dim}", f"{state} for behaviour {behaviour!r}")


def _check(item: ValidationItem) -> None:
    check_second_stage(item.gold, "gold.")
    if [p.id for p in item.passages] != item.context.passage_ids:
        raise RecordError("passages", "not the context's passages in its order (context.passage_ids)")
    if item.candidate.context_id != item.context.id or item.context.qa_id != item.qa.id:
        raise RecordError("candidate.context_id", "candidate, context and qa do not belong together")
    if item.half != half_of(item.qa.id):
        raise RecordError("half", f"{item.half!r}, but question {item.qa.id!r} belongs to {half_of(item.qa.id)!r}")


def judge_item(item: ValidationItem) -> JudgeItem:
    """What a judge reads of an item. The candidate carries the item's id: one candidate id can recur in
    two sources (the same fixture run before and after a fix), so labels are keyed by item."""
    candidate = dataclasses.replace(item.candidate, id=item.id)
    return JudgeItem(candidate, item.qa, tuple(item.passages), item.context.answerable, item.refusal)


def select(items: Sequence[ValidationItem], language: str | None = None, half: str | None = None
           ) -> list[ValidationItem]:
    return [i for i in items if (language is None or i.language == language) and (half is None or i.half == half)]


def compare(items: Sequence[ValidationItem], labels: Mapping[str, Label], dimension: str) -> dict:
    """A judge against the reader on one dimension (`labels` keyed by item id, as judge_item names them): items compared, agreement (Wilson 95%), Cohen's
    kappa, the confusion matrix (reader value -> judge value -> count). Unparseable labels count as
    disagreement on every dimension and appear as the judge value "unparseable"."""
    pairs: list[tuple[str, str]] = []
    for item in items:
        label = labels[item.id]
        reader = getattr(item.gold, dimension)
        judged = getattr(label, dimension) if label.status == "ok" else "unparseable"
        if dimension != "behaviour" and (reader is None or (label.status == "ok" and judged is None)):
            continue  # the dimension is defined only where both call the answer attempted
        pairs.append((reader, judged))
    agree = sum(r == j for r, j in pairs)
    interval = wilson_interval(agree, len(pairs))
    confusion: dict[str, dict[str, int]] = {}
    for (reader, judged), n in sorted(Counter(pairs).items()):
        confusion.setdefault(reader, {})[judged] = n
    kappa = cohen(pairs, LABEL_DIMENSIONS[dimension])
    # JSON has no NaN: an empty comparison (or a kappa of one category) is null.
    return {"n": len(pairs), "agree": agree, "agreement": agree / len(pairs) if pairs else None,
            "ci": [interval.low, interval.high] if pairs else None,
            "kappa": None if math.isnan(kappa) else kappa, "confusion": confusion}


def source_group(source: str) -> str:
    """The source an item is reported under: a fixture's second and later runs (messy_b, zh_heldout_b) are
    its first run's, and the published-style fixture answered before and after the fixes of
    docs/method.md §1 (zh_published_raw, zh_published) is one."""
    base = re.sub(r"_[b-h]$", "", source)
    return "zh_published" if base.startswith("zh_published") else base


def evaluate(items: Sequence[ValidationItem], labels: Mapping[str, Label]) -> dict:
    """Per scope (language x half, pooled, and each source group x half as "source:<group>/<half>"), per
    dimension, the comparison of `compare`; plus completeness on the answers both call correct (where the
    two conventions of completeness cannot differ), so a reader of the report can see which part of the
    completeness gap is convention."""
    missing = [i.id for i in items if i.id not in labels]
    if missing:
        raise ValueError(f"{len(missing)} validation items have no label, e.g. {missing[0]!r}")
    scopes: dict[str, list[ValidationItem]] = {}
    for language in (*LANGUAGES, "all"):
        for half in (*HALVES, "all"):
            scopes[f"{language}/{half}"] = select(items, None if language == "all" else language,
                                                  None if half == "all" else half)
    for group in sorted({source_group(i.source) for i in items}):
        of_group = [i for i in items if source_group(i.source) == group]
        for half in (*HALVES, "all"):
            scopes[f"source:{group}/{half}"] = select(of_group, None, None if half == "all" else half)
    out: dict[str, dict] = {}
    for key, scope in scopes.items():
        if not scope:
            continue
        dims = {d: compare(scope, labels, d) for d in LABEL_DIMENSIONS}
        both_correct = [i for i in scope if i.gold.correctness == "correct"
                        and labels[i.id].correctness == "correct"]
        dims["completeness_when_correct"] = compare(both_correct, labels, "completeness")
        out[key] = {"items": len(scope), "dimensions": dims}
    return out


def composition(items: Sequence[ValidationItem]) -> dict:
    """What the set holds: items per language x half x source, and the reader's labels per dimension."""
    sources = Counter(f"{i.language}/{i.half}/{i.source}" for i in items)
    gold = {d: dict(sorted(Counter(f"{i.language}:{getattr(i.gold, d)}" for i in items
                                   if getattr(i.gold, d) is not None).items())) for d in LABEL_DIMENSIONS}
    return {"items": len(items), "by_source": dict(sorted(sources.items())), "gold": gold}
