"""The offline panel of docs/method.md §7: weight-free extractive answerers that really read the context.

Each answerer parses the passages, the question and the refusal sentence back out of the prompt text
(so it sees exactly what a real model sees), splits the passages into sentences, ranks them against
the question with BM25 whose IDF is computed over the context's own sentences, and answers from the
best sentence(s), or refuses when the best normalised score is under its threshold. The four styles
differ in threshold and wording, and the confident style guesses when its evidence is weak; a wrong
answer happens when a distractor sentence outranks the gold one or the evidence is weak, never because
a script decided it for that item.

Language: the question's (detected from its text) picks the wording. A Chinese question is ranked on
jieba content words and answered in Chinese in all four styles; a yes/no answer opens with 是。 or 否。
(pipeline.language.zh_forms), a refusal is the prompt's refusal sentence when that is Chinese, else
zh_forms.REFUSAL, and max_new_tokens is counted the Chinese way (language.count_tokens). Judgment prose
chains a whole finding into one sentence with ， and ；, so a long Chinese sentence is not quoted whole:
the answer quotes the run of its clauses that carries the question's key terms and figures (zh_span),
and an answer that would still pass max_new_tokens is rewritten from shorter runs rather than cut.
Sentences and clauses end at full- and half-width marks alike (language.zh_punct): published judgments
write "经审理查明:……,……;" as often as "经审理查明：……，……；".
English output is unchanged.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline import language
from pipeline import matching as m
from pipeline.backends.base import BackendError, Request, Response
from pipeline.code_version import CodeVersion
from pipeline.language import area, declarative, zh_punct
from pipeline.language import zh_forms as zh
from pipeline.matching import cues_zh
from pipeline.prompts import WORDINGS
from pipeline.retrieval.tokenize import tokenize
from pipeline.text import split_sentences

STYLES = ("cautious", "confident", "terse", "verbose")
# Defaults; params generate.offline_thresholds overrides them.
DEFAULT_THRESHOLDS = {"cautious": 0.45, "confident": 0.15, "terse": 0.3, "verbose": 0.35}


def _refusal_pattern(rules: str) -> re.Pattern:
    """The rules line that carries the refusal sentence, as a pattern capturing the sentence."""
    line = next(x for x in rules.split("\n") if "{refusal}" in x)
    return re.compile(re.escape(line.split("{refusal}")[0].lstrip("- ")) + r"(.+)")


# Per language of pipeline.prompts: (first rules line, refusal pattern, question mark).
_LAYOUTS = [(w.rules.split("\n", 1)[0], _refusal_pattern(w.rules), w.question_mark, w.passages_head.strip())
            for w in WORDINGS.values()]
# Passages are joined by a blank line, so a marker is "[n] " right after one (or at the start).
_MARKER = re.compile(r"(?:\A\n*|\n\n)\[(\d+)\] ")
_CJK_STOP = re.compile(r"(?<=[。！？])")
_AUX = re.compile(
    r"^\s*(did|does|do|is|was|were|are|has|have|had|can|could|should|would|will|must|may|might)\b", re.I
)
# Words that turn a statement negative; what matters is a cue one side has and the other lacks.
_NEG = re.compile(
    r"\b(not|no|never|cannot|unable|neither|nor|none|nothing|insufficient|"
    r"dismiss\w*|refus\w*|reject\w*|deni\w*|deny|declin\w*|fail\w*|acquit\w*|quash\w*|\w+n't)\b",
    re.I,
)
# Clause breaks: punctuation followed by a space (so "HK$2,400,000" stays whole) or a subordinator.
_CLAUSE = re.compile(r"\s*(?:[,;:](?=\s)|\bwhich\b|\bbecause\b|\bwhereas\b|\balthough\b)\s*", re.I)
_TOKEN = re.compile(r"\S+")
# A Chinese sentence longer than this many tokens (language.count_tokens) is answered from a run of its
# clauses of at most this length: about 85 characters, a long clause and its neighbours.
ZH_SPAN_TOKENS = 60
# A question that asks for a figure: a clause giving one is likelier to hold the answer.
_ZH_ASKS_FIGURE = re.compile(r"多少|几|何时|哪一天|哪天|哪一年|日期|金额|数额|比例|含量")
# Budgets tried, in order, when a Chinese answer would pass max_new_tokens (see OfflineAnswerer.answer).
_ZH_SHRINK = (ZH_SPAN_TOKENS, 40, 24, 12)
# A number as written in a question or a sentence ("4,665,091.79", "2011"), compared without commas.
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")
# A leading frame that names the decision ("According to <title>, "): its figures are not asked about.
_EN_FRAME = re.compile(r"^(?:according to|in the decision of)\b[^,]*,\s*", re.I)
K1, B = 1.2, 0.75
# Below this best-sentence score the confident style stops quoting and starts guessing (see _overconfident).
WEAK_EVIDENCE = 0.4
# Weight of the whole passage's match in a sentence's score (see rank_sentences).
PASSAGE_WEIGHT = 0.5


@dataclass(frozen=True)
class ParsedPrompt:
    passages: list[tuple[str, str]]  # (heading, text), numbered from 1
    question: str
    refusal: str


def parse_prompt(prompt: str) -> ParsedPrompt:
    """Recover passages, question and refusal from pipeline.prompts.answer_prompt's text."""
    layout = next((lay for lay in _LAYOUTS if lay[0] in prompt), None)
    if layout is None:
        raise BackendError("offline answerer: the prompt is not in the answer_prompt format")
    rules_head, refusal_pattern, question_mark, passages_head = layout
    head, sep, rest = prompt.rpartition(rules_head)
    question_at = rest.rfind("\n" + question_mark)
    refusal = refusal_pattern.search(rest)
    if not sep or question_at < 0 or refusal is None or not head.startswith(passages_head):
        raise BackendError("offline answerer: the prompt is not in the answer_prompt format")
    body = head[len(passages_head) :]
    passages: list[tuple[str, str]] = []
    starts: list[tuple[int, int]] = []
    for marker in _MARKER.finditer(body):
        # Only the next number in sequence is a marker; "[3] " inside a passage text is not.
        if int(marker.group(1)) == len(starts) + 1:
            starts.append((marker.start(), marker.end()))
    for n, (_, end) in enumerate(starts):
        stop = starts[n + 1][0] if n + 1 < len(starts) else len(body)
        heading, _, text = body[end:stop].strip("\n").partition("\n")
        passages.append((heading.strip(), text.strip()))
    return ParsedPrompt(passages, rest[question_at + 1 + len(question_mark) :].strip(), refusal.group(1).strip())


@dataclass(frozen=True)
class Ranked:
    score: float  # normalised BM25 in [0, 1): share of the question's IDF mass the sentence matches
    passage: int  # 1-based, as numbered in the prompt
    sentence: str


def sentences_of(text: str) -> list[str]:
    out: list[str] = []
    for s in split_sentences(text):
        out.extend(p.strip() for p in _CJK_STOP.split(s) if p.strip())
    return out


@functools.lru_cache(maxsize=1 << 16)
def _tokens(text: str) -> tuple[str, ...]:
    # The same passages recur across contexts and panel members: tokenise each text once.
    return tuple(tokenize(text))


@functools.lru_cache(maxsize=1 << 16)
def _zh_tokens(text: str) -> tuple[str, ...]:
    # Chinese: jieba content words. Character bigrams of the question's function words ("是多", "多少")
    # would find no match anywhere and pull every score under the thresholds.
    return tuple(language.content_words(text, "zh"))


def rank_sentences(
    passages: Sequence[tuple[str, str]], question: str, passage_weight: float = PASSAGE_WEIGHT
) -> list[Ranked]:
    """Score every context sentence against the question; best first.

    A sentence's score mixes its own BM25 match with the match of its whole passage (heading
    included), both normalised to the share of the question's IDF mass they cover: a reader judges
    a sentence with its paragraph, where the party's name or the topic is often stated once.
    IDF is computed over the context's own sentences.
    """
    chinese = language.detect(question) == "zh"
    toks_of = _zh_tokens if chinese else _tokens
    units = [(n, s, toks_of(s)) for n, (_, text) in enumerate(passages, start=1) for s in sentences_of(text)]
    query = list(dict.fromkeys(toks_of(question)))
    # A Chinese frame naming the judgment ("在《……》中，", docs/method.md §1) is matched by the passage and
    # its heading, not by a sentence: a sentence is scored on the question without it.
    own_query = list(dict.fromkeys(toks_of(zh.focus(question)))) if chinese else query
    if not units or not query or not own_query:
        return []
    df = Counter(t for _, _, toks in units for t in set(toks))
    total = len(units)
    avg = sum(len(toks) for _, _, toks in units) / total or 1.0
    # Smoothed IDF over the context's sentences. A question word absent from the context gets the
    # largest weight, so missing evidence lowers every score; the +1 smoothing keeps that penalty
    # moderate in short contexts (a one-sentence context would otherwise weigh a miss 5x a hit).
    idf = {t: math.log(1 + (total + 1) / (df[t] + 1)) for t in dict.fromkeys(query + own_query)}
    mass = sum(idf[t] for t in query)
    own_mass = sum(idf[t] for t in own_query)
    # Sums run in query order, never in set order: string hashing differs between processes, and a float
    # sum in another order can differ in its last bit, enough to flip a tie between two sentences.
    covered = []
    for heading, text in passages:
        present = set(toks_of(f"{heading} {text}"))
        covered.append(sum(idf[t] for t in query if t in present) / mass)
    ranked = []
    for order, (n, sentence, toks) in enumerate(units):
        tf = Counter(toks)
        norm = K1 * (1 - B + B * len(toks) / avg)
        # Each term counts at most its IDF (one occurrence in an average-length sentence).
        own = sum(idf[t] * min(1.0, tf[t] * (K1 + 1) / (tf[t] + norm)) for t in own_query if tf[t]) / own_mass
        score = (1 - passage_weight) * own + passage_weight * covered[n - 1]
        ranked.append((-score, order, Ranked(score, n, sentence)))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in ranked]


def is_yesno(question: str) -> bool:
    return _AUX.match(question) is not None


def polarity(question: str, sentence: str) -> str:
    """'Yes' unless the question asks about a figure the sentence does not give (see other_figure) or
    the sentence and the question disagree on a negation cue."""
    if other_figure(_EN_FRAME.sub("", question), sentence):
        return "No"
    q = {m.lower()[:5] for m in _NEG.findall(question)}
    s = {m.lower()[:5] for m in _NEG.findall(sentence)}
    return "No" if bool(s - q) != bool(q - s) else "Yes"


def key_clause(sentence: str, question: str) -> str:
    """The clause of the sentence that matches the question best (ties: the earlier one)."""
    clauses = [c for c in _CLAUSE.split(sentence) if c and len(c.split()) >= 3] or [sentence]
    query = set(tokenize(question))
    best = max(enumerate(clauses), key=lambda ic: (len(query & set(tokenize(ic[1]))), -ic[0]))[1]
    return best.strip().rstrip(".") + "."


def figures(text: str) -> set[str]:
    return {f.replace(",", "").rstrip(".") for f in _FIGURE.findall(text)}


def other_figure(question: str, sentence: str) -> bool:
    """The question states a figure (amount, date, count) the sentence does not, while the sentence gives
    figures of its own: it asks about a different value ("Was the fine HK$85,000?" against HK$75,000)."""
    asked, given = figures(question), figures(sentence)
    return bool(asked and given and not asked <= given)


def zh_polarity(question: str, sentence: str) -> str:
    """是/否 for a Chinese yes/no question: 否 when the question states a figure the sentence does not
    give while the sentence gives figures of its own (the question asks about a different amount or
    date), else by the negation cues as in English."""
    if other_figure(zh.focus(question), sentence):
        return zh.NO
    return zh.polarity(question, sentence)


def zh_key_clause(sentence: str, question: str) -> str:
    """The Chinese clause of the sentence that matches the question best (see _zh_clause_weights; ties:
    the shorter, then the earlier one)."""
    clauses = [c for c in zh_punct.bare_clauses(sentence.rstrip(zh_punct.SENTENCE_ENDS)) if len(c) >= 4]
    if not clauses:
        return sentence
    weights = _zh_clause_weights(clauses, question)
    best = max(range(len(clauses)), key=lambda i: (sum(weights[i].values()), -len(clauses[i]), -i))
    return clauses[best] + "。"


def zh_span(sentence: str, question: str, budget: int = ZH_SPAN_TOKENS) -> str:
    """What a Chinese answer quotes of `sentence`: the sentence itself when it is within `budget` tokens,
    else the run of its clauses, verbatim and within the budget where it can be, that carries the
    question's key terms and figures. The run starts at the best clause and takes in a neighbour while
    the neighbour adds a key term the run lacks, so "骗取冯某的钱款为198,000元" is not cut from the
    party it names, and clauses about other matters stay out."""
    if language.count_tokens(sentence, "zh") <= budget:
        return sentence
    clauses = [c for c in zh_punct.clauses(sentence) if c.strip()]
    if len(clauses) < 2:
        return sentence
    weights = _zh_clause_weights(clauses, question)
    best = max(range(len(clauses)), key=lambda i: (sum(weights[i].values()), -len(clauses[i]), -i))
    lo = hi = best
    covered = dict(weights[best])
    while True:
        gains = []
        for j in (lo - 1, hi + 1):
            if 0 <= j < len(clauses):
                gain = sum(w for u, w in weights[j].items() if u not in covered)
                run = "".join(clauses[min(lo, j) : max(hi, j) + 1])
                if gain > 0 and language.count_tokens(run, "zh") <= budget:
                    gains.append((gain, -abs(j - best), -j, j))
        if not gains:
            break
        j = max(gains)[-1]
        covered |= weights[j]
        lo, hi = min(lo, j), max(hi, j)
    return "".join(clauses[lo : hi + 1]).strip().rstrip(zh_punct.CLAUSE_ENDS)


def _zh_clause_weights(clauses: Sequence[str], question: str) -> list[dict[str, float]]:
    """Per clause, the question's key units it holds and their weights. A unit is a character bigram of
    a key word of the question (found however jieba cuts the clause) or a figure the question states;
    a unit counts 1 / (clauses holding it), so the term that singles out one clause (冯某 among the
    parties) outweighs those every clause repeats, and the question's last key word, what it asks about
    (利率 in "……借款的月利率是多少？"), counts double. A question asking for a figure adds a small weight
    to each clause that gives one. A leading frame that names the judgment ("在《……判决书》中，", the
    standalone prefix of docs/method.md §1) picks the passage, not the clause: it is left out here."""
    question = zh.focus(question)
    query = _zh_key_units(question)
    asked = m.numbers(question, "zh")
    held = []
    for clause in clauses:
        hay = m.haystack(clause, "zh")
        units = {u for u in query if u in hay}
        units |= {f"#{n}" for n in asked & m.numbers(clause, "zh")}
        if _ZH_ASKS_FIGURE.search(question) and m.numbers(clause, "zh"):
            units.add("#figure")
        held.append(units)
    df = Counter(u for units in held for u in units)
    return [{u: query.get(u, 0.3 if u == "#figure" else 1.0) / df[u] for u in units} for units in held]


@functools.lru_cache(maxsize=1 << 12)
def _zh_key_units(question: str) -> dict[str, float]:
    """The question's key words as character bigrams, with their weight (2 for the last word, else 1).
    jieba's dictionary cut leaves a name such as 陈某 as two one-character words; a run of those is
    joined back into one word, so a name weighs as one term and 某 alone matches nothing."""
    words: list[str] = []
    run = ""
    for w in [*language.words(question, "zh"), ""]:
        if len(w) == 1 and language.has_cjk(w) and w not in language.STOPWORDS["zh"]:
            run += w
            continue
        if run:
            words.append(run)
            run = ""
        if w:
            words.append(w)
    keys = [w for w in words if language.has_cjk(w) and len(w) > 1 and w not in language.STOPWORDS["zh"]
            and not language.is_numeral(w) and w not in cues_zh.CURRENCY]
    units: dict[str, float] = {}
    for n, word in enumerate(keys):
        for unit in language.ngrams(word, 2, "zh"):
            units[unit] = max(units.get(unit, 0.0), 2.0 if n == len(keys) - 1 else 1.0)
    return units


class OfflineAnswerer:
    """One member of the offline panel: `offline:<style>`."""

    batch_size = 256
    # Cached answers are keyed by the version of this module and all it imports: editing the panel re-answers.
    version = CodeVersion()

    def __init__(self, style: str, threshold: float):
        if style not in STYLES:
            raise BackendError(f"offline answerer style {style!r} unknown; known: {list(STYLES)}")
        self.name = f"offline:{style}"
        self.style = style
        self.threshold = threshold

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        return [self.answer(r) for r in requests]

    def answer(self, request: Request) -> Response:
        parsed = parse_prompt(request.prompt)
        # The answer's language is the question's: a zh question is answered in Chinese throughout.
        chinese = language.detect(parsed.question) == "zh"
        ranked = rank_sentences(parsed.passages, parsed.question)
        best = ranked[0] if ranked else None
        meta = {"threshold": self.threshold, "score": round(best.score, 4) if best else 0.0}
        if best is None or best.score < self.threshold:
            if chinese:
                refusal = parsed.refusal if language.detect(parsed.refusal) == "zh" else zh.REFUSAL
                return _limit_zh(refusal, request.max_new_tokens, meta)
            return _limit(parsed.refusal, request.max_new_tokens, meta)
        meta["passage"] = best.passage
        if chinese:
            # Quote shorter clause runs until the answer fits, as a model asked to be concise would; a
            # cut answer only when even the shortest runs do not fit.
            for budget in _ZH_SHRINK:
                text = self._write_zh(parsed.question, ranked, budget)
                if language.count_tokens(text, "zh") <= request.max_new_tokens:
                    break
            return _limit_zh(text, request.max_new_tokens, meta)
        text = self._write(parsed.question, ranked)
        return _limit(text, request.max_new_tokens, meta)

    def _write(self, question: str, ranked: list[Ranked]) -> str:
        best = ranked[0]
        yn = polarity(question, best.sentence) if is_yesno(question) else None
        lead = f"{yn}. " if yn else ""
        if self.style == "cautious":
            return f'{lead}Passage [{best.passage}] states: "{best.sentence}"'
        if self.style == "confident":
            return self._overconfident(question, best, yn)
        if self.style == "terse":
            return f"{yn}." if yn else key_clause(best.sentence, question)
        second = ranked[1] if len(ranked) > 1 else None
        cited = sorted({best.passage} | ({second.passage} if second else set()))
        refs = " and ".join(f"[{n}]" for n in cited)
        body = best.sentence + (f" {second.sentence}" if second else "")
        return f"{lead}Reading the passages, the answer rests on the following. {body} (see passage{'s' if len(cited) > 1 else ''} {refs})"


    def _overconfident(self, question: str, best: Ranked, yn: str | None) -> str:
        """The confident style never holds back. On weak evidence it does what overconfident models do:
        a yes/no question gets the question's own premise asserted as the answer, and any other answer
        is padded with a generic claim the passages do not make. Strong evidence is quoted plainly."""
        lead = f"{yn}. " if yn else ""
        if best.score >= WEAK_EVIDENCE:
            return f"{lead}{best.sentence}"
        if yn:
            return f"Yes. {_capitalise(declarative(question))}."
        return f"{best.sentence} This is the approach usually taken in {area(question)} cases of this kind."


    def _write_zh(self, question: str, ranked: list[Ranked], budget: int = ZH_SPAN_TOKENS) -> str:
        """The four styles in Chinese wording; a yes/no answer opens with 是。 or 否。 (zh_forms). Each
        quoted sentence is its zh_span: the whole sentence, or the clauses of a long one that answer."""
        best = ranked[0]
        span = zh_span(best.sentence, question, budget)
        # Polarity is read on what is quoted: a negation in another clause of a long sentence ("但辩称……
        # 不能成立") says nothing about the clause that answers.
        yn = zh_polarity(question, span) if zh.is_yesno(question) else None
        lead = f"{yn}。" if yn else ""
        sentence = _zh_end(span)
        if self.style == "cautious":
            return f"{lead}第[{best.passage}]段写明：“{sentence}”"
        if self.style == "confident":
            if best.score >= WEAK_EVIDENCE:
                return f"{lead}{sentence}"
            if yn:
                return f"{zh.YES}。{zh.declarative(question)}。"
            return f"{sentence}这类案件在{zh.area(question)}实务中通常都是这样处理的。"
        if self.style == "terse":
            return lead or zh_key_clause(sentence, question)
        second = ranked[1] if len(ranked) > 1 else None
        cited = sorted({best.passage} | ({second.passage} if second else set()))
        refs = "和".join(f"第[{n}]段" for n in cited)
        body = sentence + (_zh_end(zh_span(second.sentence, question, budget)) if second else "")
        return f"{lead}通读上述段落，答案的依据如下。{body}（见{refs}）"


def _zh_end(sentence: str) -> str:
    """A Chinese sentence with its closing stop (a passage's last sentence may lack one)."""
    return sentence if sentence.endswith((*zh_punct.SENTENCE_ENDS, "”")) else f"{sentence}。"


def _limit_zh(text: str, max_new_tokens: int, meta: dict) -> Response:
    """max_new_tokens for Chinese, counted with the language module (about one token per character):
    keep the longest prefix that fits."""
    kept = language.longest_prefix_within(text, max_new_tokens, "zh")
    return Response(kept, "stop" if kept == text else "length", meta)


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _limit(text: str, max_new_tokens: int, meta: dict) -> Response:
    """Respect max_new_tokens (counted in whitespace words) the way a model would: cut and say so."""
    words = _TOKEN.findall(text)
    if len(words) > max_new_tokens:
        return Response(" ".join(words[:max_new_tokens]), "length", meta)
    return Response(text, "stop", meta)
