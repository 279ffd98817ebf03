"""Training examples from pairs: corpus selection, tokenization, the over-long policy, the seeded cap.

A corpus name is one or more of "pairs", "pairs_aug", "pairs_grounded", "external" joined by "+"
("pairs+external").
Every pair is tokenized here, once, with the shared rendering of pipeline.models.prompting, so DPO,
SFT and scoring see identical tokens. Pairs longer than max_length are never silently lost: the policy
(pipeline.models.fitting) drops whole distractor passages, never the gold one, the question or the rules,
or leaves the pair out, and every case is counted per variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transformers import PreTrainedTokenizerBase

from pipeline import paths
from pipeline.importers import Skips
from pipeline.importers.registry import OFF, reader
from pipeline.kernels import IGNORE_INDEX
from pipeline.models.fitting import fit_counts, fit_pair
from pipeline.sampling import seeded_sample

EXTERNAL = "external"
EXTERNAL_PARAM = "train.external_pairs.path"


@dataclass(frozen=True)
class Example:
    """One pair as text (prompt/chosen/rejected raw strings) plus where it came from."""

    id: str
    prompt: str
    chosen: str
    rejected: str
    source: str
    variant: str = "external"
    passage_spans: list[list[int]] = field(default_factory=list)
    gold_slot: int | None = None


@dataclass
class Counts:
    pairs_in: int = 0
    pairs_used: int = 0
    capped: int = 0  # left out by the seeded cap (train.max_pairs)
    overlong: int = 0  # longer than max_length before the policy
    refit: int = 0  # fitted by dropping whole distractor passages
    dropped: int = 0  # left out: the "drop" policy, or too long even with the gold passage alone
    by_source: dict[str, int] = field(default_factory=dict)
    # Per variant: pairs, refit, passages_dropped, left_out, gold_lost (pipeline.models.fitting.fit_counts)
    fit: dict[str, dict[str, int]] = field(default_factory=dict)


def corpus_parts(corpus: str) -> list[str]:
    parts = corpus.split("+")
    for part in parts:
        if part not in paths.CORPORA and part != EXTERNAL:
            raise ValueError(f"unknown corpus part {part!r} in {corpus!r} (known: {', '.join(paths.CORPORA)}, "
                             f"{EXTERNAL})")
    return parts


def load_external(path: str | Path, on_invalid: str = "stop", fmt: str = "jsonl") -> list[Example]:
    """External general contextual pairs in format `fmt` (its reader in pipeline/importers/registry.py: the
    format, its checks and `on_invalid`). Their prompts have no known passage structure, so an over-long
    one is left out and counted (pipeline.models.fitting), never cut. An empty file stops."""
    pairs = reader("train.external_pairs", fmt)(path, Skips("train.external_pairs", on_invalid))
    return [Example(p.id, p.prompt, p.chosen, p.rejected, EXTERNAL) for p in pairs]


@dataclass(frozen=True)
class OutsidePair:
    """An outside pair as the score and report stages read it: all held out (split "test"), with no
    dimension and no known passage structure (an over-long one is left out and counted, never cut)."""

    id: str
    prompt: str
    chosen: str
    rejected: str
    split: str = "test"
    variant: str = EXTERNAL
    dimension: str = EXTERNAL
    passage_spans: tuple = ()
    gold_slot: int | None = None


def outside_eval_pairs(external: Any, root: str | Path = ".") -> list[OutsidePair]:
    """train.external_pairs as an evaluation corpus, sorted by id."""
    if external.format == OFF:
        raise ValueError("score.corpora lists external, but train.external_pairs.format is none")
    found = load_external(Path(root) / external.path, getattr(external, "on_invalid", "stop"), external.format)
    pairs = [OutsidePair(e.id, e.prompt, e.chosen, e.rejected) for e in found]
    return sorted(pairs, key=lambda p: p.id)


def load_training_examples(corpus: str, split: str = "train", external_pairs: Any = None,
                root: str | Path = ".") -> list[Example]:
    """All examples of `corpus` for `split`, in id order (external pairs have no split: train only)."""
    examples: list[Example] = []
    for part in corpus_parts(corpus):
        if part == EXTERNAL:
            if external_pairs is None or external_pairs.format == OFF:
                raise ValueError(f"corpus {corpus!r} needs train.external_pairs (format jsonl and a path)")
            if split == "train":
                examples.extend(load_external(Path(root) / external_pairs.path,
                                              getattr(external_pairs, "on_invalid", "stop"), external_pairs.format))
            continue
        pairs = paths.read_split(Path(root) / paths.CORPORA[part], split)
        examples.extend(Example(p.id, p.prompt, p.chosen, p.rejected, part, p.variant, p.passage_spans,
                                p.gold_slot) for p in pairs)
    examples.sort(key=lambda e: (e.source, e.id))
    return examples


def cap(examples: Sequence[Example], max_pairs: int | None, seed: int) -> list[Example]:
    """A seeded subset of at most max_pairs (all when None or <= 0), in input order; each corpus part
    salts its own ids, so scoring's train sample of a corpus is drawn from the pairs kept here."""
    return seeded_sample(examples, max_pairs, seed, lambda e: e.source)


def tokenize(examples: Sequence[Example], tokenizer: PreTrainedTokenizerBase, max_length: int,
             policy: str, counts: Counts | None = None) -> list[dict[str, Any]]:
    """Token ids per example ({id, source, prompt_ids, chosen_ids, rejected_ids, passages_dropped}).

    A pair's length is prompt + the longer response (each sequence DPO runs is prompt + one response);
    over-long pairs are fitted by pipeline.models.fitting under `policy`, exactly as scoring fits them.
    """
    counts = counts if counts is not None else Counts()
    fitted = [fit_pair(tokenizer, ex.prompt, ex.chosen, ex.rejected, max_length, policy, ex.passage_spans,
                       ex.gold_slot) for ex in examples]
    counts.fit = fit_counts(fitted, [ex.variant for ex in examples])
    rows = []
    for ex, f in zip(examples, fitted, strict=True):
        counts.overlong += f.refit or not f.fits
        if not f.fits:
            counts.dropped += 1
            continue
        counts.refit += f.refit
        rows.append({"id": ex.id, "source": ex.source, "prompt_ids": f.prompt, "chosen_ids": f.chosen,
                     "rejected_ids": f.rejected, "passages_dropped": f.passages_dropped})
        counts.by_source[ex.source] = counts.by_source.get(ex.source, 0) + 1
    counts.pairs_used = len(rows)
    return rows


def sft_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, list[int]]]:
    """SFT on prompt + chosen: labels are IGNORE_INDEX on the prompt so only response tokens carry loss."""
    return [{"input_ids": r["prompt_ids"] + r["chosen_ids"],
             "labels": [IGNORE_INDEX] * len(r["prompt_ids"]) + list(r["chosen_ids"])} for r in rows]
