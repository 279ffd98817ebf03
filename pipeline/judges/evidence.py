"""What the rule judge checks an answer's claims against: the context's sentences, each with the parties
it is about and whether it is the court's finding, and the ways of finding the sentence a claim rests on.

Support is about someone (docs/method.md §4): a sentence may support a claim about the parties asked only
when it names one of them, or names no one and its passage names one of them or no one. A sentence that
names only other parties, or sits in a passage that does, supports nothing about the parties asked.
An issue statement or a party's submission is not the court's finding: it supports only a claim that
itself reports a submission.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache

from pipeline import language
from pipeline import matching as m
from pipeline.matching import cues_zh, rulings, statements
from pipeline.matching.anchors import opening_case_number
from pipeline.matching.parties import (
    Party,
    called_by_surname,
    cases,
    cited_cases,
    gathered,
    names_any,
    ordinal_roles,
    parties,
    without_cases,
    zh_entry_owner,
    zh_numbered_in,
)
from pipeline.records import Passage

# Chinese judgments as published end findings with a half-width ; or . as often as with ；and 。 (a . between
# two Chinese characters, not the point of 1.5% or the list number of "1.判令").
_ZH_HALF_STOP = re.compile(r"(?<=;)|(?<=[\u4e00-\u9fff][.])(?=[\u4e00-\u9fff])")


def sentences(text: str, lang: str) -> list[str]:
    """language.sentences, with Chinese also cut after a half-width ; or . of published judgments."""
    out = language.sentences(text, lang)
    if lang != "zh":
        return out
    return [p.strip() for s in out for p in _ZH_HALF_STOP.split(s) if p.strip()]


@dataclass
class Sentence:
    text: str
    # m.haystack(): the units a claim's content words are looked for in (in English, its content words).
    words: set[str]
    numbers: set[str]
    negative: bool
    parties: list[Party] = field(default_factory=list)
    # An issue statement or a party's submission.
    statement: bool = False
    passage: int = -1
    # Its words reduced to their roots ("received", "receives" -> "receiv") and its figures ("#20"): what
    # a statement of the same holding in other words still shares with it.
    roots: frozenset[str] = frozenset()
    # A submission read with the ruling that points back at it (_with_rulings): its polarity is the
    # ruling's on what the submission says, read on the whole sentence.
    ruling: bool = False
    # The party whose Chinese header entry holds this agent's line ("委托诉讼代理人:邵1,……" under 原告's entry).
    entry_of: Party | None = None


def roots(words: set[str], numbers: set[str], lang: str) -> frozenset[str]:
    """Words cut to their roots (English suffixes -ing, -ed, -es, -e, -s) and figures marked as such."""
    cut = words if lang == "zh" else {_root(w) for w in words}
    return frozenset(cut | {f"#{n}" for n in numbers})


@lru_cache(maxsize=1 << 16)
def _root(word: str) -> str:
    for suffix in ("ing", "ed", "es", "e", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def sentence(text: str, lang: str, passage: int = -1) -> Sentence:
    words, numbers = m.haystack(text, lang), m.numbers(text, lang)
    return Sentence(
        text,
        words,
        numbers,
        m.is_negative(text, lang),
        parties(text, lang),
        statements.is_issue_or_submission(text, lang),
        passage,
        roots(words, numbers, lang),
    )


# An English ruling that names the submission it rules on only by pointing back ("Ms Lui submitted that ...
# she owed no duty to question payments ... That submission is rejected: ...").
_RULING_BACK = re.compile(
    r"^(?:That|This|The|Such\s+an?)\s+(?:submission|argument|contention|complaint|point|ground)s?\s+"
    r"(?:is|was|are|were|must\s+be|cannot\s+be|should\s+be|fails?|succeeds?)\b",
    re.I,
)


_QUOTED = re.compile(r"(?<!\w)['‘\"“][^'’\"”]{1,60}['’\"”](?!\w)")


def _with_rulings(found: list[str], lang: str) -> list[tuple[str, bool | None]]:
    """The sentences of a passage, a ruling that points back at the submission before it joined to it: read
    together they are the court's finding on what the submission says, negative when the submission is
    positive and the ruling rejects it, or the reverse ("she owed no duty ... That submission is
    rejected" holds that she had one). The second item: the joined sentence's polarity (None: its own)."""
    if lang == "zh":
        return [(t, None) for t in found]
    out: list[tuple[str, bool | None]] = []
    for text in found:
        if out and _RULING_BACK.match(text) and statements.is_issue_or_submission(out[-1][0], lang):
            said = out[-1][0]
            # Words the submission quotes ("a message from Ms Law saying 'no rush'") are no negation of its own.
            own = _QUOTED.sub(" ", said)
            # A ruling that rejects what it points back at, read with the submission, says the opposite of it.
            out[-1] = (f"{said} {text}", m.is_negative(own, lang) != rulings.rejects(text))
        else:
            out.append((text, None))
    return out


def _at_submission(text: str, lang: str) -> list[str]:
    """A Chinese sentence of many clauses cut where a submission begins ("……周某到案后虽对基本事实予以
    供认，但辩称部分款项系正常借款……"): what comes before the 辩称 is the narrative, not the submission."""
    if lang != "zh":
        return [text]
    at = statements.submission_start(text)
    if at is None or at == 0:
        return [text]
    return [text[:at], text[at:]]


@dataclass
class PassageView:
    sentences: list[Sentence]
    parties: list[Party]
    # The cases its heading names (a Chinese judgment's number or title), and the number opening its text.
    cases: frozenset[str] = frozenset()
    decision: str = ""
    # The parties its heading's title names (the case's own parties, not its witnesses or counsel).
    titled: list[Party] = field(default_factory=list)
    heading_text: str = ""


def passage_view(passage: Passage, lang: str) -> PassageView:
    """A passage's sentences and the parties it names, its heading's included (a reader sees the
    heading: a Chinese judgment's title names its parties)."""
    found = [
        sentence(t, lang) if negative is None else replace(sentence(t, lang), negative=negative, ruling=True)
        for s, negative in _with_rulings(sentences(passage.text, lang), lang)
        for t in _at_submission(s, lang)
    ]
    if lang == "zh":
        found = [_with_gathered(s, passage.text) for s in found]
        # A submission runs on past its ；: the sentences after it are the party's words too.
        for k in range(1, len(found)):
            if not found[k].statement and found[k - 1].statement and statements.continues_submission(
                found[k - 1].text, found[k].text
            ):
                found[k] = replace(found[k], statement=True)
    titled = parties(passage.heading, lang)
    named = titled + [p for s in found for p in s.parties]
    return PassageView(found, named, own_cases(passage), passage.decision_id, titled, passage.heading)


def own_cases(passage: Passage) -> frozenset[str]:
    """The cases a passage names as its own: its heading's number or title, and the number its text opens
    with (a published judgment's first paragraph opens with its case number: the number a question prefixed
    at import names; pipeline/importers/standalone.py uses the same opening_case_number)."""
    opening = opening_case_number(passage.text)
    return cases(passage.heading, heading=True) | (cases(opening) if opening else frozenset())


def _with_gathered(s: Sentence, passage: str) -> Sentence:
    """A sentence gathering parties under a count (二公司, 三被告人) is about each of them; an agent's line
    in a header entry is about the party the entry is of."""
    about = gathered(s.text, passage)
    owner = zh_entry_owner(s.text, passage)
    if owner is not None:
        about.append(owner)
    extra = [p for p in about if p not in s.parties]
    return replace(s, parties=s.parties + extra, entry_of=owner) if extra or owner else s


class ContextView:
    """The passages of one context as the judge reads them for one question."""

    def __init__(
        self,
        passages: list[PassageView],
        asked: list[Party],
        asked_cases: frozenset[str] = frozenset(),
        home: str | None = None,
        asked_roles: frozenset[str] = frozenset(),
        asks_authority: bool = False,
        asked_numbered: frozenset[str] = frozenset(),
        asked_places: frozenset[str] = frozenset(),
    ):
        self.passages = passages
        # The question asks about the authority its case cites ("in the authority cited in Kwong Wai-yan v
        # Chiu Kin-sang"): the citing judgment's report of that case is what it asks about.
        self.asks_authority = asks_authority
        # The numbered roles the judgment gives a Chinese party asked (被告二 for 姜x2 of "……与程某、姜x2……"): a
        # sentence naming that role names the party.
        self.asked_numbered = asked_numbered
        # The defendants a Chinese question names by place ("本案被告三是否需要……"): a sentence naming only
        # others by place (被告一作为……) is not about them.
        self.asked_places = asked_places
        self.asked = asked
        self.asked_cases = asked_cases
        # The ordinal roles the question names ("the first plaintiff"): a sentence naming only other ones
        # is about another party of the same case.
        self.asked_roles = asked_roles
        # The decision a question bound to its document (本案, "the tenant", no name of its own) was
        # written on, when its gold passage is in the context: that question is about no other decision.
        self.home = home
        # Passages of one decision name one case: its heading's title beside one passage, its number
        # opening another (a reader sees both headings alike and puts the two together).
        by_decision: dict[str, frozenset[str]] = {}
        for p in passages:
            if p.decision:
                by_decision[p.decision] = by_decision.get(p.decision, frozenset()) | p.cases
        self.cases = [by_decision.get(p.decision, p.cases) if p.decision else p.cases for p in passages]
        self.sentences = [
            replace(s, passage=i)
            for i, p in enumerate(passages)
            for s in p.sentences
        ]
        self._df: Counter[str] | None = None

    def weighted_share(self, units: frozenset[str], s: Sentence) -> float:
        """The share of `units` (roots()) in the sentence, each weighted by how rare it is in this
        context: a sentence shares what matters with a statement when it holds its rare words
        ("refused", "suspend") and figures, not only those every sentence of a sentencing decision
        holds ("court", "sentence")."""
        if self._df is None:
            self._df = Counter(w for t in self.sentences for w in t.roots)
        n = len(self.sentences) + 1
        # A word no sentence holds weighs as one a single sentence holds: a paraphrase's own words
        # ("made", "against") count against every sentence alike, without drowning the rest.
        weight = {w: math.log(n / (max(self._df[w], 1) + 0.5)) for w in units}
        total = sum(weight.values())
        return sum(weight[w] for w in units & s.roots) / total if total > 0 else 0.0

    def _case(self, s: Sentence) -> bool | None:
        """Whether the sentence's passage is of the case the question names or, for a question bound to
        its document, of the decision it was written on (None: it cannot tell)."""
        passage = self.passages[s.passage]
        if self.home is not None:
            return passage.decision == self.home
        own = self.cases[s.passage]
        if not self.asked_cases:
            return None
        # An English sentence citing a case ("As stated in Chan Kwok-wah v Hip Shing ..., the assessment was
        # raised from 3% to 6%") speaks of it: of the case asked when it cites that one, and, in a passage of
        # no named case, of the case it cites and no other ("HKSAR v Kwan Wai laid down a starting point of
        # 2 years to 4 years" is no starting point of the case asked).
        cited = cited_cases(s.text)
        if cited & self.asked_cases:
            return True
        if not own:
            return False if cited else None
        return bool(own & self.asked_cases)

    def of_asked_case(self, passage: int) -> bool | None:
        """Whether a passage is of the case the question names (None: it cannot tell)."""
        return self._case(Sentence("", set(), set(), False, passage=passage))

    def _other_role(self, s: Sentence) -> bool:
        roles = ordinal_roles(s.text) if self.asked_roles else frozenset()
        return bool(roles) and not roles & self.asked_roles

    def about(self, s: Sentence, subjects: list[Party]) -> bool:
        """Whether the sentence can be about one of `subjects` (everyone, when there are none). When the
        question names its case ("在（2016）皖1125刑初219号案中"), a passage headed by another case is
        about no one asked, whatever names the two share; so is a passage of another decision, for a
        question that only makes sense inside its own ("本案的案件受理费由谁负担?": another judgment's
        朱0 is not this one's). A sentence naming only another ordinal role than the one asked ("The first
        defendant ... has three previous convictions" to a question on the second) is about no one asked."""
        if self._other_role(s):
            return False
        case = self._case(s)
        if case and self._of_another_in_case(s):
            return False
        if case is not None:
            return case
        if not subjects:
            return True
        if s.parties:
            return (names_any(s.parties, subjects) or self._by_surname(s, subjects) or self._in_asked_case(s, subjects)
                    or any(role in s.text for role in self.asked_numbered))
        named = self.passages[s.passage].parties
        return not named or names_any(named, subjects)

    def _of_another_in_case(self, s: Sentence) -> bool:
        """Whether a sentence of the case asked is about another of its parties than the one asked: an agent's
        line in another party's header entry; a sentence of a criminal judgment naming only another accused
        its title lists ("一、被告人严x4犯……罪，判处有期徒刑八个月。" to a question on 薛某 of "严x4、薛某……罪");
        one naming only another defendant by its place ("被告一作为招牌的所有人……" to a question on 被告三)."""
        if self.asked and s.entry_of is not None and not names_any([s.entry_of], self.asked):
            return True
        if self.coaccused_only(s.parties, [self.passages[s.passage]]):
            return True
        places = zh_numbered_in(s.text) if self.asked_places and not s.parties else frozenset()
        return bool(places) and not places & self.asked_places

    def coaccused_only(self, named: list[Party], passages: list[PassageView] | None = None) -> bool:
        """Whether `named` are all other accused than the one asked, in the title of a criminal judgment of
        `passages` (all the context's by default) that lists the one asked too."""
        if not self.asked or not named or names_any(named, self.asked):
            return False
        for passage in self.passages if passages is None else passages:
            if "刑" not in passage.heading_text or not names_any(passage.titled, self.asked):
                continue
            others = [p for p in passage.titled if not names_any([p], self.asked)]
            if all(names_any([p], others) for p in named):
                return True
        return False

    def named(self, s: Sentence, subjects: list[Party]) -> bool:
        """Whether the sentence, or its passage, names one of `subjects` (not merely names no one)."""
        if self._other_role(s):
            return False
        case = self._case(s)
        if case is not None:
            return case
        if not subjects:
            return True
        return names_any(s.parties or self.passages[s.passage].parties, subjects) or self._by_surname(s, subjects)

    def _by_surname(self, s: Sentence, subjects: list[Party]) -> bool:
        """Whether the sentence calls a party asked by title and surname ("Mr Ho" beside his company
        Kaiwing Holdings Limited) in a passage that names that party in full."""
        named = self.passages[s.passage].parties
        return any(names_any([a], named) and called_by_surname(s.text, a, named) for a in subjects)

    def _in_asked_case(self, s: Sentence, subjects: list[Party]) -> bool:
        """Whether an English sentence naming only people its heading's title does not (a witness, a bank,
        the dental surgery assistant) is about the case of a party asked, whose name that title holds: such
        people are no other party of the case. A sentence reporting a cited case speaks of that case, unless
        the question asks about the authority cited."""
        passage = self.passages[s.passage]
        if language.has_cjk(s.text) or not passage.titled or not names_any(passage.titled, subjects):
            return False
        if names_any(s.parties, passage.titled):
            return False
        return self.asks_authority or not cited_cases(s.text)

    def pool(self, subjects: list[Party]) -> list[Sentence]:
        """The sentences that may support a claim about `subjects`."""
        return [s for s in self.sentences if self.about(s, subjects)]


def align(words: set[str], pool: list[Sentence], nums: frozenset[str] = frozenset()) -> tuple[Sentence | None, float]:
    """The sentence sharing most of the claim's words and numbers (ties: the higher Jaccard of words),
    with the share of the claim's words it contains. Numbers only rank: among near-identical sentences
    of different cases, the one with the claim's figures is the one it was taken from."""
    if not words or not pool:
        return None, 0.0
    best, best_key, best_recall = None, (-1.0, -1.0), 0.0
    for s in pool:
        shared = len(words & s.words)
        if not shared:
            continue
        recall = shared / len(words)
        key = (recall + len(nums & s.numbers) / (len(nums) or 1), shared / len(words | s.words))
        if key > best_key:
            best, best_key, best_recall = s, key, recall
    return best, best_recall


def share(words: set[str], other: set[str]) -> float:
    return len(words & other) / len(words) if words else 0.0


# Where a clause ends inside a sentence (a quote's negation is read on its own clause).
_CLAUSE_END = {"zh": "，；：,;:", "en": ",;:"}


_DANGLING = re.compile(r"[\s,;，；]*\b(?:and|or|but|while|whereas)$")


def quoted_part(body: str, source: Sentence, lang: str) -> str | None:
    """The clause(s) of the source sentence that a claim quotes word for word (lower-cased), or None when
    the claim is not a verbatim quote of it."""
    # Lower case: an answer capitalises the clause it starts with.
    quote, text = body.strip().rstrip("。.!！?？;；,，").lower(), source.text.lower()
    # A quote cut after a joining word ("... a starting point of 12 years, and") quotes the clause before it,
    # not the one that word would have opened.
    quote = _DANGLING.sub("", quote)
    at = text.find(quote) if quote else -1
    if at < 0:
        return None
    ends = _CLAUSE_END.get(lang, _CLAUSE_END["en"])
    start = max(text.rfind(c, 0, at) for c in ends) + 1
    after = [i for i in (text.find(c, at + len(quote)) for c in ends) if i >= 0]
    return text[start : min(after, default=len(text))]


def source_negative(body: str, source: Sentence, lang: str) -> bool:
    """Whether the part of the source sentence a claim rests on is negative: the clause(s) holding the
    claim when it quotes the sentence word for word, else the whole sentence. A clause-level quote from a
    long sentence ("王某仅于2017年6月30日归还本金50,000元" out of a sentence whose other clause says 未归还)
    is not contradicted by a negation that belongs to another clause; a quote that drops a negation of
    its own clause still is. A reason attached to the holding ("set aside an award of $12,800,000 because
    the tribunal decided on an analysis neither party had advanced") has no say in its polarity."""
    part = quoted_part(body, source, lang)
    return m.is_negative(holding(source.text if part is None else part, lang), lang)


def answering_part(body: str, source: Sentence, question: str, lang: str) -> Sentence:
    """What a Yes/No with a quote is checked against: the quoted clause(s) when they are about the
    question ("Yes. The Tribunal granted relief against forfeiture." out of "Although the tenant did not
    pay, the Tribunal granted relief against forfeiture."), else the whole source sentence (a quote of a
    side clause does not show what the sentence answers)."""
    part = quoted_part(body, source, lang)
    if part is None or part == source.text.lower():
        return source
    clause = sentence(part, lang, source.passage)
    return clause if on_topic(question, clause, lang) else source


# A half-width comma or colon between digits is a figure's ("2,100条", "10:30"), not a clause break.
_CLAUSE_SPLIT = {"zh": re.compile(r"[，；：;]|(?<!\d)[,:]|[,:](?!\d)"), "en": re.compile(r";|(?<!\d)[,:]|[,:](?!\d)")}


def answering_clause(words: set[str], s: Sentence, lang: str) -> Sentence:
    """The clause of a sentence holding most of `words` (what a question asks about): its polarity is
    the sentence's answer ("Although the tenant did not pay, the Tribunal granted relief against
    forfeiture." answers "Did the Tribunal grant relief?" yes)."""
    parts = [p for p in _CLAUSE_SPLIT["zh" if lang == "zh" else "en"].split(s.text) if p.strip()]
    if len(parts) < 2 or not words or s.ruling:
        return s
    scored = sorted(((len(words & m.haystack(p, lang)), p) for p in parts), key=lambda x: -x[0])
    # Only a clause that holds more of them than any other answers on its own; in Chinese, clauses tied
    # for most may be a claim and the court's ruling on it, read below.
    tied = scored[0][0] == scored[1][0]
    if scored[0][0] == 0 or tied and lang != "zh":
        return s
    if lang == "zh":
        # A claim stated, then the court's ruling on it ("原告主张的精神损害抚慰金缺乏法律依据，本院依法予以驳回";
        # "其要求……支付十倍赔偿金的请求,本院予以支持"): the ruling answers.
        at = min(parts.index(p) for n, p in scored if n == scored[0][0])
        k = next((k for k in range(at, len(parts)) if _ZH_RULING.search(parts[k])), None)
        # Not a ruling on another submission named between them ("……亦不构成重大过失,被告关于……的抗辩,本院不予
        # 支持": the court's own finding answers, the ruling is on the defence).
        if k is not None and not any(_ZH_SUBMISSION.search(p) for p in parts[at + 1 : k]):
            return sentence(parts[k], lang, s.passage)
        if tied:
            return s
    return sentence(scored[0][1], lang, s.passage)


_ZH_SUBMISSION = re.compile(r"抗辩|辩称|主张|请求|意见|辩解")
# The verbs a court rules on a claim or a submission by.
_RULING_VERBS = "支持|驳回|采纳|采信|认可"
_ZH_RULING = re.compile(
    rf"(?:本院|法院)[^，,；;]{{0,8}}(?:{_RULING_VERBS})|(?:不予|予以)(?:{_RULING_VERBS})"
    rf"|{cues_zh.DECLINES}"
)


def on_topic(question: str, s: Sentence, lang: str) -> bool:
    words = m.content_words(without_cases(question), lang)
    return len(words & s.words) >= max(1, round(0.3 * len(words)))


def bottom_line(question: str, statement: Sentence, lang: str) -> str:
    """The yes/no answer a statement gives to a question: yes when both are negated or neither is, and the
    reverse when the question asks about a figure the statement does not give but gives others instead
    ("违法所得是否为2200000？" against "违法所得为1200000": no; "Was the fine HK$5,000?" against "a fine of
    HK$8,000": no)."""
    asked_negative, negative = m.is_negative(question, lang), statement.negative
    if lang == "zh" and _NAMED_REFUSAL.search(question):
        # A decision named by what it refused ("不予认定工伤决定") holds no negation of what is asked: 撤销 of
        # that decision answers "是否维持" no, whatever the 不予 of its name.
        question = _NAMED_REFUSAL.sub("", question)
        asked_negative = m.is_negative(question, lang)
        if not statement.ruling:
            negative = m.is_negative(_NAMED_REFUSAL.sub("", statement.text), lang)
    premise, _, asked = without_cases(question).partition("是否") if lang == "zh" else ("", "", "")
    if asked and m.is_negative(premise, lang):
        # A negation in what the question takes as given ("原告未握紧扶手是否构成重大过失") is not what it asks:
        # its polarity is that of what follows 是否, and the statement's without the given restated.
        asked_negative = m.is_negative(asked, lang)
        if not statement.ruling:
            negative = m.is_negative(_without_given(statement.text, premise), lang)
    response = _ASKED_RESPONSE.match(asked) if asked else None
    if response and _ZH_RULING.fullmatch(statement.text.strip(" 。.；;，,")):
        # The court's ruling ("本院不予采纳") answers the response asked of it (是否采纳了……意见), whatever
        # negation the words of what was ruled on hold (the 无 of 扣除无效号码的意见).
        asked_negative = m.is_negative(response.group(0), lang)
    same = asked_negative == negative
    # The figures of the question, not of the case number that frames it ("在（2016）皖1125刑初219号案中").
    asked = m.numbers(without_cases(question), lang)
    if asked and statement.numbers and asked.isdisjoint(statement.numbers):
        same = not same
    # Asked whether in full, a statement that it was in part answers no ("Was the appeal allowed in full?"
    # against "The appeal is allowed in part").
    whole, part = _WHOLE[lang == "zh"], _PART[lang == "zh"]
    if whole.search(question) and part.search(statement.text) and not whole.search(statement.text):
        same = not same
    return "yes" if same else "no"


# The response a Chinese question asks whether the court gave, right after its 是否 ("是否采纳了", "是否不予支持").
_ASKED_RESPONSE = re.compile(rf"[^，,。？?]{{0,3}}?(?:{_RULING_VERBS})")
_NAMED_REFUSAL = re.compile(r"(?:不予|不准予?)(?=[\u4e00-\u9fff]{1,8}?(?:决定|通知|裁定)书?)")
_GIVEN_NEGATION = re.compile(r"(?:没有|[不未没无非])[\u4e00-\u9fff]{1,2}")


def _without_given(text: str, premise: str) -> str:
    """A Chinese statement without the negated phrases it shares with a question's premise (未握紧 of
    "原告未握紧扶手是否……")."""
    for phrase in _GIVEN_NEGATION.findall(premise):
        if phrase in text or len(phrase) < 3:
            text = text.replace(phrase, " ")
        else:
            text = text.replace(phrase[:-1], " ")
    return text


_WHOLE = {False: re.compile(r"\b(?:in\s+full|in\s+its\s+entirety|fully|wholly|entirely)\b", re.I),
          True: re.compile(r"全部|全额")}
_PART = {False: re.compile(r"\b(?:in\s+part|partly|partially)\b", re.I), True: re.compile(r"部分")}


# A reason or a purpose attached to a holding ("..., because the offence involved a breach of trust";
# "……，因其……"): its negations say nothing of the holding's own polarity.
_REASON = {
    "en": re.compile(r"(?:[,;]\s*(?:because|since|given|as\s+the|in\s+view\s+of|on\s+the\s+ground)|\s+because)\b.*$", re.I | re.S),
    "zh": re.compile(r"[，,；;]\s*(?:因为|由于|鉴于|因其|考虑到|因(?![此而]))[^。]*", re.S),
}


def holding(text: str, lang: str) -> str:
    """The text without a trailing reason clause."""
    return _REASON["zh" if lang == "zh" else "en"].sub("", text).strip() or text
