"""A QA set that brings its own contexts (SQuAD 2.0-style JSON) -> Passages and QA records.

Format: `{"data": [{"title": ..., "paragraphs": [{"context": ..., "qas": [{"id", "question",
"answers": [{"text", "answer_start"}], "is_impossible"}]}]}]}` -- one file, or a folder of *.json files in
name order. `is_impossible` may be a boolean or "true"/"false" (as Chinese judicial reading-comprehension
sets write it). A yes/no question is one whose answer text is YES/NO (yes/no, 是/否; answer_start is then
not checked) or that carries `yesno_answer` (also `yes_no`, `yesno`) with such a value.

What becomes of it:
- each paragraph is one Passage (never split or merged: the answer spans point into it), in the family of
  its article (params `corpus.qa_import.family`), ids `<prefix>a<article>/p<paragraph>`;
- each question is one QA whose gold passage is its paragraph: factual (facts = [first answer text]) or
  yesno (facts = ["Yes"] or ["No"], the polarity convention of pipeline/corpus/questions.py);
- an impossible question is kept as a QA with no answer (answer "", facts []): the contexts stage builds
  every variant of it as unanswerable, its own paragraph included where the variant includes the gold
  passage -- the hard negative SQuAD 2.0 was written for (pipeline/retrieval/variants.py, `no_answer`).
Every answer span must equal context[answer_start : answer_start + len(text)]; errors name the file, the
JSON path and the question id. A question marked impossible that carries an answer contradicts itself
(which half is wrong cannot be told): it stops the import, or under `on_invalid: skip` is left out under
its own reason, impossible_with_answer. Skipping leaves out a question, or a paragraph (with its
questions) whose context is missing, empty or in another language, or an article without paragraphs;
a file that is not JSON, or has no `data` list, always stops.

Two accounts go with the skipped records (`skips.notes`): `standalone`, what params
`corpus.qa_import.standalone` did to questions bound to their document (pipeline/importers/standalone.py;
a bound question left out is counted among the skipped records under its reason, whatever `on_invalid`
says), and `references`, the sanity checks of the set's own answers (pipeline/importers/reference_checks.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.importers import Invalid, Skips, files_of, no_records, safe_id
from pipeline.importers.checks import language_mismatch
from pipeline.importers.reference_checks import ReferenceChecks
from pipeline.importers.standalone import StandaloneCounts, make_standalone
from pipeline.io import InputError, require_path
from pipeline.params import QaImportParams
from pipeline.records import QA, Passage

PARAM = "corpus.qa_import.path"

YES = {"yes", "y", "是"}
NO = {"no", "n", "否"}
YESNO_KEYS = ("yesno_answer", "yes_no", "yesno")
# The reference answer of a yes/no question, in the set's language; the polarity fact stays Yes/No.
POLARITY = {"en": {"Yes": "Yes", "No": "No"}, "zh": {"Yes": "是", "No": "否"}}


def load_squad(
    cfg: QaImportParams, root: Path = Path("."), skips: Skips | None = None
) -> tuple[list[Passage], list[QA]]:
    """Passages and QA of the file (or folder of *.json files) `cfg.path`; invalid questions stop the
    import or are counted in `skips` (cfg.on_invalid)."""
    skips = skips if skips is not None else Skips("corpus.qa_import", cfg.on_invalid)
    path = root / cfg.path
    require_path(path, PARAM, missing="not found")
    passages: list[Passage] = []
    qas: list[QA] = []
    seen: dict[str, str] = {}
    standalone, references = StandaloneCounts(cfg.standalone), ReferenceChecks()
    for k, file in enumerate(files_of(path, "*.json", PARAM), start=1):
        stem = f"f{k}-" if path.is_dir() else ""
        p, q = parse_squad(_read(file), file, cfg, f"{cfg.id_prefix}{stem}", seen, skips, standalone, references)
        passages += p
        qas += q
    skips.notes["standalone"] = standalone.summary()
    skips.notes["references"] = references.summary()
    if not passages:
        empty = no_records(path, PARAM)
        raise InputError(empty.path, None, None, empty.message + skips.note())
    return passages, qas


def _read(file: Path) -> Any:
    try:
        text = file.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(file, None, None, f"invalid UTF-8 at byte {exc.start}") from None
    if not text.strip():  # JSON would call it malformed; it is an import that holds nothing
        raise InputError(file, None, None, f"no records (an empty file; {PARAM} names one SQuAD-style JSON "
                                           "file or a folder of them)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(file, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})") from None


def parse_squad(
    obj: Any, file: Path, cfg: QaImportParams, prefix: str, seen: dict[str, str], skips: Skips | None = None,
    standalone: StandaloneCounts | None = None, references: ReferenceChecks | None = None,
) -> tuple[list[Passage], list[QA]]:
    """Pure core: a decoded SQuAD-style object -> (passages, QA); `seen` maps QA ids to their JSON path.
    `standalone` and `references` receive what the standalone rule and the reference checks found."""
    skips = skips if skips is not None else Skips("corpus.qa_import", cfg.on_invalid)
    standalone = standalone if standalone is not None else StandaloneCounts(cfg.standalone)
    references = references if references is not None else ReferenceChecks()
    data = _get(obj, "data", list, file, "")
    passages: list[Passage] = []
    qas: list[QA] = []
    for i, article in enumerate(data):
        where_a = f"data[{i}]"
        try:
            title = article.get("title", "") if isinstance(article, dict) else ""
            if not isinstance(title, str):
                raise Invalid("wrong_type", file, None, f"{where_a}.title", "expected a string")
            paragraphs = _get(article, "paragraphs", list, file, where_a)
        except InputError as exc:
            skips.record(exc)
            continue
        article_id = f"{prefix}a{i + 1}"
        for j, paragraph in enumerate(paragraphs):
            where_p = f"{where_a}.paragraphs[{j}]"
            try:
                context = _get(paragraph, "context", str, file, where_p)
                if not context.strip():
                    raise Invalid("empty_context", file, None, f"{where_p}.context", "empty context")
                mismatch = language_mismatch(cfg.language, context)
                if mismatch:
                    raise Invalid("language_mismatch", file, None, f"{where_p}.context", mismatch)
                questions = _get(paragraph, "qas", list, file, where_p)
            except InputError as exc:
                skips.record(exc)
                continue
            pid = f"{article_id}/p{j + 1}"
            family = article_id if cfg.family == "article" else pid
            passages.append(Passage(pid, article_id, family, title, context, position=j))
            for m, qa in enumerate(questions):
                where_q = f"{where_p}.qas[{m}]"
                references.check(qa, context, cfg.language, where_q, frozenset(YES | NO))
                try:
                    record = _qa(qa, file, where_q, context, pid, family, cfg, seen)
                except InputError as exc:
                    skips.record(exc)
                    continue
                seen[record.id] = where_q
                question, reason = make_standalone(record.question, title, context, cfg.language,
                                                   cfg.standalone, standalone, record.id)
                if question is None:
                    skips.leave_out(str(reason), file, f"{where_q}.question",
                                    f"question {record.id!r} names no party or case of its own (standalone: "
                                    f"{cfg.standalone})")
                    continue
                qas.append(replace(record, question=question))
    return passages, qas


def _qa(
    obj: Any, file: Path, where: str, context: str, pid: str, family: str, cfg: QaImportParams, seen: dict
) -> QA:
    raw_id = _get(obj, "id", (str, int), file, where)
    qid = safe_id(str(raw_id), cfg.id_prefix)
    if qid in seen:
        raise Invalid(
            "duplicate_id", file, None, f"{where}.id", f"duplicate question id {raw_id!r} (first at {seen[qid]})"
        )
    question = _get(obj, "question", str, file, where)
    if not question.strip():
        raise Invalid("empty_question", file, None, f"{where}.question", f"question {raw_id!r}: empty question")
    impossible = _impossible(obj.get("is_impossible", False), file, f"{where}.is_impossible", raw_id)
    answers = [
        a
        for a in _get(obj, "answers", list, file, where, default=[])
        if not (isinstance(a, dict) and a.get("text") == "")
    ]
    polarity = _yesno_key(obj, file, where, raw_id)
    if impossible and (answers or polarity):
        raise Invalid(
            "impossible_with_answer", file, None, f"{where}.answers",
            f"question {raw_id!r} is_impossible but has an answer",
        )
    spans: list[str] = []
    for n, answer in enumerate(answers):
        here = f"{where}.answers[{n}]"
        text = _get(answer, "text", str, file, here)
        flag = _polarity(text)
        if flag:
            polarity = polarity or flag
            continue
        start = _get(answer, "answer_start", int, file, here)
        found = context[start : start + len(text)] if start >= 0 else ""
        if found != text:
            raise Invalid(
                "answer_span_mismatch",
                file,
                None,
                f"{here}.answer_start",
                f"question {raw_id!r}: answer {text!r} is not at {start} of the context (found {found!r})",
            )
        spans.append(text)
    if impossible:
        return QA(qid, question, "", pid, family, "factual", [], [])
    if polarity:
        return QA(qid, question, POLARITY[cfg.language][polarity], pid, family, "yesno", [polarity], [])
    if not spans:
        raise Invalid(
            "no_answer", file, None, f"{where}.answers", f"question {raw_id!r}: no answer and not is_impossible"
        )
    return QA(qid, question, spans[0], pid, family, "factual", [spans[0]], [])


def _polarity(text: str) -> str | None:
    low = text.strip().lower()
    return "Yes" if low in YES else "No" if low in NO else None


def _yesno_key(obj: dict, file: Path, where: str, raw_id: Any) -> str | None:
    for key in YESNO_KEYS:
        value = obj.get(key)
        if value in (None, "", "unknown", "UNKNOWN"):
            continue
        flag = _polarity(value) if isinstance(value, str) else None
        if flag is None:
            raise Invalid(
                "wrong_type", file, None, f"{where}.{key}", f"question {raw_id!r}: expected yes/no, got {value!r}"
            )
        return flag
    return None


def _impossible(value: Any, file: Path, where: str, raw_id: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise Invalid("wrong_type", file, None, where, f"question {raw_id!r}: expected true or false, got {value!r}")


def _get(obj: Any, key: str, kind: type | tuple, file: Path, where: str, default: Any = ...) -> Any:
    if not isinstance(obj, dict):
        raise Invalid("not_an_object", file, None, where or None, "expected a JSON object")
    here = f"{where}.{key}" if where else key
    if key not in obj:
        if default is not ...:
            return default
        raise Invalid("missing_key", file, None, here, "missing")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise Invalid("wrong_type", file, None, here, f"expected {names}, got {type(value).__name__}")
    return value
