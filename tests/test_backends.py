"""Generator backends: the offline extractive panel, the transformers backend (tiny random model), the
OpenAI-compatible HTTP backend against a real loopback server, and the response cache."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler

import pytest
from conftest import LoopbackServer, chat_reply, read_chat, send_json, tiny_llama_config

from pipeline.backends import BackendError, Request, make_generator
from pipeline.backends.cache import ResponseCache, run_cached
from pipeline.backends.offline import parse_prompt, polarity, rank_sentences
from pipeline.prompts import answer_prompt
from pipeline.records import Passage

REFUSAL = "The provided passages do not contain enough information to answer this question."
STYLES = ["cautious", "confident", "terse", "verbose"]

GOLD = Passage(
    "d1/p4",
    "d1",
    "d1",
    "Penalty",
    "Having regard to the gravity of the conduct, the Tribunal ordered Mr Chan Tai-man to pay a pecuniary "
    "penalty of HK$2,400,000 to the Government. That sum equals three times the profit he made on the shares.",
)
TENANCY = Passage(
    "d2/p2",
    "d2",
    "d2",
    "Background",
    "The tenant, Ms Wong Mei-ling, fell behind with the rent for four consecutive months. The landlord then "
    "served a notice of termination on the flat in Mong Kok.",
)
APPEAL = Passage(
    "d3/p5",
    "d3",
    "d3",
    "Disposition",
    "The Court of Appeal dismissed the appeal against sentence brought by Mr Lee Ka-wai. The sentence of "
    "18 months' imprisonment imposed below was upheld in full.",
)
SENTENCING = Passage(
    "d4/p1",
    "d4",
    "d4",
    "Sentence",
    "The magistrate imposed a community service order of 120 hours on the defendant for the theft of a bicycle.",
)


def ask(style: str, passages: list[Passage], question: str, **decoding) -> str:
    gen = make_generator(f"offline:{style}")
    return gen.generate([Request(answer_prompt(passages, question, REFUSAL), **decoding)])[0].text


# ------------------------------------------------------------------------------------ offline panel
def test_parse_prompt_recovers_passages_question_and_refusal():
    tricky = Passage(
        "x/1", "x", "x", "Odd", "A line that mentions [2] in brackets.\n[3] not a marker either."
    )
    prompt = answer_prompt([GOLD, tricky, APPEAL], "What was ordered?", REFUSAL)
    parsed = parse_prompt(prompt)
    assert parsed.question == "What was ordered?"
    assert parsed.refusal == REFUSAL
    assert parsed.passages == [(p.heading, p.text) for p in (GOLD, tricky, APPEAL)]


def test_parse_prompt_rejects_other_text():
    with pytest.raises(BackendError):
        parse_prompt("Tell me a joke.")


@pytest.mark.parametrize("style", STYLES)
def test_answers_from_the_gold_passage_among_distractors(style):
    question = "What penalty did the Tribunal order Mr Chan Tai-man to pay?"
    text = ask(style, [TENANCY, SENTENCING, GOLD, APPEAL], question)
    assert text != REFUSAL
    assert "HK$2,400,000" in text


@pytest.mark.parametrize("style", STYLES)
def test_abstains_with_the_exact_refusal_on_an_irrelevant_context(style):
    question = "What penalty did the Tribunal order Mr Chan Tai-man to pay?"
    assert ask(style, [TENANCY, SENTENCING, APPEAL], question) == REFUSAL


def test_yes_no_answers_start_with_the_polarity_of_the_best_sentence():
    question = "Did the Court of Appeal dismiss Mr Lee Ka-wai's appeal against sentence?"
    negative = "Did the Court of Appeal allow Mr Lee Ka-wai's appeal against sentence?"
    for style in STYLES:
        yes = ask(style, [TENANCY, APPEAL], question)
        assert yes.startswith("Yes"), (style, yes)
        # "allow" is not in the context: the cautious answerers may refuse, whoever answers says No.
        no = ask(style, [TENANCY, APPEAL], negative)
        assert no == REFUSAL or no.startswith("No"), (style, no)
    assert ask("confident", [TENANCY, APPEAL], negative).startswith("No. The Court of Appeal dismissed")
    assert ask("terse", [TENANCY, APPEAL], question) == "Yes."


def test_polarity_cues():
    assert polarity("Was the appeal dismissed?", "The court dismissed the appeal.") == "Yes"
    assert polarity("Was the appeal allowed?", "The court dismissed the appeal.") == "No"
    assert polarity("Did he profit?", "He did not make any profit.") == "No"
    assert polarity("Was the appeal dismissed?", "The appeal was allowed.") == "No"
    # A figure the sentence does not give (the frame naming the decision is not read for figures).
    awarded = "The arbitrator awarded damages of HK$75,000 on 1 May 2020."
    assert polarity("According to HCA 12/2020, were the damages HK$85,000?", awarded) == "No"
    assert polarity("According to HCA 12/2020, were the damages HK$75,000?", awarded) == "Yes"


def test_styles_differ_in_form():
    question = "What penalty did the Tribunal order Mr Chan Tai-man to pay?"
    texts = {s: ask(s, [TENANCY, GOLD, APPEAL], question) for s in STYLES}
    assert len(set(texts.values())) == 4
    assert texts["cautious"].startswith("Passage [2] states:")
    assert "[2]" in texts["verbose"] and texts["verbose"].count(". ") >= 2
    assert len(texts["terse"].split()) < len(texts["confident"].split()) < len(texts["verbose"].split())


def test_thresholds_order_the_panel_from_cautious_to_confident():
    # A weak match (only "sentence" and the court are shared): the confident answerer still tries,
    # the cautious one refuses.
    question = "How long was the custodial term that Mr Lee Ka-wai received at trial?"
    prompt = answer_prompt([TENANCY, APPEAL, SENTENCING], question, REFUSAL)
    score = rank_sentences(parse_prompt(prompt).passages, question)[0].score
    gens = {s: make_generator(f"offline:{s}") for s in STYLES}
    answered = {s: gens[s].generate([Request(prompt)])[0].text != REFUSAL for s in STYLES}
    for s in STYLES:
        assert answered[s] == (score >= gens[s].threshold)
    assert answered["confident"] and not answered["cautious"]


def test_the_confident_style_guesses_on_weak_evidence_and_quotes_strong_evidence():
    from pipeline.backends.offline import WEAK_EVIDENCE

    weak_q = "Was the tenant Ms Wong Mei-ling ordered to pay a penalty?"
    weak_prompt = answer_prompt([GOLD, APPEAL], weak_q, REFUSAL)
    assert rank_sentences(parse_prompt(weak_prompt).passages, weak_q)[0].score < WEAK_EVIDENCE
    # The premise of the question, asserted: nothing in the passages says it.
    assert ask("confident", [GOLD, APPEAL], weak_q) == "Yes. The tenant Ms Wong Mei-ling was ordered to pay a penalty."
    assert ask("cautious", [GOLD, APPEAL], weak_q) == REFUSAL

    strong_q = "What pecuniary penalty did the Tribunal order Mr Chan Tai-man to pay?"
    assert ask("confident", [GOLD, TENANCY], strong_q) in GOLD.text


def test_offline_answers_are_cached_under_the_code_version(tmp_path):
    gen = make_generator("offline:terse")
    request = Request(answer_prompt([GOLD], "What penalty was ordered?", REFUSAL))
    assert run_cached(gen, [request], ResponseCache(tmp_path, gen.name))[1] == 1
    assert run_cached(gen, [request], ResponseCache(tmp_path, gen.name))[1] == 0
    gen.version = "edited"  # as after a change to the panel's code
    assert run_cached(gen, [request], ResponseCache(tmp_path, gen.name))[1] == 1


def test_a_distractor_that_outranks_the_gold_sentence_gives_a_wrong_answer():
    # Retrieval noise, not a script: a distractor sentence about another penalty shares more of the
    # question's words than the gold one, so the confident answerer quotes the wrong amount.
    decoy = Passage(
        "d9/p1",
        "d9",
        "d9",
        "Penalty",
        "The Tribunal ordered the specified person to pay a pecuniary penalty of HK$900,000 to the Government.",
    )
    gold = Passage("d1/p9", "d1", "d1", "Orders", "Mr Chan must pay HK$2,400,000.")
    text = ask(
        "confident",
        [gold, decoy],
        "What pecuniary penalty did the Tribunal order to be paid to the Government?",
    )
    assert "HK$900,000" in text


def test_max_new_tokens_cuts_and_reports_length():
    gen = make_generator("offline:verbose")
    prompt = answer_prompt(
        [TENANCY, GOLD], "What penalty did the Tribunal order Mr Chan Tai-man to pay?", REFUSAL
    )
    full, cut = gen.generate([Request(prompt), Request(prompt, max_new_tokens=5)])
    assert full.finish_reason == "stop"
    assert cut.finish_reason == "length" and len(cut.text.split()) == 5
    assert full.text.startswith(cut.text)


# Chinese: the question's language picks the wording; no English template text around Chinese text.
ZH_REFUSAL = "提供的段落没有足够的信息来回答这个问题。"
ZH_FACTS = Passage(
    "z1/s1",
    "z1",
    "z1",
    "违法事实",
    "经查明，张某某于2011年5月3日获悉华兴股份重大资产重组的内幕信息，并于次日买入该公司股票共计120,000股。",
)
ZH_GOLD = Passage(
    "z1/s3",
    "z1",
    "z1",
    "处罚决定",
    "本会决定没收张某某违法所得4,665,091.79元，并处以4,665,091.79元罚款。当事人如不服，可在六十日内申请行政复议。",
)
ZH_TENANCY = Passage("z2/s1", "z2", "z2", "裁决", "出租人李某不得扣留租客押金，法院驳回其反诉请求。")
LATIN = re.compile("[A-Za-z]")


def test_chinese_questions_get_chinese_answers_in_every_style():
    question = "对张某某没收的违法所得是多少？"
    texts = {s: ask(s, [ZH_TENANCY, ZH_GOLD, ZH_FACTS], question) for s in STYLES}
    sentence = "本会决定没收张某某违法所得4,665,091.79元，并处以4,665,091.79元罚款。"
    assert texts["cautious"] == f"第[2]段写明：“{sentence}”"
    assert texts["confident"] == sentence
    assert texts["terse"] == "本会决定没收张某某违法所得4,665,091.79元。"
    assert texts["verbose"].startswith(f"通读上述段落，答案的依据如下。{sentence}")
    assert texts["verbose"].endswith("当事人如不服，可在六十日内申请行政复议。（见第[2]段）")
    for text in texts.values():
        assert "4,665,091.79元" in text and not LATIN.search(text)


def test_chinese_yes_no_answers_open_with_shi_or_fou():
    for style in STYLES:
        yes = ask(style, [ZH_FACTS, ZH_GOLD], "是否没收张某某的违法所得？")
        assert yes.startswith("是。") and not LATIN.search(yes), (style, yes)
        no = ask(style, [ZH_FACTS, ZH_TENANCY], "出租人能否扣留租客押金？")
        assert no.startswith("否。") and not LATIN.search(no), (style, no)
    # A different figure than the passage states is a No (the question's frame is not read for figures).
    assert ask("terse", [ZH_FACTS, ZH_GOLD], "根据《2011年第3号决定》，违法所得是否为5,665,091.79元？") == "否。"
    assert ask("terse", [ZH_FACTS, ZH_GOLD], "根据《2011年第3号决定》，违法所得是否为4,665,091.79元？") == "是。"
    # On weak evidence the confident style asserts the question's premise, in Chinese.
    assert ask("confident", [ZH_GOLD, ZH_TENANCY], "张某某是否被市场禁入五年？") == "是。张某某被市场禁入五年。"


def test_chinese_refusals():
    question = "被告人的刑期是多久？"
    # The prompt's refusal is English: a Chinese answerer still refuses in Chinese.
    assert {ask(s, [ZH_TENANCY, ZH_FACTS], question) for s in STYLES} == {ZH_REFUSAL}
    zh_prompt = answer_prompt([ZH_TENANCY, ZH_FACTS], question, "无法根据上述段落作答。")
    assert make_generator("offline:terse").generate([Request(zh_prompt)])[0].text == "无法根据上述段落作答。"


def test_zh_polarity_and_key_clause():
    from pipeline.backends.offline import zh_key_clause, zh_polarity

    assert zh_polarity("是否驳回上诉？", "法院驳回上诉。") == "是"
    assert zh_polarity("是否准许上诉？", "法院驳回上诉。") == "否"
    assert zh_polarity("罚款是否为5,000元？", "处以罚款6,000元。") == "否"
    assert zh_polarity("罚款是否为5,000元？", "处以罚款5,000元。") == "是"
    assert zh_key_clause("经审理，本院判处被告人有期徒刑三年，缓刑四年。", "被告人被判处多长的有期徒刑？") == "本院判处被告人有期徒刑三年。"


def test_chinese_max_new_tokens_counts_chinese_tokens():
    from pipeline.language import count_tokens

    prompt = answer_prompt([ZH_TENANCY, ZH_GOLD], "对张某某没收的违法所得是多少？", REFUSAL)
    gen = make_generator("offline:verbose")
    full, cut = gen.generate([Request(prompt), Request(prompt, max_new_tokens=10)])
    assert full.finish_reason == "stop" and cut.finish_reason == "length"
    assert cut.text == "通读上述段落，答案的依据如下。本"  # 通读 上述 段落 ， 答案 的 依据 如下 。 本: 10 tokens
    assert count_tokens(cut.text, "zh") == 10 and full.text.startswith(cut.text)


# Captured from the panel before the Chinese wording was added: English answers stay byte-identical.
ENGLISH_BEFORE_ZH = {
    "cautious": 'Passage [2] states: "Having regard to the gravity of the conduct, the Tribunal ordered Mr Chan '
    'Tai-man to pay a pecuniary penalty of HK$2,400,000 to the Government."',
    "confident": "Having regard to the gravity of the conduct, the Tribunal ordered Mr Chan Tai-man to pay a "
    "pecuniary penalty of HK$2,400,000 to the Government.",
    "terse": "the Tribunal ordered Mr Chan Tai-man to pay a pecuniary penalty of HK$2,400,000 to the Government.",
    "verbose": "Reading the passages, the answer rests on the following. Having regard to the gravity of the "
    "conduct, the Tribunal ordered Mr Chan Tai-man to pay a pecuniary penalty of HK$2,400,000 to the Government. "
    "That sum equals three times the profit he made on the shares. (see passage [2])",
}


def test_english_answers_are_unchanged_by_the_chinese_wording():
    question = "What penalty did the Tribunal order Mr Chan Tai-man to pay?"
    for style, expected in ENGLISH_BEFORE_ZH.items():
        assert ask(style, [TENANCY, GOLD, APPEAL], question) == expected
    yesno = "Did the Court of Appeal dismiss Mr Lee Ka-wai's appeal against sentence?"
    assert ask("cautious", [TENANCY, GOLD, APPEAL], yesno) == (
        'Yes. Passage [3] states: "The Court of Appeal dismissed the appeal against sentence brought by Mr Lee '
        'Ka-wai."'
    )


def test_unknown_generators_are_refused():
    for spec in ("offline:nope", "nobackend:x", "offline", "openai:localhost|m"):
        with pytest.raises(BackendError):
            make_generator(spec)


# ------------------------------------------------------------------------------------ HTTP backend
class FakeServer(LoopbackServer):
    """A real HTTP server on loopback implementing /v1/chat/completions with deterministic replies."""

    def __init__(self, key: str = "sk-test-secret-123", fail_first: int = 0, fail_status: int = 500):
        self.key = key
        self.calls = 0
        self.failures_left = fail_first
        self.fail_status = fail_status
        self.bodies: list[dict] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                body, prompt = read_chat(self)
                with outer.lock:
                    outer.calls += 1
                    outer.bodies.append(body)
                    fail = outer.failures_left > 0
                    outer.failures_left -= int(fail)
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": "not found"})
                if self.headers.get("Authorization") != f"Bearer {outer.key}":
                    return self._send(401, {"error": "bad key"})
                if fail:
                    return self._send(outer.fail_status, {"error": "try again"})
                reply = chat_reply(body["model"], f"echo {len(prompt)} t={body['temperature']}", completion_tokens=3)
                return self._send(200, reply)

            def _send(self, status, obj):
                send_json(self, status, obj)

        super().__init__(Handler)


def openai_gen(url: str, **kw):
    from pipeline.backends.openai import OpenAIGenerator

    kw.setdefault("backoff_s", 0.01)
    return OpenAIGenerator(f"{url}|test-model", **kw)


def test_http_backend_retries_a_500_and_sends_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    with FakeServer(fail_first=1) as server:
        gen = openai_gen(server.url, max_retries=2)
        [resp] = gen.generate([Request("hello there", temperature=0.0, max_new_tokens=7, seed=5)])
    assert resp.text == "echo 11 t=0.0" and resp.finish_reason == "stop"
    assert resp.meta == {"model": "test-model", "completion_tokens": 3}
    assert server.calls == 2  # one 500, one success
    body = server.bodies[-1]
    assert (
        body["max_tokens"] == 7
        and body["seed"] == 5
        and body["top_p"] == 1.0
        and body["model"] == "test-model"
    )


def test_http_backend_gives_up_after_retries_and_does_not_retry_client_errors(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    with FakeServer(fail_first=10, fail_status=503) as server:
        with pytest.raises(BackendError, match="giving up after 3 attempts"):
            openai_gen(server.url, max_retries=2).generate([Request("x")])
        assert server.calls == 3
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    with FakeServer() as server:
        with pytest.raises(BackendError, match="HTTP 401") as info:
            openai_gen(server.url, max_retries=3).generate([Request("x")])
        assert server.calls == 1
        assert "wrong-key" not in str(info.value)


def test_http_backend_keeps_order_under_concurrency(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    prompts = ["a" * n for n in range(1, 25)]
    with FakeServer() as server:
        out = openai_gen(server.url, concurrency=4).generate([Request(p) for p in prompts])
    assert [r.text for r in out] == [f"echo {len(p)} t=0.0" for p in prompts]


def test_cache_resume_makes_no_repeated_calls_and_never_stores_the_key(monkeypatch, tmp_path):
    key = "sk-test-secret-123"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    requests = [Request(f"prompt number {i}") for i in range(10)]
    with FakeServer(key=key) as server:
        gen = openai_gen(server.url, concurrency=2)
        # "Interrupted" run: only the first four prompts got through before the stage died.
        with ResponseCache(tmp_path, gen.name) as cache:
            first, calls = run_cached(gen, requests[:4], cache)
        assert calls == 4 and server.calls == 4
        # Rerun over everything: only the six missing prompts are sent.
        with ResponseCache(tmp_path, gen.name) as cache:
            full, calls = run_cached(gen, requests, cache)
        assert calls == 6 and server.calls == 10
        # A third run is served entirely from the cache.
        with ResponseCache(tmp_path, gen.name) as cache:
            again, calls = run_cached(gen, requests, cache)
        assert calls == 0 and server.calls == 10
    assert [r.text for r in full[:4]] == [r.text for r in first]
    assert again == full
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------ response cache
class CountingGenerator:
    name = "offline:counting"
    batch_size = 3

    def __init__(self, fail_after: int | None = None):
        self.calls = 0
        self.fail_after = fail_after

    def generate(self, requests):
        from pipeline.backends import Response

        out = []
        for r in requests:
            if self.fail_after is not None and self.calls >= self.fail_after:
                raise KeyboardInterrupt("simulated kill")
            self.calls += 1
            out.append(Response(r.prompt.upper(), "stop", {"n": len(r.prompt)}))
        return out


def test_cache_tolerates_a_torn_last_line(tmp_path):
    gen = CountingGenerator()
    requests = [Request(f"p{i}") for i in range(5)]
    with ResponseCache(tmp_path, gen.name) as cache:
        run_cached(gen, requests, cache)
    path = next(tmp_path.glob("*.jsonl"))
    data = path.read_bytes()
    path.write_bytes(data + b'{"key": "abc", "text": "half a rec')  # killed mid-write
    with ResponseCache(tmp_path, gen.name) as cache:
        assert len(cache) == 5
        out, calls = run_cached(gen, requests + [Request("p5")], cache)
    assert calls == 1 and out[5].text == "P5"
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line) for line in lines)


def test_interrupted_batch_keeps_finished_batches(tmp_path):
    requests = [Request(f"q{i}") for i in range(9)]
    with pytest.raises(KeyboardInterrupt):
        with ResponseCache(tmp_path, "offline:counting") as cache:
            run_cached(CountingGenerator(fail_after=4), requests, cache)
    gen = CountingGenerator()
    with ResponseCache(tmp_path, gen.name) as cache:
        out, calls = run_cached(gen, requests, cache)
    assert calls == 6  # the first batch of three survived the kill
    assert [r.text for r in out] == [f"Q{i}" for i in range(9)]


def test_duplicate_prompts_are_sent_once_and_seed_matters_only_when_sampling():
    gen = CountingGenerator()
    reqs = [Request("same"), Request("same", seed=9), Request("same", temperature=0.7, seed=1)]
    reqs.append(Request("same", temperature=0.7, seed=2))
    out, calls = run_cached(gen, reqs, None)
    assert calls == 3 and gen.calls == 3
    assert [r.text for r in out] == ["SAME"] * 4


# ------------------------------------------------------------------------------------ hf backend
@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    """A tiny LlamaForCausalLM with RANDOM weights and a word-level tokenizer trained here: it checks
    the plumbing (chat template, batching, seeding, finish reasons), not answer quality."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaForCausalLM, PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("tiny_llama")
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = [GOLD.text, TENANCY.text, APPEAL.text, SENTENCING.text, "user assistant question answer"]
    tok.train_from_iterator(
        corpus, trainers.WordLevelTrainer(special_tokens=["<unk>", "<pad>", "<s>", "</s>"])
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>"
    )
    fast.chat_template = "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}assistant :"
    fast.save_pretrained(path)
    torch.manual_seed(0)
    LlamaForCausalLM(tiny_llama_config(fast, heads=4, kv_heads=2)).save_pretrained(path, safe_serialization=True)
    return str(path)


def test_hf_backend_greedy_batched_and_seeded_sampling(tiny_llama):
    gen = make_generator(f"hf:{tiny_llama}")
    assert gen.render("the tenant").startswith("user : the tenant")
    prompts = [
        "the tenant fell behind",
        "the Court of Appeal dismissed the appeal against sentence",
        "penalty",
    ]
    batched = gen.generate([Request(p, max_new_tokens=6) for p in prompts])
    single = [gen.generate([Request(p, max_new_tokens=6)])[0] for p in prompts]
    assert [r.text for r in batched] == [r.text for r in single]
    for r in batched:
        assert r.finish_reason in {"stop", "length"} and 0 <= r.meta["new_tokens"] <= 6
        assert r.finish_reason == "stop" or r.meta["new_tokens"] == 6
    s1 = gen.generate([Request(prompts[0], temperature=1.0, top_p=0.95, max_new_tokens=8, seed=3)])[0]
    s2 = gen.generate([Request(prompts[0], temperature=1.0, top_p=0.95, max_new_tokens=8, seed=3)])[0]
    assert s1 == s2


def test_hf_backend_refuses_pickle_only_weights(tmp_path, tiny_llama):
    import shutil

    for f in ("tokenizer.json", "tokenizer_config.json", "config.json"):
        shutil.copy(f"{tiny_llama}/{f}", tmp_path / f)
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(OSError):
        make_generator(f"hf:{tmp_path}")
