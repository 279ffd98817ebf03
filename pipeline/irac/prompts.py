"""The prompts of the docs/method.md §11 model systems and of the A/B/C grader, in our own wording.

Two tasks (extract the annotated fields as one JSON object; write the legal analysis in IRAC form) in
three modes: "standard" (the task alone, one call), "expert_steps" (a lawyer's checklist for the case
type is given) and "self_steps" (the model writes its own numbered steps). The two reasoning modes take
two calls: the first asks for the reasoning alone, in free text (`reasoning` None); the second repeats
the task with that reasoning as the model's notes and asks for the answer, the only part a schema
constrains, so a constraint never cuts the chain of thought the mode exists for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.irac.schema import FieldSpec
from pipeline.records import Decision

MODES = ("standard", "expert_steps", "self_steps")
# The modes that reason in a first, free call before the answer.
REASONING_MODES = ("expert_steps", "self_steps")
TASKS = ("fields", "analysis")
GRADES = ("A", "B", "C")

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

# A Chinese checklist follows Chinese law: the CSRC's insider-dealing decisions under the Securities Law
# (证券法), not the Hong Kong ordinance the English synthetic cases apply.
EXPERT_STEPS_ZH: dict[str, tuple[str, ...]] = {
    "insider_trading": (
        "确认当事人、涉及的上市公司和证券，以及交易发生的期间。",
        "确认内幕信息的内容、形成时间和公开时间，即内幕信息敏感期。",
        "确认当事人是否为内幕信息知情人或非法获取内幕信息的人，以及其获知信息的途径。",
        "确认交易行为：买入或卖出的股票数量、交易金额，以及违法所得或避免的损失。",
        "确认适用的法律条文（如《证券法》关于禁止内幕交易及其法律责任的条款）及其构成要件。",
        "写明处罚决定：没收违法所得的金额、罚款金额及其与违法所得的倍数关系，以及作出处罚的理由。",
    ),
}
GENERIC_STEPS_ZH: tuple[str, ...] = (
    "确认当事人、作出决定的机关或法院，以及决定的日期。",
    "写明需要判断的争议问题。",
    "写明适用的规则（法律条文、合同条款或先例）及其条件和例外。",
    "将规则适用于认定的事实，写明关键的日期、金额和数字。",
    "写明结论和作出的每一项决定，以及各项决定附带的条件。",
)


@dataclass(frozen=True)
class Wording:
    """Every sentence of the IRAC prompts in one language; a decision's language picks its wording."""

    fields_task: str
    fields_format: str  # holds {example}
    analysis_task: str
    grade_task: str
    grade_format: str
    decision_head: str
    fields_head: str
    field_line: str  # holds {name}, {type}, {description}
    value_placeholder: str
    party_line: str  # holds {party}
    json_only: str
    expert_head: str
    expert_analysis_how: str
    reason_expert: str
    reason_self: str
    notes_head: str
    final_fields: str
    final_analysis: str
    key_points_head: str
    analysis_head: str
    retry: str  # holds {attempt}, {problem}, {reply}
    marker: str


WORDINGS = {
    "en": Wording(
        fields_task=(
            "You are reading a court or tribunal decision in order to record its key particulars.\n"
            "For every field listed under FIELDS, give the value the decision states. Copy each value exactly as "
            "the decision writes it: the same date format, currency and figures, the same spelling of names, the "
            "same language. Use null for a field the decision does not state; do not guess."
        ),
        fields_format=(
            "The answer is one JSON object whose keys are the field names listed and whose values are strings "
            "or null, for example {{{example}}}."
        ),
        analysis_task=(
            "You are a lawyer writing the legal analysis of the decision below in IRAC form:\n"
            "- Issue: the question the court or tribunal had to decide;\n"
            "- Rule: the governing rule with its conditions and exceptions;\n"
            "- Application: how the rule applies to the facts, with the dates, amounts and figures that matter;\n"
            "- Conclusion: the outcome and the orders made.\n"
            "Write plain prose (no JSON, no tables), and rely only on what the decision says."
        ),
        grade_task=(
            "You are a senior lawyer grading a legal analysis of a court or tribunal decision.\n"
            "Grades:\n"
            "A - complete and rigorous: it identifies the issue, states the correct rule with its conditions and "
            "exceptions, applies it to the facts with the figures that matter and reaches the right conclusion "
            "and orders.\n"
            "B - reasonable but with gaps: the law and the outcome are right in substance, but a condition, "
            "exception, key figure or order is missing, or the reasoning is thin.\n"
            "C - disorganised or wrong law: the wrong rule, a wrong outcome, serious factual errors, or no "
            "discernible structure."
        ),
        grade_format='Reply with one JSON object and nothing else: {"grade": "<A, B or C>", "reason": "<one sentence>"}',
        decision_head="DECISION:\n",
        fields_head="FIELDS:\n",
        field_line="- {name} ({type}): {description}",
        value_placeholder='"<value as written>"',
        party_line="PARTY: give the values that concern {party} only.",
        json_only="Reply with the JSON object and nothing else.",
        expert_head="REASONING STEPS (from a legal expert):\n",
        expert_analysis_how="Organise your analysis along these steps.",
        reason_expert=(
            "First work through these steps on the decision above, in short numbered notes that quote the "
            "names, dates and figures the decision gives. Write only the notes: the answer is asked for next."
        ),
        reason_self=(
            "First write your own numbered list of the reasoning steps a careful lawyer would take on this "
            "decision, and work through each briefly, quoting the names, dates and figures the decision "
            "gives. Write only the steps and notes: the answer is asked for next."
        ),
        notes_head="YOUR NOTES:\n",
        final_fields="Using your notes, give the answer now: the JSON object and nothing else.",
        final_analysis="Using your notes, write the analysis now.",
        key_points_head="KEY POINTS a complete analysis of this decision covers:\n",
        analysis_head="ANALYSIS TO GRADE:\n",
        retry=(
            "Your previous reply (attempt {attempt}) could not be used ({problem}). It began: {reply}. "
            "Answer again, following the required format exactly."
        ),
        marker="FINAL ANSWER:",
    ),
    "zh": Wording(
        fields_task=(
            "你正在阅读一份行政处罚决定书或裁判文书，需要记录其中的关键事项。\n"
            "对【字段】中列出的每个字段，给出文书所写的值。请按文书的原样抄录：日期格式、货币和数字、"
            "人名写法以及语言都与原文一致。文书没有写明的字段填 null，不要猜测。"
        ),
        fields_format="答案是一个 JSON 对象，键为列出的字段名，值为字符串或 null，例如 {{{example}}}。",
        analysis_task=(
            "你是一名律师，请按 IRAC 结构撰写下列文书的法律分析：\n"
            "- 争议问题：机关或法院需要判断的问题；\n"
            "- 规则：适用的法律规则及其条件和例外；\n"
            "- 适用：规则如何适用于本案事实，写明关键的日期、金额和数字；\n"
            "- 结论：处理结果和作出的决定。\n"
            "请用中文写成连贯的段落（不要用 JSON 或表格），只依据文书的内容。"
        ),
        grade_task=(
            "你是一名资深律师，正在为一份关于行政处罚决定书或裁判文书的法律分析评定等级。\n"
            "等级：\n"
            "A - 完整严谨：指出了争议问题，写明了正确的规则及其条件和例外，结合关键数字将规则适用于事实，"
            "并得出正确的结论和决定。\n"
            "B - 大体合理但有缺漏：法律和结果在实质上正确，但遗漏了某个条件、例外、关键数字或决定，"
            "或者论证单薄。\n"
            "C - 条理混乱或法律错误：适用了错误的规则、结果错误、有严重的事实错误，或者看不出结构。"
        ),
        grade_format='只回复一个 JSON 对象，不要写其他内容：{"grade": "<A、B 或 C>", "reason": "<一句话理由>"}',
        decision_head="【文书】\n",
        fields_head="【字段】\n",
        field_line="- {name}（{type}）：{description}",
        value_placeholder='"<按原文抄录的值>"',
        party_line="【当事人】只给出与{party}有关的值。",
        json_only="只回复该 JSON 对象，不要写其他内容。",
        expert_head="【推理步骤】（由法律专家提供）\n",
        expert_analysis_how="请按这些步骤组织你的分析。",
        reason_expert="先按上述步骤逐一推演这份文书，用编号的简短笔记写出，并引用文书中的人名、日期和数字。只写笔记：答案在下一步再问。",
        reason_self=(
            "先写出一位细心的律师处理这份文书时会采取的推理步骤（编号列出），并逐一简要推演，引用文书中的人名、"
            "日期和数字。只写步骤和笔记：答案在下一步再问。"
        ),
        notes_head="【你的笔记】\n",
        final_fields="请根据你的笔记现在作答：只写 JSON 对象，不要写其他内容。",
        final_analysis="请根据你的笔记现在撰写分析。",
        key_points_head="【要点】一份完整的分析应当涵盖以下要点：\n",
        analysis_head="【待评分析】\n",
        retry="你的上一次回复（第 {attempt} 次）无法使用（{problem}）。其开头为：{reply}。请严格按照要求的格式重新回答。",
        marker="最终答案：",
    ),
}
# A line some models put before their answer ("FINAL ANSWER:"); the text after the last one is the answer
# (English wording; the parser accepts the marker of every language).
MARKER = WORDINGS["en"].marker
MARKERS = tuple(w.marker for w in WORDINGS.values())


def wording(decision: Decision) -> Wording:
    return WORDINGS[decision.language]


def expert_steps(case_type: str, lang: str = "en") -> tuple[str, ...]:
    """The checklist for a case type in a language; the generic one for any other case type."""
    if lang == "zh":
        return EXPERT_STEPS_ZH.get(case_type, GENERIC_STEPS_ZH)
    return EXPERT_STEPS.get(case_type, GENERIC_STEPS)


def _numbered(steps: Sequence[str]) -> str:
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, start=1))


def _decision_block(decision: Decision) -> str:
    return f"{wording(decision).decision_head}{decision.text.strip()}"


def _mode_block(mode: str, decision: Decision, task: str, reasoning: str | None) -> str:
    """What follows the task: the JSON reminder (standard); in a reasoning mode the checklist (expert_steps)
    and either the request for reasoning alone (`reasoning` None, the first call) or the model's reasoning
    as its notes and the request for the answer (the second call)."""
    w = wording(decision)
    if mode == "standard":
        return w.json_only if task == "fields" else ""
    if mode not in REASONING_MODES:
        raise ValueError(f"unknown prompt mode {mode!r} (expected one of {', '.join(MODES)})")
    steps = ""
    if mode == "expert_steps":
        steps = f"{w.expert_head}{_numbered(expert_steps(decision.case_type, decision.language))}"
    if reasoning is None:
        return _join([steps, w.reason_expert if mode == "expert_steps" else w.reason_self])
    if task == "fields":
        final = w.final_fields
    else:
        final = _join([w.expert_analysis_how if mode == "expert_steps" else "", w.final_analysis])
    return _join([steps, f"{w.notes_head}{reasoning.strip()}", final])


def _join(parts: Sequence[str]) -> str:
    return "\n\n".join(p for p in parts if p)


def fields_prompt(
    decision: Decision, specs: Sequence[FieldSpec], mode: str, note: str | None = None, party: str = "",
    reasoning: str | None = None,
) -> str:
    """Task 1: one JSON object {field name: value or null} for the fields of the decision's case type
    (for one named party when the decision concerns several). In a reasoning mode, `reasoning` None asks
    for the reasoning and a text asks for the answer after it (see _mode_block)."""
    if not specs:
        raise ValueError(f"decision {decision.id}: no fields to ask for (case type {decision.case_type!r})")
    w = wording(decision)
    listing = "\n".join(w.field_line.format(name=s.name, type=s.type, description=s.description) for s in specs)
    # A shape to copy, not values: the first field as a placeholder string, the second as null.
    example = ", ".join(f'"{s.name}": {v}' for s, v in zip(specs[:2], (w.value_placeholder, "null"), strict=False))
    return _join(
        [
            w.fields_task,
            _decision_block(decision),
            f"{w.fields_head}{listing}",
            w.party_line.format(party=party) if party else "",
            w.fields_format.format(example=example),
            _mode_block(mode, decision, "fields", reasoning),
            note or "",
        ]
    )


def analysis_prompt(decision: Decision, mode: str, note: str | None = None, reasoning: str | None = None) -> str:
    """Task 2: the legal analysis in IRAC form, plain prose (two calls in a reasoning mode, as fields_prompt)."""
    return _join([wording(decision).analysis_task, _decision_block(decision),
                  _mode_block(mode, decision, "analysis", reasoning), note or ""])


def grader_prompt(
    decision: Decision, specs: Sequence[FieldSpec], analysis: str, note: str | None = None
) -> str:
    """The A/B/C grading prompt of one analysis.

    The grader sees the reference fields of the decision as the key points a complete analysis covers,
    not the decision text: the fields are the annotation the other docs/method.md §11 metrics score against (so
    the grade and IRAC recall judge against the same reference), they hold the rule, its exceptions
    and the orders needed to spot wrong law, and they are a fraction of the text's length, which keeps
    a small judge model within its context. A decision without annotated fields falls back to its text.
    """
    w = wording(decision)
    if decision.fields:
        points = _key_points(decision.fields, {s.name: s.description for s in specs})
        reference = f"{w.key_points_head}{points}"
    else:
        reference = _decision_block(decision)
    return _join([w.grade_task, reference, f"{w.analysis_head}{analysis.strip()}", w.grade_format, note or ""])


_IRAC_ORDER = ("issue", "rule", "application", "conclusion")


def _key_points(fields: Mapping[str, str], descriptions: Mapping[str, str]) -> str:
    # The four IRAC parts first (they carry the argument), then the particulars in name order.
    names = [n for n in _IRAC_ORDER if n in fields] + sorted(n for n in fields if n not in _IRAC_ORDER)
    return "\n".join(f"- {descriptions.get(n, n.replace('_', ' '))}: {fields[n]}" for n in names)


def retry_note(reply: str, problem: str, attempt: int, lang: str = "en") -> str:
    """Appended to the prompt after invalid reply number `attempt` (1-based). The changed prompt keeps a
    cached deterministic backend from returning the same reply again; the attempt number keeps two
    retries that failed the same way (e.g. two empty replies) from sharing one prompt, and so one
    cache entry."""
    return WORDINGS[lang].retry.format(attempt=attempt, problem=problem,
                                       reply=json.dumps(reply[:200], ensure_ascii=False))
