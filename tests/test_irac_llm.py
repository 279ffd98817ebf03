"""docs/method.md §11 model systems and the A/B/C grader against a real loopback OpenAI-compatible HTTP server.

The server's "model" is deterministic code (no weights can be downloaded here): see ScriptedModel.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler

import pytest
from conftest import LoopbackServer, chat_reply, read_chat, send_json

from pipeline.backends import make_generator
from pipeline.io import read_records, write_records
from pipeline.irac.llm import (
    Grader,
    ModelSystem,
    ReplyError,
    grade_schema,
    output_id,
    parse_fields,
    parse_grade,
    split_answer,
)
from pipeline.irac.prompts import (
    EXPERT_STEPS,
    GENERIC_STEPS,
    GRADES,
    MARKER,
    MODES,
    REASONING_MODES,
    analysis_prompt,
    fields_prompt,
    grader_prompt,
    retry_note,
)
from pipeline.irac.schema import field_specs, schema_key
from pipeline.params import DecodingParams, GenerateParams
from pipeline.records import SAFE_ID, Decision, IracGrade, IracOutput, Section
from pipeline.structured.schemas import choice_token_bound, fields_schema
from pipeline.text import stable_hash

DECODING = DecodingParams(temperature=0.0, top_p=1.0, max_new_tokens=64)
DATE = re.compile(
    r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}\b"
)


def decision(did: str, case_type: str, title: str, body: str, fields: dict[str, str], language="en") -> Decision:
    text = f"{title}\n\n{body}"
    return Decision(
        did, "test", language, case_type, title, "2019-05-15", text, [Section("s1", "Body", body)], fields
    )


INSIDER = decision(
    "d-insider",
    "insider_trading",
    "Securities and Futures Commission v Chan Tai-man",
    "On 15 May 2019 the Tribunal found that Chan Tai-man dealt in 2200000 shares while in possession of "
    "inside information. He was ordered to pay a pecuniary penalty of HK$2,400,000.",
    {
        "decision_date": "15 May 2019",
        "respondent": "Chan Tai-man",
        "penalty_amount": "HK$2,400,000",
        "shares_traded": "2200000",
        "issue": "whether Chan Tai-man engaged in insider dealing",
        "conclusion": "Chan Tai-man must pay HK$2,400,000",
    },
)
# GARBLE-ONCE: the scripted model answers badly until the prompt carries a retry note.
SENTENCING = decision(
    "d-sentencing",
    "criminal_sentencing",
    "HKSAR v Lee Ka-wai",
    "Reference GARBLE-ONCE. On 3 June 2020 the court sentenced Lee Ka-wai to 18 months and ordered "
    "compensation of HK$50,000.",
    {"decision_date": "3 June 2020", "defendant": "Lee Ka-wai", "sentence": "18 months"},
)
# GARBLE-ALWAYS: never a usable reply.
TENANCY = decision(
    "d-tenancy",
    "residential_tenancy",
    "Wong Siu-ming v Cheung Mei-ling",
    "Reference GARBLE-ALWAYS. On 1 March 2021 the tribunal ordered the tenant to pay arrears of HK$36,000.",
    {"decision_date": "1 March 2021", "tenant": "Cheung Mei-ling", "arrears_amount": "HK$36,000"},
)
# LONG-WINDED: the scripted model reports hitting its token limit.
EMPLOYMENT = decision(
    "d-employment",
    "employment",
    "Ho Wing-kei v Acme Limited",
    "Reference LONG-WINDED. On 9 July 2022 the tribunal awarded HK$12,000 in wages.",
    {"decision_date": "9 July 2022", "claimant": "Ho Wing-kei"},
)
DECISIONS = [INSIDER, SENTENCING, TENANCY, EMPLOYMENT]
SPECS = field_specs(DECISIONS)
DECISIONS_BY_ID = {d.id: d for d in DECISIONS}


class ScriptedModel:
    """The server's 'model': deterministic code reading the prompt, standing in for an LLM.

    Fields prompts: every listed field of type date gets the first date of the prompt, money the first
    HK$ amount, number the first run of 5+ digits as a JSON number, name the party after " v " in the
    decision's title (the whole title when it has no " v "); `issue` gets a blank string, every other field null; two keys nobody asked for are
    added; the object comes in a ```json fence after a line of chatter.
    Analysis prompts: a four-part IRAC paragraph quoting the party, date and amount.
    Reasoning requests (the first call of a reasoning mode): two numbered notes. The second call of
    self_steps (notes given, no expert checklist): a draft after a first marker, then the real answer
    after a second marker.
    Grading prompts: A when the analysis has Rule:, Conclusion: and an HK$ amount, B when it has a
    Conclusion:, else C.
    Triggers: GARBLE-ONCE -> an unusable reply until the prompt has a retry note ("previous reply");
    GARBLE-ALWAYS / GRADE-GARBLE -> always unusable; LONG-WINDED -> finish_reason "length".
    """

    def reply(self, prompt: str) -> tuple[str, str]:
        finish = "length" if "LONG-WINDED" in prompt else "stop"
        retried = "previous reply" in prompt.lower()
        if "GARBLE-ALWAYS" in prompt or "GRADE-GARBLE" in prompt or ("GARBLE-ONCE" in prompt and not retried):
            return ("I would give this a B." if "ANALYSIS TO GRADE" in prompt else ""), finish
        if "ANALYSIS TO GRADE:" in prompt:
            return self.grade(prompt.split("ANALYSIS TO GRADE:", 1)[1]), finish
        if "the answer is asked for next" in prompt:
            return NOTES, finish
        answer = self.fields(prompt) if "\nFIELDS:\n" in prompt else self.analysis(prompt)
        if "YOUR NOTES:" in prompt and "REASONING STEPS" not in prompt:
            answer = f"{DRAFT}\n**{MARKER}** {answer}"
        return answer, finish

    @staticmethod
    def _first(pattern: str, prompt: str) -> str | None:
        m = re.search(pattern, prompt)
        return m.group(0) if m else None

    def _party(self, prompt: str) -> str:
        title = prompt.split("DECISION:\n", 1)[1].split("\n", 1)[0]
        return title.split(" v ", 1)[-1]

    def fields(self, prompt: str) -> str:
        listing = prompt.split("\nFIELDS:\n", 1)[1].split("\n\n", 1)[0]
        obj: dict = {"judge_name": "Unknown", "remarks": ["not asked for"]}
        for name, kind in re.findall(r"^- (\w+) \((\w+)\):", listing, re.M):
            if kind == "date":
                obj[name] = self._first(DATE.pattern, prompt)
            elif kind == "money":
                obj[name] = self._first(r"HK\$[\d,]+", prompt)
            elif kind == "number":
                digits = self._first(r"\b\d{5,}\b", prompt)
                obj[name] = int(digits) if digits else None
            elif kind == "name":
                obj[name] = self._party(prompt)
            else:
                obj[name] = "  " if name == "issue" else None
        return "Here is the record you asked for:\n```json\n" + json.dumps(obj) + "\n```"

    def analysis(self, prompt: str) -> str:
        date = self._first(DATE.pattern, prompt)
        money = self._first(r"HK\$[\d,]+", prompt)
        return (
            f"Issue: what order should be made against {self._party(prompt)}. Rule: the governing provision "
            f"applies. Application: on {date} the sum at stake was {money}. Conclusion: the order is made."
        )

    def grade(self, analysis: str) -> str:
        if "Rule:" in analysis and "Conclusion:" in analysis and "HK$" in analysis:
            grade = "A"
        elif "Conclusion:" in analysis:
            grade = "B"
        else:
            grade = "C"
        return json.dumps({"grade": grade, "reason": f"scripted grade {grade}"})


NOTES = "1. Read the decision.\n2. Find the orders."
DRAFT = f"Going over my notes.\n{MARKER}\ndraft that I discard"


class ChatServer(LoopbackServer):
    """A real HTTP server on loopback implementing /v1/chat/completions with ScriptedModel's replies."""

    def __init__(self, refuse_response_format: bool = False):
        self.model = ScriptedModel()
        self.prompts: list[str] = []
        self.bodies: list[dict] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body, prompt = read_chat(self)
                with outer.lock:
                    outer.prompts.append(prompt)
                    outer.bodies.append(body)
                if refuse_response_format and "response_format" in body:
                    # As servers without structured output answer it (e.g. an older llama.cpp or a hosted API).
                    send_json(self, 400, {"error": {"message": "Unrecognized request argument: response_format"}})
                    return
                text, finish = outer.model.reply(prompt)
                send_json(self, 200 if self.path == "/v1/chat/completions" else 404, chat_reply(body["model"], text, finish))

        super().__init__(Handler)
        self.spec = f"openai:{self.url}|fake-model"

    def calls_with(self, needle: str) -> int:
        return sum(needle in p for p in self.prompts)


class BatchCounter:
    """Wraps a generator and records the size of every generate() call."""

    def __init__(self, generator):
        self.generator = generator
        self.name = generator.name
        self.batch_size = generator.batch_size
        self.batches: list[int] = []

    def generate(self, requests):
        self.batches.append(len(requests))
        return self.generator.generate(requests)


@pytest.fixture
def server():
    with ChatServer() as s:
        yield s


def generator_for(server: ChatServer) -> BatchCounter:
    cfg = GenerateParams(concurrency=2, max_retries=0, timeout_s=10.0)
    return BatchCounter(make_generator(server.spec, cfg))


# ------------------------------------------------------------------------------------ prompts
@pytest.mark.parametrize("task", ["fields", "analysis"])
def test_the_three_modes_build_different_prompts(task):
    def build(mode: str, d: Decision = SENTENCING, reasoning: str | None = None) -> str:
        if task == "fields":
            return fields_prompt(d, SPECS[d.case_type], mode, reasoning=reasoning)
        return analysis_prompt(d, mode, reasoning=reasoning)

    prompts = {m: build(m) for m in MODES}
    assert len(set(prompts.values())) == 3
    for mode, prompt in prompts.items():
        assert SENTENCING.text in prompt
        has_steps = all(step in prompt for step in EXPERT_STEPS["criminal_sentencing"])
        assert has_steps == (mode == "expert_steps"), mode
        # The first call of a reasoning mode asks for the reasoning alone.
        assert ("Write only the" in prompt) == (mode in REASONING_MODES), mode
    # Its second call carries that reasoning as the model's notes and asks for the answer.
    for mode in REASONING_MODES:
        final = build(mode, reasoning="1. The plea came late.\n")
        assert "YOUR NOTES:\n1. The plea came late.\n\n" in final and "Write only the" not in final
        assert SENTENCING.text in final
        assert all(step in final for step in EXPERT_STEPS["criminal_sentencing"]) == (mode == "expert_steps")
        assert ("JSON object and nothing else" in final) == (task == "fields")
    # Each case type gets its own checklist; an unknown one the generic list.
    assert EXPERT_STEPS["insider_trading"][1] in build("expert_steps", INSIDER)
    assert EXPERT_STEPS["criminal_sentencing"][1] not in build("expert_steps", INSIDER)
    assert all(step in build("expert_steps", EMPLOYMENT) for step in GENERIC_STEPS)
    with pytest.raises(ValueError, match="mode"):
        build("freestyle")


def test_fields_prompt_lists_every_field_and_no_value():
    prompt = fields_prompt(INSIDER, SPECS["insider_trading"], "standard")
    for spec in SPECS["insider_trading"]:
        assert f"- {spec.name} ({spec.type}): {spec.description}" in prompt
    assert "null" in prompt and "JSON" in prompt
    assert "Chinese" not in prompt


# Latin words a Chinese prompt may hold: JSON, IRAC, null, the grades and the field names/types (data).
_ZH_ALLOWED_LATIN = {"json", "irac", "null", "a", "b", "c", "grade", "reason"}


@pytest.mark.parametrize("mode", ["standard", "expert_steps", "self_steps"])
def test_prompts_of_a_chinese_decision_are_worded_in_chinese(mode):
    zh = decision("d-zh", "insider_trading", "中国证监会对张某内幕交易的处罚决定", "2011年5月3日",
                  {"当事人": "张某", "违法所得": "4,665,091.79元"}, "zh")
    specs = field_specs([zh])[schema_key(zh)]
    data_words = {w.lower() for s in specs for w in re.findall(r"[A-Za-z_]+", f"{s.name} {s.type} {s.description}")}
    prompts = [fields_prompt(zh, specs, mode, retry_note("oops", "no JSON object", 1, "zh"), "张某"),
               fields_prompt(zh, specs, mode, None, "张某", "1. 确认当事人。"),
               analysis_prompt(zh, mode), analysis_prompt(zh, mode, None, "1. 确认当事人。"),
               grader_prompt(zh, specs, "张某构成内幕交易。")]
    for prompt in prompts:
        latin = {w.lower() for w in re.findall(r"[A-Za-z_]+", prompt)}
        assert latin <= _ZH_ALLOWED_LATIN | data_words | {"oops", "no", "object"}, prompt
    assert "证券法" in analysis_prompt(zh, "expert_steps")  # Chinese law's checklist, not the HK ordinance
    if mode == "self_steps":
        assert "【你的笔记】\n1. 确认当事人。" in analysis_prompt(zh, mode, None, "1. 确认当事人。")
        reply = "1. 确认当事人。\n最终答案：张某利用内幕信息买入股票，构成内幕交易。"
        assert split_answer(reply)[0] == "张某利用内幕信息买入股票，构成内幕交易。"


def test_grader_prompt_shows_the_reference_fields_as_key_points_not_the_text():
    prompt = grader_prompt(INSIDER, SPECS["insider_trading"], "Issue: x. Rule: y.")
    assert "the date of the decision: 15 May 2019" in prompt
    assert "the pecuniary penalty ordered: HK$2,400,000" in prompt
    assert INSIDER.text not in prompt
    # The IRAC parts lead the key points.
    assert prompt.index(INSIDER.fields["issue"]) < prompt.index("15 May 2019")
    assert '"grade"' in prompt and "A - complete and rigorous" in prompt


# ------------------------------------------------------------------------------------ parsing
def test_split_answer_takes_the_text_after_the_last_marker():
    reply = f"1. Step.\n{MARKER} first try\n2. Think again: the final answer: is not a marker mid-line\n## Final Answer: kept"
    answer, steps = split_answer(reply)
    assert answer == "kept"
    assert steps == len(reply[: reply.index("## Final")].strip())
    # No marker: the whole reply is the answer, unless a marker is required.
    assert split_answer("  The answer is no. ") == ("The answer is no.", 0)
    with pytest.raises(ReplyError, match="FINAL ANSWER"):
        split_answer("1. Step.\nThe answer is no.", required=True)


def test_parse_fields_keeps_known_string_and_number_values():
    fields, unknown = parse_fields(
        '```json\n{"a": "HK$1,000", "b": null, "c": "", "d": 2.5, "e": 3.0, "f": 12, "zzz": {"x": 1}}\n```',
        ["a", "b", "c", "d", "e", "f"],
    )
    assert fields == {"a": "HK$1,000", "d": "2.5", "e": "3", "f": "12"}
    assert unknown == 1
    for bad in ('{"a": true}', '{"a": ["x"]}', '["a"]', "no json here", '{"a": "x",}'):
        with pytest.raises(ReplyError):
            parse_fields(bad, ["a"])


def test_parse_grade():
    assert parse_grade('{"grade": "b", "reason": "misses the exception"}') == ("B", "misses the exception")
    assert parse_grade('Sure.\n```json\n{"grade": "A"}\n```') == ("A", "")
    for bad in ('{"grade": "A+"}', '{"grade": "A", "score": 3}', '{"grade": "C", "reason": 1}', "B"):
        with pytest.raises(ReplyError):
            parse_grade(bad)


def test_output_ids_are_record_safe():
    for system in ("openai:http://127.0.0.1:8000/v1|org/model-7B", "hf:Qwen/Qwen2.5-0.5B-Instruct", "rule"):
        oid = output_id("analysis", system, "self_steps", "syn-0001")
        assert SAFE_ID.match(oid) and oid.startswith("analysis/") and oid.endswith("/self_steps/syn-0001")
        assert oid.count("/") == 3
    assert output_id("fields", "rule", "standard", "syn-0001") == "fields/rule/standard/syn-0001"
    with pytest.raises(ValueError, match="valid record id"):
        output_id("fields", "rule", "standard", "x" * 200)


# ------------------------------------------------------------------------------------ model system
def test_fields_over_http_with_retries_and_one_batch_per_attempt(server, tmp_path):
    gen = generator_for(server)
    system = ModelSystem(gen, max_retries=2, decoding=DECODING, seed=7)
    outputs = system.run(DECISIONS, SPECS, "fields", "standard")
    by_decision = {o.decision_id: o for o in outputs}
    assert [o.decision_id for o in outputs] == [d.id for d in DECISIONS]

    # One generate() call per attempt: all four, then the two invalid ones, then the one still invalid.
    assert gen.batches == [4, 2, 1]
    assert len(server.prompts) == 7
    assert server.calls_with("GARBLE-ALWAYS") == 3 and server.calls_with("GARBLE-ONCE") == 2
    assert server.calls_with("Chan Tai-man") == 1

    insider = by_decision["d-insider"]
    assert insider.status == "ok" and insider.analysis is None
    # Nulls and the blank issue are absent; the JSON number came back as its digits.
    assert insider.fields == {
        "decision_date": "15 May 2019",
        "respondent": "Chan Tai-man",
        "penalty_amount": "HK$2,400,000",
        "shares_traded": "2200000",
    }
    assert insider.meta == {"attempts": 1, "finish_reason": "stop", "constrained": "none", "unknown_keys": 2}
    assert not any("response_format" in b for b in server.bodies)  # constraint off: plain prompting

    sentencing = by_decision["d-sentencing"]
    assert sentencing.status == "ok" and sentencing.meta["attempts"] == 2
    assert sentencing.fields == {"decision_date": "3 June 2020", "defendant": "Lee Ka-wai"}

    tenancy = by_decision["d-tenancy"]
    assert tenancy.status == "unparseable" and tenancy.fields is None and tenancy.analysis is None
    assert tenancy.meta["attempts"] == 3 and "no JSON object" in tenancy.meta["problem"]

    assert by_decision["d-employment"].meta["finish_reason"] == "length"
    # The retry note carries what was wrong, so the retried prompt differs from the first one.
    retried = [p for p in server.prompts if "GARBLE-ONCE" in p and "previous reply" in p]
    assert len(retried) == 1 and "no JSON object found" in retried[0]

    # Seeds and decoding come from the system's seed, the output id and params.irac.decoding.
    expected = {stable_hash(7, "irac", o.id) % 2**31 for o in outputs}
    assert {b["seed"] for b in server.bodies} == expected
    assert {b["max_tokens"] for b in server.bodies} == {64}

    # The outputs are valid records: ids pass SAFE_ID and the file reads back.
    path = tmp_path / "out.jsonl"
    write_records(path, outputs)
    assert read_records(path, IracOutput) == outputs
    for o in outputs:
        assert o.id == f"fields/{o.id.split('/')[1]}/standard/{o.decision_id}" and SAFE_ID.match(o.id)
        assert o.system == server.spec


def test_analysis_in_self_steps_mode_reasons_first_then_answers(server):
    gen = generator_for(server)
    outputs = ModelSystem(gen, max_retries=1, decoding=DECODING, reasoning_tokens=32).run(
        DECISIONS, SPECS, "analysis", "self_steps")
    by_decision = {o.decision_id: o for o in outputs}
    insider = by_decision["d-insider"]
    assert insider.status == "ok" and insider.fields is None
    # The answer call's reply is read after its last marker; the reasoning call's reply is kept whole.
    assert insider.analysis == (
        "Issue: what order should be made against Chan Tai-man. Rule: the governing provision applies. "
        "Application: on 15 May 2019 the sum at stake was HK$2,400,000. Conclusion: the order is made."
    )
    assert insider.meta == {"attempts": 1, "finish_reason": "stop", "constrained": "none", "reasoning": NOTES,
                            "reasoning_finish_reason": "stop", "steps_chars": len(NOTES)}
    assert by_decision["d-sentencing"].status == "ok"
    tenancy = by_decision["d-tenancy"]
    assert tenancy.status == "unparseable" and tenancy.meta["attempts"] == 2 and tenancy.meta["reasoning"] == ""
    # One batch of reasoning calls (their own token budget), then the answers and one retry.
    assert gen.batches == [4, 4, 2]
    assert [b["max_tokens"] for b in server.bodies[:4]] == [32] * 4
    reasoning_calls, answer_calls = server.prompts[:4], server.prompts[4:]
    assert all("YOUR NOTES" not in p for p in reasoning_calls)
    assert all(f"YOUR NOTES:\n{NOTES}" in p for p in answer_calls if "GARBLE" not in p)
    assert all(o.id.startswith("analysis/") and "/self_steps/" in o.id for o in outputs)


def test_fields_in_self_steps_and_expert_modes(server):
    gen = generator_for(server)
    system = ModelSystem(gen, max_retries=0, decoding=DECODING)
    steps = system.run([INSIDER], SPECS, "fields", "self_steps")[0]
    expert = system.run([INSIDER], SPECS, "fields", "expert_steps")[0]
    assert steps.fields == expert.fields and steps.fields["penalty_amount"] == "HK$2,400,000"
    assert steps.meta["reasoning"] == expert.meta["reasoning"] == NOTES
    # Two calls per mode: self_steps' reasoning and answer, then expert_steps' (the checklist in both).
    assert len(server.prompts) == 4
    assert [EXPERT_STEPS["insider_trading"][0] in p for p in server.prompts] == [False, False, True, True]
    assert [f"YOUR NOTES:\n{NOTES}" in p for p in server.prompts] == [False, True, False, True]
    with pytest.raises(ValueError, match="no field specs"):
        system.run([INSIDER], {}, "fields", "standard")


def test_cached_generator_reruns_without_calls(server, tmp_path):
    from pipeline.backends.cache import CachedGenerator

    cached = CachedGenerator(make_generator(server.spec, GenerateParams(concurrency=2, max_retries=0)), str(tmp_path))
    first = ModelSystem(cached, 2, DECODING).run(DECISIONS, SPECS, "fields", "standard")
    cached.close()
    assert len(server.prompts) == 7
    again_gen = CachedGenerator(make_generator(server.spec, GenerateParams()), str(tmp_path))
    again = ModelSystem(again_gen, 2, DECODING).run(DECISIONS, SPECS, "fields", "standard")
    again_gen.close()
    assert again == first and len(server.prompts) == 7


# ------------------------------------------------------------------------------------ grader
def analysis_output(did: str, text: str | None, status: str = "ok") -> IracOutput:
    return IracOutput(
        output_id("analysis", "rule", "standard", did), did, "analysis", "rule", "standard", None, text, status
    )


def test_grader_parses_grades_and_keeps_unparseable(server):
    outputs = [
        analysis_output("d-insider", "Issue: a. Rule: b. Application: HK$2,400,000. Conclusion: c."),
        analysis_output("d-sentencing", "Issue: a. Conclusion: c."),
        analysis_output("d-tenancy", "Some thoughts without structure."),
        analysis_output("d-employment", "Issue: a. GRADE-GARBLE Conclusion: c."),
        analysis_output("d-employment", None, "unparseable"),
    ]
    outputs[4].id = output_id("analysis", "other", "standard", "d-employment")
    gen = generator_for(server)
    grader = Grader(gen, max_retries=2, decoding=DECODING)
    grades = grader.grade(outputs, DECISIONS_BY_ID, SPECS)
    assert grader.name == f"llm:{server.spec}"
    assert [g.output_id for g in grades] == [o.id for o in outputs]
    assert [(g.grade, g.status) for g in grades] == [
        ("A", "ok"),
        ("B", "ok"),
        ("C", "ok"),
        (None, "unparseable"),
        (None, "unparseable"),
    ]
    assert grades[0] == IracGrade(outputs[0].id, grader.name, "A", "ok", "scripted grade A")
    assert "3 attempts" in grades[3].reason
    assert "not graded" in grades[4].reason and "unparseable" in grades[4].reason
    # The unparseable output never reached the model; the garbled one was asked 1 + 2 times.
    assert gen.batches == [4, 1, 1] and len(server.prompts) == 6
    assert server.calls_with("GRADE-GARBLE") == 3
    # The grader saw the reference fields, not the decision text.
    assert all("KEY POINTS" in p for p in server.prompts)
    assert not any(INSIDER.text in p for p in server.prompts)


def test_grader_refuses_field_outputs_and_unknown_decisions(server):
    grader = Grader(generator_for(server), 1, DECODING)
    fields_out = IracOutput("fields/rule/standard/d-insider", "d-insider", "fields", "rule", "standard", {}, None, "ok")
    with pytest.raises(ValueError, match="only analyses"):
        grader.grade([fields_out], DECISIONS_BY_ID, SPECS)
    with pytest.raises(ValueError, match="not found"):
        grader.grade([analysis_output("d-missing", "x")], DECISIONS_BY_ID, SPECS)
    assert server.prompts == []


def test_synthetic_decisions_in_every_mode(server):
    from pipeline.params import Params
    from pipeline.synth import generate_decisions

    decisions = generate_decisions(3, Params().decisions.case_mix, 13)
    specs = field_specs(decisions)
    gen = generator_for(server)
    system = ModelSystem(gen, max_retries=1, decoding=DECODING)
    ids = set()
    for mode in ("standard", "expert_steps", "self_steps"):
        outputs = system.run(decisions, specs, "fields", mode)
        assert [o.status for o in outputs] == ["ok"] * 3
        for d, o in zip(decisions, outputs, strict=True):
            names = {s.name for s in specs[d.case_type]}
            assert o.fields and set(o.fields) <= names
            # The scripted model takes the first date of the text, which is in the text as written.
            assert o.fields["decision_date"] in d.text
            ids.add(o.id)
    assert len(ids) == 9 and gen.batches == [3, 3, 3, 3, 3]


# ------------------------------------------------------------------------------------ constrained replies
def _asked_schema(body: dict) -> dict | None:
    fmt = body.get("response_format")
    return fmt["json_schema"]["schema"] if fmt else None


def test_constrained_replies_ask_the_server_for_their_schema(server):
    gen = generator_for(server)
    system = ModelSystem(gen, max_retries=0, decoding=DECODING, constrained=True, value_max_chars=50)
    standard = system.run([INSIDER, SENTENCING], SPECS, "fields", "standard")
    names = {d.id: [s.name for s in SPECS[d.case_type]] for d in (INSIDER, SENTENCING)}
    # Each decision's request carries the schema of its own case type's fields.
    assert {json.dumps(_asked_schema(b)) for b in server.bodies} == {
        json.dumps(fields_schema(n, 50)) for n in names.values()}
    assert standard[0].status == "ok" and standard[0].meta["constrained"] == "response_format"
    assert standard[0].fields["penalty_amount"] == "HK$2,400,000"
    # A reasoning mode: the reasoning call is free, only the answer call is constrained.
    before = len(server.bodies)
    system.run([INSIDER], SPECS, "fields", "expert_steps")
    assert [_asked_schema(b) is not None for b in server.bodies[before:]] == [False, True]
    # An analysis is prose: never constrained.
    before = len(server.bodies)
    system.run([INSIDER], SPECS, "analysis", "standard")
    assert _asked_schema(server.bodies[before]) is None
    grader = Grader(gen, 0, DECODING, constrained=True, reason_max_chars=80)
    before = len(server.bodies)
    grades = grader.grade([analysis_output("d-insider", "Issue: a. Rule: b. HK$1. Conclusion: c.")], DECISIONS_BY_ID, SPECS)
    assert grades[0].grade == "A" and _asked_schema(server.bodies[before]) == grade_schema(80)
    # Under its schema a grade gets the budget any grade the schema allows fits in (a reason of 80 characters
    # of 4 bytes each), not decoding's max_new_tokens; a free grader keeps decoding's.
    assert server.bodies[before]["max_tokens"] == choice_token_bound("grade", GRADES, 80) > DECODING.max_new_tokens
    before = len(server.bodies)
    Grader(gen, 0, DECODING).grade([analysis_output("d-insider", "Issue: a. Conclusion: c.")], DECISIONS_BY_ID, SPECS)
    assert server.bodies[before]["max_tokens"] == DECODING.max_new_tokens


def test_a_server_that_refuses_response_format_is_prompted_plainly(caplog):
    with ChatServer(refuse_response_format=True) as server:
        gen = generator_for(server)
        system = ModelSystem(gen, max_retries=0, decoding=DECODING, constrained=True)
        with caplog.at_level("WARNING", logger="pipeline.backends.openai"):
            first = system.run([INSIDER], SPECS, "fields", "standard")[0]
            again = system.run([SENTENCING, TENANCY], SPECS, "fields", "standard")
    # Refused once, asked again without the field, and never offered it again.
    assert [("response_format" in b) for b in server.bodies] == [True, False, False, False]
    warnings = [r for r in caplog.records if "refuses response_format" in r.getMessage()]
    assert len(warnings) == 1 and "Unrecognized request argument" in warnings[0].getMessage()
    # The replies are validated as any other: the good one parses, the garbled one stays unparseable.
    assert first.status == "ok" and first.meta["constrained"] == "prompt"
    assert first.fields["respondent"] == "Chan Tai-man"
    assert [o.status for o in again] == ["unparseable", "unparseable"]
    assert again[1].meta["problem"] == "no JSON object found"
