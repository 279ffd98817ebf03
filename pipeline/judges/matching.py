"""Text features the rule judge and the augmenter share: content words, canonical numbers, polarity,
refusal clauses and degenerate text.

Everything here is a plain function of strings so each check can be tested on hand-built sentences.
"""

from __future__ import annotations

import re
from collections import Counter

STOPWORDS = frozenset(
    """a an the and or but if then than that this these those there here of to in on at by for with from
    as into onto over under about after before during between through within without upon
    is are was were be been being am do does did done has have had having will would shall should can
    could may might must it its itself he she they them their his her him we us our you your i me my
    who whom whose which what when where why how whether
    so such very also only just any all some each every other both either neither nor
    per via said says say stated states state according passage passages provided text context
    answer question yes however although though nevertheless therefore thus accordingly clearly plainly
    indeed moreover furthermore based note""".split()
)
# Negation cues decide the polarity of a sentence; legal verbs of refusal count as negative outcomes.
NEGATION = frozenset(
    "not no never none nothing neither nor cannot dismissed refused rejected declined denied "
    "quashed failed unsuccessful disallowed".split()
)
# Words of framing sentences ("Reading the passages, the answer rests on the following."): a sentence
# made only of these claims nothing.
FRAMING = frozenset(
    "reading read rest following follow summary short relevant see below above key point look overall "
    "find found show given put simply briefly brief considering".split()
)
# Currency words go with their number: "HK$24,000" and "24,000 dollars" state the same fact.
CURRENCY = frozenset("hk us usd hkd rmb cny gbp eur dollar dollars yuan".split())
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CITATION = re.compile(r"\[\s*\d+(?:\s*[,-]\s*\d+)*\s*\]|\((?:passage|para(?:graph)?|p\.)\s*\d+\)", re.I)
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*(million|billion|thousand|bn|m|k)\b)?", re.I)
_SCALE = {"million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "thousand": 1e3, "k": 1e3}
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60})
# Phrases that on their own say the answer cannot be given from what was shown.
_REFUSAL_CUES = re.compile(
    r"\b(?:(?:not|insufficient|in)\s*(?:enough|sufficient)\s+(?:information|detail|evidence)"
    r"|insufficient\s+(?:information|detail|evidence|context)"
    r"|no\s+(?:information|mention|details?)\s+(?:about|on|regarding|concerning|of)"
    r"|(?:cannot|can\s*not|can't|unable\s+to|not\s+possible\s+to|impossible\s+to)\s+"
    r"(?:be\s+)?(?:answer|determine|tell|say|confirm|establish|identif)\w*"
    r"|says?\s+nothing\s+(?:about|on)|nothing\s+in\s+(?:them|the\s+(?:passages|context))|none\s+of\s+(?:them|the\s+passages)"
    r"|is\s+not\s+(?:given|stated|mentioned|provided|addressed)\s+(?:anywhere|in)"
    r"|would\s+be\s+(?:a\s+)?guess|would\s+need\s+.*\banswer)",
    re.I,
)
# "do not contain/state ..." is a refusal only when its subject is what was shown (or the answerer),
# so that "the director did not disclose the information" stays an answer.
_MISSING_VERB = re.compile(
    r"\b(?:not|n't)\s+(?:contain|provide|give|include|state|say|mention|specify|address|set\s+out|"
    r"discuss|cover|indicate)\w*",
    re.I,
)
_SHOWN = re.compile(r"\b(?:passages?|context|excerpts?|documents?|provided|they|them|i)\b", re.I)
_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;:])\s+|,\s*(?=(?:but|however|although|though|nevertheless)\b)", re.I)
_LEAD = re.compile(r"^\s*(yes|no)\b[\s,.;:!\-\u2014]*", re.I)


def strip_citations(text: str) -> str:
    return _CITATION.sub(" ", text)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def content_words(text: str) -> set[str]:
    """Lower-cased, lightly stemmed words minus stopwords and bare numbers (numbers are compared apart)."""
    return {stem(w) for w in words(strip_citations(text)) if w not in STOPWORDS and not w[0].isdigit()}


def numbers(text: str) -> set[str]:
    """Canonical numbers of a text: "HK$2,400,000", "2.4 million" and "2400000" all give "2400000"."""
    text = strip_citations(text)
    found: set[str] = set()
    for match in _NUMBER.finditer(text):
        digits, scale = match.group(1).replace(",", ""), match.group(2)
        if not digits or digits.count(".") > 1:
            continue
        try:
            value = float(digits.rstrip("."))
        except ValueError:
            continue
        if scale:
            value *= _SCALE[scale.lower()]
        found.add(_canonical(value))
    for word in words(text):
        if word in _NUMBER_WORDS:
            found.add(str(_NUMBER_WORDS[word]))
    return found


def _canonical(value: float) -> str:
    return str(int(round(value))) if abs(value - round(value)) < 1e-9 else f"{value:.6g}"


def lead_polarity(text: str) -> str | None:
    """ "yes"/"no" when the text opens with Yes or No, else None."""
    match = _LEAD.match(text)
    return match.group(1).lower() if match else None


def strip_lead(text: str) -> str:
    return _LEAD.sub("", text, count=1)


def is_negative(text: str) -> bool:
    tokens = words(text)
    return any(t in NEGATION or t.endswith("n't") for t in tokens)


def clauses(text: str) -> list[str]:
    """Sentences, further cut before "but/however" so a hedge and an answer in one sentence separate."""
    return [c.strip() for c in _CLAUSE_SPLIT.split(text.strip()) if c and c.strip()]


def is_refusal_clause(clause: str, refusal: str = "") -> bool:
    if refusal and _squash(refusal) and _squash(refusal) in _squash(clause):
        return True
    if _REFUSAL_CUES.search(clause):
        return True
    return bool(_MISSING_VERB.search(clause) and _SHOWN.search(clause))


def non_refusal_text(text: str, refusal: str = "") -> str:
    """The text with its refusal clauses removed (what is left is the attempted answer, if any)."""
    return " ".join(c for c in clauses(text) if not is_refusal_clause(c, refusal))


def has_refusal(text: str, refusal: str = "") -> bool:
    return any(is_refusal_clause(c, refusal) for c in clauses(text))


def _squash(text: str) -> str:
    return " ".join(words(text))


def degenerate(text: str, min_tokens: int = 6) -> bool:
    """Unreadable or looping text: mostly non-word characters, one token dominating, or a phrase
    repeated back to back."""
    stripped = "".join(text.split())
    if not stripped:
        return True
    if text.count("\ufffd") >= 2 or any(ord(ch) < 32 and ch not in "\t\n\r" for ch in text):
        return True
    letters = sum(ch.isalnum() for ch in stripped)
    if letters / len(stripped) < 0.5:
        return True
    tokens = words(text)
    if not tokens:
        return True
    if len(tokens) >= min_tokens:
        top = Counter(tokens).most_common(1)[0][1]
        if top / len(tokens) > 0.5:
            return True
    for n in range(1, 5):
        if _loops(tokens, n, repeats=4):
            return True
    return False


def _loops(tokens: list[str], n: int, repeats: int) -> bool:
    """True when some n-gram occurs `repeats` times back to back."""
    span = n * repeats
    for start in range(0, len(tokens) - span + 1):
        gram = tokens[start : start + n]
        if all(tokens[start + k * n : start + (k + 1) * n] == gram for k in range(1, repeats)):
            return True
    return False
