"""Loading the data files the judge, pairs and report stages share, with cross-file checks: a candidate
that names an unknown context, or a context that names an unknown question or passage, stops the stage
with the file, the record and the field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline import paths
from pipeline.io import InputError, read_records
from pipeline.judges.base import JudgeItem
from pipeline.language import refusal_of
from pipeline.records import QA, Candidate, Context, Label, Passage


@dataclass
class InterimData:
    """The generated data under data/interim: passages, questions, contexts and candidate answers."""

    passages: dict[str, Passage]
    qas: dict[str, QA]
    contexts: dict[str, Context]
    candidates: list[Candidate]


def load_interim(root: Path = paths.INTERIM) -> InterimData:
    """passages, qa, contexts and candidates.jsonl under `root`, cross-checked; candidates in id order."""
    passages = {p.id: p for p in read_records(root / "passages.jsonl", Passage)}
    qas = {q.id: q for q in read_records(root / "qa.jsonl", QA)}
    contexts = {c.id: c for c in read_records(root / "contexts.jsonl", Context)}
    candidates = read_records(root / "candidates.jsonl", Candidate)
    for c in contexts.values():
        if c.qa_id not in qas:
            raise InputError(
                root / "contexts.jsonl", None, "qa_id", f"context {c.id!r}: unknown question {c.qa_id!r}"
            )
        for pid in c.passage_ids:
            if pid not in passages:
                raise InputError(
                    root / "contexts.jsonl", None, "passage_ids", f"context {c.id!r}: unknown passage {pid!r}"
                )
    for cand in candidates:
        if cand.context_id not in contexts:
            raise InputError(
                root / "candidates.jsonl",
                None,
                "context_id",
                f"candidate {cand.id!r}: unknown context {cand.context_id!r}",
            )
    candidates.sort(key=lambda c: c.id)
    return InterimData(passages, qas, contexts, candidates)


def judge_items(corpus: InterimData, refusal: str | Mapping[str, str]) -> list[JudgeItem]:
    """One item per candidate. `refusal` is one sentence, or one per language (generate.refusals):
    then each item gets the refusal of its question's language (pipeline.language.refusal_of), and a
    language without one stops."""
    items = []
    for cand in corpus.candidates:
        context = corpus.contexts[cand.context_id]
        qa = corpus.qas[context.qa_id]
        passages = tuple(corpus.passages[p] for p in context.passage_ids)
        items.append(JudgeItem(cand, qa, passages, context.answerable, refusal_of(qa.question, refusal)))
    return items


def load_labels(path: Path, candidates: list[Candidate], complete: bool = True) -> dict[str, Label]:
    """Labels of one judge keyed by candidate id; every candidate must have exactly one (with `complete`;
    without, a sample: at most one each, as a judge capped by judge.llm_max_candidates writes)."""
    labels = {lab.candidate_id: lab for lab in read_records(path, Label, unique_key="candidate_id")}
    known = {c.id for c in candidates}
    for cid in labels:
        if cid not in known:
            raise InputError(path, None, "candidate_id", f"label for unknown candidate {cid!r}")
    missing = sorted(known - set(labels))
    if missing and complete:
        raise InputError(
            path, None, "candidate_id", f"{len(missing)} candidates have no label, e.g. {missing[0]!r}"
        )
    return labels
