"""Nothing paid is lost (issue 19): the response cache reads back every answer it wrote, compaction keeps
the paid entries a run did not use, and a reply that is not a well-formed completion is retried, never
cached. The server here is a real HTTP server on loopback; the cache is the one every calling stage uses
(generate, judge, augment, irac)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import ChatServer, chat_reply
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.backends import BackendError, Request, Response, make_generator
from pipeline.backends.cache import (
    CachedGenerator,
    ResponseCache,
    compacting,
    read_shard,
    retired_root,
    run_cached,
)
from pipeline.params import GenerateParams

pytestmark = pytest.mark.reliability

# Every code point, lone surrogates and the line separators str.splitlines() splits on included.
ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=40)
SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x0c", "\x1c", "\r", "\r\n", "\x0b"]


@settings(max_examples=300, deadline=None)
@given(text=ANY_TEXT, reason=ANY_TEXT, meta=ANY_TEXT)
def test_the_cache_reads_back_every_string_it_wrote(tmp_path_factory, text, reason, meta):
    root = tmp_path_factory.mktemp("cache")
    with ResponseCache(root, "openai:http://h/v1|m") as cache:
        cache.put("k1", Response(text, reason, {"model": meta}))
        cache.put("k2", Response("after", "stop", {}))
    again = ResponseCache(root, "openai:http://h/v1|m")
    assert again.get("k1") == Response(text, reason, {"model": meta})
    assert again.get("k2") == Response("after", "stop", {})


@pytest.mark.parametrize("separator", SEPARATORS)
def test_a_paid_answer_holding_a_line_separator_is_not_paid_again(tmp_path, separator):
    class Counting:
        name, batch_size, calls = "openai:http://h/v1|m", 4, 0

        def generate(self, requests):
            self.calls += len(requests)
            return [Response(f"first{separator}second", "stop", {}) for _ in requests]

    gen = Counting()
    for _ in range(3):  # three runs, each a fresh cache read from disk
        with compacting(tmp_path):
            responses, _ = run_cached(gen, [Request("q")], ResponseCache(tmp_path, gen.name))
        assert responses[0].text == f"first{separator}second"
    assert gen.calls == 1


class Counting:
    """A paid generator that counts the prompts it is sent."""

    batch_size = 8

    def __init__(self, name: str = "openai:http://h/v1|m"):
        self.name, self.sent = name, []

    def generate(self, requests):
        self.sent += [r.prompt for r in requests]
        return [Response(f"answer to {r.prompt}", "stop", {}) for r in requests]


def run_once(root: Path, gen: Counting, prompts: list[str]) -> None:
    with compacting(root):
        CachedGenerator(gen, root).generate([Request(p) for p in prompts])


def test_compaction_keeps_the_paid_answers_a_narrowed_run_did_not_use(tmp_path):
    root, gen = tmp_path / "cache", Counting()
    run_once(root, gen, ["a", "b", "c"])
    run_once(root, gen, ["a"])  # a run narrowed for a quick look (say, one variant)
    shard = next(root.glob("*.jsonl"))
    assert set(read_shard(shard)) != set(read_shard(retired_root(root) / shard.name))
    assert len(read_shard(shard)) == 1 and len(read_shard(retired_root(root) / shard.name)) == 2
    run_once(root, gen, ["a", "b", "c"])  # widened back: nothing is paid twice
    assert gen.sent == ["a", "b", "c"]
    # The versioned cache holds exactly this run's calls again; the retired ones went back into it.
    assert len(read_shard(shard)) == 3 and read_shard(retired_root(root) / shard.name) == {}
    # A generator this run no longer calls at all keeps its answers too.
    run_once(root, Counting("openai:http://other/v1|m"), ["z"])
    assert not shard.exists() and len(read_shard(retired_root(root) / shard.name)) == 3


def test_offline_answers_are_not_kept_when_unused(tmp_path):
    """The offline answerers cost nothing and are keyed by their code version: no retired copy."""
    root = tmp_path / "cache"
    run_once(root, Counting("offline:cautious"), ["a", "b"])
    run_once(root, Counting("offline:cautious"), ["a"])
    assert not retired_root(root).exists()


# ------------------------------------------------------------------------------ malformed replies
GOOD = "The fine was HK$1,000."
MALFORMED = {
    "null content": {"model": "m", "choices": [{"message": {"content": None}, "finish_reason": "stop"}]},
    "numeric content": {"model": "m", "choices": [{"message": {"content": 12}, "finish_reason": "stop"}]},
    "numeric finish_reason": {"model": "m", "choices": [{"message": {"content": GOOD}, "finish_reason": 123}]},
    "unknown finish_reason": {"model": "m", "choices": [{"message": {"content": GOOD}, "finish_reason": "abort"}]},
    "NaN completion_tokens": {**chat_reply("m", GOOD), "usage": {"completion_tokens": math.nan}},
    "negative completion_tokens": {**chat_reply("m", GOOD), "usage": {"completion_tokens": -3}},
    "string completion_tokens": {**chat_reply("m", GOOD), "usage": {"completion_tokens": "2"}},
    "50 MB reply": chat_reply("m", "x" * 50_000_000),
    "answer far beyond max_new_tokens": chat_reply("m", "word " * 20_000),
}


def flaky_server(bad: dict, failures: int) -> ChatServer:
    """Replies `bad` to the first `failures` calls, then a good completion (a NaN goes out as JSON's NaN,
    as json.dumps writes it and some servers send it)."""
    good = chat_reply("m", GOOD, completion_tokens=7)
    return ChatServer(lambda headers, body, prompt, n: (200, bad if n <= failures else good))


def http(**kw) -> GenerateParams:
    return GenerateParams(**{"concurrency": 1, "timeout_s": 30.0, "max_retries": 2, "retry_backoff_s": 0.0,
                             "retry_max_wait_s": 0.0, "api_key_env": "LEGAL_RM_UNSET_KEY", **kw})


@pytest.mark.parametrize("fault", list(MALFORMED))
def test_a_malformed_200_reply_is_retried_and_never_cached(tmp_path, fault):
    with flaky_server(MALFORMED[fault], failures=1) as server:
        gen = make_generator(f"openai:{server.url}|m", http())
        with compacting(tmp_path):
            responses, sent = run_cached(gen, [Request("q", max_new_tokens=64)], ResponseCache(tmp_path, gen.name))
        assert server.calls == 2 and sent == 1
    assert responses[0] == Response(GOOD, "stop", {"model": "m", "completion_tokens": 7})
    shard = next(tmp_path.glob("openai*.jsonl"))
    assert list(read_shard(shard).values()) == [responses[0]]


@pytest.mark.parametrize("fault", ["null content", "numeric finish_reason", "NaN completion_tokens"])
def test_a_server_that_keeps_replying_malformed_stops_the_run_and_caches_nothing(tmp_path, fault):
    with flaky_server(MALFORMED[fault], failures=99) as server:
        gen = make_generator(f"openai:{server.url}|m", http())
        with pytest.raises(BackendError, match="giving up after 3 attempts") as info:
            with compacting(tmp_path):
                run_cached(gen, [Request("q")], ResponseCache(tmp_path, gen.name))
    assert "\n" not in str(info.value)
    assert not any(read_shard(p) for p in tmp_path.rglob("*.jsonl"))
