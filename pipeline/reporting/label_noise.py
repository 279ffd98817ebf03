"""A data set's own label noise, made visible (docs/method.md §10, data report "Label noise").

The leak check: a context built unanswerable ("no passage holds the answer") whose passage does answer
the question by a cheap reading. A passage answers when

- it is about the judgment the question names, if the question names one by a leading frame
  ("在《……判决书》中，", "根据《……》，", "In Chan v Wong, "): at least `tau` of the frame's words are in the
  passage or its heading;
- one of its sentences holds at least `tau` of the rest of the question's content words (a Chinese word
  counts when it is in the sentence as written, however the segmenter cut it);
- and that sentence states the answer: every fact of the reference (compared without spaces, with
  half-width marks as full-width), or, for a question without facts (a SQuAD "impossible" one), a figure
  when the question asks for one (多少, 几, how much, when).

It errs on the side of silence: a paraphrase with other words is not found. What it finds is a reason to
read the item (the explorer marks it), not a label. Reference checks are the importer's
(pipeline/importers/reference_checks.py); this module also applies them to a pair's reference and gold
passage for the explorer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline import language
from pipeline.importers.reference_checks import reference_problem
from pipeline.language import zh_forms, zh_punct
from pipeline.records import QA, Context, Decision, Passage

if TYPE_CHECKING:  # types only: the explorer imports this module without the data report's inputs
    from pipeline.judges.inputs import InterimData
    from pipeline.params import Params

EXAMPLES = 5
_EN_FRAME = re.compile(r"^(?:according to|in the decision of|in)\b[^,?]*,\s*", re.I)
_ASKS_FIGURE = {
    "zh": re.compile(r"多少|几|何时|什么时候|哪一天|哪天|哪一年|哪年|日期|金额|数额|比例|多长|多久"),
    "en": re.compile(r"\bhow (?:much|many|long|old)\b|\bwhen\b|\bwhat (?:date|year|amount|sum|percentage)\b", re.I),
}
_FIGURE = re.compile(r"\d|[零〇一二两三四五六七八九十百千万亿]")


def split_frame(question: str, lang: str) -> tuple[str, str]:
    """(the leading frame that names the judgment, the rest of the question); the frame may be ""."""
    if lang == "zh":
        rest = zh_forms.focus(question)
        at = question.find(rest) if rest else -1
        return (question[:at], question[at:]) if at > 0 else ("", question)
    found = _EN_FRAME.match(question)
    return (found.group(0), question[found.end():]) if found else ("", question)


def _words(text: str, lang: str) -> list[str]:
    return list(dict.fromkeys(language.content_words(text, lang)))


def _share(words: list[str], text: str, lang: str) -> float:
    if not words:
        return 1.0
    if lang == "zh":
        hay = text.lower()
        return sum(w in hay for w in words) / len(words)
    have = set(language.words(text, "en"))
    return sum(w in have for w in words) / len(words)


def _plain(text: str) -> str:
    return zh_punct.full_width("".join(text.split())).lower()


def answering_sentence(qa: QA, heading: str, text: str, lang: str, tau: float) -> str | None:
    """The sentence of a passage (heading, text) that answers `qa` by the leak check, or None."""
    frame, rest = split_frame(qa.question, lang)
    if frame and _share(_words(frame, lang), f"{heading}\n{text}", lang) < tau:
        return None
    words = _words(rest, lang)
    if not words:
        return None
    facts = [_plain(f) for f in qa.facts] if qa.kind != "yesno" else []
    figure = not qa.facts and _ASKS_FIGURE[lang].search(rest) is not None
    for sentence in language.sentences(text, lang):
        if _share(words, sentence, lang) < tau:
            continue
        plain = _plain(sentence)
        if facts and not all(f in plain for f in facts):
            continue
        if figure and not _FIGURE.search(sentence):
            continue
        return sentence
    return None


@dataclass(frozen=True)
class Leak:
    context_id: str
    qa_id: str
    passage_id: str
    slot: int  # 1-based, as numbered in the prompt
    sentence: str


def find_leaks(qas: Mapping[str, QA], passages: Mapping[str, Passage], contexts: Iterable[Context],
               language_of: Callable[[QA], str], tau: float) -> list[Leak]:
    """Every unanswerable context with a passage that answers its question (the first such passage)."""
    out = []
    for c in contexts:
        qa = qas.get(c.qa_id)
        if c.answerable or qa is None:
            continue
        lang = language_of(qa)
        for slot, pid in enumerate(c.passage_ids, start=1):
            p = passages[pid]
            sentence = answering_sentence(qa, p.heading, p.text, lang, tau)
            if sentence:
                out.append(Leak(c.id, qa.id, pid, slot, sentence))
                break
    return out


def leak_summary(leaks: list[Leak], contexts: Iterable[Context], qas: Mapping[str, QA],
                 group_of: Callable[[QA], str]) -> dict[str, dict]:
    """Per question set (group_of): unanswerable contexts, those with a leak (by variant), the questions
    they belong to (and how many of those have no reference: "impossible" ones) and the first examples."""
    out: dict[str, dict] = {}
    for c in contexts:
        qa = qas.get(c.qa_id)
        if qa is None or c.answerable:
            continue
        row = out.setdefault(group_of(qa), {"unanswerable_contexts": 0, "with_answer": 0, "questions": 0,
                                            "impossible_questions": 0, "by_variant": Counter(), "examples": []})
        row["unanswerable_contexts"] += 1
    seen: dict[str, set[str]] = {}
    for leak in leaks:
        qa = qas[leak.qa_id]
        row = out[group_of(qa)]
        row["with_answer"] += 1
        row["by_variant"][leak.context_id.rsplit("/", 1)[1]] += 1
        if leak.qa_id not in seen.setdefault(group_of(qa), set()):
            seen[group_of(qa)].add(leak.qa_id)
            row["questions"] += 1
            row["impossible_questions"] += not qa.facts
        if len(row["examples"]) < EXAMPLES:
            row["examples"].append({"context": leak.context_id, "question": qa.question, "reference": qa.answer,
                                    "passage": leak.passage_id, "slot": leak.slot, "sentence": leak.sentence})
    for row in out.values():
        row["by_variant"] = dict(sorted(row["by_variant"].items()))
    return dict(sorted(out.items()))


def pair_notes(qa: QA | None, blocks: list[tuple[str, str]], answerable: bool, gold_slot: int | None, lang: str,
               tau: float) -> list[str]:
    """What the explorer says about a pair's labels: the passage of an unanswerable context that answers
    its question, or a reference that fails the importer's checks against its gold passage."""
    if qa is None:
        return []
    if not answerable:
        for slot, (heading, text) in enumerate(blocks, start=1):
            sentence = answering_sentence(qa, heading, text, lang, tau)
            if sentence:
                return [f"built unanswerable, but passage [{slot}] answers by the leak check: {sentence}"]
        return []
    if qa.kind == "yesno" or gold_slot is None or gold_slot >= len(blocks):
        return []
    problem = reference_problem([qa.answer], blocks[gold_slot][1], lang)
    return [f"reference fails a check: {problem}"] if problem else []


IMPORT = "corpus.qa_import"
GENERATED = "decisions"


def label_noise(corpus: InterimData, decisions: Sequence[Decision], imports: list[dict], params: Params) -> dict:
    """The data report's label-noise numbers: per question set (the imported QA set, and the questions
    made from decisions as a baseline), the leak check's count; and the QA import's own account
    (pipeline/importers/squad.py): what the standalone rule did and the reference checks."""
    language_of_decision = {d.id: d.language for d in decisions}
    passages = corpus.passages

    def group_of(qa: QA) -> str:
        return GENERATED if passages[qa.gold_passage_id].decision_id in language_of_decision else IMPORT

    def language_of(qa: QA) -> str:
        return language_of_decision.get(passages[qa.gold_passage_id].decision_id, params.corpus.qa_import.language)

    contexts = list(corpus.contexts.values())
    leaks = find_leaks(corpus.qas, passages, contexts, language_of, params.report.leak_coverage)
    account = next((s for s in imports if s.get("import") == IMPORT), {})
    return {"leak_coverage": params.report.leak_coverage,
            "leaks": leak_summary(leaks, contexts, corpus.qas, group_of),
            "standalone": account.get("standalone"), "references": account.get("references")}


def explorer_items(leaks: list[Leak], qas: Mapping[str, QA], answers: Mapping[str, list[list[str]]],
                   references: dict | None) -> list[dict]:
    """The explorer's list of label noise, one item per flagged context or reference, pairs or not (a
    leaking context whose answers all attempt makes no pair): the leak's sentence with the context's
    answers ([generator, text, primary label] each), and the importer's failed references."""
    items = [{"kind": "leak", "ctx": leak.context_id, "q": qas[leak.qa_id].question, "ref": qas[leak.qa_id].answer,
              "slot": leak.slot, "s": leak.sentence, "ans": answers.get(leak.context_id, [])} for leak in leaks]
    for reason, examples in ((references or {}).get("examples") or {}).items():
        items += [{"kind": reason, "ctx": e["id"], "q": e["question"], "ref": e["reference"], "s": e["passage"]}
                  for e in examples]
    for item in items:  # the page's font and line breaking follow the item's language
        item["lg"] = language.detect(f"{item['q']}{item['s']}")
    return items
