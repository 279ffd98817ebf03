"""Criminal sentencing decisions: the offence, the starting point, the plea discount and the sentence."""

from __future__ import annotations

import datetime as dt
import random

from pipeline.records import Decision
from pipeline.synth.common import (
    DISTRICTS,
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
    years,
)
from pipeline.synth.names import Names
from pipeline.synth.questions import QuestionTemplate

CASE_TYPE = "criminal_sentencing"

# (offence, what was done -- {amount}/{district}/{n} filled in, the statute, a question wording)
OFFENCES = [
    ("burglary", "broke into a ground-floor flat in {district} at night and took jewellery and cash worth {amount}",
     "section 11 of the Theft Ordinance", "break-in"),
    ("theft", "took {amount} from the cash register of the restaurant in {district} where the defendant worked",
     "section 9 of the Theft Ordinance", "stealing from an employer"),
    ("assault occasioning actual bodily harm",
     "punched and kicked a taxi driver in {district} in a dispute over a fare, causing injuries that cost {amount} to treat",
     "section 39 of the Offences against the Person Ordinance", "attack on the driver"),
    ("obtaining property by deception",
     "persuaded {n} elderly victims to transfer a total of {amount} into a fictitious investment scheme",
     "section 17 of the Theft Ordinance", "investment fraud"),
    ("handling stolen goods", "received {n} stolen mobile phones worth {amount} at a shop in {district}",
     "section 24 of the Theft Ordinance", "dealing with stolen phones"),
    ("criminal damage", "set fire to rubbish bins and damaged {n} shop fronts in {district}, causing losses of {amount}",
     "section 60 of the Crimes Ordinance", "vandalism"),
]
AGGRAVATION = [
    "which is to be increased where the victim was elderly or otherwise vulnerable",
    "with a higher range where the offence was planned or committed in breach of trust",
    "and a sentence above that range is justified where the offender has relevant previous convictions",
]
SENTENCE_QUALIFIERS = [
    "to run concurrently with the sentence on the second charge",
    "with credit for the {remand} already spent in custody on remand",
    "to be served consecutively to the term the defendant is already serving",
]
SUSPENDED_YES = [
    "on condition that the defendant is of good behaviour throughout that period",
    "provided the defendant attends the probation office monthly during that period",
]
SUSPENDED_NO = [
    "because the offence involved a serious breach of trust",
    "given the defendant's previous convictions for similar offences",
    "since an immediate custodial term is the only appropriate sentence for offending of this gravity",
]

QUESTIONS = [
    QuestionTemplate(
        key="sentence",
        kind="factual",
        questions=(
            "How long is the term of imprisonment that {defendant} received?",
            "What sentence of imprisonment was handed down to {defendant}?",
            "For how long was {defendant} sent to prison?",
        ),
        answer="{defendant} was sentenced to {sentence} imprisonment for {offence}, {sentence_qualifier}.",
        facts=("sentence",),
        qualifiers=("sentence_qualifier",),
    ),
    QuestionTemplate(
        key="compensation",
        kind="factual",
        questions=(
            "What amount did the court direct {defendant} to pay to the victim?",
            "How much compensation must {defendant} hand to the person harmed?",
        ),
        answer="{defendant} was ordered to pay compensation of {compensation_amount}, {compensation_terms}.",
        facts=("compensation_amount",),
        qualifiers=("compensation_terms",),
    ),
    QuestionTemplate(
        key="starting_point",
        kind="factual",
        questions=(
            "Before any reduction, what term did the judge take as the point of departure for the {offence} by {defendant}?",
            "From what initial term was the penalty for {defendant} calculated?",
        ),
        answer="The court adopted a starting point of {starting_point} for {defendant}'s {offence}, "
        "before the discount for the plea.",
        facts=("starting_point",),
    ),
    QuestionTemplate(
        key="suspended",
        kind="yesno",
        questions=(
            "Was the custodial term given to {defendant} suspended?",
            "Could {defendant} avoid going to prison straight away?",
        ),
        polarity="suspended",
        answer="Yes. The sentence of {sentence} was suspended for {suspension_period}, {suspension_qualifier}.",
        answer_no="No. The court refused to suspend {defendant}'s sentence, {suspension_qualifier}.",
        facts=("suspension_period?",),
        qualifiers=("suspension_qualifier",),
    ),
    QuestionTemplate(
        key="discount",
        kind="yesno",
        questions=(
            "Did {defendant} get the whole discount available for admitting guilt?",
            "Was {defendant} given the maximum credit for admitting the charge?",
        ),
        polarity="full_discount",
        answer="Yes. {defendant} received the full discount of {discount}, {discount_qualifier}.",
        answer_no="No. {defendant} received a reduced discount of {discount}, {discount_qualifier}.",
        facts=("discount",),
        qualifiers=("discount_qualifier",),
    ),
    QuestionTemplate(
        key="rule",
        kind="rule",
        questions=(
            "Which sentencing guidance governed the penalty for {defendant}'s {offence}, and what range does it set?",
            "What authority fixed the range of sentence for {offence} in the case of {defendant}?",
        ),
        answer="The court followed {guideline_case}, which sets a starting point of {guideline_range} for "
        "{offence}, {aggravation}.",
        facts=("guideline_case", "guideline_range"),
        qualifiers=("aggravation",),
    ),
]


def _term(n_months: int) -> str:
    return years(n_months // 12) if n_months % 12 == 0 else months(n_months)


# Declared value types (docs/method.md §1); sentences and periods are "text" (the field guide refines them).
FIELD_TYPES = {
    "decision_date": "date", "defendant": "name", "offence": "text", "court": "name", "starting_point": "text",
    "discount": "number", "full_discount": "yesno", "discount_qualifier": "text", "sentence": "text",
    "sentence_qualifier": "text", "suspended": "yesno", "suspension_period": "text",
    "suspension_qualifier": "text", "compensation_amount": "money", "compensation_terms": "text",
    "guideline_case": "name", "guideline_range": "text", "aggravation": "text", "issue": "text", "rule": "text", "application": "text", "conclusion": "text",
}  # fmt: skip

def build(rng: random.Random, decision_id: str, names: Names) -> Decision:
    defendant = person(rng, names.people[0])
    offence, act_tpl, statute, _ = rng.choice(OFFENCES)
    district = rng.choice(DISTRICTS)
    amount = round_to(rng.uniform(8_000, 900_000), 500)
    act = act_tpl.format(district=district, amount=hkd(amount), n=rng.randint(2, 9))
    court = rng.choice(["District Court", "Court of First Instance"])
    judge = f"{rng.choice(['Judge', 'Deputy Judge', 'Mr Justice', 'Madam Justice'])} {rng.choice(SURNAMES)}"
    offence_day = random_date(rng, 2014, 2022)
    plea_day = offence_day + dt.timedelta(days=rng.randint(60, 400))
    decided = plea_day + dt.timedelta(days=rng.randint(14, 120))
    low = rng.randint(1, 4)
    high = low + rng.randint(2, 4)
    guideline_range = f"{years(low)} to {years(high)}" if low > 1 else f"1 to {years(high)}"
    guideline_case = f"HKSAR v {rng.choice(SURNAMES)} {rng.choice(['Wai', 'Kin', 'Ming', 'Fat', 'Hung', 'Yau'])}"
    aggravation = rng.choice(AGGRAVATION)
    start_months = rng.randint(low * 12, high * 12)
    start_months -= start_months % 3
    start_months = max(start_months, 12)
    early = rng.random() < 0.5
    fraction = 1 / 3 if early else rng.choice([0.2, 0.25])
    discount = "one-third" if early else f"{int(fraction * 100)} per cent"
    sentence_months = max(3, round(start_months * (1 - fraction)) - rng.randint(0, 3))
    remand = months(rng.randint(2, 9))
    sentence_qualifier = rng.choice(SENTENCE_QUALIFIERS).format(remand=remand)
    suspended = sentence_months <= 24 and rng.random() < 0.7
    susp_years = rng.randint(2, 3)
    compensation = round_to(amount * rng.uniform(0.3, 1.0), 500)
    comp_terms = f"within {months(rng.choice([3, 6, 9, 12]))} of today"

    if early:
        discount_qualifier = rng.choice([
            "because the plea was entered at the earliest opportunity",
            "since the defendant admitted the offence at the first hearing",
        ])
        discount_sentence = f"{defendant} receives the full discount of {discount}, {discount_qualifier}."
    else:
        discount_qualifier = rng.choice([
            "because the plea was entered only on the first day of trial",
            "since the defendant did not admit the offence until the prosecution witnesses had attended",
        ])
        discount_sentence = (
            f"{defendant} does not receive the full one-third reduction; the discount is limited to "
            f"{discount} {discount_qualifier}."
        )
    if suspended:
        suspension_qualifier = rng.choice(SUSPENDED_YES)
        suspension_sentence = (
            f"That term is suspended for {years(susp_years)}, {suspension_qualifier}."
        )
    else:
        suspension_qualifier = rng.choice(SUSPENDED_NO)
        suspension_sentence = f"The court refused to suspend the sentence, {suspension_qualifier}."

    issue = f"what sentence is appropriate for {defendant} for {offence} contrary to {statute}"
    application = (
        f"a starting point of {_term(start_months)} reflects the gravity of the {offence}; after a discount of "
        f"{discount} for the plea, the sentence is {months(sentence_months)}"
    )
    conclusion = f"{defendant} is sentenced to {months(sentence_months)} imprisonment" + (
        f", suspended for {years(susp_years)}" if suspended else ""
    )

    intro = SectionDraft(
        "intro",
        ["Introduction", "The charge", "Background", "The proceedings"],
        [rng.choice([
            f"{defendant} pleaded guilty before the {court} to one charge of {offence}, contrary to {statute}.",
            f"The defendant, {defendant}, appears for sentence in the {court} on a charge of {offence} contrary to {statute}.",
            f"This is the sentence of {judge} in the {court} following the conviction of {defendant} for {offence}.",
        ])],
        [
            f"The plea was taken on {date_text(plea_day)}.",
            "The defendant was represented by counsel instructed by the Legal Aid Department.",
            "A second charge was left on the court file on the usual terms.",
            "The prosecution relied on a summary of facts which the defendant admitted without qualification.",
            "A pre-sentence report was obtained and has been considered.",
        ],
    )
    facts = SectionDraft(
        "facts",
        ["The facts", "Circumstances of the offence", "Facts of the offence", "Agreed facts"],
        [rng.choice([
            f"On {date_text(offence_day)}, {defendant} {act}.",
            f"According to the admitted facts, on {date_text(offence_day)} the defendant {act}.",
        ])],
        [
            "Closed-circuit television footage captured part of the incident.",
            "The defendant was arrested a few days later and made admissions under caution.",
            "Only part of the property was recovered.",
            f"Police officers from the {district} division attended the scene shortly afterwards.",
            "The victim provided a statement describing the lasting effect of the offence.",
        ],
    )
    background = SectionDraft(
        "background",
        ["Background of the defendant", "Mitigation", "Personal circumstances"],
        [rng.choice([
            f"{defendant} is {rng.randint(19, 58)} years old and has {rng.choice(['no', 'two', 'several'])} previous convictions.",
            f"The defendant, now aged {rng.randint(19, 58)}, left school at Form {rng.randint(3, 6)} and has worked in {rng.choice(['construction', 'catering', 'retail', 'logistics'])}.",
        ])],
        [
            "Counsel emphasised the defendant's remorse and family responsibilities.",
            "Letters from the defendant's employer and relatives were handed up.",
            "The defendant has repaid none of the losses to date.",
            "The pre-sentence report assesses the risk of reoffending as moderate.",
            "The defendant has been in stable employment for several years.",
            "The defendant suffers from a chronic medical condition for which treatment is available in prison.",
            "A letter of apology to the victim was read in court.",
        ],
    )
    issue_s = SectionDraft(
        "issue",
        ["Issue", "The question on sentence", "Matters for determination"],
        [f"The issue for the court is {issue}."],
        [
            "The defence accepted that an immediate custodial sentence was within the range of reasonable options.",
            "The prosecution did not seek any enhancement of sentence.",
            "The court must also consider whether any compensation order should be made.",
            "Counsel addressed the court on the appropriate starting point and the discount for the plea.",
        ],
    )
    rule_s = SectionDraft(
        "rule",
        ["Sentencing principles", "The law", "Relevant principles", "Legal framework"],
        [rng.choice([
            f"The guideline judgment in {guideline_case} sets a starting point of {guideline_range} for {offence}, {aggravation}.",
            f"For {offence}, {guideline_case} laid down a starting point of {guideline_range}, {aggravation}.",
        ])],
        [
            "A guilty plea entered at the first reasonable opportunity ordinarily earns a reduction of one-third.",
            "Sentencing guidelines are not to be applied mechanically.",
            "The court must consider the harm caused, the culpability of the offender and the need for deterrence.",
            f"The maximum penalty for the offence under {statute} is a term of imprisonment.",
        ],
    )
    analysis_s = SectionDraft(
        "analysis",
        ["Assessment", "Determination of sentence", "Application", "Discussion"],
        [
            f"Having regard to the gravity of the {offence}, the court adopts a starting point of {_term(start_months)}.",
            discount_sentence,
        ],
        [
            "There are no exceptional circumstances that would justify a further reduction.",
            "The offence was prevalent in the district at the time.",
            "The defendant's personal circumstances carry limited weight for offending of this kind.",
        ],
    )
    sentence_s = SectionDraft(
        "sentence",
        ["Sentence", "Orders", "Sentence and orders"],
        [
            rng.choice([
                f"{defendant} is sentenced to {months(sentence_months)} imprisonment, {sentence_qualifier}.",
                f"The court sentences {defendant} to {months(sentence_months)} imprisonment, {sentence_qualifier}.",
            ]),
            suspension_sentence,
            f"{defendant} is also ordered to pay compensation of {hkd(compensation)} to the victim {comp_terms}.",
        ],
        [
            "The defendant has a right of appeal against sentence.",
            "The exhibits are to be returned to their owners.",
            "Any property recovered is to be restored to the victim.",
            "Default in payment of compensation may lead to enforcement proceedings.",
        ],
    )
    conclusion_s = SectionDraft(
        "conclusion",
        ["Conclusion", "Disposition", "Summary"],
        [f"In conclusion, {conclusion}.", f"Sentence was passed on {date_text(decided)}."],
        [
            "The defendant was advised of the right to seek leave to appeal.",
            "The court directs that a copy of these reasons be provided to the victim.",
            "The court thanks counsel for their helpful submissions.",
            "The sentence reflects both punishment and deterrence.",
            "Any outstanding applications are dismissed.",
        ],
    )
    drafts = [intro, facts]
    if rng.random() < 0.6:
        drafts.append(background)
    drafts += [issue_s, rule_s, analysis_s, sentence_s, conclusion_s]
    sections = [assemble(rng, d) for d in drafts]

    fields = {
        "decision_date": date_text(decided),
        "defendant": defendant,
        "offence": offence,
        "court": court,
        "starting_point": _term(start_months),
        "discount": discount,
        "full_discount": "Yes" if early else "No",
        "discount_qualifier": discount_qualifier,
        "sentence": months(sentence_months),
        "sentence_qualifier": sentence_qualifier,
        "suspended": "Yes" if suspended else "No",
        "suspension_qualifier": suspension_qualifier,
        "compensation_amount": hkd(compensation),
        "compensation_terms": comp_terms,
        "guideline_case": guideline_case,
        "guideline_range": guideline_range,
        "aggravation": aggravation,
        "issue": issue,
        "rule": f"{guideline_case} sets a starting point of {guideline_range} for {offence}, {aggravation}",
        "application": application,
        "conclusion": conclusion,
    }
    if suspended:
        fields["suspension_period"] = years(susp_years)
    exact = {
        "decision_date", "defendant", "offence", "court", "starting_point", "discount", "full_discount", "sentence",
        "suspended", "suspension_period", "compensation_amount", "guideline_case", "guideline_range",
    }
    return build_decision(
        decision_id=decision_id,
        case_type=CASE_TYPE,
        title=rng.choice([f"HKSAR v {defendant}", f"HKSAR v {defendant} (sentence)", f"R v {defendant}"]),
        date=decided,
        sections=sections,
        fields=fields,
        field_kinds={k: ("exact" if k in exact else "semantic") for k in fields},
        field_types=FIELD_TYPES,
        analysis=f"The court finds that {application}.",
        outcome=f"Sentenced to {months(sentence_months)} imprisonment" + (" (suspended)." if suspended else "."),
    )
