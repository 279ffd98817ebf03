"""How a court met a submission: rejected, accepted, or accepted in part.

A reference that is only the court's ruling ("That submission is rejected", "本院不予支持") is matched by
the same ruling in other words ("The defendant's case ... fails", "本院不予采纳"), as a reader reads it:
docs/method.md §4, "how the court met a submission".
"""

from __future__ import annotations

import re

_EN_REFERENCE = re.compile(
    r"^\s*(?:(?:that|this|the|his|her|its|their)\s+)?(?:submission|contention|argument|case|defence|application"
    r"|claim|appeal|ground|objection)s?\s+(?:is|was|are|were|must\s+be|is\s+therefore)\s+"
    r"(?:rejected|dismissed|refused|accepted|upheld|allowed)\b[^.;]*\.?\s*$"
    r"|^\s*I\s+(?:reject|accept)\s+(?:that|this|the)\s+(?:submission|contention|argument)\b[^.;]*\.?\s*$",
    re.I,
)
# (With its 亦/也/均: "本院亦不予支持" is a ruling and nothing more.)
_ZH_REFERENCE = re.compile(r"^\s*(?:本院|法院)?(?:亦|也|均)?(?:依法|对此)?(?:不予|予以|部分予以)(?:支持|采纳|采信|认可)[。；;]?\s*$"
                           r"|^\s*(?:本院|法院)?(?:亦|也|均)?(?:依法)?予以驳回[。；;]?\s*$")

_EN_PART = re.compile(r"\bin\s+part\b|\bpartly\b", re.I)
_EN_REJECTS = re.compile(
    r"\b(?:reject(?:s|ed)?|fails?|failed|dismiss(?:es|ed)?|refused?|cannot\s+(?:be\s+accepted|succeed)|not\s+accepted"
    r"|not\s+made\s+out|do(?:es)?\s+not\s+accept|is\s+not\s+entitled)\b",
    re.I,
)
_EN_ACCEPTS = re.compile(r"\b(?:accept(?:s|ed)?|upheld|upholds?|succeeds?|succeeded|allowed|allows?|made\s+out)\b", re.I)
_ZH_PART = re.compile(r"部分(?:予以)?(?:支持|采纳|采信|认可)|予以部分|部分成立")
# A defence the court answers "……的抗辩不能免除赔偿责任" is rejected, in the words of its effect.
_ZH_REJECTS = re.compile(r"不予(?:支持|采纳|采信|认可|准许)|驳回|不能成立|不成立"
                         r"|(?:抗辩|辩解|主张|意见|理由)[^，。；,;]{0,4}?(?:不能|无法|不足以)(?:免除|减轻|对抗)")
_ZH_ACCEPTS = re.compile(r"予以(?:部分)?(?:支持|采纳|采信|认可|准许)|(?:本院|法院)(?:依法|酌情)?(?:支持|采纳|采信|认可)|成立")


def is_ruling_reference(fact: str, lang: str) -> bool:
    """Whether a reference fact states only how the court met a submission."""
    return bool((_ZH_REFERENCE if lang == "zh" else _EN_REFERENCE).match(fact))


def rejects(text: str) -> bool:
    """Whether an English ruling rejects what it rules on ("That submission is rejected", "... fails")."""
    return bool(_EN_REJECTS.search(text))


def ruling(text: str, lang: str) -> str | None:
    """"in part", "rejected" or "accepted": the ruling a text gives first; None when it gives none."""
    if lang == "zh":
        part, rejects, accepts = _ZH_PART, _ZH_REJECTS, _ZH_ACCEPTS
    else:
        part, rejects, accepts = _EN_PART, _EN_REJECTS, _EN_ACCEPTS
    found = [(match.start(), "rejected") for match in rejects.finditer(text)]
    # A rejection holds an acceptance's verb ("not accepted", "不予支持"): it is read first.
    taken = [(match.start(), match.end()) for match in rejects.finditer(text)]
    found += [(match.start(), "accepted") for match in accepts.finditer(text)
              if not any(a <= match.start() < b for a, b in taken)]
    if not found:
        return None
    first = min(found)[1]
    if first == "accepted" and part.search(text):
        return "in part"
    return first
