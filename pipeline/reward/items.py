"""What a reward model is asked to score: an item is one question, the passages shown with it and the
responses to compare. The command (one item per JSONL line) and the server (a list under "items") take
the same schema, checked here, once:

    {"id": "q1",                                  optional; a string (default: the line or list position)
     "question": "Was the appeal allowed?",       required, not blank
     "passages": [{"heading": "Decision", "text": "..."}, "a passage as plain text", ...],
                                                  required, at least one; text not blank, heading optional
     "responses": ["Yes. ...", "No. ...", ...],   required, at least one string, at most reward.max_responses
     "gold": 0}                                   optional: the index of a passage that fitting never drops

Other fields are ignored. The prompt the model scores is built from question and passages by the function
that built every training and scored prompt (pipeline/prompts.py answer_prompt_with_spans), with the
refusal sentence of the question's language (generate.refusal, generate.refusals).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.language import refusal_of
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Passage


class FieldError(ValueError):
    """One field of one item is wrong: `field` is its path inside the item ("responses[2]")."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass(frozen=True)
class Item:
    id: str
    question: str
    passages: tuple[Passage, ...]
    responses: tuple[str, ...]
    gold: int | None = None

    def prompt(self, refusals: str | Mapping[str, str]) -> tuple[str, list[list[int]]]:
        """The prompt and its passage spans, exactly as the pairs stage builds them for a context."""
        return answer_prompt_with_spans(self.passages, self.question, refusal_of(self.question, refusals))


def _text(value: Any, field: str, blank_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise FieldError(field, f"must be a string, got {type(value).__name__}")
    if not blank_ok and not value.strip():
        raise FieldError(field, "is blank")
    return value


def _passage(value: Any, field: str, item_id: str, k: int) -> Passage:
    if isinstance(value, str):
        heading, text = "", _text(value, field)
    elif isinstance(value, dict):
        if "text" not in value:
            raise FieldError(f"{field}.text", "missing")
        text = _text(value["text"], f"{field}.text")
        heading = _text(value.get("heading", ""), f"{field}.heading", blank_ok=True)
    else:
        raise FieldError(field, f"must be an object with text (and heading) or a string, got {type(value).__name__}")
    return Passage(f"{item_id}/p{k}", item_id, item_id, heading, text)


def parse_item(obj: Any, default_id: str, max_responses: int) -> Item:
    """One item from decoded JSON; FieldError names the first wrong field."""
    if not isinstance(obj, dict):
        raise FieldError("item", f"must be a JSON object, got {type(obj).__name__}")
    item_id = _text(obj["id"], "id") if "id" in obj else default_id
    for name in ("question", "passages", "responses"):
        if name not in obj:
            raise FieldError(name, "missing")
    question = _text(obj["question"], "question")
    raw_passages, raw_responses = obj["passages"], obj["responses"]
    if not isinstance(raw_passages, list) or not raw_passages:
        raise FieldError("passages", "must be a non-empty list")
    if not isinstance(raw_responses, list) or not raw_responses:
        raise FieldError("responses", "must be a non-empty list of strings")
    if len(raw_responses) > max_responses:
        raise FieldError("responses", f"{len(raw_responses)} responses, at most {max_responses} "
                                      "(reward.max_responses)")
    passages = tuple(_passage(p, f"passages[{k}]", item_id, k) for k, p in enumerate(raw_passages))
    responses = tuple(_text(r, f"responses[{k}]", blank_ok=True) for k, r in enumerate(raw_responses))
    gold = obj.get("gold")
    if gold is not None and (isinstance(gold, bool) or not isinstance(gold, int) or not 0 <= gold < len(passages)):
        raise FieldError("gold", f"must be the index of a passage (0..{len(passages) - 1}), got {gold!r}")
    return Item(item_id, question, passages, responses, gold)
