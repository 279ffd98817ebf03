"""Residential tenancy decisions: rent arrears, possession and the deposit."""

from __future__ import annotations

import datetime as dt
import random

from pipeline.records import Decision
from pipeline.synth.common import (
    DISTRICTS,
    STREETS,
    SURNAMES,
    SectionDraft,
    assemble,
    build_decision,
    date_text,
    hkd,
    months,
    person,
    random_date,
    round_to,
)
from pipeline.synth.names import Names
from pipeline.synth.questions import QuestionTemplate

CASE_TYPE = "residential_tenancy"

LANDLORD_FIRMS = ["Estates", "Property Management", "Realty", "Investment", "Land"]
REPAIRS = [
    "repainting the walls damaged by smoke",
    "replacing the broken air-conditioner",
    "repairing the water-damaged parquet floor",
    "replacing the kitchen cabinets",
    "removing furniture and rubbish left in the flat",
    "repairing the bathroom door and tiles",
]
POSSESSION_YES = [
    "unless the tenant pays the arrears in full within {grace} days",
    "to take effect {grace} days after the date of this order",
    "with the tenant to deliver vacant possession within {grace} days",
]
POSSESSION_NO = [
    "because the notice to quit gave only 7 days instead of the one month required by the agreement",
    "because the landlord accepted rent after the breach and so waived the right to forfeit",
    "because the demand for rent was served at the wrong address",
]
RELIEF = [
    "but the tenant may obtain relief from forfeiture by paying all arrears and costs before the hearing",
    "although the Tribunal may grant relief if the tenant remedies the breach within a reasonable time",
    "provided that a written demand for the rent has first been served on the tenant",
]

QUESTIONS = [
    QuestionTemplate(
        key="arrears",
        kind="factual",
        questions=(
            "How much unpaid rent was {tenant} found to owe?",
            "What sum in outstanding rent must {tenant} pay the owner?",
            "What were the rental arrears of {tenant} according to the Tribunal?",
        ),
        answer="{tenant} owes rent arrears of {arrears_amount}, {arrears_terms}.",
        facts=("arrears_amount",),
        qualifiers=("arrears_terms",),
    ),
    QuestionTemplate(
        key="deduction",
        kind="factual",
        questions=(
            "What portion of the deposit may {landlord} keep?",
            "How much may {landlord} hold back from the security money paid by {tenant}?",
        ),
        answer="{landlord} may keep {deposit_deduction} of the deposit of {deposit}, {deduction_reason}.",
        facts=("deposit_deduction",),
        qualifiers=("deduction_reason",),
    ),
    QuestionTemplate(
        key="rent",
        kind="factual",
        questions=(
            "What monthly rent did {tenant} pay for the premises?",
            "How much per month did {tenant} agree to pay for the home?",
        ),
        answer="The rent was {monthly_rent} a month under a tenancy that began on {tenancy_start}.",
        facts=("monthly_rent", "tenancy_start"),
    ),
    QuestionTemplate(
        key="possession",
        kind="yesno",
        questions=(
            "Is {landlord} entitled to possession of the home let to {tenant}?",
            "Can {landlord} get the premises back from {tenant}?",
            "Will {tenant} have to give up the home to {landlord}?",
        ),
        polarity="possession_granted",
        answer="Yes. {landlord} was granted possession of {property}, {possession_qualifier}.",
        answer_no="No. The Tribunal refused {landlord}'s application for possession, {possession_qualifier}.",
        facts=(),
        qualifiers=("possession_qualifier",),
    ),
    QuestionTemplate(
        key="rule",
        kind="rule",
        questions=(
            "Under what condition could the owner end the letting to {tenant} for unpaid rent?",
            "What rule applies to forfeiting the lease held by {tenant} when rent goes unpaid?",
        ),
        answer="Under {rule_clause} of the tenancy agreement the landlord may re-enter when rent is "
        "{grace_period} in arrears, {relief}.",
        facts=("rule_clause", "grace_period"),
        qualifiers=("relief",),
    ),
]


# Declared value types (docs/method.md §1); periods and clauses are "text" (the field guide refines them).
FIELD_TYPES = {
    "decision_date": "date", "landlord": "name", "tenant": "name", "property": "text", "monthly_rent": "money",
    "tenancy_start": "date", "arrears_amount": "money", "arrears_terms": "text", "possession_granted": "yesno",
    "possession_qualifier": "text", "rule_clause": "text", "grace_period": "text", "relief": "text",
    "deposit": "money", "deposit_deduction": "money", "deduction_reason": "text", "issue": "text", "rule": "text", "application": "text", "conclusion": "text",
}  # fmt: skip

def build(rng: random.Random, decision_id: str, names: Names) -> Decision:
    if rng.random() < 0.4:
        landlord = f"{names.companies[0]} {rng.choice(LANDLORD_FIRMS)} Limited"
    else:
        landlord = person(rng, names.people[1])
    tenant = person(rng, names.people[0])
    flat = f"Flat {rng.choice('ABCDEFGH')}, {rng.randint(1, 40)}/F"
    street_no = rng.randint(1, 300)
    street, district = rng.choice(STREETS), rng.choice(DISTRICTS)
    prop = f"{flat}, {street_no} {street}, {district}"
    rent = round_to(rng.uniform(7_000, 38_000), 500)
    arrears_months = rng.randint(2, 7)
    arrears = rent * arrears_months
    deposit = rent * 2
    deduction = round_to(rng.uniform(1_500, deposit * 0.6), 100)
    repair = rng.choice(REPAIRS)
    start = random_date(rng, 2014, 2021)
    decided = start + dt.timedelta(days=rng.randint(400, 1100))
    interest = rng.choice([3, 5, 8])
    arrears_terms = f"together with interest at {interest} per cent a year from the date of the claim"
    clause = f"clause {rng.randint(3, 14)}({rng.choice('abcd')})"
    grace_days = rng.choice([14, 15, 21, 30])
    grace_period = f"{grace_days} days"
    relief = rng.choice(RELIEF)
    granted = rng.random() < 0.5
    grace = rng.choice([14, 28, 30])
    if granted:
        possession_qualifier = rng.choice(POSSESSION_YES).format(grace=grace)
        possession_sentence = rng.choice([
            f"The Tribunal grants {landlord} possession of {prop}, {possession_qualifier}.",
            f"{landlord} is entitled to possession of {prop}, {possession_qualifier}.",
        ])
    else:
        possession_qualifier = rng.choice(POSSESSION_NO)
        possession_sentence = f"The Tribunal refused the claim of {landlord} for possession, {possession_qualifier}."
    member = f"{rng.choice(['Presiding Officer', 'Member', 'Deputy Judge'])} {rng.choice(SURNAMES)}"
    issue = f"whether {landlord} may recover possession of {prop} from {tenant} and the sums due under the tenancy"
    application = (
        f"{tenant} failed to pay {months(arrears_months)} of rent, totalling {hkd(arrears)}, and the landlord "
        f"proved the cost of {repair}"
    )
    conclusion = (
        f"{tenant} must pay {hkd(arrears)} in arrears; possession is "
        + ("granted" if granted else "refused")
    )

    intro = SectionDraft(
        "intro",
        ["Introduction", "The parties", "Background", "The claim"],
        [rng.choice([
            f"{landlord} let {prop} to {tenant} under a written agreement for two years beginning on {date_text(start)}, at a rent of {hkd(rent)} a month.",
            f"By a tenancy agreement starting on {date_text(start)}, {tenant} rented {prop} from {landlord} for {hkd(rent)} per month.",
        ])],
        [
            f"The claim was heard by {member}.",
            f"A deposit of {hkd(deposit)} was paid when the agreement was signed.",
            "Both parties appeared in person.",
            "The premises are a small residential flat in an older building.",
            "The agreement was stamped and its terms were not in dispute.",
        ],
    )
    claim = SectionDraft(
        "arrears",
        ["The arrears", "Unpaid rent", "The landlord's claim", "Rent owing"],
        [rng.choice([
            f"The Tribunal finds that {tenant} owes rent arrears of {hkd(arrears)}, {arrears_terms}.",
            f"{tenant} is liable for unpaid rent of {hkd(arrears)}, {arrears_terms}.",
        ])],
        [
            "The tenant stopped paying after losing employment.",
            "The rent ledger kept by the landlord was accurate.",
            "Several reminders were sent by text message and by post.",
            "The tenant did not dispute the figures in the ledger.",
            f"Rent fell due on the {rng.choice(['first', 'fifth', 'fifteenth'])} day of each month.",
        ],
    )
    issue_s = SectionDraft(
        "issue",
        ["Issues", "Questions for the Tribunal", "Matters to be decided"],
        [f"The Tribunal must decide {issue}."],
        [
            "The tenant counterclaimed for the cost of repairs that the landlord allegedly failed to carry out.",
            "A further question is how much of the deposit the landlord may retain.",
            "The tenant asked for time to pay.",
            "The parties were encouraged to settle but were unable to agree.",
        ],
    )
    rule_s = SectionDraft(
        "rule",
        ["The law", "Relevant terms and law", "Legal principles", "Forfeiture for non-payment"],
        [rng.choice([
            f"Under {clause} of the tenancy agreement, the landlord may re-enter the premises if rent remains unpaid {grace_period} after it falls due, {relief}.",
            f"{clause[0].upper()}{clause[1:]} of the agreement permits re-entry once rent has been {grace_period} in arrears, {relief}.",
        ])],
        [
            "Forfeiture is a drastic remedy and the Tribunal construes such clauses strictly.",
            "A landlord who accepts rent with knowledge of a breach may waive the right to forfeit.",
            "The landlord bears the burden of proving the breach relied on.",
        ],
    )
    deposit_s = SectionDraft(
        "deposit",
        ["The deposit", "Deposit and repairs", "Dilapidations"],
        [rng.choice([
            f"From the deposit of {hkd(deposit)}, {landlord} may retain {hkd(deduction)} for the cost of {repair}.",
            f"The Tribunal allows {landlord} to keep {hkd(deduction)} out of the {hkd(deposit)} deposit for the cost of {repair}.",
        ])],
        [
            "Fair wear and tear cannot be charged to the tenant.",
            "The landlord produced photographs and contractor invoices.",
            "The balance of the deposit is to be set off against the arrears.",
            "The tenant's complaint about the water heater was not substantiated.",
            "The inventory signed at the start of the tenancy recorded the flat in good condition.",
            "Quotations obtained by the landlord were reasonable in amount.",
        ],
    )
    orders_s = SectionDraft(
        "orders",
        ["Orders", "Possession", "Disposal", "Order for possession"],
        [possession_sentence],
        [
            "Each party is to bear its own costs.",
            "Liberty to apply is granted.",
            "The Tribunal considered the tenant's request for more time.",
            "The bailiff may be instructed to enforce the order in the usual way.",
            "The tenant's personal circumstances were taken into account in fixing the time for compliance.",
            "Interest on the judgment sum will accrue at the judgment rate.",
        ],
    )
    conclusion_s = SectionDraft(
        "conclusion",
        ["Conclusion", "Summary", "Outcome"],
        [f"In summary, {conclusion}.", f"These reasons were delivered on {date_text(decided)}."],
        [
            "Judgment is entered accordingly.",
            "The Tribunal has considered all the documents filed, even where they are not mentioned above.",
            "Any application for a stay of execution must be made within 14 days.",
            "The parties are reminded of their rights of appeal on a point of law.",
            "The Tribunal thanks the parties for their patience.",
        ],
    )
    drafts = [intro, claim, issue_s, rule_s]
    if rng.random() < 0.7:
        drafts.append(deposit_s)
    drafts += [orders_s, conclusion_s]
    sections = [assemble(rng, d) for d in drafts]

    fields = {
        "decision_date": date_text(decided),
        "landlord": landlord,
        "tenant": tenant,
        "property": prop,
        "monthly_rent": hkd(rent),
        "tenancy_start": date_text(start),
        "arrears_amount": hkd(arrears),
        "arrears_terms": arrears_terms,
        "possession_granted": "Yes" if granted else "No",
        "possession_qualifier": possession_qualifier,
        "rule_clause": clause,
        "grace_period": grace_period,
        "relief": relief,
        "issue": issue,
        "rule": f"Under {clause} the landlord may re-enter when rent is {grace_period} in arrears, {relief}",
        "application": application,
        "conclusion": conclusion,
    }
    if deposit_s in drafts:
        fields.update(deposit=hkd(deposit), deposit_deduction=hkd(deduction), deduction_reason=f"for the cost of {repair}")
    exact = {
        "decision_date", "landlord", "tenant", "property", "monthly_rent", "tenancy_start", "arrears_amount",
        "possession_granted", "rule_clause", "grace_period", "deposit", "deposit_deduction",
    }
    return build_decision(
        decision_id=decision_id,
        case_type=CASE_TYPE,
        title=rng.choice([f"{landlord} v {tenant}", f"{landlord} v {tenant} (possession claim)"]),
        date=decided,
        sections=sections,
        fields=fields,
        field_kinds={k: ("exact" if k in exact else "semantic") for k in fields},
        field_types=FIELD_TYPES,
        analysis=f"The Tribunal finds that {application}.",
        outcome=f"Arrears of {hkd(arrears)} awarded; possession " + ("granted." if granted else "refused."),
    )
