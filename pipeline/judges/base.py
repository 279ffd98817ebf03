"""The judge interface: every judge (rule or LLM) turns judge items into one Label per candidate."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pipeline import language, paths
from pipeline.matching import values
from pipeline.records import QA, Candidate, Label, Passage


@dataclass(frozen=True)
class JudgeItem:
    """Everything a judge may look at for one candidate: the answer, the context shown, the reference."""

    candidate: Candidate
    qa: QA
    passages: tuple[Passage, ...]
    answerable: bool
    refusal: str
    # Of an answer cut off at max_new_tokens and read on its finished part (as_judged): the unfinished
    # tail, no claim, kept only to tell a passage pasted on past the cut from an answer cut in its filler.
    tail: str = ""


def item_language(qa: QA) -> str:
    """The language a judge reads an item in: that of its question and reference answer (a QA record
    carries no language of its own; its decision's language is the one its text is written in)."""
    return language.detect(f"{qa.question}\n{qa.answer}")


# The finish_reason of an answer cut off at max_new_tokens (pipeline/backends/base.py Response).
CUT_OFF = "length"
# The end of a finished sentence: its stop (closing quotes and brackets stay with it), then a space, a
# line break or the end of the text; a Chinese stop needs no space after it, and in Chinese a ； (or the
# half-width ; of judgments as published) closes a finding as a stop does (language.sentences); a . right
# after a digit at the cut is the point of a figure cut in two ("218,452."), no stop.
_FINISHED = {
    "en": re.compile(r"[.!?。！？][\"'”’)）\]]*(?=\s|$)|\n"),
    "zh": re.compile(r"[。！？；!?;][”’」』）)\"']*|(?<![0-9])[.](?=\s|$)|(?<=[\u4e00-\u9fff])[.](?=[\u4e00-\u9fff])|\n"),
}


# In Chinese a sentence of judgment prose chains its findings with ，、 (or the half-width , of judgments as
# published, never the thousands separator of 218,452.37): a clause closed by one is finished, and only what
# follows the last such mark is the unfinished tail ("被告尚欠本金218,452.37元、利息及罚息9" states the
# principal). A colon opens what follows and closes nothing ("第[1]段写明：" states nothing by itself).
# A , right after a digit at the cut may be a thousands separator ("赔偿金人民币壹拾万零捌仟元整(108,"): no end.
# A bracket opened after words closes them, an aside never splitting what stands before it ("……中的第一项决议
# （注册资本增至3,000" states the resolution); not one opening a case number or a figure ("人民法院(2020)苏").
_CLAUSE_END = {"zh": re.compile(r"[，、]|(?<![0-9]),|,(?![0-9]|$)|(?<=[\u4e00-\u9fff])[（(](?![0-9０-９])")}
# A figure closed by its unit, 元 or %, is whole whatever the cut leaves after it ("吴某尚欠货款63,500元" states
# the debt; "本金218,452." does not): the clause up to its unit is finished. A duration, a date or a bare 万
# may still go on (三年 -> 三年六个月, 3万 -> 3万5千元), so they close nothing.
# A sum in the capital numerals of a judgment's 人民币壹拾万零捌仟元整 is closed by its 元 as well.
_FIGURE_END = {"zh": re.compile(
    r"(?:[0-9０-９][0-9０-９,.]*|[零〇一二两三四五六七八九十百千壹贰叁肆伍陆柒捌玖拾佰仟]+)[万亿]?元|[0-9０-９][0-9０-９.]*[%％]"
)}
# Asked for a time limit, the limit is closed by its 内 ("于本判决生效之日起十五日内" to 应在多长期限内补发): the period
# to act in is whole, whatever the cut took of the act.
_ASKS_LIMIT = {"zh": re.compile(r"期限|多长时间内|多久|[几多少]+个?(?:工作日|日|天|月|年)内")}
_LIMIT_END = {"zh": re.compile(r"(?:[0-9０-９]+|[零〇一二两三四五六七八九十百千]+)个?(?:工作日|日|天|月|年)以?内")}


_BARE_NUMBER = re.compile(r"(?:,|\s+(?:and|or))\s+[0-9][0-9,.]*$")
_COUNTED = re.compile(r"\b[0-9][0-9,]*\s+[a-z]{3,}")
_QUOTE_OPENS = re.compile(r"^[^\"“]{0,40}:\s*[\"“]")


def _pasted_through(text: str, end: int, passages: Sequence[Passage]) -> int:
    """Where the finished part of an English cut-off reply ends when its unfinished tail is a passage
    pasted word for word: what it pasted whole before the cut is the passage's own words, stated as the
    passage states them ("... contrary to section 9" of "... contrary to section 9 of the Theft Ordinance"
    names section 9), when it names a value whole. A word the cut split is not pasted ("$29,4" of "$29,410"),
    nor is a value the passage goes on with ("4 years" of "4 years and 6 months"); a tail of fewer than three
    words is no paste."""
    tail = text[end:]
    run = tail.strip()
    start = end + len(tail) - len(tail.lstrip())
    # An attributed quote (Passage [1] states: "...) pastes what follows its opening mark.
    quoted = _QUOTE_OPENS.match(run)
    if quoted:
        start, run = start + quoted.end(), run[quoted.end() :]
    if len(run.split()) < 3:
        return end
    for passage in passages:
        at = passage.text.find(run)
        if at < 0:
            continue
        stop = len(run)
        after = at + stop
        if after < len(passage.text) and passage.text[after].isalnum() and run[-1].isalnum():
            stop = max(run.rfind(" "), 0)
        split = values.split_at(passage.text, at + stop)
        if split is not None:
            stop = split - at
        whole = run[:stop].rstrip(" ,;:(")
        # A number whose noun never came ("312 handbags and 188" of "... and 188 wallets") counts nothing.
        bare = _BARE_NUMBER.search(whole)
        if bare and passage.text[at + bare.end() : at + bare.end() + 2].strip()[:1].isalpha():
            whole = whole[: bare.start()].rstrip(" ,;:(")
        # Only a paste naming a value whole is read on: "The landlord was not entitled to" states nothing,
        # its negation's object never came; a count is a value ("312 handbags").
        named = values.kinds(whole, "en") or _COUNTED.search(whole)
        return start + len(whole) if len(whole.split()) >= 3 and named else end
    return end


def cut_off(item: JudgeItem) -> bool:
    return item.candidate.finish_reason == CUT_OFF


def as_judged(item: JudgeItem) -> JudgeItem | None:
    """The item a judge reads (docs/method.md §4). An answer cut off at max_new_tokens is judged on its
    finished sentences (in Chinese, its finished clauses): the unfinished tail is no claim (a cut number or
    a negation that never came would be read as one). None when the cut leaves nothing finished: that
    candidate is unusable."""
    if not cut_off(item):
        return item
    text, lang = item.candidate.text, item_language(item.qa)
    ends = [m.end() for m in _FINISHED[lang].finditer(text)]
    if lang in _CLAUSE_END:
        ends += [m.start() for m in _CLAUSE_END[lang].finditer(text)]
        ends += [m.end() for m in _FIGURE_END[lang].finditer(text)]
        if _ASKS_LIMIT[lang].search(item.qa.question):
            ends += [m.end() for m in _LIMIT_END[lang].finditer(text)]
    end = max(ends) if ends else 0
    if lang == "en":
        end = _pasted_through(text, end, item.passages)
    kept = text[:end].strip()
    if not kept:
        return None
    return dataclasses.replace(item, candidate=dataclasses.replace(item.candidate, text=kept), tail=text[end:])


def unusable(item: JudgeItem, judge: str) -> Label:
    return Label(item.candidate.id, judge, "unusable", None, None, None, "ok")


def cap_cut_off(item: JudgeItem, label: Label) -> Label:
    """A cut-off answer is never complete: what it would have said next is unknown."""
    if cut_off(item) and label.completeness == "complete":
        label.completeness = "incomplete"
    return label


class Judge(Protocol):
    name: str

    def judge(self, items: Sequence[JudgeItem]) -> list[Label]:
        """One Label per item, in the same order; never drops an item."""
        ...


def file_name(judge: str) -> str:
    """Labels file name of a judge spec ("rule:strict" -> "rule-strict.jsonl")."""
    return judge.replace(":", "-").replace("/", "-").replace("|", "-") + ".jsonl"


def labels_file(judge: str) -> Path:
    """The judge stage's labels file of a judge spec."""
    return paths.LABELS / file_name(judge)
