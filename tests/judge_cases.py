"""Hand-built judge cases shared by the rule-judge test files: a question on one passage, and the label a
rule judge gives one answer to it."""

from __future__ import annotations

from pipeline.judges import JudgeItem, RuleJudge
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSALS = Params().generate.refusal_by_language()


def qa(qid: str, question: str, answer: str, passage: Passage, kind: str = "factual", facts=None) -> QA:
    return QA(qid, question, answer, passage.id, passage.decision_id, kind, [answer] if facts is None else facts, [])


def label(text: str, q: QA, passages: tuple[Passage, ...], lang: str = "zh", judge: RuleJudge = STRICT,
          finish: str = "stop"):
    cand = Candidate(f"{q.id}/ctx/gen:x", f"{q.id}/ctx", "gen:x", text, finish)
    return judge.judge_one(JudgeItem(cand, q, passages, True, REFUSALS[lang]))
