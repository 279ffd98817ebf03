"""scripts/blind_view.py: drawn validation items rendered for a blind reader, with nothing a judge or an
earlier reader said in view."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("blind_view", ROOT / "scripts" / "blind_view.py")
bv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bv)


def drawn(**changes) -> dict:
    item = {
        "id": "zh_heldout_2/qa-h2-1/gold_only/offline:terse",
        "source": "zh_heldout_2",
        "language": "zh",
        "half": "dev",
        "qa": {"id": "qa-h2-1", "question": "在(2020)苏0211民初4127号案中，原告的委托诉讼代理人是谁?", "answer": "谢0",
               "facts": ["谢0"], "qualifiers": []},
        "context": {"id": "qa-h2-1/gold_only", "passage_ids": ["md/p1"]},
        "passages": [{"id": "md/p1", "heading": "沈1诉无锡市某医院医疗损害责任纠纷一审民事判决书",
                      "text": "(2020)苏0211民初4127号。原告:沈1。委托诉讼代理人:谢0,江苏某律师事务所律师。"}],
        "candidate": {"id": "qa-h2-1/gold_only/offline:terse", "text": "委托诉讼代理人:谢0", "finish_reason": "length"},
        "refusal": "提供的段落没有足够的信息来回答这个问题。",
        "gold": {},
        "note": "",
    }
    item.update(changes)
    return item


def test_an_item_shows_what_the_generator_saw_and_the_reference():
    text = bv.render(drawn())
    for shown in ("原告的委托诉讼代理人是谁", "Reference: 谢0", "[1] (沈1诉无锡市某医院医疗损害责任纠纷一审民事判决书)",
                  "Refusal sentence: 提供的段落", "cut off at the token cap", "Answer (cut off at the token cap): 委托诉讼代理人:谢0"):
        assert shown in text
    impossible = bv.render(drawn(qa={**drawn()["qa"], "answer": ""}, candidate={**drawn()["candidate"],
                                                                                "finish_reason": "stop"}))
    assert "the set marks the question impossible" in impossible and "cut off" not in impossible


def test_labelled_or_compacted_items_are_refused(tmp_path, capsys):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(drawn(), ensure_ascii=False) + "\n", encoding="utf-8")
    assert bv.main([str(path)]) == 0
    assert "## zh_heldout_2/qa-h2-1/gold_only/offline:terse" in capsys.readouterr().out
    path.write_text(json.dumps(drawn(gold={"behaviour": "attempted"}), ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="carry labels"):
        bv.main([str(path)])
    path.write_text(json.dumps(drawn(passages=["059c7454837da824"]), ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="table keys"):
        bv.main([str(path)])
