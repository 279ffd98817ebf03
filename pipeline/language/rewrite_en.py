"""Small English helpers for rewriting from a question: its legal area, its declarative form
("Was the landlord entitled to evict?" -> "the landlord was entitled to evict") and its focus.

Heuristics, not a parser: they only need to give fluent-enough sentences for the offline rewriter.
"""

from __future__ import annotations

import re

AUX = frozenset("is are was were did does do has have had can could should would will must may might".split())
WH = frozenset("what which how when who whom whose why where".split())
DETERMINERS = frozenset("the a an this that these those its his her their our any each every".split())
# Verbs that often follow the subject in legal questions (the subject ends before them).
VERBS = frozenset(
    """impose order reduce find grant dismiss terminate pay serve receive breach deal commit apply allow
    require make give take have be hold consider accept reject sentence fine award evict increase decrease
    exceed owe know act sell buy trade disclose possess obtain use face warrant justify lead rely state
    amount entitle constitute qualify occur happen begin end last remain return repay vacate leave enter
    stop prevent bar ban prohibit restrain get go avoid bear keep lose win suspend""".split()
)
BE = frozenset("is are was were".split())
# "Was the term given to X suspended?": the subject runs to the final participle, prepositions and all.
_PARTICIPLE = re.compile(r"^[a-z]+(ed|en)$")
PREPOSITIONS = frozenset(
    "to for of on in at by with from under against after before over about as into".split()
)
_AREAS = (
    (
        "residential tenancy",
        re.compile(r"\b(landlord|tenant|tenancy|lease|rent|premises|evict|deposit|home|possession|let to"
                   r"|per month|arrears|flat|owner)", re.I),
    ),
    (
        "criminal sentencing",
        re.compile(
            r"\b(sentenc|offender|offence|imprison|custod|guilty|convict|prison|crime|criminal|burglar|robber"
            r"|theft|assault|trafficking|defendant|plea|charge|judge|starting point|reduction|discount|victim"
            r"|initial term|term|person harmed)", re.I
        ),
    ),
    (
        "securities regulation",
        re.compile(r"\b(insider|securit|shares?|dealing|market|listed|tribunal|price.sensitive|stock|regulator"
                   r"|pecuniary|monetary penalty|the Government|disqualif|cold.shoulder|profit)", re.I),
    ),
)


def area(question: str) -> str:
    """The legal area a question belongs to, as an adjective-like phrase ("criminal sentencing"); "law"
    when no cue matches, which reads right in every template ("ordinary law principles", "in law")."""
    for name, pattern in _AREAS:
        if pattern.search(question):
            return name
    return "law"


def _tokens(question: str) -> list[str]:
    return question.strip().rstrip("?.! ").split()


def _subject_end(tokens: list[str], start: int) -> int:
    """Index just after the subject noun phrase that begins at `start`."""
    i = start
    if i >= len(tokens):
        return i
    first = tokens[i].lower()
    if first in ("he", "she", "it", "they", "we", "you", "i", "there"):
        return i + 1
    if first in DETERMINERS:
        i += 1
    # Take words until one that looks like the verb or a preposition; at most five words.
    end = i
    while end < len(tokens) and end - start < 5:
        word = tokens[end].lower().strip(",")
        # Capitalised words are names ("Ngan-ting"), never the verb.
        verbish = not tokens[end][0].isupper() and _verbish(word)
        if end > i and (word in VERBS or word in PREPOSITIONS or word in AUX or verbish):
            break
        end += 1
        if tokens[end - 1][0].isupper() and end < len(tokens) and not tokens[end][0].isupper():
            # A proper name ends at the first lower-case word unless that word is "of"/"and".
            if tokens[end].lower() not in ("of", "and"):
                break
    return max(end, start + 1)


def _verbish(word: str) -> bool:
    return word.endswith(("ed", "ing", "ise", "ize")) and len(word) > 4


def declarative(question: str, negate: bool = False) -> str:
    """The statement a question asks about, optionally negated; lower-case start, no final period."""
    tokens = _tokens(question)
    if not tokens:
        return ""
    first = tokens[0].lower()
    if first in AUX:
        end = _subject_end(tokens, 1)
        if (first in BE and end < len(tokens) - 1 and _PARTICIPLE.match(tokens[-1])
                and tokens[-2].lower() not in DETERMINERS):  # "... a citizen" ends in a noun
            end = len(tokens) - 1
        subject, rest = tokens[1:end], tokens[end:]
        # "Did the tribunal reduce ..." -> "the tribunal did reduce ...": keeps the tense without a lexicon.
        verb = (["cannot"] if first == "can" else [first, "not"]) if negate else [first]
        return _lower_first(" ".join(subject + verb + rest))
    if first in WH or (first in PREPOSITIONS and len(tokens) > 1 and tokens[1].lower() in WH):
        aux_at = next((i for i, t in enumerate(tokens[1:], start=1) if t.lower() in AUX), None)
        if aux_at is None:
            return _lower_first(" ".join(tokens))
        end = _subject_end(tokens, aux_at + 1)
        wh, aux, subject, rest = tokens[:aux_at], tokens[aux_at], tokens[aux_at + 1 : end], tokens[end:]
        return _lower_first(" ".join(wh + subject + [aux.lower()] + rest))
    return _lower_first(" ".join(tokens))


def focus(question: str) -> str:
    """What the question asks for, as a noun phrase usable after "the passages do not state"."""
    tokens = _tokens(question)
    if tokens and tokens[0].lower() in AUX:
        return "whether " + declarative(question)
    return declarative(question)


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper() and text.split()[0] not in ("I",):
        first = text.split()[0]
        # Keep proper names capitalised: only lower a first word that is a common word.
        if first.lower() in DETERMINERS | WH | AUX | PREPOSITIONS or first.lower() in (
            "he",
            "she",
            "it",
            "they",
            "there",
        ):
            return text[0].lower() + text[1:]
    return text
