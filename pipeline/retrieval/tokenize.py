"""Language-aware tokens for BM25.

English: lowercase words, stopwords removed, a light suffix stemmer so "dismissed"/"dismisses" meet.
Chinese has no spaces: runs of CJK characters become overlapping character bigrams (a single
character stays a unigram); Latin words and numbers inside Chinese text are tokenised as English.
"""

from __future__ import annotations

import functools
import re

# CJK Unified Ideographs (+ extension A and compatibility ideographs): enough to detect Chinese text.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = rf"(?:(?![{_CJK}])[^\W_])+"
_PIECE = re.compile(rf"[{_CJK}]+|{_WORD}(?:[.,'’]{_WORD})*", re.UNICODE)
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself nor of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves shall may might must upon whether many much""".split()
)
# Polarity words carry the answer of yes/no questions; keep them even though they are common.
STOPWORDS = STOPWORDS - {"no", "not", "nor"}


def has_cjk(text: str) -> bool:
    return re.search(f"[{_CJK}]", text) is not None


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light suffix stripper (not Porter): enough to join inflections of legal verbs and nouns
    ("imposed"/"imposes"/"imposing"/"impose" all become "impos")."""
    if len(word) <= 3 or not word.isalpha():
        return word
    base = word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        base = word[:-3] + "y"
    elif word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        base = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        base = word[:-1]
    elif word.endswith(("ing", "ed")):
        cut = word[: -3 if word.endswith("ing") else -2]
        if len(cut) >= 3:
            # "admitted" -> "admit"; but "dismissed", "called" keep their double letter.
            base = cut[:-1] if cut[-1] == cut[-2] and cut[-1] not in "lsz" else cut
    # A final silent e differs between the bare and the inflected form: drop it on both.
    if base.endswith("e") and len(base) > 3:
        base = base[:-1]
    return base


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for piece in _PIECE.findall(text.lower()):
        if _CJK_RUN.match(piece):
            if len(piece) == 1:
                tokens.append(piece)
            else:
                tokens.extend(piece[i : i + 2] for i in range(len(piece) - 1))
        elif piece not in STOPWORDS:
            tokens.append(stem(piece))
    return tokens
