"""Chinese punctuation written either way: full-width （，；：？！） as typeset, or half-width (, ; : ? !) as
many published judgments write it ("经审理查明:2014年11月17日,被告朱0...").

Chinese text is never rewritten (docs/method.md §1): an answer span, a quote and an outside answer must
stay the bytes of the source. Every splitter reads both forms instead, from the marks defined here. A
half-width comma or colon between two digits is part of a number or a time (4,665,091.79; 19:30), not a
break.
"""

from __future__ import annotations

import re

# A sentence ends after these (the semicolon chains findings in judgments: each is a sentence of its own).
SENTENCE_ENDS = "。！？；!?;"
# A clause ends after these; half-width , and : only where not between two digits.
CLAUSE_ENDS = "，；：,;:"
_CLAUSE_BREAK = r"[，；：;]|(?<!\d)[,:]|[,:](?!\d)"
CLAUSE_BREAK = re.compile(_CLAUSE_BREAK)
# Zero-width: after a break, so a run of clauses joined back is a verbatim piece of the sentence.
_AFTER_BREAK = re.compile(r"(?<=[，；：;])|(?<=(?<!\d)[,:])|(?<=[,:])(?!\d)")
# Half-width -> full-width, for tests and for comparing two writings; never applied to stored text.
TO_FULL_WIDTH = str.maketrans({",": "，", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）"})


def clauses(sentence: str) -> list[str]:
    """The clauses of a Chinese sentence, each with the mark that ends it, so that "".join(clauses(s)) == s."""
    return [c for c in _AFTER_BREAK.split(sentence) if c]


def bare_clauses(sentence: str) -> list[str]:
    """The clauses of a Chinese sentence without their marks and surrounding space."""
    return [c.strip() for c in CLAUSE_BREAK.split(sentence)]


def full_width(text: str) -> str:
    """`text` with its half-width marks in full width, except a comma or colon between two digits: the
    form two writings of one judgment share."""
    return "".join(
        ch if ch in ",:" and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        else ch.translate(TO_FULL_WIDTH)
        for i, ch in enumerate(text)
    )
