"""Text features the rule judge and the augmenter share: content words, canonical numbers, polarity,
refusal clauses and degenerate text.

Everything here is a plain function of strings so each check can be tested on hand-built sentences.
Each takes the text's language ("en" | "zh"; detected from the text when None): English keeps its
[a-z0-9] words; Chinese goes through pipeline.language (jieba words, character bigrams inside
content words, Chinese amounts and dates) and the cue lists of cues_zh.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from pipeline import language
from pipeline.matching import cues_zh

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
# A Chinese pointer to the passages ("（见第[1]段和第[2]段）", "（第1段）") goes whole, as "(passage 1)" does:
# left as "（见第 段）" its 见 and 段 read as a claim that no passage supports.
_ZH_PARAGRAPH = r"第\s*\[?\s*\d+\s*\]?\s*段"
_ZH_CITATION = re.compile(
    rf"[（(]\s*(?:参见|详见|见)?\s*{_ZH_PARAGRAPH}(?:\s*[和、及与,，]\s*{_ZH_PARAGRAPH})*\s*[）)]"
)
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
# A line break ends a clause too: list items ("- Yes\n- <refusal>") are separate statements.
_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;:])\s+|\s*\n\s*|,\s*(?=(?:but|however|although|though|nevertheless)\b)", re.I)
# A list marker may come first: small instruct models often answer "- Yes" or "1. No, ...".
# "The answer (to this question) is: No." leads with its No as well. A No running on into a noun ("No rent
# has been paid", "No order as to costs") is a determiner, not an answer: the answer's No stands alone.
_LEAD = re.compile(
    r"^\s*(?:[-*\u2022]\s*|\d+[.)]\s+)?(?:the\s+(?:short\s+)?answer(?:\s+to\s+(?:this|the)\s+question)?\s+is\s*:?\s*)?"
    r"(yes|no(?=[^\S\n]*(?:$|\n|[,.;:!\-\u2014])))\b[\s,.;:!\-\u2014]*",
    re.I,
)


def strip_citations(text: str) -> str:
    return _CITATION.sub(" ", _ZH_CITATION.sub(" ", text))


def _lang(text: str, lang: str | None) -> str:
    return language.detect(text) if lang is None else language.check(lang)


# The judge reads the same questions, references and passage sentences for many answers: the text
# features below are computed once per text (callers get their own copy of a set or list).
_CACHE = 1 << 16


def words(text: str, lang: str | None = None) -> list[str]:
    return list(_words(text, lang))


@lru_cache(maxsize=_CACHE)
def _words(text: str, lang: str | None) -> tuple[str, ...]:
    return tuple(_words_of(text, lang))


def _words_of(text: str, lang: str | None = None) -> list[str]:
    if _lang(text, lang) == "zh":
        return language.words(text, "zh")
    return _WORD.findall(text.lower())


def stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def content_words(text: str, lang: str | None = None) -> set[str]:
    """Lower-cased, lightly stemmed words minus stopwords and bare numbers (numbers are compared apart).

    zh: the character bigrams inside each content word (a one-character word stays whole), numerals
    and currency left out. Looked up in haystack() of the other text, they are found wherever the word
    occurs, however a segmenter cuts the sentence around it."""
    return set(_content_words(text, lang))


@lru_cache(maxsize=_CACHE)
def _content_words(text: str, lang: str | None) -> frozenset[str]:
    return frozenset(_content_words_of(text, lang))


def _content_words_of(text: str, lang: str | None = None) -> set[str]:
    if _lang(text, lang) == "zh":
        units: set[str] = set()
        for w in language.words(language.plain_numerals(strip_citations(text)), "zh"):
            if language.is_numeral(w):
                continue
            if language.has_cjk(w):
                if (
                    w not in language.STOPWORDS["zh"]
                    and not language.is_numeral(w)
                    and w not in cues_zh.CURRENCY
                ):
                    units.update(language.ngrams(w, 2, "zh"))
            elif not w[0].isdigit() and w not in STOPWORDS and w not in CURRENCY:
                units.add(stem(w))
        return units
    return {stem(w) for w in words(strip_citations(text), "en") if w not in STOPWORDS and not w[0].isdigit()}


def haystack(text: str, lang: str | None = None) -> set[str]:
    """The units content_words() of another text is looked for in. en: the same content words. zh:
    every character and character bigram of the text's Chinese runs, and its Latin words."""
    return set(_haystack(text, lang))


@lru_cache(maxsize=_CACHE)
def _haystack(text: str, lang: str | None) -> frozenset[str]:
    return frozenset(_haystack_of(text, lang))


def _haystack_of(text: str, lang: str | None = None) -> set[str]:
    if _lang(text, lang) != "zh":
        return content_words(text, "en")
    units: set[str] = set()
    for piece in language.words(language.plain_numerals(strip_citations(text)), "en"):  # "en" keeps each CJK run whole
        if language.has_cjk(piece):
            units.update(piece)
            units.update(language.ngrams(piece, 2, "zh"))
        else:
            units.add(stem(piece))
    return units


# Names of parties: an English run of capitalised words ("Chan Tai-man", "Chu Investment Limited"), a
# Chinese party written as surname + 某 (孙某, 赵某某, 张某甲), or anonymised as published: surname + an
# index (曹x0, 朱0, 黄1). 某 after a role or a particle is a determiner (被告某物流有限公司: "a certain
# logistics company"), not a name.
_EN_NAME = re.compile(r"[A-Z][A-Za-z'’-]*(?:\s+[A-Z][A-Za-z'’-]*)*")
_ZH_NAME = re.compile(r"([\u4e00-\u9fff])某+[甲乙丙丁戊己庚辛壬癸]?")
# Characters that end a word before 某 (系某公司, 凤阳县某小区, 合肥市某公司): 某 is then "a certain".
_ZH_NOT_SURNAME = set("告人方为于向与和对及在由将被的了是从等其该某系即经以按至据属另各每省市州县区镇乡村街路")
# A character of an institution's name: no particle or verb that would make the run a clause (李某向某公司
# is 李某, then 某公司), no second 某, no digit.
ZH_NAME_CHAR = r"[^\W\d_某在与和及向对由将被的了是从等其该系并已于为到]"
# 某 opening an institution's name after a place (江苏某律师事务所, 无锡市某医院 without its 市) is "a certain", and
# so is a run of them (江苏某某律师事务所, 加盖某某公司印章: no 苏某某, no 盖某某).
_ZH_INSTITUTION_AFTER = re.compile(
    rf"某+{ZH_NAME_CHAR}{{0,8}}?(?:律师事务所|事务所|有限责任公司|有限公司|公司|医院|银行|学校|小区|法院|检察院"
    r"|派出所|鉴定所|鉴定中心|集团|工厂|厂|商店|超市|酒店|中心|协会|委员会)"
)
_ZH_COMPOUND_SURNAMES = "欧阳 司马 诸葛 上官 司徒 东方 皇甫 尉迟 公孙 慕容 令狐 夏侯 长孙 宇文 南宫 端木 西门 独孤".split()
# An index only follows a surname (年5, 处以60, 沪01 and 刑初28 are dates, amounts and case numbers), and is
# no amount itself: not followed by more digits or a unit (于12月, 金50,000元, 高3米).
_ZH_ANON = re.compile(
    rf"({'|'.join(_ZH_COMPOUND_SURNAMES)}|[{''.join(sorted(set(cues_zh.SURNAMES) - _ZH_NOT_SURNAME - set('万时方应常成全文和')))}])"
    # An index with its x is no number ("姜x2股东出资纠纷"); a bare one may be a figure ("2股").
    r"((?:[xX][0-9]{1,3}(?![0-9]|[.．,，:：][0-9]))"
    r"|(?:[0-9]{1,2}(?![0-9xX年月日号时分秒元万千百亿%％条款项个次名件套间倍层楼栋室岁周期届米吨克斤亩股份张辆台部把只头处]"
    r"|[.．,，:：][0-9])))"
    # A surname that is also a common word (方 of 原告方, 时, 成) is one before an x-index only ("辩护人方x4").
    r"|([万时方应常成全文])([xX][0-9]{1,3})(?![0-9]|[.．,，:：][0-9])"
)


def _anon(match: re.Match[str]) -> frozenset[str]:
    """An anonymised name as its surname and index (曹x0: {曹, x0})."""
    return frozenset({match.group(1) or match.group(3), (match.group(2) or match.group(4)).lower()})


# 方 is a surname as well as "side" (原告方): after a header's colon or a list mark ("法定代表人：方某") it can
# only be the surname.
_SURNAME_AFTER_MARK = frozenset("方")


def _surname_after_mark(text: str, at: int) -> bool:
    return text[at] in _SURNAME_AFTER_MARK and (at == 0 or text[at - 1] in "：:，,、；;。")


def zh_name_spans(text: str) -> list[tuple[int, int, frozenset[str]]]:
    """Chinese party names in text order, with their [start, end) spans: X某 names as their content
    words, anonymised names as {surname, index} (曹x0 and 曹x1 share 曹 and differ in the index, as 李某
    and 张某 share 某)."""
    found: list[tuple[int, int, frozenset[str]]] = []
    for match in _ZH_NAME.finditer(text):
        if match.group(1) in _ZH_NOT_SURNAME and not _surname_after_mark(text, match.start()):
            continue
        if _ZH_INSTITUTION_AFTER.match(text, match.start() + 1):
            continue
        start, name = match.start(), match.group(0)
        compound = text[max(0, start - 1) : start + 1]
        if compound in _ZH_COMPOUND_SURNAMES:
            start, name = start - 1, compound + name[1:]
        found.append((start, match.end(), frozenset(content_words(name, "zh"))))
    found += [(a.start(), a.end(), _anon(a)) for a in _ZH_ANON.finditer(text)]
    return sorted(found, key=lambda f: f[0])


def names(text: str, lang: str | None = None, skip_first: bool = False) -> list[frozenset[str]]:
    """The names in a text, each as its set of content words (content_words' form; an anonymised
    Chinese name as its surname and index). `skip_first` leaves out the text's first word (the
    "Did"/"Was" of an English question)."""
    if _lang(text, lang) == "zh":
        return [name for _, _, name in zh_name_spans(text)]
    if skip_first:
        text = re.sub(r"^\s*\S+", "", text)
    runs = (frozenset(content_words(n, "en")) for n in _EN_NAME.findall(text))
    return [r for r in runs if r]


def fact_words(fact: str, lang: str | None = None) -> set[str]:
    """The words of a fact other than its numbers and currency (numbers are checked apart)."""
    if _lang(fact, lang) == "zh":
        return content_words(fact, "zh")
    return {stem(w) for w in words(fact, "en") if not w[0].isdigit() and w not in CURRENCY}


def answer_words(text: str, lang: str | None = None) -> set[str]:
    """Every word of an answer (stopwords included) in the form fact_words compares."""
    if _lang(text, lang) == "zh":
        return haystack(text, "zh")
    return {stem(w) for w in words(text, "en")}


def numbers(text: str, lang: str | None = None) -> set[str]:
    """Canonical numbers of a text: "HK$2,400,000", "2.4 million" and "2400000" all give "2400000";
    zh: "4,665,091.79元" and "4665091.79" give "4665091.79", "2011年5月3日" gives "2011-05-03"."""
    return set(_numbers(text, lang))


@lru_cache(maxsize=_CACHE)
def _numbers(text: str, lang: str | None) -> frozenset[str]:
    return frozenset(_numbers_of(text, lang))


def _numbers_of(text: str, lang: str | None = None) -> set[str]:
    text = strip_citations(text)
    lang = _lang(text, lang)
    if lang == "zh":
        # The index of an anonymised name (黄1, 曹x0) is part of a name, not a figure.
        for match in reversed(list(_ZH_ANON.finditer(text))):
            text = text[: match.start()] + " " + text[match.end() :]
    return language.numbers(text, lang)


def lead_polarity(text: str, lang: str | None = None) -> str | None:
    """ "yes"/"no" when the text opens with Yes or No (zh: 是/否/不是 ...), else None."""
    match = _LEAD.match(text)
    if match:
        return match.group(1).lower()
    return cues_zh.lead_polarity(text) if _lang(text, lang) == "zh" else None


def strip_lead(text: str, lang: str | None = None) -> str:
    if _LEAD.match(text) or _lang(text, lang) != "zh":
        return _LEAD.sub("", text, count=1)
    return cues_zh.strip_lead(text)


# Idioms that deny without a negation word: "of clear record" is "has no previous convictions".
_NEGATIVE_IDIOM = re.compile(r"\b(?:clear|clean)\s+record\b", re.I)


@lru_cache(maxsize=_CACHE)
def is_negative(text: str, lang: str | None = None) -> bool:
    if _lang(text, lang) == "zh":
        return cues_zh.is_negative(text)
    tokens = words(text, "en")
    return any(t in NEGATION or t.endswith("n't") for t in tokens) or bool(_NEGATIVE_IDIOM.search(text))


def clauses(text: str, lang: str | None = None) -> list[str]:
    """Sentences, further cut before "but/however" so a hedge and an answer in one sentence separate."""
    if _lang(text, lang) == "zh":
        return cues_zh.clauses(text)
    return [c.strip() for c in _CLAUSE_SPLIT.split(text.strip()) if c and c.strip()]


def is_refusal_clause(clause: str, refusal: str = "") -> bool:
    """The configured refusal sentence, or a cue of either language (each language's cues need its own
    script, so checking both never misreads the other language)."""
    if refusal and _squash(refusal) and _squash(refusal) in _squash(clause):
        return True
    if _REFUSAL_CUES.search(clause):
        return True
    if _MISSING_VERB.search(clause) and _SHOWN.search(clause):
        return True
    return language.has_cjk(clause) and cues_zh.refusal_cue(clause)


def non_refusal_text(text: str, refusal: str = "", lang: str | None = None) -> str:
    """The text with its refusal clauses removed (what is left is the attempted answer, if any)."""
    joiner = "" if _lang(text, lang) == "zh" else " "
    return joiner.join(c for c in clauses(text, lang) if not is_refusal_clause(c, refusal))


def has_refusal(text: str, refusal: str = "", lang: str | None = None) -> bool:
    return any(is_refusal_clause(c, refusal) for c in clauses(text, lang))


def squashed(text: str) -> str:
    """The text reduced to its words (zh: its letters and digits), for containment tests."""
    return _squash(text)


def _squash(text: str) -> str:
    if language.detect(text) == "zh":
        return "".join(ch for ch in text.lower() if ch.isalnum())
    return " ".join(words(text, "en"))


def is_framing(claim: str, lang: str | None = None) -> bool:
    """A sentence that claims nothing: under two content words, or only framing words, and no number."""
    if _lang(claim, lang) == "zh":
        body = strip_lead(claim, "zh")
        kept = [
            w
            for w in language.content_words(body, "zh")
            if language.has_cjk(w) and not language.is_numeral(w)
        ]
        return (len(kept) < 2 or set(kept) <= cues_zh.FRAMING) and not numbers(claim, "zh")
    words_ = content_words(strip_lead(claim, "en"), "en")
    return (len(words_) < 2 or words_ <= FRAMING) and not numbers(claim, "en")


# A figure with its marks: digits joined by points or thousands commas, a percent sign after.
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*%?")


def degenerate(text: str, min_tokens: int = 6, lang: str | None = None) -> bool:
    """Unreadable or looping text: mostly non-word characters, one token dominating, or a phrase
    repeated back to back."""
    stripped = "".join(text.split())
    if not stripped:
        return True
    if text.count("\ufffd") >= 2 or any(ord(ch) < 32 and ch not in "\t\n\r" for ch in text):
        return True
    # A figure's marks (the point of 1.5%, the thousands comma of 63,500) are part of the figure, not
    # noise: a short answer that is only a figure ("1.5%。", "答：1.5%。") reads as words.
    letters = sum(ch.isalnum() for ch in _FIGURE.sub(lambda f: "0" * len(f.group()), stripped))
    if letters / len(stripped) < 0.5:
        return True
    tokens = words(text, lang)
    if not tokens:
        return True
    if len(tokens) >= min_tokens:
        top = Counter(tokens).most_common(1)[0][1]
        if top / len(tokens) > 0.5:
            return True
    for n in range(1, 5):
        if _loops(tokens, n, repeats=4):
            return True
    return _repeats_sentences(text, lang)


def _repeats_sentences(text: str, lang: str | None) -> bool:
    """A generator stuck in a loop restates whole sentences or list items: one said three times, or at least
    four of which half are repeats (a paragraph written twice)."""
    units = [words(u, lang) for line in text.splitlines() for u in language.sentences(line, _lang(text, lang))]
    # Under two words is a list number or a bare "No."; short loops are _loops' to find.
    units = [" ".join(u) for u in units if len(u) >= 2]
    if not units:
        return False
    top = Counter(units).most_common(1)[0][1]
    return top >= 3 or (len(units) >= 4 and len(set(units)) <= len(units) / 2)


def repeats_itself(text: str, lang: str | None = None, n: int = 4) -> float:
    """The share of the text's word n-grams that occur more than once: a generator caught in a loop
    restates its own phrases (a cut-off reply above one half loops; a finished answer quoting two
    near-identical sentences of two decisions may score as high, so this is no test on its own)."""
    tokens = words(text, lang)
    grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    if len(grams) < 20:
        return 0.0
    counts = Counter(grams)
    return sum(c for c in counts.values() if c > 1) / len(grams)


def _loops(tokens: list[str], n: int, repeats: int) -> bool:
    """True when some n-gram occurs `repeats` times back to back."""
    span = n * repeats
    for start in range(0, len(tokens) - span + 1):
        gram = tokens[start : start + n]
        if all(tokens[start + k * n : start + (k + 1) * n] == gram for k in range(1, repeats)):
            return True
    return False
