"""Dataset cards for the pair sets (data/processed/pairs*/README.md), in the Hugging Face dataset-card
layout: YAML front matter a hub reads (language, license, task_categories, size_categories, configs),
then what produced the set, its fields, counts, lengths, licence and limitations.

Everything on the card is computed from the pairs and the facts the writing stage passes in, so the card
is the same bytes whenever the pairs are (no dates, no machine paths).
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from pipeline import language
from pipeline.prompts import WORDINGS
from pipeline.records import PAIR_DIMENSIONS, SPLITS, Pair

# The Pair fields, in record order, and what each holds (the card's "Fields" table).
FIELDS: dict[str, str] = {
    "id": "pair id: `<context id>/<n>`; the same id in pairs and pairs_aug names the same pair",
    "qa_id": "question id (`<decision id>/q<n>`); splits are drawn by question, so no question crosses splits",
    "context_id": "retrieval context id (`<qa id>/<variant>`)",
    "variant": "how the passages were retrieved (gold_plus_bm25, random_context, ...)",
    "answerable": "whether the gold passage is among the passages",
    "split": "train, val or test",
    "dimension": "what the chosen answer is better at (refusal_answerable, refusal_unanswerable, faithfulness, "
                 "correctness, completeness)",
    "prompt": "the answer prompt: numbered passages, rules, question (the bytes the generators saw)",
    "chosen": "the preferred answer",
    "rejected": "the dispreferred answer",
    "chosen_generator": "the generator that wrote the chosen answer (before any rewrite)",
    "rejected_generator": "the generator that wrote the rejected answer (before any rewrite)",
    "chosen_tokens": "length of `chosen` in count_tokens units (words and marks; in Chinese about one per two "
                     "characters of a word)",
    "rejected_tokens": "length of `rejected` in the same units",
    "augmented": "whether a side was rewritten by the augment stage",
    "source": "`generated` or `augmented`",
    "passage_spans": "[start, end) character span of each numbered passage in `prompt`",
    "gold_slot": "index of the gold passage among the spans; null when unanswerable",
}

# Hugging Face size buckets (size_categories).
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))


@dataclass
class Provenance:
    """What produced a pair set, as the writing stage knows it."""

    stage: str  # "pairs" or "augment"
    params: Mapping[str, Any]  # the params the stage reads (dotted key -> value), digested on the card
    judge: str
    rewriter: str | None = None
    notes: Sequence[str] = field(default_factory=list)  # stage-specific lines for "What produced it"


def params_digest(params: Mapping[str, Any]) -> str:
    """sha256 (first 16 hex) of the params as canonical JSON: two sets with the same digest came from the
    same settings."""
    text = json.dumps(params, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def question_of(prompt: str) -> str:
    """The question of an answer prompt (pipeline.prompts): what follows the last question mark of its
    language's wording; the whole prompt when none is found (an outside pair's own prompt)."""
    best = -1, ""
    for w in WORDINGS.values():
        at = prompt.rfind("\n\n" + w.question_mark)
        if at > best[0]:
            best = at, prompt[at + 2 + len(w.question_mark):]
    return best[1] if best[0] >= 0 else prompt


def pair_language(pair: Pair) -> str:
    return language.detect(question_of(pair.prompt))


def _prefix(qa_id: str) -> str:
    """The origin of a question as its id says it (synthetic `syn-`, imports their params' id_prefix)."""
    match = re.match(r"[A-Za-z]+-", qa_id)
    return match.group(0)[:-1] if match else "(none)"


def size_category(n: int) -> str:
    return next((name for limit, name in _SIZES if n < limit), "n>1M")


def front_matter(pairs: Sequence[Pair], name: str, languages: Sequence[str]) -> str:
    meta = {
        "pretty_name": f"Legal grounding and abstention preference pairs ({name})",
        "language": list(languages),
        "license": "other",
        "license_name": "see-licence-section",
        "task_categories": ["text-generation", "text-classification"],
        "tags": ["preference", "reward-modeling", "dpo", "legal", "grounding", "abstention"],
        "size_categories": [size_category(len(pairs))],
        "configs": [
            {"config_name": "default", "default": True,
             "data_files": [{"split": s, "path": f"{s}.jsonl"} for s in SPLITS]},
            {"config_name": "trl",
             "data_files": [{"split": s, "path": f"trl/{s}.jsonl"} for s in SPLITS]},
        ],
    }
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True) + "---\n"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    # The report's markdown.table would pull the analysis and statistics modules into the pairs stages.
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def _num(x: float) -> str:
    return f"{x:.1f}"


def length_rows(pairs: Sequence[Pair]) -> list[list[Any]]:
    """Per split (and all): mean and median length of chosen and rejected, in tokens and characters, and
    the share of pairs whose chosen answer is longer (tokens)."""
    rows = []
    for split in (*SPLITS, "all"):
        group = [p for p in pairs if split in ("all", p.split)]
        if not group:
            continue
        ct, rt = [p.chosen_tokens for p in group], [p.rejected_tokens for p in group]
        cc, rc = [len(p.chosen) for p in group], [len(p.rejected) for p in group]
        longer = sum(c > r for c, r in zip(ct, rt, strict=True)) / len(group)
        rows.append([split, len(group), _num(statistics.mean(ct)), _num(statistics.median(ct)),
                     _num(statistics.mean(rt)), _num(statistics.median(rt)), _num(statistics.mean(cc)),
                     _num(statistics.mean(rc)), f"{longer:.3f}"])
    return rows


def count_rows(pairs: Sequence[Pair], langs: Sequence[str], lang_of: Mapping[str, str]) -> list[list[Any]]:
    counts = Counter((p.split, p.dimension, lang_of[p.id]) for p in pairs)
    rows = []
    for split in SPLITS:
        for dim in PAIR_DIMENSIONS:
            cells = [counts[(split, dim, lang)] for lang in langs]
            if sum(cells):
                rows.append([split, dim, *cells, sum(cells)])
        total = [sum(counts[(split, d, lang)] for d in PAIR_DIMENSIONS) for lang in langs]
        rows.append([split, "**all**", *total, sum(total)])
    return rows


def render(pairs: Sequence[Pair], name: str, prov: Provenance) -> str:
    """The README.md of one pair set (`name`: pairs, pairs_aug)."""
    lang_of = {p.id: pair_language(p) for p in pairs}
    langs = sorted(set(lang_of.values()) or {"en"}, key=lambda x: (x != "en", x))
    generators = sorted({g for p in pairs for g in (p.chosen_generator, p.rejected_generator)})
    origins = Counter(_prefix(p.qa_id) for p in pairs)
    rewritten = sum(p.augmented for p in pairs)
    out = [front_matter(pairs, name, langs),
           f"# {name}: preference pairs for grounded answers and abstention", "",
           "Pairs of answers to legal questions over retrieved passages, where one answer is better than the "
           "other on one dimension (refusing when the passages do not answer, answering when they do, "
           "faithfulness, correctness, completeness). For reward models trained with DPO or SFT.", "",
           "## What produced it", "",
           f"- Stage `{prov.stage}` of this repository's DVC pipeline; params digest `{params_digest(prov.params)}` "
           f"(sha256 of {', '.join(f'`{k}`' for k in sorted(prov.params))}).",
           f"- Generators: {', '.join(f'`{g}`' for g in generators) or 'none'}.",
           f"- Judge (its labels decide which answer is chosen): `{prov.judge}`."]
    if prov.rewriter:
        out.append(f"- Rewriter: `{prov.rewriter}`; {rewritten} of {len(pairs)} pairs have a rewritten side, each "
                   "rewrite re-judged and kept only when the pair keeps its direction.")
    out += [f"- {line}" for line in prov.notes]
    out += [f"- Questions by id prefix: {', '.join(f'`{k}-` {v}' if k != '(none)' else f'no prefix {v}' for k, v in sorted(origins.items()))}.", "",
            "## Fields", "", "One JSON object per line in `<split>.jsonl`; `trl/<split>.jsonl` holds the same pairs "
            "in TRL's conversational preference format (prompt, chosen, rejected as chat messages).", "",
            table(["field", "meaning"], [[f"`{k}`", v] for k, v in FIELDS.items()]), "",
            "## Counts (split x dimension x language)", "",
            f"Language is detected from each question; {len(pairs)} pairs in all.", "",
            table(["split", "dimension", *langs, "total"], count_rows(pairs, langs, lang_of)), "",
            "## Lengths", "",
            "Tokens are count_tokens units (pipeline.language: words and marks in English; in Chinese about one "
            "per two characters of a word, one per digit and mark), not a model's tokens; chars are characters.",
            "",
            table(["split", "n", "chosen tokens (mean)", "chosen tokens (median)", "rejected tokens (mean)",
                   "rejected tokens (median)", "chosen chars (mean)", "rejected chars (mean)", "chosen longer"],
                  length_rows(pairs)) if pairs else "No pairs.", "",
            "## Licence", "",
            "`license: other`. Questions with the `syn-` prefix come from this repository's seeded synthetic "
            "decisions (invented cases, names and amounts; no third-party text); the answers are generated by "
            "the generators above. The repository states no licence of its own, so this card grants none: "
            "choose one before publishing. Imported decisions, QA sets or answers (any other prefix) keep "
            "the terms of their source.", "",
            "## Known limitations", "",
            "- The preference comes from one judge's labels; where it is a rule judge, its heuristics (string "
            "matching against the reference and the passages) are the ground truth, with their blind spots.",
            "- Pairs of the same context share the prompt, and several pairs share a question: examples are "
            "not independent.",
            "- Length and refusal are shortcuts: compare a reward model with the prefer-longer and "
            "passage-blind rules (reports/report.md) before reading its accuracy as grounding.",
            ]
    if "syn" in origins:
        out.append("- Synthetic decisions follow a few case templates: wording and structure repeat far more than "
                   "in real judgments.")
    if prov.rewriter:
        out.append("- Rewritten sides are machine paraphrases made to balance length; they can read less "
                   "naturally than the original answers.")
    return "\n".join(out) + "\n"
