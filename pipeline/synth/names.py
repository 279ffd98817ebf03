"""Party and company names of the synthetic corpus, each used by one decision only (docs/method.md §7).

A name shared by two decisions puts two cases about "the same" person into one corpus: retrieval then
shows a passage about the other case's Kwok Lok-yin beside the question's, and its facts contradict the
reference. So the corpus draws names without replacement: one seeded order of every person name and one
of every company name, from which each decision takes, in id order, as many as its case type uses
(`NEEDS`). A person name is unique by its Chinese core (surname and given name, as a set of words):
"Peter Chan Tai-man" and "Chan Tai-man" are the same person and never both occur; names differing in one
syllable ("Chan Ka-ho", "Chan Ka-yan") are different people, as they are in life. A company is unique by its short name
("Harbour Crest"), which questions use, so "Harbour Crest Holdings Limited" and "Harbour Crest Realty
Limited" never both occur. When the pools cannot cover a corpus, generation stops with one error
naming decisions.n_decisions and the largest count the case mix allows (`capacity_error`).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.synth.common import SURNAMES
from pipeline.text import stable_hash

# Party surnames: the judges' and members' surnames (common.SURNAMES) and more Hong Kong surnames.
PARTY_SURNAMES = SURNAMES + [
    "Cheng", "Yuen", "Kong", "Shek", "Pang", "Wan", "Yau", "Chiu", "Tse", "Mok", "Kwong", "Lui", "Tong", "Yu",
    "Fong", "Hung", "Chung", "Cheuk", "Ip", "Szeto",
]  # fmt: skip
# Cantonese given names are two syllables, "Tai-man": any first with any second that does not echo it
# ("Shing-sing") or the surname ("Siu Siu-fong").
GIVEN_FIRST = [
    "Ka", "Chi", "Wing", "Man", "Siu", "Hoi", "Wai", "Kin", "Lok", "Sze", "Hon", "Ching", "Ming", "Hiu", "Yat",
    "Pui", "Yuk", "Suk", "Mei", "Tai", "Kwok", "Chun", "Ngan", "Tsz", "Cheuk", "King", "Shing", "Ho", "Yiu",
    "Kai", "Pak", "Hin", "Chung", "Kam", "Wun", "Lai", "Oi", "Sau", "Wan", "Tin",
]  # fmt: skip
GIVEN_SECOND = [
    "ho", "fong", "kei", "keung", "yan", "kit", "yee", "wai", "lan", "hei", "shan", "lun", "ting", "fai", "yin",
    "wing", "ming", "yi", "tung", "sing", "man", "ling", "kwan", "chun", "hang", "kuen", "lam", "fung", "yu",
    "ki", "hung", "kin", "fat", "lok", "chuen", "wah", "kiu", "nam", "yuen", "mei",
]  # fmt: skip
# Companies: "<prefix> <middle>" is the short name questions use; a case type adds its own suffix. No
# middle is a prefix, nor a suffix word of a case type, so no name holds another's short name ("Kirin Crown
# Land Limited" would hold "Crown Land").
COMPANY_PREFIXES = [
    "Harbour", "Golden", "Pacific", "Jade", "Orient", "Silver", "Kowloon", "Pearl", "Summit", "Evergreen",
    "Lotus", "Victoria", "Dragon", "Crystal", "Sunrise", "Phoenix", "Ocean", "Imperial", "Bauhinia", "Lion",
    "Apex", "Grand", "Regal", "Noble", "Eastern", "Cathay", "Canton", "Lantau", "Fortune", "Harmony",
    "Horizon", "Meridian", "Orchid", "Bamboo", "Cedar", "Maple", "Willow", "Coral", "Amber", "Sapphire",
    "Emerald", "Ivory", "Falcon", "Crane", "Heron", "Kirin", "Delta", "Rainbow", "Aurora", "Titan",
    "Pioneer", "Frontier", "Dynasty", "Heritage", "Century", "Premier", "Pinnacle", "Crown", "Jubilee", "Radiant",
]  # fmt: skip
COMPANY_MIDDLES = [
    "Crest", "Bay", "Star", "Peak", "Bridge", "Gate", "Link", "Field", "Point", "Rise", "Gold", "Tech",
    "Vale", "Ridge", "View", "Court", "Wharf", "Tower", "Garden", "Valley", "Stone", "Well",
    "Light", "Wave", "Path", "Arch", "Park", "Hill", "Cove", "Haven", "Port", "Ford",
    "Way", "Crossing", "Sky", "Glory", "Spring", "Grove", "Isle", "Shore", "Bloom", "Union",
    "Sun", "Moon", "Cloud",
]  # fmt: skip
# Names each case type takes from the pools, whatever its decision makes of them (a tenancy's landlord is a
# person or a company: it takes one of each and uses one).
NEEDS: dict[str, tuple[int, int]] = {
    "insider_trading": (1, 2),  # the respondent; the listed company and the other party to the news
    "criminal_sentencing": (1, 0),  # the defendant
    "residential_tenancy": (2, 1),  # the tenant, and the landlord: a person or a company
}


@dataclass(frozen=True)
class Names:
    """One decision's own names: person cores ("Chan Tai-man") and company short names ("Harbour Crest")."""

    people: tuple[str, ...]
    companies: tuple[str, ...]


def people_pool() -> list[str]:
    """Every person core, in a fixed order. Each has three different words, and no two the same words:
    names are compared as word sets (pipeline.matching.names), to which "Chan Wing-ho" and "Chan Ho-wing",
    or "Siu Siu-fong" and any "Siu-fong", would be one name."""
    seen: set[frozenset[str]] = set()
    out = []
    for surname in PARTY_SURNAMES:
        for first in GIVEN_FIRST:
            for second in GIVEN_SECOND:
                words = frozenset((surname.lower(), first.lower(), second))
                if len(words) < 3 or words in seen or second in first.lower() or first.lower() in second:
                    continue
                seen.add(words)
                out.append(f"{surname} {first}-{second}")
    return out


def company_pool() -> list[str]:
    """Every company short name, in a fixed order; no word pairs with one it starts ("Golden Gold",
    "Sunrise Sun")."""
    return [f"{p} {m}" for p in COMPANY_PREFIXES for m in COMPANY_MIDDLES if not (p.startswith(m) or m.startswith(p))]


class NamePool:
    """The corpus's names in a seeded order, handed out without replacement."""

    def __init__(self, seed: int):
        self.people, self.companies = people_pool(), company_pool()
        random.Random(stable_hash(seed, "names", "people")).shuffle(self.people)
        random.Random(stable_hash(seed, "names", "companies")).shuffle(self.companies)
        self._next_person = self._next_company = 0

    def take(self, case_type: str) -> Names:
        people, companies = NEEDS[case_type]
        p, c = self._next_person, self._next_company
        if p + people > len(self.people) or c + companies > len(self.companies):
            raise ValueError(f"the synthetic name pools ran out at a {case_type} decision (check `fits` first)")
        self._next_person, self._next_company = p + people, c + companies
        return Names(tuple(self.people[p : p + people]), tuple(self.companies[c : c + companies]))


@functools.cache
def pool_sizes() -> tuple[int, int]:
    """How many person and company names the pools hold."""
    return len(people_pool()), len(company_pool())


def fits(counts: Mapping[str, int]) -> bool:
    """Whether the pools give every decision of these counts per case type its own names."""
    return all(need <= size for need, size in zip(_needs(counts), pool_sizes(), strict=True))


def _needs(counts: Mapping[str, int]) -> tuple[int, int]:
    return (sum(n * NEEDS[t][0] for t, n in counts.items()), sum(n * NEEDS[t][1] for t, n in counts.items()))


def capacity_error(n: int, counts: Mapping[str, int], largest: int, case_mix: Mapping[str, float]) -> ValueError:
    """The error for `n` decisions (split as `counts`) that need more names than the pools hold."""
    (people, companies), (n_people, n_companies) = _needs(counts), pool_sizes()
    return ValueError(
        f"decisions.n_decisions: {n} is out of range for decisions.case_mix {dict(case_mix)} (allowed: <= {largest}): "
        f"every synthetic decision gets party and company names no other decision uses, and {n} decisions would "
        f"need {people} person names (the pool holds {n_people}) and {companies} company names (it holds {n_companies})"
    )
