"""Markdown of the data report (reports/data.md) from `data_analysis.build_metrics`'s numbers: no
computation of results here."""

from __future__ import annotations

import math
from typing import Any

from pipeline.data_sources import sources_text
from pipeline.params import Params
from pipeline.records import PAIR_DIMENSIONS, SPLITS
from pipeline.reporting import judge_validity
from pipeline.reporting.markdown import table


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        # Small but non-zero shares (e.g. reversed pairs) must not print as 0.000.
        return f"{value:.1e}" if 0 < abs(value) < 5e-4 else f"{value:.3f}"
    return str(value)


def header_line(params: Params) -> str:
    if params.profile == "offline":
        return "offline profile: extractive panel, rule judge"
    return (
        f"profile {params.profile}: generators {', '.join(params.generate.panel)}; "
        f"judges {', '.join(params.judge.judges)}; rewriter {params.augment.rewriter}"
    )


def _table(headers: list[str], rows) -> str:
    return table(headers, rows, cell=_fmt)


def render(m: dict[str, Any], params: Params) -> str:
    primary = params.judge.judges[0]
    out = [
        "# Data report",
        "",
        f"**What ran:** {header_line(params)}. Data: {sources_text(m.get('data_sources')) or 'none'}. "
        f"Primary judge `{primary}` builds the pairs; pair variants: {', '.join(params.pairs.variants)}.",
        "",
        *(render_skips(m["imports"]) if m.get("imports") else []),
        *(render_label_noise(m["label_noise"]) if m.get("label_noise") else []),
    ]
    out += _corpus(m["corpus"]) + (render_party_clashes(m["party_clashes"]) if "party_clashes" in m else [])
    out += _quality(m["quality"]) + _pairs(m["pairs"])
    out += render_hierarchies(m["hierarchies"]) if "hierarchies" in m else []
    out += _lengths(m["length"]) + _rewrites(m["augmentation"], params.augment.rewriter, primary)
    out += ["## Judges", "", _table(["judge", "labels", "unparseable"],
                                    [[j, v["labels"], v["unparseable"]] for j, v in m["judges"].items()]), ""]
    out += judge_validity.render(m.get("validity"))
    out += render_languages(m["by_language"])
    out += _agreement(m["agreement"], m["robustness"])
    out += render_sampled_judges(m["sampled_judges"]) if m.get("sampled_judges") else []
    return "\n".join(out)


def _corpus(c: dict[str, Any]) -> list[str]:
    counts = [[item, c[item]] for item in ("decisions", "passages", "questions", "contexts", "candidates")]
    out = ["## Corpus", "", _table(["item", "count"], counts), ""]
    for title, key in (("decisions by case type", "decisions_by_case_type"), ("questions by kind", "questions_by_kind"),
                       ("contexts by variant", "contexts_by_variant"),
                       ("candidates by generator", "candidates_by_generator")):
        out += [_table([title, "count"], sorted(c[key].items())), ""]
    return out


def render_party_clashes(clashes: dict[str, Any]) -> list[str]:
    """Contexts holding passages of two decisions that share a party name (pipeline/retrieval/parties.py)."""
    skipped = clashes.get("skipped_by_stage")
    by_variant = ", ".join(f"{v} {n}" for v, n in clashes["by_variant"].items() if n)
    return [f"Contexts holding passages of two decisions that share a party name (a passage naming a party of "
            f"another decision of the context, the question's own decision included): **{clashes['clashing']}** "
            f"of {clashes['contexts']}" + (f" ({by_variant})" if by_variant else "") + "; the contexts stage "
            + (f"passed over {skipped} such candidates for the next ones." if skipped is not None
               else "did not count the candidates it passed over (a run before the rule)."), ""]


def _quality(quality: dict[str, Any]) -> list[str]:
    rows = [[variant, who, s["n"], s.get("ideal_rate"), s.get("attempted_rate"), s.get("correct_refusal_rate")]
            for variant, by_who in quality.items() for who, s in by_who.items()]
    return ["## Answer quality (primary judge)", "",
            "Answerable variants: ideal-answer rate (attempted, fully supported, correct and complete) and "
            "attempted rate. Unanswerable variants: correct-refusal rate (abstained).", "",
            _table(["variant", "generator", "n", "ideal", "attempted", "correct refusal"], rows), ""]


def _pairs(pairs: dict[str, Any]) -> list[str]:
    pc, skipped = pairs["counts"], pairs["skipped"]
    return ["## Pairs by split and dimension", "",
            _table(["split", *PAIR_DIMENSIONS, "total"],
                   [[s, *(pc[s][d] for d in PAIR_DIMENSIONS), pc[s]["total"]] for s in SPLITS]), "",
            "Not paired: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(skipped.items())) + ".", ""]


def render_hierarchies(h: dict[str, Any]) -> list[str]:
    """The pairs each preference hierarchy makes from the primary judge's labels (docs/method.md §5)."""
    names = [k for k in h if k != "in_use"]
    reasons = ("unsupported", "contradicted", "incorrect")
    rows = [[f"{name} (in use)" if name == h["in_use"] else name, h[name]["pairs"],
             *(h[name]["by_dimension"].get(d, 0) for d in PAIR_DIMENSIONS),
             *(h[name]["not_made"].get(r, 0) for r in reasons)] for name in names]
    return ["Pairs under each preference hierarchy (pairs.hierarchy; `method`: any attempt above a refusal on "
            "answerable contexts; `grounded`: no pair whose chosen side is unsupported, contradicted or "
            "incorrect, counted by that reason):", "",
            _table(["hierarchy", "pairs", *PAIR_DIMENSIONS, *(f"not made: chosen {r}" for r in reasons)], rows), ""]


def _lengths(length: dict[str, Any]) -> list[str]:
    sides = ("chosen_before", "rejected_before", "chosen_after", "rejected_after")
    return ["## Length by transition (count_tokens units: words and marks in English; in Chinese about one per "
            "two characters of a word, one per digit and mark; before -> after augmentation)", "",
            _table(["transition", "pairs", "rewritten", *(s.replace("_", " ") for s in sides)],
                   [[k, v["n"], v["augmented"], *(v[f"mean_{s}"] for s in sides)] for k, v in length.items()]), ""]


def _rewrites(augmentation: dict[str, Any], rewriter: str, judge: str) -> list[str]:
    outcomes = ("planned", "kept_for_balance", "rewritten", "failed_check", "dropped_by_judge")
    return [f"Rewrites by task ({rewriter}; each rewrite re-judged by {judge}; a pair whose rewrites all fail "
            "keeps its original side):", "",
            _table(["task", "short side found", "left as is for the length balance", "rewritten", "failed the check",
                    "dropped by re-judging"], [[k, *(v[o] for o in outcomes)] for k, v in augmentation.items()]), ""]


def _agreement(agreement: dict[str, Any], robustness: dict[str, Any]) -> list[str]:
    if not agreement:
        return ["Only one judge configured: no agreement or robustness figures.", ""]
    return ["Agreement over candidates every judge labelled on the dimension (raw = mean pairwise agreement, "
            "chance = sum of squared category shares):", "",
            _table(["dimension", "items", "raw", "chance", "Fleiss kappa"],
                   [[d, v["items"], v["raw"], v["chance"], v["kappa"]] for d, v in agreement.items()]), "",
            "Robustness: the primary judge's pairs rebuilt from each other judge's labels (kept = same "
            "direction, reversed = swapped, lost = tie or skipped).", "",
            _table(["judge", "scope", "pairs", "kept", "reversed", "lost"],
                   [[j, scope, r["pairs"], r["kept"], r["reversed"], r["lost"]]
                    for j, v in robustness.items() for scope, r in v.items()]), ""]


def render_sampled_judges(sampled: dict[str, Any]) -> list[str]:
    """A judge that labels a seeded sample (judge.llm_max_candidates), on its sample: Fleiss' kappa with
    each full judge, per dimension (items = candidates both labelled with a value)."""
    out = ["Sampled judges (judge.llm_max_candidates), against each full judge on the sample's candidates "
           "(raw agreement / Fleiss kappa, items in brackets):", ""]
    rows = []
    for name, v in sampled.items():
        for other, dims in v["agreement_with"].items():
            cells = [_sampled_cell(d) for d in dims.values()]
            rows.append([name, other, v["labels"], v["unparseable"], *cells])
    dims = next((list(d) for v in sampled.values() for d in v["agreement_with"].values()), [])
    return out + [_table(["judge", "against", "labels", "unparseable", *dims], rows), ""]


def _sampled_cell(d: dict[str, Any]) -> str:
    if not d.get("items"):
        return "n/a"
    kappa = "n/a" if d.get("kappa") is None else f"{d['kappa']:.2f}"
    return f"{d['raw']:.2f} / {kappa} ({d['items']})"


def render_languages(m: dict) -> list[str]:
    """The "By language" section of data.md."""
    behaviours = sorted({b for row in m["labels"].values() for b in row})
    langs = sorted(m["questions"])
    return [
        "## By language",
        "",
        "Language of a question: that of its question and reference answer. Labels of the primary judge:",
        "",
        _table(["language", "questions", *behaviours],
               [[lang, m["questions"][lang], *(m["labels"].get(lang, {}).get(b, 0) for b in behaviours)]
                for lang in langs]),
        "",
        _table(["pairs: dimension", *langs], [[d, *(row[lang] for lang in langs)] for d, row in m["pairs"].items()]),
        "",
        "Gold recall@10 over all passages (answerable questions, by their declared language, that of the "
        "gold passage; the contexts stage's BM25 and dense retrievers): low dense recall means the dense "
        "variants' distractors are close to random (a model that does not read a language can still score "
        "well by script alone when that language has few passages).",
        "",
        _table(["language", "questions", "BM25", "dense"],
               [[lang, r["questions"], r["bm25"], r["dense"]] for lang, r in m["recall_at_10"].items()]),
        "",
        *(_fill_ins(m["fill_ins"]) if "fill_ins" in m else []),
    ]


def _fill_ins(counts: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    """Distractors of another language than the question's, which the contexts stage takes only where the
    question's own language has too few passages: a reward model could tell them apart by script alone."""
    rows = [[lang, variant, r["contexts"], r["distractors"], r["fill_ins"], r["contexts_filled"]]
            for lang, by_variant in counts.items() for variant, r in by_variant.items() if r["fill_ins"]]
    if not rows:
        return ["Cross-language fill-ins: none (every question's distractors are in its own language).", ""]
    return ["Cross-language fill-ins (the contexts stage's counts; a language and variant without any is left "
            "out): distractors in another language than the question's, taken where its own language ran short "
            "of passages.", "",
            _table(["question language", "variant", "contexts", "distractors", "fill-ins", "contexts with a fill-in"],
                   rows), ""]


def render_skips(imports: list[dict]) -> list[str]:
    rows = []
    for summary in imports:
        if summary.get("error"):
            rows.append([summary["import"], summary["on_invalid"], "stops the import", "", summary["error"]])
        if not summary["by_reason"] and not summary.get("error"):
            rows.append([summary["import"], summary["on_invalid"], "none", 0, ""])
        for reason, n in summary["by_reason"].items():
            where = "; ".join(
                f"{f['file']}" + (f":{f['line']}" if f["line"] is not None else "") + (f" {f['path']}" if f["path"] else "")
                for f in summary["first"].get(reason, [])
            )
            rows.append([summary["import"], summary["on_invalid"], reason, n, where])
    return [
        "## Imported records left out (on_invalid)",
        "",
        "Invalid records an import left out under `on_invalid: skip`, by reason, with the first locations "
        "(file:line and JSON path); under `stop` the first one stops the stage.",
        "",
        table(["import", "on_invalid", "reason", "records", "first locations"], rows),
        "",
    ]


def render_label_noise(m: dict) -> list[str]:
    """The "Label noise" section: what the imported QA set's own labels get wrong, as far as cheap checks
    can tell (pipeline/reporting/label_noise.py), and what the standalone rule did to its questions."""
    out = ["## Label noise of the imported QA set", ""]
    standalone = m.get("standalone")
    if standalone:
        skipped = ", ".join(f"{k} {v}" for k, v in standalone["skipped"].items()) or "none"
        out += [f"Questions bound to their document (naming no party or case of their own; docs/method.md §1), "
                f"`corpus.qa_import.standalone: {standalone['policy']}`:", "",
                _table(["questions", "bound", "of which deictic (本案, the tenant)", "prefixed", "kept as written",
                        "left out"],
                       [[standalone["questions"], standalone["bound"], standalone["deictic"], standalone["prefixed"],
                         standalone["kept_bound"], skipped]]), ""]
        out += [_table(["question", "as written", "as imported"],
                       [[e["id"], e["question"], e["made"] or "(left out)"] for e in standalone["examples"]]), ""]
    references = m.get("references")
    if references:
        failed = references["failed"]
        out += [f"References of the {references['answerable']} questions the set calls answerable that fail a "
                "sanity check (counted before the import's own validation, which may leave them out):", "",
                _table(["check", "references"], sorted(failed.items())), ""]
        rows = [[reason, e["id"], e["question"], e["reference"] or "(empty)", e["passage"]]
                for reason, examples in references["examples"].items() for e in examples]
        if rows:
            out += [_table(["check", "question id", "question", "reference", "its paragraph (start)"], rows), ""]
    leaks = m["leaks"]
    out += [f"Unanswerable contexts that hold a passage answering the question (a sentence with at least "
            f"{m['leak_coverage']} of its content words and its facts, or a figure when one is asked; the "
            "explorer marks their pairs):", "",
            _table(["question set", "unanswerable contexts", "holding the answer", "questions",
                    "of which marked impossible", "by variant"],
                   [[g, r["unanswerable_contexts"], r["with_answer"], r["questions"], r["impossible_questions"],
                     ", ".join(f"{k} {v}" for k, v in r["by_variant"].items())] for g, r in leaks.items()]), ""]
    rows = [[g, e["context"], e["question"], f"[{e['slot']}] {e['sentence']}"]
            for g, r in leaks.items() for e in r["examples"]]
    if rows:
        out += [_table(["question set", "context", "question", "answering sentence"], rows), ""]
    return out
