"""The judge section's validity part of the data report: how often each judge agrees with a careful reader
(stage judge_eval, reports/judge_validity.json), beside how often the judges agree with each other."""

from __future__ import annotations

from typing import Any

from pipeline.records import LABEL_DIMENSIONS
from pipeline.reporting.markdown import table

_LANGUAGE_NAMES = {"en": "English", "zh": "Chinese"}

# The half every headline figure comes from: judge rules are written on dev, never on test.
REPORTED_HALF = "test"
SCOPES = ("en", "zh", "all")
COLUMNS = (*LABEL_DIMENSIONS, "completeness_when_correct")
_KEPT = ("n", "agree", "agreement", "ci", "kappa")


def summary(validity: dict[str, Any] | None) -> dict[str, Any] | None:
    """Per judge and language (test half), per dimension: n, agreement, its interval and kappa; the
    primary judge's confusion matrices pooled over languages. None when judge_eval has not run."""
    if not validity:
        return None
    order = validity["judge_order"]
    primary = order[0]
    out: dict[str, Any] = {"set": validity["set"], "judges": {}, "samples": validity.get("samples", {}),
                           "primary": primary, "not_measured": validity.get("not_measured", []),
                           "sample_languages": validity.get("sample_languages", [])}
    for judge in (j for j in order if j in validity["judges"]):
        scopes = validity["judges"][judge]
        out["judges"][judge] = {
            lang: {d: {k: s["dimensions"][d][k] for k in _KEPT} for d in COLUMNS}
            for lang in SCOPES if (s := scopes.get(f"{lang}/{REPORTED_HALF}"))}
    # The primary judge per source group (the published-style Chinese fixture apart from the rest).
    out["by_source"] = {
        key.split(":", 1)[1].rsplit("/", 1)[0]: {d: {k: s["dimensions"][d][k] for k in _KEPT}
                                                 for d in LABEL_DIMENSIONS}
        for key, s in validity["judges"][primary].items()
        if key.startswith("source:") and key.endswith(f"/{REPORTED_HALF}")}
    second = validity.get("second_reader")
    if second:
        out["second_reader"] = {"items": second["items"], "judge": second["judge"], **{
            who: {lang: {d: {k: s["dimensions"][d][k] for k in _KEPT} for d in LABEL_DIMENSIONS}
                  for lang in SCOPES if (s := second[who].get(f"{lang}/all"))}
            for who in ("reader", "primary")}}
    if f"all/{REPORTED_HALF}" in validity["judges"][primary]:
        dims = validity["judges"][primary][f"all/{REPORTED_HALF}"]["dimensions"]
        out["confusion"] = {"judge": primary, **{d: dims[d]["confusion"] for d in LABEL_DIMENSIONS}}
    return out


def headline(summary_: dict[str, Any] | None) -> dict[str, Any]:
    """Agreement with the reader per judge and dimension, all languages, test half (dvc metrics)."""
    if not summary_:
        return {}
    return {judge: {d: None if v["all"][d]["agreement"] is None else round(v["all"][d]["agreement"], 4)
                    for d in LABEL_DIMENSIONS}
            for judge, v in summary_["judges"].items() if "all" in v}


def render(summary_: dict[str, Any] | None) -> list[str]:
    if not summary_:
        return ["Validity against reading: not measured (stage judge_eval did not run).", ""]
    counts = summary_["set"]["by_source"]
    by_lang = {lang: sum(n for key, n in counts.items() if key.startswith(f"{lang}/{REPORTED_HALF}/"))
               for lang in ("en", "zh")}
    out = ["### Validity against reading", "",
           f"Consistency between judges is not validity. Each judge against the validation set labelled by a "
           f"careful reader (data/validation; conventions in docs/method.md §4), {REPORTED_HALF} half: "
           f"{by_lang['en']} English and {by_lang['zh']} Chinese answers ({summary_['set']['items']} items in "
           f"both halves; judge rules are written on the dev half only). Agreement with the reader "
           f"(agreeing/compared) [Wilson 95%] and Cohen's kappa; faithfulness, correctness and completeness over the answers "
           f"both the reader and the judge call attempted; the last column is completeness over the answers "
           f"both call correct.", ""]
    rows = []
    for judge, langs in summary_["judges"].items():
        for lang, dims in langs.items():
            rows.append([judge, lang, *(_cell(dims[d]) for d in COLUMNS)])
    out += [table(["judge", "language", *(c.replace("_", " ") for c in COLUMNS)], rows, cell=str), ""]
    out += _second_reader(summary_.get("second_reader"))
    by_source = summary_.get("by_source")
    if by_source:
        out += [f"`{summary_['primary']}` per source of the items ({REPORTED_HALF} half; `zh_published`: "
                f"Chinese judgments in the published style, answered before and after the fixes of docs/method.md §1; "
                f"`zh_heldout`: eight more in that style, written to measure rules developed on the first; "
                f"`zh_heldout_2` and after: eight more each, written and labelled by readers other than the "
                f"judge's author; `en_heldout` and after: eight English decisions each, written by others, unlike "
                f"the synthetic ones; "
                f"second runs of a fixture count with it):",
                "", table(["source", *LABEL_DIMENSIONS],
                          [[src, *(_cell(dims[d]) for d in LABEL_DIMENSIONS)] for src, dims in sorted(by_source.items())],
                          cell=str), ""]
    for judge, n in summary_.get("samples", {}).items():
        out += [f"`{judge}` labels a seeded sample in the judge stage (judge.llm_max_candidates): it is measured "
                f"on a sample of {n} {REPORTED_HALF}-half items drawn the same way"
                f"{_languages(summary_['sample_languages'])}.", ""]
    for judge in summary_.get("not_measured", []):
        out += [f"`{judge}` is not measured on the validation set in this run (judge_eval.llm_items: 0); "
                "its agreement with the other judges on its own sample is under Sampled judges.", ""]
    confusion = summary_.get("confusion")
    if confusion:
        out += [f"Where `{confusion['judge']}` and the reader differ ({REPORTED_HALF} half, both languages; "
                f"rows: the reader, columns: the judge):", ""]
        for dim in LABEL_DIMENSIONS:
            out += _confusion(dim, confusion[dim])
    return out


def _second_reader(second: dict[str, Any] | None) -> list[str]:
    """Two readers against each other, and the primary judge against the first on the same items."""
    if not second:
        return []
    rows = [[who, lang, *(_cell(dims[d]) for d in LABEL_DIMENSIONS)]
            for who, key in (("second reader", "reader"), (f"`{second['judge']}`", "primary"))
            for lang, dims in second[key].items()]
    return [f"A second reader labelled {second['items']} of these items blind by the same conventions "
            f"(data/validation/second_reader; data/validation/README.md says who read them): agreement with the "
            f"first reader, and the primary judge's on the same items. A judge that agrees with the first reader "
            f"as often as the second does reads as well as a reader; where the two readers differ, the convention "
            f"needs writing down better.", "",
            table(["against the first reader", "language", *LABEL_DIMENSIONS], rows, cell=str), ""]


def _languages(codes: list[str]) -> str:
    return f", {' and '.join(_LANGUAGE_NAMES.get(c, c) for c in codes)} only (judge_eval.llm_languages)" if codes else ""


def _cell(d: dict[str, Any]) -> str:
    if not d["n"]:
        return "n/a"
    kappa = "n/a" if d["kappa"] is None else f"{d['kappa']:.2f}"
    # Three decimals and the counts: 119/122 is 0.975, not the 0.98 two decimals would round it to.
    return f"{d['agreement']:.3f} ({d['agree']}/{d['n']}) [{d['ci'][0]:.2f}, {d['ci'][1]:.2f}] κ {kappa}"


def _confusion(dim: str, matrix: dict[str, dict[str, int]]) -> list[str]:
    judged = sorted({j for row in matrix.values() for j in row})
    rows = [[reader, *(row.get(j, 0) for j in judged)] for reader, row in matrix.items()]
    return [table([f"{dim}: reader \\ judge", *judged], rows, cell=str), ""]
