"""reports/irac.md: the docs/method.md §11 tables from the metrics dict the irac stage writes as JSON."""

from __future__ import annotations

from typing import Any

from pipeline.data_sources import sources_text
from pipeline.params import Params


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _ci(stat: dict[str, Any]) -> str:
    if stat["mean"] is None:
        return "n/a"
    if stat["ci95"] is None:
        return _num(stat["mean"])
    low, high = stat["ci95"]
    return f"{stat['mean']:.3f} [{low:.3f}, {high:.3f}]"


def _pooled(stat: dict[str, Any], ci: list[float] | None) -> str:
    """A pooled accuracy with its case-resampled interval and its counts."""
    if stat["accuracy"] is None:
        return f"n/a ({stat['correct']}/{stat['total']})"
    interval = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    return f"{stat['accuracy']:.3f}{interval} ({stat['correct']}/{stat['total']})"


def _unparseable(m: dict[str, Any]) -> str:
    share = m.get("unparseable_share")
    if not share or share["ci95"] is None:
        return str(m["unparseable"])
    low, high = share["ci95"]
    return f"{share['k']}/{share['n']} [{low:.2f}, {high:.2f}]"


def _split(key: str) -> tuple[str, str]:
    system, mode = key.rsplit("/", 1)
    return system, mode


def _fields_table(fields: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| system | mode | cases | field completeness | exact accuracy | semantic accuracy | overall accuracy "
        "| spurious fills | unparseable |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, m in fields.items():
        system, mode = _split(key)
        lines.append(
            f"| {system} | {mode} | {m['cases']} | {_ci(m['completeness'])} | "
            f"{_pooled(m['exact'], m.get('exact_ci95'))} | {_pooled(m['semantic'], m.get('semantic_ci95'))} | "
            f"{_ci(m['overall_accuracy'])} | {m['spurious']} | {_unparseable(m)} |"
        )
    return lines


def _analysis_table(analysis: dict[str, dict[str, Any]], whole_text: dict[str, Any] | None) -> list[str]:
    lines = [
        "| system | mode | cases | IRAC recall | pooled recall | mean tokens | judge score (A/B/C/unparseable) "
        "| unparseable |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, m in analysis.items():
        system, mode = _split(key)
        judge = m.get("judge")
        graded = (
            "not run"
            if not judge
            else f"{_ci({'mean': judge['score'], 'ci95': judge.get('ci95')})} "
                 f"({judge['A']}/{judge['B']}/{judge['C']}/{judge['unparseable']})"
        )
        lines.append(
            f"| {system} | {mode} | {m['cases']} | {_ci(m['recall'])} | {_num(m['pooled_recall'])} | "
            f"{_num(m['mean_tokens'], 1)} | {graded} | {_unparseable(m)} |"
        )
    if whole_text:
        lines.append(
            f"| *whole decision text (calibration)* | - | {whole_text['cases']} | {_ci(whole_text['recall'])} | "
            f"{_num(whole_text['pooled_recall'])} | {_num(whole_text['mean_tokens'], 1)} | - | - |"
        )
    return lines


def _by_case_type(section: dict[str, dict[str, Any]], stat: str) -> list[str]:
    case_types = sorted({ct for m in section.values() for ct in m["by_case_type"]})
    lines = ["| system | mode | " + " | ".join(case_types) + " |", "|---|---|" + "---|" * len(case_types)]
    for key, m in section.items():
        system, mode = _split(key)
        cells = [_ci(m["by_case_type"][ct][stat]) if ct in m["by_case_type"] else "-" for ct in case_types]
        lines.append(f"| {system} | {mode} | " + " | ".join(cells) + " |")
    return lines


def _by_language(fields: dict[str, dict[str, Any]], analysis: dict[str, dict[str, Any]]) -> list[str]:
    """One row per (system, mode, language): exact, semantic and overall accuracy, and IRAC recall."""
    lines = [
        "| system | mode | language | cases | exact accuracy | semantic accuracy | overall accuracy | IRAC recall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key in sorted(set(fields) | set(analysis)):
        system, mode = _split(key)
        f_langs = fields.get(key, {}).get("by_language", {})
        a_langs = analysis.get(key, {}).get("by_language", {})
        for lang in sorted(set(f_langs) | set(a_langs)):
            f, a = f_langs.get(lang), a_langs.get(lang)
            exact = f"{_num(f['exact']['accuracy'])} ({f['exact']['correct']}/{f['exact']['total']})" if f else "-"
            semantic = (
                f"{_num(f['semantic']['accuracy'])} ({f['semantic']['correct']}/{f['semantic']['total']})" if f else "-"
            )
            cases = (f or a)["cases"]
            lines.append(
                f"| {system} | {mode} | {lang} | {cases} | {exact} | {semantic} | "
                f"{_ci(f['overall_accuracy']) if f else '-'} | {_ci(a['recall']) if a else '-'} |"
            )
    return lines


def _per_field(fields: dict[str, dict[str, Any]]) -> list[str]:
    keys = list(fields)
    names = sorted({n for m in fields.values() for n in m["per_field"]})
    lines = ["| field | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    for name in names:
        cells = []
        for key in keys:
            cell = fields[key]["per_field"].get(name)
            cells.append("-" if not cell else f"{cell['correct'] / cell['total']:.2f} ({cell['total']})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _one_grade(analysis: dict[str, dict[str, Any]]) -> str:
    """A warning when the grader gave every analysis of every system the same grade: its score then
    separates nothing."""
    used = {g for m in analysis.values() if m.get("judge") for g in "ABC" if m["judge"][g]}
    graded = sum(m["judge"]["n"] for m in analysis.values() if m.get("judge"))
    if len(used) == 1 and graded > 1:
        return (f" The grader gave all {graded} analyses the same grade ({used.pop()}), the rule system's and the "
                "models' alike: its judge score does not tell them apart.")
    return ""


def _replies(metrics: dict[str, Any]) -> list[str]:
    """How each model system's replies were made, per task and mode."""
    lines = ["| system | mode | task | replies by constraint | cut off at the budget | reasoning calls | "
             "mean reasoning chars | reasoning cut off |", "|---|---|---|---|---|---|---|---|"]
    for task in ("fields", "analysis"):
        for key, m in metrics.get(task, {}).items():
            r = m.get("replies")
            system, mode = _split(key)
            if not r or system == "rule":
                continue
            made = ", ".join(f"{how} {n}" for how, n in r["constrained"].items())
            lines.append(f"| {system} | {mode} | {task} | {made} | {r['cut_off']} | {r['reasoning_calls']} | "
                         f"{_num(r['reasoning_mean_chars'], 0)} | {r['reasoning_cut_off']} |")
    return lines if len(lines) > 2 else []


_METRIC_NAMES = {"completeness": "field completeness", "overall_accuracy": "overall field accuracy",
                 "recall": "IRAC recall", "judge_points": "judge score"}


def _against_rule(comparison: dict[str, dict[str, Any]]) -> list[str]:
    """The paired comparison with the rule baseline, as a table and in plain words."""
    if not comparison:
        return []
    lines = ["## Against the rule baseline", "",
             "Each model system and mode minus the rule system on the same cases (decision, party): mean "
             "difference with a paired bootstrap 95% interval; worse or better only when the interval excludes 0.",
             "", "| system | mode | metric | cases | system | rule | difference | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for key, row in comparison.items():
        system, mode = _split(key)
        for metric, c in row.items():
            diff = _ci({"mean": c["difference"], "ci95": c["ci95"]})
            lines.append(f"| {system} | {mode} | {_METRIC_NAMES[metric]} | {c['cases']} | {c['system']:.3f} | "
                         f"{c['rule']:.3f} | {diff} | {c['verdict']} |")
    lines.append("")
    for system in dict.fromkeys(_split(key)[0] for key in comparison):
        mine = [f"{_METRIC_NAMES[metric]} in {_split(key)[1]} mode ({c['system']:.3f} against {c['rule']:.3f})"
                for key, row in comparison.items() if _split(key)[0] == system
                for metric, c in row.items() if c["verdict"] == "worse"]
        if mine:
            lines.append(f"**{system} is worse than the rule baseline** on " + "; ".join(mine) + ".")
        else:
            lines.append(f"{system} is not measurably worse than the rule baseline on any metric compared.")
    return lines


def render(metrics: dict[str, Any], params: Params) -> str:
    cfg = params.irac
    offline = params.profile == "offline"
    mix = ", ".join(f"{ct} {n}" for ct, n in metrics["case_types"].items())
    ran = sources_text(metrics.get("sources"))
    out = [
        "# Structured legal reasoning (IRAC)",
        "",
        f"**Data:** {ran or 'no decisions'}.",
        "",
        f"{metrics['decisions']} decisions with annotated fields ({mix}), {metrics['reference_fields']} reference "
        f"fields. Systems: {', '.join(cfg.systems)}. Semantic matches: cosine of the language's embedding model "
        f">= that model's tau ({_taus(metrics)}; calibration below). Intervals: bootstrap 95% over cases ({cfg.bootstrap_resamples} resamples, "
        f"seed {cfg.bootstrap_seed}).",
    ]
    models = [x for x in cfg.systems if x != "rule"]
    if models:
        modes = "; ".join(f"{task} in {', '.join(cfg.task_modes.get(task, cfg.modes))}" for task in cfg.tasks)
        fields_budget = ("the bound any object its schema allows fits in" if cfg.constrained
                         else f"at most {cfg.fields_max_new_tokens or cfg.decoding.max_new_tokens} tokens")
        budget = (f"fields objects {fields_budget}, the reasoning call "
                  f"{cfg.reasoning_max_new_tokens or cfg.decoding.max_new_tokens} tokens, analyses and "
                  f"grades {cfg.decoding.max_new_tokens}")
        cap = f"the first {cfg.max_decisions} decisions with annotated fields (irac.max_decisions)" \
            if cfg.max_decisions else "every decision with annotated fields"
        how = (f"under their JSON schema (irac.constrained), field values at most {cfg.value_max_chars} characters"
               if cfg.constrained else "by prompt alone (irac.constrained off)")
        retries = f"{cfg.max_retries} retr{'y' if cfg.max_retries == 1 else 'ies'}"
        out += [
            "",
            f"**Run:** model systems {', '.join(models)} on {cap}; {modes} (irac.modes, irac.task_modes); "
            f"structured replies {how}; {budget}; {retries} of an invalid reply.",
        ]
    if offline:
        out += [
            "",
            "Ran on the offline default: the system is the rule-based baseline (cue words from the field guide, "
            "values of the field's type next to them; the analysis is the decision's best sentences for issue, "
            "rule, application and conclusion). It reads the decision text, never the "
            "reference values. Model systems and prompt modes run when `irac.systems` names a model.",
        ]
    out += [
        "",
        "## Task 1: field extraction",
        "",
        "Completeness: share of the reference's fields the system filled. Exact and semantic accuracy: over the "
        "fields both filled (exact after normalising numbers, currencies, Chinese numerals and dates). Overall: "
        "per case, exact share x exact accuracy + semantic share x semantic accuracy, averaged over cases with "
        "an overlap. Spurious fills: fields the system filled that the reference leaves empty. A system is asked "
        "for every field its case type has, never told which ones a case fills."
        + (" Under the schema a model must write a value or null for every field, and a small model rarely "
           "writes null: its completeness then says little, its accuracy says what the values are worth."
           if models and cfg.constrained else ""),
        "",
        *_fields_table(metrics["fields"]),
        "",
        "Overall accuracy by case type:",
        "",
        *_by_case_type(metrics["fields"], "overall_accuracy"),
        "",
        "By record language (cases are (decision, party) pairs; each language scored with its own "
        f"embedding model: {_models(metrics)}):",
        "",
        *_by_language(metrics["fields"], metrics["analysis"]),
        "",
        "Accuracy per field (fields both filled; count in brackets):",
        "",
        *_per_field(metrics["fields"]),
        "",
        "## Task 2: legal analysis",
        "",
        "IRAC recall: share of the reference fields whose value the analysis states (exact after "
        "normalisation, or a sentence or clause with cosine >= tau), mean over cases; pooled recall divides all "
        f"stated fields by all reference fields. Yes/no fields ({_unstatable(metrics)}) have no value a text can "
        "contain and are left out of the denominator. Mean tokens shows the length that bought the recall; the "
        "last row reads the whole decision text as if it were the analysis: what copying everything would buy.",
        "",
        *_analysis_table(metrics["analysis"], metrics.get("analysis_whole_text")),
        "",
        "IRAC recall by case type:",
        "",
        *_by_case_type(metrics["analysis"], "recall"),
        "",
        "Judge score: (A + 0.5 B) / N over every graded analysis, an unparseable grade counting as neither "
        "(interval: bootstrap over the graded analyses); "
        + (f"graded by {cfg.judge}{' under the grade schema' if cfg.constrained else ''}, the rule system's "
           "analyses and every model system's alike." if cfg.judge
           else "no judge model configured (`irac.judge`), so not run.")
        + _one_grade(metrics["analysis"]),
    ]
    if _replies(metrics):
        out += ["", "## How the model replies were made", "",
                "Structured replies (the fields object; grades) are asked for under their JSON schema when "
                "`irac.constrained` is on: llguidance masks a local model's logits, a server gets `response_format`, "
                "`prompt` means the server refused it and the schema was left to the prompt. The reasoning modes "
                "first reason in a free call (its budget: `irac.reasoning_max_new_tokens`), then answer. Analyses "
                "are prose and never constrained.", "", *_replies(metrics)]
    out += ["", *_against_rule(metrics.get("against_rule", {}))] if metrics.get("against_rule") else []
    if metrics.get("calibration"):
        out += ["", *_calibration(metrics["calibration"])]
    return "\n".join(out)


def _taus(metrics: dict[str, Any]) -> str:
    models = metrics.get("embedding_models") or {}
    return ", ".join(f"{lang} {models.get(lang, '?')} {tau}" for lang, tau in metrics["tau"].items()) or "n/a"


def _calibration(table: dict[str, dict[str, Any]]) -> list[str]:
    """The paraphrase / near-miss calibration of every embedding model in use, with its tau."""
    lines = [
        "## Embedding thresholds",
        "",
        "How each embedding model in use tells a paraphrase from a near-miss (legal sentence pairs shipped in "
        "pipeline/embeddings/calibration: per language 20 paraphrases and 20 pairs on the same matter with "
        "another party, amount or outcome). Cosine mean (sd) per group; best threshold: the cut that classifies "
        "the most pairs right, with that accuracy; the last column is the accuracy of the tau in force. A model "
        "whose groups overlap cannot tell a right value from a wrong one near it, whatever tau says.",
        "",
        "| model | language | pairs | paraphrase cosine | near-miss cosine | best threshold | accuracy | tau | "
        "accuracy at tau |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model, rows in table.items():
        for lang, r in rows.items():
            lines.append(
                f"| {model} | {'pooled' if lang == 'all' else lang} | {r['pairs']} | {r['paraphrase']['mean']:.3f} "
                f"({r['paraphrase']['sd']:.3f}) | {r['other']['mean']:.3f} ({r['other']['sd']:.3f}) | "
                f"{r['threshold']:.3f} | {r['accuracy']:.3f} | {r['tau']} | {r['accuracy_at_tau']:.3f} |"
            )
    return lines


def _unstatable(metrics: dict[str, Any]) -> str:
    counts = {m["unstatable_fields"] for m in metrics["analysis"].values()}
    return f"{counts.pop()} in all" if len(counts) == 1 else "see metrics"


def _models(metrics: dict[str, Any]) -> str:
    models = metrics.get("embedding_models") or {}
    return ", ".join(f"{lang} {model}" for lang, model in models.items()) or "n/a"
