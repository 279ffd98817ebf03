"""Party and company names of the synthetic corpus (pipeline/synth/names.py): no two decisions share one,
for every corpus size the params allow, and a larger one stops with an error naming the param."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from pipeline import matching
from pipeline.synth import generate_decisions, max_decisions
from pipeline.synth.common import WESTERN
from pipeline.synth.insider import SUFFIXES
from pipeline.synth.names import (
    COMPANY_MIDDLES,
    COMPANY_PREFIXES,
    PARTY_SURNAMES,
    NamePool,
    company_pool,
    people_pool,
)
from pipeline.synth.tenancy import LANDLORD_FIRMS

MIX = {"insider_trading": 0.4, "criminal_sentencing": 0.3, "residential_tenancy": 0.3}
PARTY_FIELDS = ("respondent", "company", "company_short", "defendant", "tenant", "landlord")
# Two capitalised words, the second hyphenated ("Chan Tai-man"), or two capitalised words ("Harbour Crest"):
# kept where they are a pool's surname and given name, or prefix and middle.
PAIR = re.compile(r"(?=\b([A-Z][a-z]+) ([A-Z][a-z]+(?:-[a-z]+)?)\b)")  # overlapping: "Peter Chan Tai-man"
SURNAMES, PREFIXES, MIDDLES = set(PARTY_SURNAMES), set(COMPANY_PREFIXES), set(COMPANY_MIDDLES)


def pool_names(text: str) -> set[str]:
    return {f"{a} {b}" for a, b in PAIR.findall(text)
            if (a in SURNAMES and "-" in b) or (a in PREFIXES and b in MIDDLES)}


def core(name: str) -> str:
    """A person's name without the English given name in front ("Peter Chan Tai-man" -> "Chan Tai-man")."""
    first, _, rest = name.partition(" ")
    return rest if first in WESTERN else name


@pytest.fixture(scope="module")
def largest():
    n = max_decisions(MIX)
    return n, generate_decisions(n, MIX, seed=13)


def test_the_largest_corpus_the_mix_allows_is_large(largest):
    n, decisions = largest
    assert len(decisions) == n >= 2000  # the default corpus is 300


def test_no_two_decisions_share_a_party_or_company_name(largest):
    _, decisions = largest
    owner: dict[str, str] = {}
    for d in decisions:
        for key in PARTY_FIELDS:
            if key not in d.fields:
                continue
            value = d.fields[key] if key.startswith("company") else core(d.fields[key])
            assert owner.setdefault(value, d.id) == d.id, f"{value!r} in {owner[value]} and {d.id}"


def test_every_name_in_a_text_is_its_own_decisions(largest):
    # Read from the texts, not the fields: the other party to an insider's news, a tenancy's landlord
    # company and every restatement of a name must belong to the decision that prints it.
    _, decisions = largest
    seen: dict[str, set[str]] = defaultdict(set)
    for d in decisions:
        for name in pool_names(d.text):
            seen[name].add(d.id)
    shared = {name: sorted(ids) for name, ids in seen.items() if len(ids) > 1}
    assert not shared, list(shared.items())[:5]
    # The patterns find every party (and more: the landlords and the other companies of insiders' news).
    for d in decisions:
        for key in ("respondent", "defendant", "tenant", "company_short"):
            if key in d.fields:
                assert seen[core(d.fields[key])] == {d.id}


def test_one_more_decision_is_an_error_naming_the_param():
    n = max_decisions(MIX)
    with pytest.raises(ValueError, match=rf"decisions\.n_decisions: {n + 1} is out of range .*allowed: <= {n}\)"):
        generate_decisions(n + 1, MIX, seed=13)


def test_the_limit_follows_the_mix():
    # Insider cases take two companies each: the company pool bounds them; criminal cases take one person.
    insider = {"insider_trading": 1.0}
    assert max_decisions(insider) == len(company_pool()) // 2
    with pytest.raises(ValueError, match=rf"allowed: <= {len(company_pool()) // 2}\).* company names"):
        generate_decisions(len(company_pool()) // 2 + 1, insider, seed=3)
    assert max_decisions({"criminal_sentencing": 1.0}) > max_decisions(MIX)


def test_no_company_name_holds_another_short_name():
    # "Kirin Crown Land Limited" would hold the short name "Crown Land": middles are never prefixes, and the
    # words case types put after a short name are neither.
    after = {w for suffix in SUFFIXES + LANDLORD_FIRMS for w in suffix.split()}
    assert not (PREFIXES & MIDDLES) and not (after & (PREFIXES | MIDDLES))


def test_names_are_seeded():
    a, b, c = NamePool(5), NamePool(5), NamePool(6)
    take = [a.take("residential_tenancy") for _ in range(3)]
    assert take == [b.take("residential_tenancy") for _ in range(3)]
    assert take != [c.take("residential_tenancy") for _ in range(3)]
    assert len({n for t in take for n in t.people}) == 6


def test_no_two_people_read_as_one_name_to_the_judge():
    # pipeline.matching compares names as word sets: "Chan Wing-ho" and "Chan Ho-wing", or "Siu Siu-fong"
    # (which would be found inside "Hui Siu-fong"), must not both be drawn.
    sets = [frozenset(matching.content_words(p, "en")) for p in people_pool()]
    assert len(set(sets)) == len(sets) and all(len(s) == 3 for s in sets)
    shorts = [frozenset(matching.content_words(c, "en")) for c in company_pool()]
    assert len(set(shorts)) == len(shorts) and all(len(s) == 2 for s in shorts)


def test_names_differing_in_one_syllable_are_different_people():
    # Realistic near-names stay (the judge must tell them apart); only the same full name is ruled out.
    pool = NamePool(0).people
    assert "Chan Ka-ho" in pool and "Chan Ka-yan" in pool
    assert len(pool) == len(set(pool))
    assert not any(given.split("-")[1] in given.split("-")[0].lower() for given in (p.split(" ")[1] for p in pool))
