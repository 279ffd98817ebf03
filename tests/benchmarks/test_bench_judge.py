"""pytest-benchmark: the rule judges on a few hundred hand-built English and Chinese answers (the records of
tests/test_judge_parties.py, each answer under many ids and contexts).

Skipped by default (--benchmark-skip in pyproject); run with `pytest tests/benchmarks --benchmark-only`.
Each round builds a new judge, so its passage cache starts empty as in the judge stage.
"""

from __future__ import annotations

import pytest
from test_judge_parties import (
    ISSUE,
    LOAN,
    OTHER_LOAN,
    PENALTY,
    REFUSALS,
    REFUSED,
    REPAID,
    SUSPEND,
    YEUNG,
    YIP,
)

from pipeline.judges import JudgeItem, RuleJudge
from pipeline.records import Candidate

ANSWERS = [
    (PENALTY, (YEUNG, YIP), [YEUNG.text, YIP.text, "HK$2,176,000.", REFUSALS["en"]]),
    (SUSPEND, (REFUSED, ISSUE), ["No.", "Yes. Chu Sze-wing could avoid going to prison straight away.", REFUSED.text]),
    (REPAID, (LOAN, OTHER_LOAN), ["借款到期后,朱0仅归还本金20,000元", "借款到期后,朱1仅归还本金10,000元", LOAN.text[:60]]),
]


@pytest.fixture(scope="module")
def items():
    out = []
    for n in range(40):
        for qa, passages, texts in ANSWERS:
            lang = "zh" if qa.id.startswith("zq") else "en"
            for k, text in enumerate(texts):
                cand = Candidate(f"{qa.id}/c{n}/g{k}", f"{qa.id}/c{n}", f"g{k}", text, "length" if k == 2 else "stop")
                out.append(JudgeItem(cand, qa, passages, True, REFUSALS[lang]))
    return out


@pytest.mark.parametrize("strictness", ["strict", "lenient"])
def test_bench_rule_judge(benchmark, items, strictness):
    labels = benchmark.pedantic(lambda: RuleJudge(strictness).judge(items), rounds=3, warmup_rounds=1)
    assert len(labels) == len(items)
