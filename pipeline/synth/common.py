"""Building blocks shared by the synthetic case types: formatting, word lists, section assembly.

Every case type draws from the same pools and formats (HK$ amounts with thousands separators, dates
like "12 March 2021", durations like "18 months"), so passages of one case type look alike across
decisions and retrieval distractors are realistically close.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

from pipeline.records import Decision, Section

MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]
SURNAMES = [
    "Chan", "Wong", "Lee", "Cheung", "Lau", "Ho", "Ng", "Leung", "Tang", "Yip", "Kwok", "Lam", "Chow",
    "Tsang", "Fung", "Mak", "Poon", "Siu", "Yeung", "Choi", "Law", "Kwan", "Tam", "Hui", "Lo", "Chu",
    "Au", "Lai", "Sze", "Ma",
]
WESTERN = [
    "Peter", "Amanda", "David", "Grace", "Michael", "Vivian", "Stephen", "Karen", "Raymond", "Elaine",
    "Anthony", "Joyce", "Patrick", "Winnie", "Kelvin", "Natalie", "Edmund", "Fiona",
]
STREETS = [
    "Kings Road", "Nathan Road", "Castle Peak Road", "Shau Kei Wan Road", "Tai Po Road", "Prince Edward Road",
    "Queen's Road West", "Electric Road", "Hennessy Road", "Sai Yeung Choi Street", "Fuk Wa Street",
    "Tsuen King Circuit", "Po Kong Village Road", "Lockhart Road",
]
DISTRICTS = [
    "North Point", "Mong Kok", "Tuen Mun", "Shau Kei Wan", "Sham Shui Po", "Kowloon City", "Sai Ying Pun",
    "Fortress Hill", "Wan Chai", "Tsuen Wan", "Wong Tai Sin", "Causeway Bay", "Yau Ma Tei", "Sha Tin",
]
NUMBER_WORDS = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten", 12: "twelve",
}


def person(rng: random.Random, core: str) -> str:
    """A Hong Kong style name from its core (pipeline/synth/names.py): "Chan Tai-man", or with an English
    given name first: "Peter Chan Tai-man"."""
    if rng.random() < 0.3:
        return f"{rng.choice(WESTERN)} {core}"
    return core


def hkd(amount: int) -> str:
    return f"HK${amount:,}"


def round_to(value: float, step: int) -> int:
    return max(step, int(round(value / step)) * step)


def date_text(day: dt.date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def random_date(rng: random.Random, first_year: int = 2015, last_year: int = 2024) -> dt.date:
    start = dt.date(first_year, 1, 1).toordinal()
    end = dt.date(last_year, 12, 31).toordinal()
    return dt.date.fromordinal(rng.randint(start, end))


def months(n: int) -> str:
    return f"{n} month" if n == 1 else f"{n} months"


def years(n: int) -> str:
    return f"{n} year" if n == 1 else f"{n} years"


def words(text: str) -> int:
    return len(re.findall(r"\S+", text))


@dataclass
class SectionDraft:
    """A section before assembly: the sentences that carry facts, and filler that varies its length."""

    key: str
    headings: list[str]
    core: list[str]
    filler: list[str] = field(default_factory=list)


def assemble(rng: random.Random, draft: SectionDraft, low: int = 70, high: int = 135) -> tuple[str, str]:
    """(heading, text): the core sentences kept in order, filler sentences spliced in until the text
    reaches a random target length between `low` and `high` words (never above `high`)."""
    target = rng.randint(low, high)
    sentences = list(draft.core)
    pool = list(draft.filler)
    rng.shuffle(pool)
    for extra in pool:
        current = sum(words(s) for s in sentences)
        if current >= target or current + words(extra) > high:
            continue
        sentences.insert(rng.randint(0, len(sentences)), extra)
    return rng.choice(draft.headings), " ".join(sentences)


def build_decision(
    *,
    decision_id: str,
    case_type: str,
    title: str,
    date: dt.date,
    sections: list[tuple[str, str]],
    fields: dict[str, str],
    field_kinds: dict[str, str],
    field_types: dict[str, str],
    analysis: str,
    outcome: str,
) -> Decision:
    parts = [Section(id=f"s{i + 1}", heading=h, text=t) for i, (h, t) in enumerate(sections)]
    text = "\n\n".join([title, *(f"{s.heading}\n{s.text}" for s in parts)])
    missing = sorted(set(fields) ^ set(field_kinds))
    if missing:
        raise AssertionError(f"fields and field_kinds disagree on {missing}")
    # Every field's value type is declared here, never guessed later from its name.
    untyped = sorted(set(fields) - set(field_types))
    if untyped:
        raise AssertionError(f"fields without a declared type: {untyped}")
    return Decision(
        id=decision_id,
        source="synthetic",
        language="en",
        case_type=case_type,
        title=title,
        date=date_text(date),
        text=text,
        sections=parts,
        fields=dict(sorted(fields.items())),
        field_kinds=dict(sorted(field_kinds.items())),  # type: ignore[arg-type]
        field_types={k: field_types[k] for k in sorted(fields)},  # type: ignore[misc]
        analysis=analysis,
        outcome=outcome,
    )
