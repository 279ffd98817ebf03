"""Whose and what a value in a Chinese decision is, for the rule system's extractor (rule.py).

Reading a value as the one nearest its field's cue words errs in three ways on real decisions; each is
fixed here by the reading a lawyer makes of the sentence:
- an amount is what the words of its own clause call it. In "没收违法所得18,650.00元，并处罚款20万元" the
  first amount is a confiscation and the second a fine, whichever cue word happens to sit nearer;
- an amount belongs to the party its clause names first: the one the order is made against or who
  pays ("对冯某处以60万元罚款"; "被告王某偿还原告李某借款250,000元" is 王某's debt, not 李某's). A clause
  naming no party ("并处以45万元罚款") belongs to the party named before it in the sentence;
- a name is read under its role label, and a field named by a role takes only that role's names:
  the 上诉人 is not the 被上诉人, and "上诉人（原审被告）：某公司" is the appellant who was the defendant.
Every function works on text folded by normalize.fold, where full-width punctuation is ASCII.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.irac import cues
from pipeline.irac.normalize import fold

# Clause breaks; a comma or colon between digits belongs to a number ("4,665,091.79", "10:30").
_BREAK = re.compile(r"[;。!?]|(?<!\d)[,:]|[,:](?!\d)")
# Ends of a sentence or of a list item ("对孙某…罚款；对钱某…"): nothing carries over them.
_ITEM_END = re.compile(r"[;。!?]")
# A clause that ends on a kind of amount and leaves the amount to the next ("…的罚款，即612,140元").
_ENDS_ON_KIND = re.compile(rf"(?:{'|'.join(w for ws in cues.ZH_AMOUNT_WORDS.values() for w in ws)})\s*$")
# A fine named after its amount: "处以1,836,420.00元罚款", "45万元的罚金".
_FINE_AFTER = re.compile(r"\s*的?\s*(?:罚款|罚金)")
# What may stand between two parties of one subject: "孙某、钱某", "被告人周某某与被告人郑某".
_ROLE_WORD = "|".join([*cues.ZH_PARTY_ROLES, *cues.ZH_NAME_LEADS])
_JOINED = re.compile(rf"\s*(?:、|和|与|及|以及)\s*(?:{_ROLE_WORD})?\s*")
# A party named as the one paid is not the clause's subject: "并支付原告李某利息12,000元" is the payer's.
_PAYEE = re.compile(rf"(?:向|给|支付|偿还|赔偿|给付|返还|退还)\s*(?:{_ROLE_WORD})?\s*$")
# A role label: the role, the role it had below ("上诉人（原审被告）"), and a colon or none.
_LABEL = re.compile(
    rf"(?<!被)(?P<role>{_ROLE_WORD})"
    r"(?:\((?P<former>[^()]{1,12})\))?\s*(?P<colon>:)?\s*"
)
_NAME_END = re.compile(r"[,。;:、()\s]")
# What follows a name given without a colon at the head of a sentence: "原告李某，女，1980年出生".
_PARTICULARS = re.compile(r",\s*(?:男|女|住|汉族|\d{4}年|法定代表人|统一社会信用代码|公民身份号码|身份证)")
# Labels that need their colon: 名称 and 姓名 are also words of running text.
_COLON_ONLY = ("名称", "姓名")


def clauses(folded: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of a folded sentence, in order."""
    out, start = [], 0
    for m in _BREAK.finditer(folded):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(folded)))
    return out


def _clause_at(bounds: list[tuple[int, int]], pos: int) -> int:
    return next((i for i, (a, b) in enumerate(bounds) if a <= pos < b), len(bounds) - 1)


def amount_kind(folded: str, start: int, end: int) -> str | None:
    """"fine", "confiscation", "gain" or None: what the words of its clause call the amount at [start, end).

    A fine word right after the amount decides; otherwise the last such word before it in the clause,
    where a gain word after a confiscation word is the thing confiscated ("没收张某违法所得4,665,091.79元").
    A clause with no such word continues the clause before it when that one ends on one: "处以违法所得
    一倍的罚款，即612,140元" is a fine."""
    bounds = clauses(folded)
    i = _clause_at(bounds, start)
    lo, hi = bounds[i]
    if _FINE_AFTER.match(folded[end:hi]):
        return "fine"
    kind = _last_kind(folded[lo:start])
    if kind is None and i > 0 and not _ITEM_END.search(folded, bounds[i - 1][1], lo):
        before = folded[bounds[i - 1][0] : bounds[i - 1][1]]
        kind = _last_kind(before) if _ENDS_ON_KIND.search(before) else None
    return kind


def _last_kind(text: str) -> str | None:
    hits = sorted(
        (m.end(), kind)
        for kind, words in cues.ZH_AMOUNT_WORDS.items()
        for word in words
        for m in re.finditer(re.escape(word), text)
    )
    if not hits:
        return None
    kind = hits[-1][1]
    others = [k for _, k in hits if k != "gain"]
    return "confiscation" if kind == "gain" and others and others[-1] == "confiscation" else kind


def field_amount_kind(name: str) -> str | None:
    """The kind of amount a field asks for, from its name; None when it names no kind or several."""
    lowered = name.lower()
    kinds = {kind for key, kind in cues.ZH_FIELD_AMOUNT.items() if key in lowered}
    if kinds == {"confiscation", "gain"}:
        return "confiscation"
    return kinds.pop() if len(kinds) == 1 else None


def fits(field_kind: str | None, value_kind: str | None) -> bool:
    """Whether an amount may fill a field. A fine or a confiscation is an order, and an order names
    itself: only an amount its clause calls so fills it (a civil judgment's 300,000元 loan is no fine).
    A gain is a fact written many ways: any amount fills it but a fine, and what is confiscated is the
    gain."""
    if field_kind is None or field_kind == value_kind:
        return True
    return field_kind == "gain" and value_kind in (None, "confiscation")


def owners(folded: str, parties: Sequence[str]) -> Callable[[int], frozenset[str] | None]:
    """position -> the parties a value there belongs to (None: a clause of a sentence that names none).

    A clause's parties are the first it names other than as the one paid, and those joined to it
    ("孙某、钱某"); a clause naming none takes those of the nearest clause before it in its sentence or
    list item, or else after it ("2015年9月2日，李某使用其本人账户买入…")."""
    names = sorted({fold(p): p for p in parties if p.strip()}.items(), key=lambda kv: -len(kv[0]))
    mentions: list[tuple[int, int, str]] = []
    for folded_name, party in names:
        for m in re.finditer(re.escape(folded_name), folded):
            if all(m.end() <= s or m.start() >= e for s, e, _ in mentions):
                mentions.append((m.start(), m.end(), party))
    mentions.sort()
    bounds = clauses(folded)
    own: list[frozenset[str] | None] = []
    for lo, hi in bounds:
        inside = [x for x in mentions if lo <= x[0] < hi and not _PAYEE.search(folded, lo, x[0])]
        group = inside[:1]
        for x in inside[1:]:
            if not _JOINED.fullmatch(folded[group[-1][1] : x[0]]):
                break
            group.append(x)
        own.append(frozenset(p for _, _, p in group) if group else None)
    item = [len(_ITEM_END.findall(folded, 0, lo)) for lo, _ in bounds]
    filled = list(own)
    for i, o in enumerate(own):
        if o is None:
            near = [j for j in range(len(own)) if own[j] is not None and item[j] == item[i]]
            before, after = [j for j in near if j < i], [j for j in near if j > i]
            filled[i] = own[before[-1]] if before else (own[after[0]] if after else None)
    return lambda pos: filled[_clause_at(bounds, pos)]


@dataclass(frozen=True)
class Name:
    start: int
    end: int
    role: str  # the label it stands under, roles in their one form (被告人 -> 被告)
    former: str  # the role it had below, "" when the label gives none


def role_of(word: str) -> str:
    """One form of a role word: 被告人 -> 被告, 原审被告 -> 被告; other words unchanged."""
    for prefix in cues.ZH_FORMER_ROLE_PREFIXES:
        if word.startswith(prefix) and word[len(prefix) :] in cues.ZH_PARTY_ROLES:
            word = word[len(prefix) :]
            break
    return cues.ZH_SAME_ROLE.get(word, word)


def field_role(name: str) -> str | None:
    """The procedural role a field asks for ("被上诉人名称" -> 被上诉人), None for any party (当事人)."""
    for role in cues.ZH_PARTY_ROLES:  # longest first
        if role in name:
            return role_of(role)
    return None


def names(folded: str) -> list[Name]:
    """The names a folded sentence gives under a label: after a colon ("当事人：李某、王某" gives both),
    or, at the head of the sentence, before the party's particulars ("被告人周某某，男，1968年出生")."""
    out = []
    for m in _LABEL.finditer(folded):
        if not m.group("colon") and (m.start() > 0 or m.group("role") in _COLON_ONLY):
            continue
        role, former = role_of(m.group("role")), role_of(m.group("former") or "")
        pos = m.end()
        while True:
            stop_at = _NAME_END.search(folded, pos)
            stop = stop_at.start() if stop_at else len(folded)
            if not 2 <= stop - pos <= 20:
                break
            if not m.group("colon") and not _PARTICULARS.match(folded, stop):
                break
            out.append(Name(pos, stop, role, former))
            if not folded.startswith("、", stop):
                break
            pos = stop + 1
    return out
