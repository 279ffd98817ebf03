"""The pair explorer's data: every pair of pairs and pairs_aug joined with its question, passages, every
judge's labels, the rewrite's original side and each model's margins, one JS file per split.

The page (pipeline/reporting/explorer_assets) loads a split's file by adding a <script> tag, because
fetch() of a local file fails under file://; the file calls `explorerData(split, data)`. Strings are
interned per split (passage blocks, labels), since pairs of a context share their passages and the two
corpora share most answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.records import PAIR_DIMENSIONS, QA, SPLITS, Candidate, Label, Pair, Score
from pipeline.reporting.cards import pair_language, question_of
from pipeline.reporting.label_noise import pair_notes
from pipeline.reporting.transitions import transition

ASSETS = Path(__file__).with_name("explorer_assets")
CORPORA = ("pairs", "pairs_aug")
# The scorings the pair view shows (the report's main one is among them).
VIEW_SCORINGS = ("sum", "mean", "ref_sum")
RULE_NAMES = ("passage-blind", "prefer-longer", "prefer-shorter")


@dataclass
class Inputs:
    pairs: Mapping[str, Sequence[Pair]]  # corpus -> pairs
    qas: Mapping[str, QA]
    candidates: Sequence[Candidate]
    labels: Mapping[str, Mapping[str, Label]]  # judge -> candidate id -> label, primary judge first
    scores: Mapping[tuple[str, str], Sequence[Score]]  # (model, corpus) -> scores
    models: Sequence[str]  # in report order, the base model first
    noise: Sequence[dict] = ()  # label-noise items of the whole corpus (label_noise.explorer_items)


def label_text(label: Label | None) -> str:
    if label is None:
        return "no label"
    if label.status != "ok":
        return "unparseable"
    parts = [label.behaviour, label.faithfulness, label.correctness, label.completeness]
    return " ".join(p for p in parts if p)


def _sig(x: float) -> float:
    # Four significant figures keep the sign of a tiny margin, so "wrong" (margin <= 0) survives rounding.
    return float(f"{x:.4g}")


def passage_blocks(pair: Pair) -> list[str]:
    """The numbered passage blocks of the prompt without their "[n] " mark: heading, newline, text."""
    out = []
    for start, end in pair.passage_spans:
        block = pair.prompt[start:end]
        out.append(block.split("] ", 1)[1] if block.startswith("[") and "] " in block else block)
    return out


class _Interner:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.items)
            self.items.append(text)
        return self.index[text]


def build(inp: Inputs, is_refusal: Callable[[str], bool], blind: Callable[..., Any],
          leak_coverage: float = 0.8) -> tuple[dict, dict[str, dict]]:
    """(meta for the page, per split the data of its JS file). `blind` is the report's passage_blind rule
    (pipeline.reporting.baselines), `is_refusal` detects a refusal in the pair's language; `leak_coverage`
    is params report.leak_coverage, for the label-noise notes (pipeline.reporting.label_noise)."""
    judges = list(inp.labels)
    primary = inp.labels[judges[0]] if judges else {}
    cand_id = {(c.context_id, c.generator): c.id for c in inp.candidates}
    margins: dict[tuple[str, str], dict[str, dict[str, float]]] = {}  # (corpus, pair) -> model -> scoring -> m
    model_tokens: dict[tuple[str, str], tuple[int, int]] = {}
    for (model, corpus), rows in inp.scores.items():
        for s in rows:
            margins.setdefault((corpus, s.pair_id), {}).setdefault(model, {})[s.scoring] = s.margin
            if s.scoring == "sum":
                model_tokens.setdefault((corpus, s.pair_id), (s.chosen_tokens, s.rejected_tokens))
    by_corpus = {c: {p.id: p for p in inp.pairs.get(c, ())} for c in CORPORA}
    ids = sorted(set(by_corpus["pairs"]) | set(by_corpus["pairs_aug"]))
    splits: dict[str, dict] = {}
    interned: dict[str, tuple[_Interner, _Interner]] = {}
    options: dict[str, set[str]] = {k: set() for k in ("variant", "generator", "transition", "lang")}
    qa_split: dict[str, str] = {}
    for pid in ids:
        orig, aug = by_corpus["pairs"].get(pid), by_corpus["pairs_aug"].get(pid)
        base = orig or aug
        assert base is not None
        data = splits.setdefault(base.split, {"split": base.split, "pairs": [], "qas": {}})
        blocks, labels = interned.setdefault(base.split, (_Interner(), _Interner()))
        qa = inp.qas.get(base.qa_id)
        lang = pair_language(base)
        if base.qa_id not in data["qas"]:
            data["qas"][base.qa_id] = [qa.question if qa else question_of(base.prompt), qa.answer if qa else "", lang]
        qa_split[base.qa_id] = base.split
        sides = [cand_id.get((base.context_id, g)) for g in (base.chosen_generator, base.rejected_generator)]
        judge_labels = [[labels(label_text(inp.labels[j].get(c) if c else None)) for c in sides] for j in judges]
        trans = transition(base, *(primary.get(c) if c else None for c in sides))
        entry: dict[str, Any] = {
            "id": pid, "qa": base.qa_id, "v": base.variant, "a": int(base.answerable), "d": base.dimension,
            "gs": base.gold_slot, "p": [blocks(b) for b in passage_blocks(base)],
            "g": [base.chosen_generator, base.rejected_generator], "tr": trans, "L": judge_labels,
            "m": {}, "r": {}}
        notes = _noise_notes(qa, base, lang, leak_coverage)
        if notes:
            entry["nz"] = notes
        for corpus, pair in (("pairs", orig), ("pairs_aug", aug)):
            if pair is None:
                continue
            side = {"x": [pair.chosen, pair.rejected], "t": [pair.chosen_tokens, pair.rejected_tokens]}
            if corpus == "pairs_aug":
                side["rw"] = int(pair.augmented)
                if orig is not None and [pair.chosen, pair.rejected] == [orig.chosen, orig.rejected]:
                    del side["x"]  # the same texts as the original pair: the page reads them from "o"
            entry["o" if corpus == "pairs" else "u"] = side
            scored = margins.get((corpus, pid))
            if scored:
                entry["m"][corpus] = {m: [(_sig(scored[m][s]) if s in scored.get(m, {}) else None)
                                          for s in VIEW_SCORINGS] for m in inp.models if m in scored}
            tokens = model_tokens.get((corpus, pid))
            unit = "model" if tokens else "count"
            ct, rt = tokens or (pair.chosen_tokens, pair.rejected_tokens)
            verdict = bool(blind([pair.chosen], [pair.rejected], [ct], [rt], is_refusal)[0])
            entry["r"][corpus] = [int(verdict), int(ct > rt), int(ct < rt), ct, rt, unit]
        data["pairs"].append(entry)
        options["variant"].add(base.variant)
        options["generator"].update(entry["g"])
        options["transition"].add(trans)
        options["lang"].add(lang)
    for split, data in splits.items():
        blocks, labels = interned[split]
        data["blocks"], data["labels"] = blocks.items, labels.items
    counts = {s: {c: sum(1 for p in splits.get(s, {}).get("pairs", []) if ("o" if c == "pairs" else "u") in p)
                  for c in CORPORA} for s in SPLITS}
    meta = {
        "splits": [s for s in SPLITS if s in splits], "counts": counts, "corpora": list(CORPORA),
        "dimensions": list(PAIR_DIMENSIONS), "judges": judges, "models": list(inp.models),
        "scorings": list(VIEW_SCORINGS), "rules": list(RULE_NAMES), "qa_split": dict(sorted(qa_split.items())),
        "options": {k: sorted(v) for k, v in options.items()}, "noise": list(inp.noise),
    }
    return meta, splits


def _noise_notes(qa: QA | None, pair: Pair, lang: str, leak_coverage: float) -> list[str]:
    """The label-noise notes of a pair's context and reference (pipeline.reporting.label_noise)."""
    blocks = [tuple(b.split("\n", 1)) if "\n" in b else ("", b) for b in passage_blocks(pair)]
    return pair_notes(qa, blocks, pair.answerable, pair.gold_slot, lang, leak_coverage)


def _json(obj: Any) -> str:
    # "</" would end an inline <script> early; "\u2028" is fine in JSON but safer escaped in old engines.
    text = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def data_file(split: str) -> str:
    return f"data-{split}.js"


def render(meta: dict, settings: Mapping[str, Any]) -> str:
    """index.html: the page template with its style, script and the meta inlined (one file, no server)."""
    page = (ASSETS / "page.html").read_text(encoding="utf-8")
    meta = {**meta, **settings, "files": {s: data_file(s) for s in meta["splits"]}}
    return (page.replace("/*STYLE*/", (ASSETS / "style.css").read_text(encoding="utf-8"))
            .replace("/*SCRIPT*/", (ASSETS / "app.js").read_text(encoding="utf-8"))
            .replace("/*META*/", _json(meta)))


def script(split: str, data: dict) -> str:
    return f"explorerData({json.dumps(split)},{_json(data)});\n"
