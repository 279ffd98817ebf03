"""The prompts of the SPEC 11 model systems and of the A/B/C grader, in our own wording.

Two tasks (extract the annotated fields as one JSON object; write the legal analysis in IRAC form) in
three modes: "standard" (the task alone), "expert_steps" (a lawyer's checklist for the case type is
given) and "self_steps" (the model writes its own numbered steps first, then the answer after the
MARKER line; only the text after the last marker is read).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from pipeline.irac.schema import FieldSpec
from pipeline.records import Decision

MODES = ("standard", "expert_steps", "self_steps")
TASKS = ("fields", "analysis")
GRADES = ("A", "B", "C")

# The line a self_steps reply puts between its own steps and its answer.
MARKER = "FINAL ANSWER:"

# The reasoning steps a practitioner in each area would work through, in order.
EXPERT_STEPS: dict[str, tuple[str, ...]] = {
    "insider_trading": (
        "Identify the respondent, the listed company, the securities dealt in and the period of the dealings.",
        "Identify the provision of the Securities and Futures Ordinance relied on and what it prohibits: a "
        "person connected with the company who holds relevant (price-sensitive, non-public) information and "
        "deals, or procures dealing, in its securities.",
        "Note the exception or defence the provision allows and whether the respondent brings himself or "
        "herself within it.",
        "Establish the dealings: the number of shares and the profit gained or loss avoided.",
        "Set out the orders: the pecuniary penalty (its amount and its multiple of the profit or loss "
        "avoided) and when it is payable, any cold shoulder order and its length, and costs, each with "
        "the reason given.",
        "State the conclusion the Tribunal reaches.",
    ),
    "criminal_sentencing": (
        "Identify the defendant, the court and the offence of which the defendant stands convicted.",
        "Identify the guideline judgment and the range of starting points it sets, and the circumstances "
        "that call for a higher range.",
        "Fix the starting point the court adopted and why.",
        "Weigh the aggravating and the mitigating factors.",
        "Apply the discount for the guilty plea: its size, whether the full one-third was given, and why.",
        "State the final sentence with any credit for time on remand, whether it is suspended (and for how "
        "long, and why), and any ancillary order such as compensation with its amount and terms.",
    ),
    "residential_tenancy": (
        "Identify the landlord, the tenant, the premises, when the tenancy began and the monthly rent.",
        "Identify the clause of the agreement relied on for re-entry, the condition it sets (how long rent "
        "must be in arrears) and the relief from forfeiture the tribunal may grant.",
        "Establish the arrears: the amount owed and any interest or terms attached.",
        "Deal with the deposit: the amount paid, the deduction the landlord may keep and what it is for.",
        "Decide whether possession is granted, when and on what terms it takes effect.",
        "State the orders the tribunal makes.",
    ),
}
GENERIC_STEPS: tuple[str, ...] = (
    "Identify the parties, the court or tribunal and the date of the decision.",
    "State the question the court or tribunal has to decide.",
    "State the governing rule (statute, clause or authority) with its conditions and exceptions.",
    "Apply the rule to the facts found, with the dates, amounts and figures that matter.",
    "State the outcome and every order made, with the qualifications attached to each.",
)

_FIELDS_TASK = (
    "You are reading a court or tribunal decision in order to record its key particulars.\n"
    "For every field listed under FIELDS, give the value the decision states. Copy each value exactly as "
    "the decision writes it: the same date format, currency and figures, the same spelling of names, the "
    "same language. Use null for a field the decision does not state; do not guess."
)
_FIELDS_FORMAT = (
    "The answer is one JSON object whose keys are the field names listed and whose values are strings "
    "or null, for example {{{example}}}."
)
_ANALYSIS_TASK = (
    "You are a lawyer writing the legal analysis of the decision below in IRAC form:\n"
    "- Issue: the question the court or tribunal had to decide;\n"
    "- Rule: the governing rule with its conditions and exceptions;\n"
    "- Application: how the rule applies to the facts, with the dates, amounts and figures that matter;\n"
    "- Conclusion: the outcome and the orders made.\n"
    "Write plain prose (no JSON, no tables), and rely only on what the decision says."
)
_GRADE_TASK = (
    "You are a senior lawyer grading a legal analysis of a court or tribunal decision.\n"
    "Grades:\n"
    "A - complete and rigorous: it identifies the issue, states the correct rule with its conditions and "
    "exceptions, applies it to the facts with the figures that matter and reaches the right conclusion "
    "and orders.\n"
    "B - reasonable but with gaps: the law and the outcome are right in substance, but a condition, "
    "exception, key figure or order is missing, or the reasoning is thin.\n"
    "C - disorganised or wrong law: the wrong rule, a wrong outcome, serious factual errors, or no "
    "discernible structure."
)
_GRADE_FORMAT = (
    'Reply with one JSON object and nothing else: {"grade": "<A, B or C>", "reason": "<one sentence>"}'
)


def expert_steps(case_type: str) -> tuple[str, ...]:
    """The checklist for a case type; the generic one for any other case type."""
    return EXPERT_STEPS.get(case_type, GENERIC_STEPS)


def _numbered(steps: Sequence[str]) -> str:
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, start=1))


def _decision_block(decision: Decision) -> str:
    return f"DECISION:\n{decision.text.strip()}"


def _language_line(decision: Decision) -> str:
    if decision.language == "zh":
        return "The decision is written in Chinese: write your answer in Chinese."
    return ""


def _mode_block(mode: str, decision: Decision, task: str) -> str:
    what = "the JSON object" if task == "fields" else "your analysis"
    if mode == "standard":
        return "Reply with the JSON object and nothing else." if task == "fields" else ""
    if mode == "expert_steps":
        how = (
            "Use these steps to find each value; they are for your own use, so reply with the JSON object only."
            if task == "fields"
            else "Organise your analysis along these steps."
        )
        return f"REASONING STEPS (from a legal expert):\n{_numbered(expert_steps(decision.case_type))}\n{how}"
    if mode == "self_steps":
        return (
            "Before answering, write your own numbered list of the reasoning steps a careful lawyer would "
            "take on this decision, and work through them briefly. Then write a line holding only "
            f"{MARKER} and, after it, {what} and nothing else. Only the text after the last {MARKER} "
            "line is read."
        )
    raise ValueError(f"unknown prompt mode {mode!r} (expected one of {', '.join(MODES)})")


def _join(parts: Sequence[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def fields_prompt(
    decision: Decision, specs: Sequence[FieldSpec], mode: str, note: str | None = None, party: str = ""
) -> str:
    """Task 1: one JSON object {field name: value or null} for the fields of the decision's case type
    (for one named party when the decision concerns several)."""
    if not specs:
        raise ValueError(f"decision {decision.id}: no fields to ask for (case type {decision.case_type!r})")
    listing = "\n".join(f"- {s.name} ({s.type}): {s.description}" for s in specs)
    # A shape to copy, not values: the first field as a placeholder string, the second as null.
    example = ", ".join(f'"{s.name}": {v}' for s, v in zip(specs[:2], ('"<value as written>"', "null"), strict=False))
    return _join(
        [
            _FIELDS_TASK,
            _language_line(decision),
            _decision_block(decision),
            f"FIELDS:\n{listing}",
            f"PARTY: give the values that concern {party} only." if party else "",
            _FIELDS_FORMAT.format(example=example),
            _mode_block(mode, decision, "fields"),
            note or "",
        ]
    )


def analysis_prompt(decision: Decision, mode: str, note: str | None = None) -> str:
    """Task 2: the legal analysis in IRAC form, plain prose."""
    return _join(
        [
            _ANALYSIS_TASK,
            _language_line(decision),
            _decision_block(decision),
            _mode_block(mode, decision, "analysis"),
            note or "",
        ]
    )


def grader_prompt(
    decision: Decision, specs: Sequence[FieldSpec], analysis: str, note: str | None = None
) -> str:
    """The A/B/C grading prompt of one analysis.

    The grader sees the reference fields of the decision as the key points a complete analysis covers,
    not the decision text: the fields are the annotation the other SPEC 11 metrics score against (so
    the grade and IRAC recall judge against the same reference), they hold the rule, its exceptions
    and the orders needed to spot wrong law, and they are a fraction of the text's length, which keeps
    a small judge model within its context. A decision without annotated fields falls back to its text.
    """
    if decision.fields:
        points = _key_points(decision.fields, {s.name: s.description for s in specs})
        reference = f"KEY POINTS a complete analysis of this decision covers:\n{points}"
    else:
        reference = _decision_block(decision)
    return _join(
        [
            _GRADE_TASK,
            reference,
            f"ANALYSIS TO GRADE:\n{analysis.strip()}",
            _GRADE_FORMAT,
            note or "",
        ]
    )


_IRAC_ORDER = ("issue", "rule", "application", "conclusion")


def _key_points(fields: Mapping[str, str], descriptions: Mapping[str, str]) -> str:
    # The four IRAC parts first (they carry the argument), then the particulars in name order.
    names = [n for n in _IRAC_ORDER if n in fields] + sorted(n for n in fields if n not in _IRAC_ORDER)
    return "\n".join(f"- {descriptions.get(n, n.replace('_', ' '))}: {fields[n]}" for n in names)


def retry_note(reply: str, problem: str, attempt: int) -> str:
    """Appended to the prompt after invalid reply number `attempt` (1-based). The changed prompt keeps a
    cached deterministic backend from returning the same reply again; the attempt number keeps two
    retries that failed the same way (e.g. two empty replies) from sharing one prompt, and so one
    cache entry."""
    return (
        f"Your previous reply (attempt {attempt}) could not be used ({problem}). It began: "
        + json.dumps(reply[:200], ensure_ascii=False)
        + ". Answer again, following the required format exactly."
    )
