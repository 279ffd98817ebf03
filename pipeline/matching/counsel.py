"""Whose counsel an English sentence names: "Ms Celia Hon, instructed by Messrs Tung & Luk, appeared for the
plaintiff" names the plaintiff's, and offered to "Who appeared for Peak Form Fitness Limited?" (the
defendant of "Kwai Siu-ying v Peak Form Fitness Limited") it gives another party's counsel for the one asked,
as a Chinese header's agent line under another party's entry does (parties.agent_of_another_party)."""

from __future__ import annotations

import re

from pipeline.matching.parties import Party, names_any, ordinal_roles, parties, role_words

# What follows "appeared for", "acted for" or "represented": the party the counsel speaks for, up to the
# clause's end ("appeared for the first defendant, Mr Lam" gives "the first defendant").
_FOR = re.compile(
    r"\b(?:appeared|appears|appearing|acted|acts|acting)\s+for\s+(?P<whom>[^,.;()]+)"
    r"|\brepresented\s+(?P<whom2>(?:the|both|all)\s+[^,.;()]+)",
    re.I,
)
# The roles that stand on one side of a title's "v" whatever the court: the side that sues or prosecutes,
# the side sued. (An appellant or a respondent may be either, so neither is read.)
_SUING = {"plaintiff", "claimant", "petitioner", "applicant", "prosecution"}
_SUED = {"defendant"}
# Whose counsel an English question asks for: what follows "appeared for" or "represented".
_ASKED_FOR = re.compile(
    r"\b(?:(?:appeared|appear|acted|act|counsel|solicitors?)\s+for|represented)\s+(?P<whom>[^,.;?]+)", re.I
)
# Asked who represented a party, "X appeared in person" answers: nobody did (a Chinese header lists the agents
# a party has instead).
_IN_PERSON = re.compile(
    r"\b(?:appeared|appears|acted|acts|was|were|is|are|appearing|acting)\s+(?:in\s+person|unrepresented)\b"
    r"|\brepresented\s+(?:himself|herself|itself|themselves)\b",
    re.I,
)


def appeared_in_person(text: str) -> bool:
    """Whether an English text says someone appeared in person or unrepresented."""
    return bool(_IN_PERSON.search(text))


def counsel_for(sentence: str) -> str | None:
    """The words naming whom a counsel sentence's counsel appeared for, or None."""
    found = _FOR.search(sentence)
    if found is None:
        return None
    return (found.group("whom") or found.group("whom2") or "").strip() or None


def side_in_title(asked: list[Party], title: str) -> str | None:
    """"suing" when a title names a party asked before its "v", "sued" after it, None when it names none."""
    halves = re.split(r"\s+v\.?\s+", title, maxsplit=1)
    if len(halves) != 2:
        return None
    if names_any(parties(halves[0], "en"), asked):
        return "suing"
    if names_any(parties(halves[1], "en"), asked):
        return "sued"
    return None


def asked_for(question: str) -> str | None:
    """The words naming whose counsel an English question asks for ("Who appeared for the second
    defendant?", "Who represented Pong Ka-yu at her trial?"), or None."""
    found = _ASKED_FOR.search(question)
    return found.group("whom").strip() if found else None


def asks_representation(question: str) -> bool:
    """Whether an English question asks who represented or appeared for a party."""
    return asked_for(question) is not None


def for_another_party(whom: str, asked: str, titles: list[str]) -> bool:
    """Whether the party a counsel appeared for (`whom`) is another than the one the question asks for
    (`asked`): another ordinal role (the first defendant to a question on the second), another party
    named, or a role of the other side of the title than the party asked stands on (the plaintiff to a
    question on the defendant Peak Form Fitness Limited)."""
    asked_places, places = ordinal_roles(asked), ordinal_roles(whom)
    if asked_places or places:
        return bool(asked_places and places) and not asked_places & places
    asked_named, named = parties(asked, "en"), parties(whom, "en")
    if asked_named and named:
        return not names_any(named, asked_named)
    roles = role_words(whom)
    if not roles:
        return False
    if not asked_named:
        asked_roles = role_words(asked)
        return bool(asked_roles) and not roles & asked_roles
    side = next((s for t in titles if (s := side_in_title(asked_named, t))), None)
    if side is None:
        return False
    mine, other = (_SUING, _SUED) if side == "suing" else (_SUED, _SUING)
    return bool(roles & other) and not roles & mine
