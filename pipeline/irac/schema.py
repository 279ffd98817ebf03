"""What each annotated field of a decision means: the guide both the rule system and the prompts of model
systems work from (docs/method.md §11 task 1 asks for these fields by name; the guide never holds a value).

A FieldSpec gives the field's kind (exact or semantic, from the decision), the value type the rule
system looks for, and a one-line description. The value type is the one the data declares
(Decision.field_types), refined by a written guide where one exists (the three synthetic case types);
only a field the data leaves untyped has its type inferred from its name, with a warning, so old data
keeps working while new data is never guessed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pipeline.records import Decision

ValueType = Literal["date", "money", "percent", "times", "duration", "number", "yesno", "name", "citation", "text"]


@dataclass(frozen=True)
class FieldSpec:
    name: str
    kind: Literal["exact", "semantic"]
    type: ValueType
    description: str


# name -> (value type, description). IRAC's four parts (issue, rule, application, conclusion) are
# shared by every case type.
_IRAC: dict[str, tuple[ValueType, str]] = {
    "issue": ("text", "the question or issue the court or tribunal must decide"),
    "rule": ("text", "the law that governs: the section, clause, ordinance or guideline, with its conditions and exceptions"),
    "application": ("text", "how the law applies to the facts the court or tribunal finds"),
    "conclusion": ("text", "the conclusion: what the court or tribunal decides and orders"),
}

_GUIDES: dict[str, dict[str, tuple[ValueType, str]]] = {
    "insider_trading": {
        **_IRAC,
        "decision_date": ("date", "the date of the decision"),
        "respondent": ("name", "the person found to have dealt (the respondent)"),
        "company": ("name", "the listed company whose securities were traded"),
        "company_short": ("name", "the short name used for the listed company"),
        "securities": ("text", "the securities dealt in"),
        "dealing_period": ("text", "the period in which the dealings took place"),
        "shares_traded": ("number", "the number of shares bought or sold"),
        "profit_amount": ("money", "the profit gained or loss avoided by the dealings"),
        "benefit": ("text", "whether the dealings gained a profit or avoided a loss"),
        "penalty_amount": ("money", "the pecuniary penalty ordered"),
        "multiplier": ("times", "the penalty as a multiple of the profit gained or loss avoided"),
        "payment_terms": ("text", "when the penalty must be paid"),
        "rule_section": ("citation", "the section of the Securities and Futures Ordinance applied"),
        "rule_text": ("text", "what the statutory provision prohibits"),
        "rule_exception": ("text", "the exception or defence the provision allows"),
        "cold_shoulder_ordered": ("yesno", "whether a cold shoulder order was made"),
        "cold_shoulder_period": ("duration", "how long the cold shoulder order lasts"),
        "cold_shoulder_qualifier": ("text", "why a cold shoulder order was or was not made"),
        "costs_ordered": ("yesno", "whether the respondent was ordered to pay costs"),
        "costs_qualifier": ("text", "why costs were or were not ordered"),
    },
    "criminal_sentencing": {
        **_IRAC,
        "decision_date": ("date", "the date of the sentencing decision"),
        "defendant": ("name", "the defendant being sentenced"),
        "court": ("name", "the court that passed sentence"),
        "offence": ("text", "the offence the defendant was convicted of"),
        "guideline_case": ("name", "the guideline judgment relied on for the sentencing range"),
        "guideline_range": ("text", "the range of starting points the guideline sets"),
        "aggravation": ("text", "the circumstances that call for a higher range"),
        "starting_point": ("duration", "the starting point adopted before any discount"),
        "discount": ("percent", "the discount given for the guilty plea"),
        "full_discount": ("yesno", "whether the full one-third plea discount was given"),
        "discount_qualifier": ("text", "why the discount was full or limited"),
        "sentence": ("duration", "the final sentence imposed"),
        "sentence_qualifier": ("text", "any credit or condition attached to the sentence"),
        "suspended": ("yesno", "whether the sentence was suspended"),
        "suspension_period": ("duration", "the period of suspension"),
        "suspension_qualifier": ("text", "why the sentence was or was not suspended"),
        "compensation_amount": ("money", "the compensation the defendant must pay"),
        "compensation_terms": ("text", "when the compensation must be paid"),
    },
    "residential_tenancy": {
        **_IRAC,
        "decision_date": ("date", "the date of the decision"),
        "landlord": ("name", "the landlord"),
        "tenant": ("name", "the tenant"),
        "property": ("text", "the address of the let premises"),
        "tenancy_start": ("date", "the date the tenancy began"),
        "monthly_rent": ("money", "the monthly rent"),
        "arrears_amount": ("money", "the rent arrears the tenant owes"),
        "arrears_terms": ("text", "interest or terms attached to the arrears"),
        "deposit": ("money", "the deposit paid under the agreement"),
        "deposit_deduction": ("money", "the amount the landlord may keep from the deposit"),
        "deduction_reason": ("text", "what the deduction from the deposit is for"),
        "rule_clause": ("citation", "the clause of the agreement that allows re-entry"),
        "grace_period": ("duration", "how long rent must be in arrears before re-entry"),
        "relief": ("text", "the relief from forfeiture the tribunal may grant"),
        "possession_granted": ("yesno", "whether possession was granted to the landlord"),
        "possession_qualifier": ("text", "when or on what terms possession takes effect"),
    },
}

# Name parts that reveal a value type in a field name of an unknown case type.
_NAME_TYPES: tuple[tuple[str, ValueType], ...] = (
    (r"date|day|start|end", "date"),
    (r"amount|rent|deposit|penalty|fine|price|cost_sum|compensation|profit|loss", "money"),
    (r"percent|rate|discount", "percent"),
    (r"multiplier|times", "times"),
    (r"period|term_length|duration|months|years", "duration"),
    (r"number|count|shares|quantity", "number"),
    (r"section|clause|article|provision", "citation"),
    (r"ordered|granted|suspended|is_|has_|full_", "yesno"),
)


# A declared record type (docs/method.md §1) and the finer rule-system types a written guide may refine it to:
# the record says "number" for a multiplier, the guide knows it is written "two times".
_REFINES: dict[str, frozenset[str]] = {
    "number": frozenset({"number", "times", "percent"}),
    "text": frozenset({"text", "duration", "citation", "name"}),
}

log = logging.getLogger(__name__)
_warned: set[str] = set()


def _warn_inferred(case_type: str) -> None:
    """Log once per case type (per process) that some field types were guessed from names."""
    if case_type not in _warned:
        _warned.add(case_type)
        log.warning(
            "IRAC: decisions of case type %r declare no field_types for some fields; their value types "
            "were inferred from the field names (declare field_types in the data, docs/method.md §1)",
            case_type,
        )


def _spec_type(name: str, declared: str | None, guide: tuple[ValueType, str] | None) -> ValueType:
    if guide and (declared is None or guide[0] == declared or guide[0] in _REFINES.get(declared, ())):
        return guide[0]
    if declared is not None:
        return declared  # type: ignore[return-value]
    return infer_type(name)


def infer_type(name: str) -> ValueType:
    for pattern, value_type in _NAME_TYPES:
        if re.search(pattern, name):
            return value_type
    return "text"


def schema_key(d: Decision) -> str:
    """The field set a decision belongs to: its case type, per language (a Chinese insider-trading decision
    is annotated with other field names than an English one, and must not be asked for those)."""
    return d.case_type if d.language == "en" else f"{d.case_type}/{d.language}"


def field_specs(decisions: Iterable[Decision]) -> dict[str, list[FieldSpec]]:
    """schema_key -> the fields a system is asked for on every decision of that key, in name order.

    The list is the union of the fields annotated on any decision of the type, so a system is never
    told which optional fields (e.g. a suspension period) apply to one case; a field it fills that the
    reference leaves empty is counted as spurious, not as a match.
    """
    kinds: dict[str, dict[str, str]] = {}
    types: dict[str, dict[str, str]] = {}
    for d in decisions:
        seen = kinds.setdefault(schema_key(d), {})
        declared = types.setdefault(schema_key(d), {})
        for name in sorted(d.field_names()):
            seen.setdefault(name, d.field_kinds.get(name, "semantic"))
            if name in d.field_types:
                declared.setdefault(name, d.field_types[name])
    out = {}
    for case_type, names in sorted(kinds.items()):
        guide = {} if "/" in case_type else _GUIDES.get(case_type, {})  # the guides are written for English
        declared = types[case_type]
        if any(n not in declared and n not in guide for n in names):
            _warn_inferred(case_type)
        out[case_type] = [
            FieldSpec(
                name,
                names[name],  # type: ignore[arg-type]
                _spec_type(name, declared.get(name), guide.get(name)),
                guide[name][1] if name in guide else name.replace("_", " "),
            )
            for name in sorted(names)
        ]
    return out
