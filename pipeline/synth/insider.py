"""Insider-trading penalty decisions of a market misconduct tribunal, with the IRAC fields of docs/method.md §11."""

from __future__ import annotations

import datetime as dt
import random

from pipeline.records import Decision
from pipeline.synth.common import (
    NUMBER_WORDS,
    SectionDraft,
    assemble,
    build_decision,
    date_text,
    hkd,
    person,
    random_date,
    round_to,
    years,
)
from pipeline.synth.names import Names
from pipeline.synth.questions import QuestionTemplate

CASE_TYPE = "insider_trading"

SUFFIXES = [
    "Holdings Limited", "Group Limited", "International Holdings Limited", "Technology Limited",
    "Properties Limited", "Resources Limited", "Logistics Limited",
]
ROLES = [
    "an executive director of", "the chief financial officer of", "the company secretary of",
    "a non-executive director of", "a senior finance manager of", "an associate at the financial adviser to",
    "a consultant engaged by", "the head of investor relations of",
]
# (what the information was, a different wording for questions, whether the price rose on the news)
EVENTS = [
    ("the proposed acquisition of the company by {other}", "buyout approach", True),
    ("a privatisation proposal from its controlling shareholder", "plan to take the company private", True),
    ("a large new supply contract with {other}", "major customer win", True),
    ("a sharp fall in half-year earnings", "earnings slump", False),
    ("the termination of its main distribution agreement with {other}", "loss of its key distributor", False),
    ("a placing of new shares at a deep discount", "discounted share issue", False),
]
# (limb, what it covers) -- the statutory limb varies with the scenario so rules differ across decisions.
LIMBS = [
    ("section 270(1)(a)", "a person connected with a listed corporation who has information that he knows "
     "is inside information about it deals in its listed securities"),
    ("section 270(1)(b)", "a person connected with a listed corporation who knows that information is "
     "inside information counsels or procures another person to deal in its listed securities"),
    ("section 270(1)(e)", "a person who receives inside information from a connected person, knowing or "
     "having reasonable cause to believe that the source was connected, deals in the listed securities"),
]
EXCEPTIONS = [
    "unless the person proves that the dealing was not for the purpose of securing a profit or avoiding a loss",
    "except where the information had already become generally known to those who usually deal in the securities",
    "save where the person dealt under a trading plan adopted before the information came into existence",
]
COLD_SHOULDER_REASONS = [
    "because the respondent had already left the securities industry",
    "in view of the respondent's previously unblemished record",
    "since the dealing was an isolated lapse of modest scale",
]
COSTS_YES = ["on a party and party basis", "on an indemnity basis", "as taxed by the Registrar"]
COSTS_NO = [
    "because the Commission abandoned two of its allegations at trial",
    "given that the respondent cooperated fully with the investigation",
]

QUESTIONS = [
    QuestionTemplate(
        key="penalty",
        kind="factual",
        questions=(
            "What pecuniary sanction was {respondent} ordered to pay the Government?",
            "How much must {respondent} hand over as a monetary penalty?",
            "What sum did the Tribunal require {respondent} to pay by way of penalty for trading in {company_short} stock?",
        ),
        answer="{respondent} was ordered to pay a pecuniary penalty of {penalty_amount}, {multiplier} the "
        "profit of {profit_amount}, payable {payment_terms}.",
        facts=("penalty_amount",),
        qualifiers=("payment_terms",),
    ),
    QuestionTemplate(
        key="profit",
        kind="factual",
        questions=(
            "How much did {respondent} make or save by trading in {company_short} shares?",
            "What gain did {respondent} obtain from the trades in {company_short} stock?",
            "What was the financial benefit to {respondent} of the trading in {company_short} securities?",
        ),
        answer="{respondent} dealt in {shares_traded} of {company} {dealing_period}; the {benefit} was "
        "{profit_amount}.",
        facts=("profit_amount", "shares_traded"),
        qualifiers=("dealing_period",),
    ),
    QuestionTemplate(
        key="cold_shoulder",
        kind="yesno",
        questions=(
            "Is {respondent} barred from dealing in Hong Kong stocks after the ruling?",
            "Did the ruling stop {respondent} from buying or selling shares in Hong Kong?",
        ),
        polarity="cold_shoulder_ordered",
        answer="Yes. {respondent} is prohibited from dealing in securities in Hong Kong for {cold_shoulder_period}, "
        "{cold_shoulder_qualifier}.",
        answer_no="No. The Tribunal made no cold shoulder order against {respondent}, "
        "{cold_shoulder_qualifier}.",
        facts=("cold_shoulder_period?",),
        qualifiers=("cold_shoulder_qualifier",),
    ),
    QuestionTemplate(
        key="costs",
        kind="yesno",
        questions=(
            "Was {respondent} made liable for the regulator's legal costs?",
            "Did {respondent} have to bear the regulator's costs of the case?",
        ),
        polarity="costs_ordered",
        answer="Yes. {respondent} must pay the costs of the Securities and Futures Commission, {costs_qualifier}.",
        answer_no="No. The Tribunal made no order for the Commission's costs against {respondent}, "
        "{costs_qualifier}.",
        qualifiers=("costs_qualifier",),
        facts=(),
    ),
    QuestionTemplate(
        key="rule",
        kind="rule",
        questions=(
            "Which statutory provision did the Tribunal apply to the share dealing by {respondent}, and what does it require?",
            "What legal test governed whether {respondent} was guilty of insider dealing?",
            "On what legal basis could {respondent} be found liable for insider dealing, and is there any defence?",
        ),
        answer="The Tribunal applied {rule_section}: insider dealing occurs where {rule_text}, {rule_exception}.",
        facts=("rule_section",),
        qualifiers=("rule_exception",),
    ),
]


def _company(rng: random.Random, short: str) -> str:
    return f"{short} {rng.choice(SUFFIXES)}"


# Declared value types (docs/method.md §1). Durations, multiples and citations have no type of their own in the
# record: they are "number" or "text", and the IRAC field guide refines them for the rule system.
FIELD_TYPES = {
    "decision_date": "date", "respondent": "name", "company": "name", "company_short": "name",
    "securities": "text", "shares_traded": "number", "dealing_period": "text", "profit_amount": "money",
    "benefit": "text", "multiplier": "number", "penalty_amount": "money", "payment_terms": "text",
    "cold_shoulder_ordered": "yesno", "cold_shoulder_period": "text", "cold_shoulder_qualifier": "text",
    "costs_ordered": "yesno", "costs_qualifier": "text", "rule_section": "text", "rule_text": "text",
    "rule_exception": "text", "issue": "text", "rule": "text", "application": "text", "conclusion": "text",
}  # fmt: skip

def build(rng: random.Random, decision_id: str, names: Names) -> Decision:
    respondent = person(rng, names.people[0])
    company_short = names.companies[0]
    company = _company(rng, company_short)
    other = _company(rng, names.companies[1])
    role = rng.choice(ROLES)
    code = f"{rng.randint(1, 9999):04d}"
    event_tpl, _, rises = rng.choice(EVENTS)
    event = event_tpl.format(other=other)
    limb, limb_text = rng.choice(LIMBS)
    exception = rng.choice(EXCEPTIONS)

    learned = random_date(rng, 2012, 2020)
    first = learned + dt.timedelta(days=rng.randint(0, 6))
    last = first + dt.timedelta(days=rng.randint(2, 20))
    announced = last + dt.timedelta(days=rng.randint(1, 12))
    decided = announced + dt.timedelta(days=rng.randint(500, 1500))
    shares = round_to(rng.uniform(40_000, 2_500_000), 10_000)
    profit = round_to(rng.uniform(80_000, 3_500_000), 1_000)
    mult = rng.choice([2, 3])
    multiplier = {2: "two times", 3: "three times"}[mult]
    penalty = profit * mult
    pay_days = rng.choice([30, 60, 90])
    payment_terms = f"within {pay_days} days of the date of this order"
    move = rng.randint(12, 65)
    hearing_days = rng.randint(3, 15)
    cold = rng.random() < 0.5
    cold_years = rng.randint(1, 5)
    costs = rng.random() < 0.5
    verb, gain = ("bought", "gained a profit of") if rises else ("sold", "avoided a loss of")
    direction = "rose" if rises else "fell"
    dealing_period = f"between {date_text(first)} and {date_text(last)}"
    shares_text = f"{shares:,} shares"
    issue = (
        f"whether {respondent} engaged in insider dealing in the shares of {company} {dealing_period} "
        f"while knowing of {event}"
    )
    application = (
        f"{respondent} knew of {event} by {date_text(learned)}; the information was specific, not generally "
        f"known and likely to move the share price, and {respondent} {verb} {shares_text} before it was announced"
    )
    conclusion = (
        f"{respondent} engaged in market misconduct by insider dealing and must pay a pecuniary penalty of "
        f"{hkd(penalty)}"
    )

    intro = SectionDraft(
        "intro",
        ["Introduction", "The proceedings", "Background to the proceedings", "Nature of the case"],
        [
            rng.choice([
                f"These proceedings concern dealings by {respondent}, {role} {company} (stock code {code}), in the shares of that company.",
                f"The Securities and Futures Commission brought these proceedings against {respondent}, who was at the material time {role} {company}.",
                f"This decision determines whether {respondent}, {role} {company}, engaged in market misconduct.",
            ]),
        ],
        [
            f"The Tribunal sat for {hearing_days} days and heard oral evidence from {NUMBER_WORDS.get(min(hearing_days, 12), 'several')} witnesses.",
            "The Commission was represented by counsel, and the respondent was legally represented throughout.",
            f"The shares of the company are listed on the Main Board of the Stock Exchange under stock code {code}.",
            "The notice instituting the proceedings identified a single course of trading.",
            "Neither party challenged the admissibility of the trading records produced by the brokers.",
            "The Tribunal is grateful to both legal teams for their careful written submissions.",
        ],
    )
    facts = SectionDraft(
        "facts",
        ["The dealings", "Facts", "The relevant trading", "Factual background", "Chronology of events"],
        [
            rng.choice([
                f"By {date_text(learned)}, {respondent} had learned of {event}.",
                f"On {date_text(learned)}, {respondent} was told in confidence about {event}.",
            ]),
            rng.choice([
                f"{dealing_period.capitalize()}, {respondent} {verb} {shares_text} of {company}.",
                f"{respondent} {verb} {shares_text} of {company} through two securities accounts {dealing_period}.",
            ]),
            rng.choice([
                f"After the announcement on {date_text(announced)}, the share price {direction} by {move} per cent, and {respondent} {gain} {hkd(profit)}.",
                f"The share price {direction} by {move} per cent when the news was released on {date_text(announced)}; by trading early {respondent} {gain} {hkd(profit)}.",
            ]),
        ],
        [
            "Trading in the shares had been thin in the preceding months.",
            "Telephone records show frequent calls between the respondent and the company's finance team during that period.",
            f"The average daily turnover of the shares in the six months before the dealings was below {rng.randint(2, 9) * 100_000:,} shares.",
            "The respondent had never traded in the shares before.",
            "The orders were placed online from the respondent's home.",
        ],
    )
    issue_s = SectionDraft(
        "issue",
        ["Issue", "The question for the Tribunal", "Issues to be determined", "Matters in dispute"],
        [f"The question for the Tribunal is {issue}."],
        [
            "The respondent accepted that the trades took place but denied knowing that the information was price sensitive.",
            "It was common ground that the respondent was a connected person for the purposes of the Ordinance.",
            "The respondent contended that the purchases reflected a long-held view of the company's prospects.",
            "The Commission bears the burden of proving each element of the allegation on the balance of probabilities.",
            "A further issue was whether the information had been leaked to the market before the announcement.",
        ],
    )
    rule_s = SectionDraft(
        "rule",
        ["The law", "Legal framework", "Applicable law", "The statutory provisions"],
        [
            rng.choice([
                f"Under {limb} of the Securities and Futures Ordinance, insider dealing takes place when {limb_text}.",
                f"{limb[0].upper()}{limb[1:]} of the Securities and Futures Ordinance provides that insider dealing occurs when {limb_text}.",
            ]),
            rng.choice([
                f"Liability is excluded, however, {exception}.",
                f"A respondent is not liable, however, {exception}.",
            ]),
        ],
        [
            "Inside information means specific information about a corporation that is not generally known and would be likely to materially affect its share price.",
            "The standard of proof is the civil standard, applied with a rigour that reflects the seriousness of the allegation.",
            "The Tribunal may draw inferences from the timing and pattern of trading.",
            "A person is connected with a corporation if, among other things, he is an officer or employee of it or has a professional relationship with it.",
        ],
    )
    analysis_s = SectionDraft(
        "analysis",
        ["Analysis", "Findings", "Discussion", "Application to the facts", "The Tribunal's assessment"],
        [
            rng.choice([
                f"The Tribunal finds that {application}.",
                f"On the evidence, {application}.",
            ]),
        ],
        [
            "The timing of the trades, shortly after the respondent learned of the matter, is telling.",
            "The respondent's explanation that the purchases were planned long before was not supported by any document.",
            "The Tribunal found the respondent an evasive witness on the critical dates.",
            "The information was plainly of the kind that investors would take into account.",
            "No other explanation for the sudden change in trading pattern was offered.",
        ],
    )
    mitigation_s = SectionDraft(
        "mitigation",
        ["Mitigation", "Submissions on sanctions", "Matters raised in mitigation"],
        [
            rng.choice([
                "Counsel for the respondent stressed the respondent's previously clean record and family responsibilities.",
                "In mitigation, the Tribunal was told that the respondent has lost employment and suffered public embarrassment.",
            ]),
        ],
        [
            "The Tribunal accepts that the respondent did not attempt to conceal the trades.",
            "Character references from former colleagues were produced.",
            "The sanctions must nonetheless deter others from similar conduct.",
            "The respondent expressed regret through counsel but did not give evidence on sanction.",
            "Counsel submitted that the misconduct was out of character and unlikely to be repeated.",
            "The Tribunal has taken into account the time that has passed since the dealings.",
            "Personal hardship cannot outweigh the need to protect the integrity of the market.",
        ],
    )
    orders_s = SectionDraft(
        "orders",
        ["Orders", "Sanctions", "Orders of the Tribunal", "Penalty"],
        [
            rng.choice([
                f"The Tribunal orders {respondent} to pay to the Government a pecuniary penalty of {hkd(penalty)}, {multiplier} the profit of {hkd(profit)}, {payment_terms}.",
                f"{respondent} shall pay the Government a pecuniary penalty of {hkd(penalty)}, being {multiplier} the sum of {hkd(profit)} gained or avoided, {payment_terms}.",
            ]),
        ],
        [
            "Interest will run on any unpaid sum at the judgment rate.",
            "The Tribunal has considered the totality of the orders made.",
            "A penalty of this size marks the seriousness of the misconduct.",
            "The orders take effect from the date of this decision.",
            "The Tribunal has had regard to the respondent's means as disclosed in the affirmation filed.",
        ],
    )
    if cold:
        cold_qualifier = "without the leave of the Court of First Instance"
        cold_sentence = rng.choice([
            f"{respondent} shall, {cold_qualifier}, be prohibited from dealing in any securities in Hong Kong for {years(cold_years)}.",
            f"For {years(cold_years)}, {respondent} is prohibited from dealing in securities in Hong Kong {cold_qualifier}.",
        ])
    else:
        cold_qualifier = rng.choice(COLD_SHOULDER_REASONS)
        cold_sentence = f"The Tribunal does not make a cold shoulder order against {respondent}, {cold_qualifier}."
    costs_qualifier = rng.choice(COSTS_YES if costs else COSTS_NO)
    costs_sentence = (
        f"{respondent} shall pay the costs of the Securities and Futures Commission, {costs_qualifier}."
        if costs
        else f"There is no order that {respondent} pay the costs of the Commission, {costs_qualifier}."
    )
    further_s = SectionDraft(
        "further",
        ["Further orders", "Other orders", "Cold shoulder order and costs", "Ancillary orders"],
        [cold_sentence, costs_sentence],
        [
            "The Tribunal has power to make such orders under section 257 of the Ordinance.",
            "The Commission's investigation costs were supported by itemised schedules.",
            "A copy of this decision will be sent to the Stock Exchange.",
        ],
    )
    conclusion_s = SectionDraft(
        "conclusion",
        ["Conclusion", "Disposition", "Outcome", "Summary"],
        [
            f"For these reasons the Tribunal concludes that {conclusion}.",
            f"This decision was handed down on {date_text(decided)}.",
        ],
        [
            "The decision was handed down in open session.",
            "The Commission may apply for the orders to be registered in the Court of First Instance.",
            "Any application concerning the enforcement of these orders should be made in writing.",
            "The respondent has the right to appeal to the Court of Appeal on a point of law or fact.",
            f"The Tribunal thanks counsel for their assistance over the {hearing_days} days of the hearing.",
            "The names of the persons identified as having engaged in market misconduct will be published.",
        ],
    )
    drafts = [intro, facts, issue_s, rule_s, analysis_s]
    if rng.random() < 0.5:
        drafts.append(mitigation_s)
    drafts += [orders_s, further_s, conclusion_s]
    sections = [assemble(rng, d) for d in drafts]

    title = rng.choice([
        f"Securities and Futures Commission v {respondent}",
        f"In the matter of dealings in the listed securities of {company}",
        f"Market Misconduct Tribunal: {company} (stock code {code})",
    ])
    fields = {
        "decision_date": date_text(decided),
        "respondent": respondent,
        "company": company,
        "company_short": company_short,
        "securities": f"shares of {company}",
        "shares_traded": shares_text,
        "dealing_period": dealing_period,
        "profit_amount": hkd(profit),
        "benefit": "profit gained" if rises else "loss avoided",
        "multiplier": multiplier,
        "penalty_amount": hkd(penalty),
        "payment_terms": payment_terms,
        "cold_shoulder_ordered": "Yes" if cold else "No",
        "cold_shoulder_qualifier": cold_qualifier,
        "costs_ordered": "Yes" if costs else "No",
        "costs_qualifier": costs_qualifier,
        "rule_section": limb,
        "rule_text": limb_text,
        "rule_exception": exception,
        "issue": issue,
        "rule": f"Under {limb} of the Securities and Futures Ordinance, insider dealing takes place when {limb_text}, {exception}",
        "application": application,
        "conclusion": conclusion,
    }
    if cold:
        fields["cold_shoulder_period"] = years(cold_years)
    exact = {
        "decision_date", "respondent", "company", "company_short", "securities", "shares_traded", "dealing_period",
        "profit_amount", "multiplier", "penalty_amount", "cold_shoulder_ordered", "cold_shoulder_period",
        "costs_ordered", "rule_section",
    }
    kinds = {k: ("exact" if k in exact else "semantic") for k in fields}
    return build_decision(
        decision_id=decision_id,
        case_type=CASE_TYPE,
        title=title,
        date=decided,
        sections=sections,
        fields=fields,
        field_kinds=kinds,
        field_types=FIELD_TYPES,
        analysis=f"The Tribunal finds that {application}.",
        outcome=f"Insider dealing established; pecuniary penalty of {hkd(penalty)}.",
    )
