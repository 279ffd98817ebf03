"""The reliability promise for bad inputs (issue 9).

Every bad params value and every bad input record below stops the stage that would read it before any
work, with one message naming the place -- the dotted key, the value and the allowed range, or file,
line and field -- and leaves every file of the project as it was. A non-finite loss or log-prob stops
the stage that made it, naming run and step or model and pair. Run from the command line, a stage says
it in one line and exits 1, without a traceback unless LRP_DEBUG=1 or --debug asks for one.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import math
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest
import yaml

from pipeline import params as params_mod
from pipeline import ranges
from pipeline.io import InputError, NonFiniteError
from pipeline.params import ParamsError
from pipeline.ranges import Entries, Range
from pipeline.stages import explain
from pipeline.stages import run as run_stage

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[1]
SMOKE = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text(encoding="utf-8"))
NAN, INF = math.nan, math.inf
SHIPPED = ["params.yaml", "params/smoke.yaml", "params/gpu.yaml", "params/bilingual.yaml"]
# Files that stand for earlier outputs of every stage: a failed run must leave them byte for byte.
PREVIOUS = ["data/raw/decisions.jsonl", "data/interim/passages.jsonl", "data/interim/contexts.jsonl",
            "data/interim/candidates.jsonl", "data/interim/labels/rule_strict.jsonl",
            "data/processed/pairs_aug/meta.json", "models/base/meta.json",
            "models/adapters/dpo-pairs-s0/train_meta.json", "data/scores/base/pairs.jsonl", "reports/report.md",
            "reports/irac.md"]
STAGE_ARGS = {"train": ["--run", "dpo-pairs-s0"]}


def raw_with(overrides: dict[str, typing.Any], base: dict | None = None) -> dict:
    """The smoke profile with each dotted key set to its value."""
    raw = copy.deepcopy(SMOKE if base is None else base)
    for dotted, value in overrides.items():
        *path, last = dotted.split(".")
        node = raw
        for key in path:
            node = node[key]
        node[last] = value
    return raw


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder under `root`: a stray temporary file shows too."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def project(tmp_path: Path, raw: dict, files: dict[str, bytes] | None = None) -> Path:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    for name in PREVIOUS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("previous output\n", encoding="utf-8")
    for name, data in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    return tmp_path


def run_main(stage: str, argv: list[str]) -> str:
    """The message a stage's main stops with (its own SystemExit, or the error run() would print)."""
    module = importlib.import_module(f"pipeline.stages.{stage}")
    with pytest.raises((ParamsError, InputError, NonFiniteError, SystemExit)) as info:
        module.main(argv)
    return str(info.value.code if isinstance(info.value, SystemExit) else info.value)


# ------------------------------------------------------------------------------------- bad params
# (overrides of the smoke profile, the dotted key the message names, what the message says)
PARAMS = [
    ({"seed": -1}, "seed", "-1 is out of range (allowed: in [0, 4294967295])"),
    ({"seed": 2**32}, "seed", "4294967296 is out of range"),
    ({"decisions.n_decisions": -3}, "decisions.n_decisions", "-3 is out of range (allowed: >= 0)"),
    ({"decisions.n_decisions": 0}, "decisions.n_decisions", "0 is out of range (allowed: >= 1, or 0 when"),
    ({"decisions.synthetic": False}, "decisions.synthetic", "false and nothing is imported"),
    ({"decisions.case_mix.insider_trading": -0.4}, "decisions.case_mix.insider_trading",
     "-0.4 is out of range (allowed: >= 0)"),
    ({"decisions.case_mix.criminal_sentencing": INF}, "decisions.case_mix.criminal_sentencing",
     "inf is not a finite number (allowed: >= 0)"),
    ({"corpus.questions_per_decision": 0}, "corpus.questions_per_decision", "0 is out of range (allowed: >= 1, or 0"),
    ({"corpus.questions_per_decision": -2}, "corpus.questions_per_decision", "-2 is out of range (allowed: >= 0)"),
    ({"corpus.qa_kinds": []}, "corpus.qa_kinds", "[] is empty"),
    ({"corpus.max_passage_chars": 0}, "corpus.max_passage_chars", "0 is out of range (allowed: >= 1)"),
    ({"corpus.max_shared_ngram": 0}, "corpus.max_shared_ngram", "0 is out of range (allowed: >= 1)"),
    ({"contexts.k": 0}, "contexts.k", "0 is out of range (allowed: >= 1)"),
    ({"contexts.k": -1}, "contexts.k", "-1 is out of range (allowed: >= 1)"),
    ({"contexts.pool": 5}, "contexts.pool", "5 is out of range (allowed: >= contexts.k = 10"),
    ({"contexts.bm25_b": 1.5}, "contexts.bm25_b", "1.5 is out of range (allowed: in [0, 1])"),
    ({"contexts.bm25_k1": -1.0}, "contexts.bm25_k1", "-1.0 is out of range (allowed: >= 0)"),
    ({"contexts.variants": []}, "contexts.variants", "[] is empty: the stage needs at least one entry"),
    ({"contexts.embed_batch_size": 0}, "contexts.embed_batch_size", "0 is out of range (allowed: >= 1)"),
    ({"contexts.max_unknown_token_rate": 2.0}, "contexts.max_unknown_token_rate", "2.0 is out of range"),
    ({"generate.decoding.max_new_tokens": -5}, "generate.decoding.max_new_tokens",
     "-5 is out of range (allowed: >= 1)"),
    ({"generate.decoding.temperature": -0.5}, "generate.decoding.temperature", "-0.5 is out of range (allowed: >= 0)"),
    ({"generate.decoding.top_p": 0.0}, "generate.decoding.top_p", "0.0 is out of range (allowed: in (0, 1])"),
    ({"generate.decoding.top_p": 1.5}, "generate.decoding.top_p", "1.5 is out of range (allowed: in (0, 1])"),
    ({"generate.panel": ["offline:terse", "offline:cautious", "offline:terse"]}, "generate.panel",
     "lists 'offline:terse' twice"),
    ({"generate.panel": []}, "generate.panel", "[] is empty"),
    ({"generate.variants": []}, "generate.variants", "[] is empty"),
    ({"contexts.variants": ["gold_only", "random_context"], "generate.variants": ["bm25_hard_negative"]},
     "generate.variants", "['bm25_hard_negative'] has no variant that contexts.variants builds (allowed: at least "
     "one of ['gold_only', 'random_context'])"),
    ({"generate.concurrency": 0}, "generate.concurrency", "0 is out of range (allowed: >= 1)"),
    ({"generate.timeout_s": -1.0}, "generate.timeout_s", "-1.0 is out of range (allowed: > 0)"),
    ({"generate.max_retries": -1}, "generate.max_retries", "-1 is out of range (allowed: >= 0)"),
    ({"generate.retry_backoff_s": NAN}, "generate.retry_backoff_s", "nan is not a finite number (allowed: >= 0)"),
    ({"generate.batch_size": 0}, "generate.batch_size", "0 is out of range (allowed: >= 1)"),
    ({"generate.offline_thresholds.cautious": 1.5}, "generate.offline_thresholds.cautious",
     "1.5 is out of range (allowed: in [0, 1])"),
    ({"judge.judges": []}, "judge.judges", "[] is empty"),
    ({"judge.judges": ["rule:strict", "rule:strict"]}, "judge.judges", "lists 'rule:strict' twice"),
    ({"judge.max_retries": -1}, "judge.max_retries", "-1 is out of range (allowed: >= 0)"),
    ({"judge.decoding.max_new_tokens": 0}, "judge.decoding.max_new_tokens", "0 is out of range (allowed: >= 1)"),
    ({"pairs.train": 1.0}, "pairs", "train 1 + val 0.1 + test 0.1 = 1.2 (allowed: train + val + test = 1)"),
    ({"pairs.val": -0.1, "pairs.train": 1.0}, "pairs.val", "-0.1 is out of range (allowed: in [0, 1])"),
    ({"pairs.train": 0.0, "pairs.val": 0.5, "pairs.test": 0.5}, "pairs.train", "0.0 is out of range (allowed: in (0, 1])"),
    ({"pairs.train": 0.9, "pairs.test": 0.0}, "pairs.test", "0 leaves the test split empty, but score.splits lists it"),
    ({"pairs.variants": []}, "pairs.variants", "[] is empty"),
    ({"augment.samples": 0}, "augment.samples", "0 is out of range (allowed: >= 1)"),
    ({"augment.top_p": 0.0}, "augment.top_p", "0.0 is out of range (allowed: in (0, 1])"),
    ({"augment.temperature": NAN}, "augment.temperature", "nan is not a finite number (allowed: >= 0)"),
    ({"augment.short_answer_tokens": -1}, "augment.short_answer_tokens", "-1 is out of range (allowed: >= 0)"),
    ({"pretrain.num_heads": 3}, "pretrain.num_heads", "3 does not divide pretrain.hidden_size (64)"),
    ({"pretrain.num_kv_heads": 3, "pretrain.num_heads": 4}, "pretrain.num_kv_heads",
     "3 does not divide pretrain.num_heads (4)"),
    ({"pretrain.seq_len": 4096}, "pretrain.seq_len", "4096 is out of range (allowed: <= pretrain.max_position_embeddings"),
    ({"pretrain.lr": 0.0}, "pretrain.lr", "0.0 is out of range (allowed: > 0)"),
    ({"pretrain.steps": 0}, "pretrain.steps", "0 is out of range (allowed: >= 1)"),
    ({"train.beta": NAN}, "train.beta", "nan is not a finite number (allowed: > 0)"),
    ({"train.beta": 0.0}, "train.beta", "0.0 is out of range (allowed: > 0)"),
    ({"train.lr": -1e-5}, "train.lr", "-1e-05 is out of range (allowed: > 0)"),
    ({"train.lr": INF}, "train.lr", "inf is not a finite number (allowed: > 0)"),
    ({"train.epochs": 0.0}, "train.epochs", "0.0 is out of range (allowed: > 0)"),
    ({"train.batch_size": 0}, "train.batch_size", "0 is out of range (allowed: >= 1)"),
    ({"train.grad_accum": -1}, "train.grad_accum", "-1 is out of range (allowed: >= 1)"),
    ({"train.max_length": 0}, "train.max_length", "0 is out of range (allowed: >= 1)"),
    ({"train.max_steps": 0}, "train.max_steps", "0 is out of range (allowed: >= 1 or -1; -1 = train.epochs decide)"),
    ({"train.max_steps": -2}, "train.max_steps", "-2 is out of range"),
    ({"train.max_pairs": 0}, "train.max_pairs", "0 is out of range (allowed: >= 1 or null; null = all)"),
    ({"train.logging_steps": 0}, "train.logging_steps", "0 is out of range (allowed: >= 1)"),
    ({"train.lora.r": 0}, "train.lora.r", "0 is out of range (allowed: >= 1)"),
    ({"train.lora.dropout": 1.0}, "train.lora.dropout", "1.0 is out of range (allowed: in [0, 1))"),
    ({"train.lora.dropout": -0.1}, "train.lora.dropout", "-0.1 is out of range (allowed: in [0, 1))"),
    ({"train.lora.target_modules": []}, "train.lora.target_modules", "[] is empty"),
    ({"train.runs": {"dpo": ["pairs+external-s0"]}}, "train.runs.dpo[0]",
     "'pairs+external-s0' trains on outside pairs, but train.external_pairs.format is none"),
    ({"score.max_pairs": -1}, "score.max_pairs", "-1 is out of range (allowed: >= 0; 0 = all)"),
    ({"score.train_sample": -5}, "score.train_sample", "-5 is out of range (allowed: >= 0; 0 = score.max_pairs)"),
    ({"score.batch_tokens": 0}, "score.batch_tokens", "0 is out of range (allowed: >= 1)"),
    ({"score.splits": []}, "score.splits", "[] is empty"),
    ({"score.splits": ["test", "test"]}, "score.splits", "lists 'test' twice"),
    ({"score.splits": ["train", "tset"]}, "score.splits[1]", "unknown split 'tset' (allowed: train, val, test)"),
    ({"score.corpora": ["external"]}, "score.corpora", "lists 'external', but train.external_pairs.format is none"),
    ({"train.external_pairs.format": "jsonl"}, "train.external_pairs.path",
     "is still the placeholder data/external/no_outside_pairs.txt: name your pairs file"),
    ({"score.splits": ["train", "test"], "report.main_split": "val"}, "report.main_split",
     "'val' is not scored (allowed: one of score.splits ['train', 'test'])"),
    ({"report.length_ratio": 0.5}, "report.length_ratio", "0.5 is out of range (allowed: >= 1)"),
    ({"report.bootstrap_resamples": 0}, "report.bootstrap_resamples", "0 is out of range (allowed: >= 1)"),
    ({"report.bootstrap_seed": -1}, "report.bootstrap_seed", "-1 is out of range (allowed: in [0, 4294967295])"),
    ({"irac.tau.minilm": 1.5}, "irac.tau.minilm", "1.5 is out of range (allowed: in [-1, 1])"),
    ({"irac.tau.minilm": NAN}, "irac.tau.minilm", "nan is not a finite number (allowed: in [-1, 1])"),
    ({"irac.systems": []}, "irac.systems", "[] is empty"),
    ({"irac.modes": ["standard", "standard"]}, "irac.modes", "lists 'standard' twice"),
    ({"irac.max_decisions": -1}, "irac.max_decisions", "-1 is out of range (allowed: >= 0; 0 = all)"),
    ({"irac.decoding.top_p": -INF}, "irac.decoding.top_p", "-inf is not a finite number (allowed: in (0, 1])"),
    # Names that must match something (issue 19): checked with the key and the allowed names.
    ({"pairs.variants": ["gold_plus_random", "gold_plus_bm52"]}, "pairs.variants[1]",
     "unknown context variant 'gold_plus_bm52' (known: gold_only, gold_surrounding"),
    ({"contexts.variants": ["gold_only", "random_contxt"]}, "contexts.variants[1]", "unknown context variant"),
    ({"generate.variants": ["gold_only", "dense_hard_negative.e5"]}, "generate.variants[1]",
     "names the dense model alias 'e5', which contexts.dense_models does not define"),
    ({"corpus.qa_kinds": ["factual", "yes_no"]}, "corpus.qa_kinds[1]", "unknown question kind 'yes_no'"),
    ({"generate.panel": ["offline:cautious", "offline:cautous"]}, "generate.panel[1]",
     "unknown offline model 'cautous' (known: cautious, confident, terse, verbose, rewriter)"),
    ({"generate.panel": ["offline:cautious", "vllm:http://h/v1|m"]}, "generate.panel[1]",
     "'vllm:http://h/v1|m' is not a generator (allowed: '<backend>:<model>' with backend offline, hf, openai)"),
    ({"generate.panel": ["offline:cautious", "openai:localhost:8000|m"]}, "generate.panel[1]",
     "expected 'openai:<http(s) base url>"),
    ({"judge.judges": ["rule:strict", "rule:lenent"]}, "judge.judges[1]", "unknown judge 'rule:lenent' (allowed: "
     "rule:strict, rule:lenient or 'llm:<generator>'"),
    ({"judge.judges": ["rule:strict", "llm:offline:nobody"]}, "judge.judges[1]", "unknown offline model 'nobody'"),
    ({"augment.rewriter": "offline:rewritter"}, "augment.rewriter", "unknown offline model 'rewritter'"),
    ({"irac.systems": ["rule", "rules"]}, "irac.systems[1]", "'rules' is not a generator (allowed: 'rule' or "),
    ({"irac.judge": "gpt"}, "irac.judge", "'gpt' is not a generator (allowed: '' (no judge) or "),
    ({"train.loss_type": "sigmoidd"}, "train.loss_type", "unknown DPO loss 'sigmoidd' (known: sigmoid, hinge"),
    ({"train.lora.target_modules": ["q_proj", "query"]}, "train.lora.target_modules[1]",
     "the built-in model has no layer 'query'"),
    ({"train.trainer_kwargs": {"per_device_train_batch_size": 0}}, "train.trainer_kwargs.per_device_train_batch_size",
     "0 is out of range (allowed: >= 1)"),
    ({"train.trainer_kwargs": {"gradient_accumulation_steps": 0}}, "train.trainer_kwargs.gradient_accumulation_steps",
     "0 is out of range (allowed: >= 1)"),
    ({"train.trainer_kwargs": {"seed": "seven"}}, "train.trainer_kwargs.seed", "'seven' is not an integer"),
    ({"train.trainer_kwargs": {"seed": 2**40}}, "train.trainer_kwargs.seed", "1099511627776 is out of range"),
    ({"train.trainer_kwargs": {"max_steps": 0}}, "train.trainer_kwargs.max_steps",
     "0 is out of range (allowed: >= 1 or -1; -1 = epochs decide)"),
    ({"train.trainer_kwargs": {"learning_rate": NAN}}, "train.trainer_kwargs.learning_rate", "nan is not a finite number"),
    ({"train.runs": {"dpo": ["pairs-s0", "pairs-s00"]}}, "train.runs.dpo[1]",
     "run 'dpo-pairs-s00' is not <objective>-<corpus>-s<seed> (e.g. dpo-pairs_aug-s0; the seed without leading zeros)"),
    ({"train.runs": {"dpo": ["pairs-s99999999999"]}}, "train.runs.dpo[0]",
     "seed 99999999999 is out of range (allowed: 0 to 4294967295)"),
    ({"pretrain.vocab_size": 1}, "pretrain.vocab_size", "1 is out of range (allowed: >= 261"),
    ({"pretrain.hidden_size": 66, "pretrain.num_heads": 2, "pretrain.num_kv_heads": 1}, "pretrain.num_heads",
     "head size pretrain.hidden_size / pretrain.num_heads = 66 / 2 is odd"),
]


def _params_id(case) -> str:
    overrides = case[0]
    return ",".join(f"{k}={v}" for k, v in overrides.items())[:60]


@pytest.mark.parametrize(("overrides", "where", "says"), PARAMS, ids=[_params_id(c) for c in PARAMS])
def test_bad_params_value_stops_the_stage_before_any_work(tmp_path, monkeypatch, overrides, where, says):
    raw = raw_with(overrides)
    with pytest.raises(ParamsError) as info:
        params_mod.from_dict(raw, source="params.yaml")
    assert str(info.value).startswith(f"params.yaml: {where}: "), str(info.value)
    assert says in str(info.value)
    # The stage that reads the key stops on the same line, and every earlier output stays as it was.
    stage = where.split(".")[0] if where != "seed" else "decisions"
    monkeypatch.chdir(project(tmp_path, raw))
    before = snapshot(tmp_path)
    message = run_main(stage, STAGE_ARGS.get(stage, []))
    assert message == str(info.value)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profiles_keep_every_range(name):
    params_mod.load(ROOT / name)


def test_defaults_keep_every_range():
    params_mod.from_dict({})


def _numbers_without_a_range(cls: type, prefix: str = "") -> list[str]:
    """Dotted names of int/float knobs (also inside lists, dicts and Optionals) with no declared Range."""
    out = []
    hints = typing.get_type_hints(cls, include_extras=True)
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        while True:
            rules, bare, _ = ranges.declared(hint)
            if dataclasses.is_dataclass(bare):
                out += _numbers_without_a_range(bare, f"{prefix}{f.name}.")
                break
            if bare in (int, float):
                if not any(isinstance(r, Range) for r in rules):
                    out.append(f"{prefix}{f.name}")
                break
            args = typing.get_args(bare)
            if typing.get_origin(bare) in (list, dict):
                hint = args[-1]
                continue
            break
    return out


def test_every_number_has_a_declared_range():
    assert _numbers_without_a_range(params_mod.Params) == []


def test_range_and_entries_say_what_is_allowed():
    assert str(Range(0, 1, low_open=True)) == "in (0, 1]"
    assert str(Range(1, also=(-1,))) == ">= 1 or -1"
    assert Range(1, also=(-1,)).allows(-1) and not Range(1, also=(-1,)).allows(0)
    assert str(Entries()) == "a non-empty list of distinct entries"
    assert Entries().problem(["a", "b"]) is None


# ------------------------------------------------------------------------------------ bad records
def _pair(i: int, **changes) -> dict:
    record = {
        "id": f"p{i}", "qa_id": f"q{i}", "context_id": f"q{i}/gold_only", "variant": "gold_only",
        "answerable": True, "split": "train", "dimension": "faithfulness",
        "prompt": f"Passages: [1] Notice of {i} weeks.\n\nQuestion: how much notice?",
        "chosen": f"{i} weeks.", "rejected": "No notice.", "chosen_generator": "offline:terse",
        "rejected_generator": "offline:verbose", "chosen_tokens": 2, "rejected_tokens": 2, "augmented": False,
        "source": "test",
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not _DROP}


def _score(i: int, **changes) -> dict:
    return {"pair_id": f"p{i}", "model": "base", "scoring": "sum", "chosen": -3.5, "rejected": -4.0, "margin": 0.5,
            "correct": True, "chosen_tokens": 2, "rejected_tokens": 2, **changes}


def _outside(i: int, **changes) -> dict:
    return {"id": f"o{i}", "prompt": "Is notice needed?", "chosen": "Yes, in writing.", "rejected": "No.", **changes}


def _lines(*records) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


_DROP = object()
PAIRS = "data/processed/pairs/train.jsonl"
OUTSIDE = {"train.external_pairs.format": "jsonl", "train.external_pairs.path": "data/external/outside.jsonl"}
SCORES = {"data/scores/meta.json": b'{"models": ["base"], "corpora": ["pairs"]}',
          "data/processed/pairs/test.jsonl": b""}
IMPORT = {"decisions.n_decisions": 3}

# (name, stage, argv, params overrides, files, what the message must name)
RECORDS = [
    ("import_path is a folder without JSONL", "decisions", [], {**IMPORT, "decisions.import_path": "data/external/mine"},
     {"data/external/mine/notes.txt": b"my decisions\n"},
     "data/external/mine: a folder with no *.jsonl files (decisions.import_path"),
    ("import_path does not exist", "decisions", [], {**IMPORT, "decisions.import_path": "data/external/none.jsonl"},
     {}, "data/external/none.jsonl: file not found (decisions.import_path)"),
    ("documents folder without JSONL", "decisions", [],
     {**IMPORT, "decisions.documents.format": "records", "decisions.documents.path": "data/external/docs"},
     {"data/external/docs/case.json": b"{}"}, "data/external/docs: a folder with no *.jsonl files (decisions.documents.path"),
    ("pair line is not JSON", "train", ["--run", "dpo-pairs-s0"], {}, {PAIRS: _lines(_pair(0)) + b'{"id": "p1",\n'},
     f"{PAIRS}, line 2: malformed JSON"),
    ("pair without a prompt", "train", ["--run", "dpo-pairs-s0"], {}, {PAIRS: _lines(_pair(0), _pair(1, prompt=_DROP))},
     f"{PAIRS}, line 2, field 'prompt': missing required field"),
    ("pair token count is text", "train", ["--run", "dpo-pairs-s0"], {},
     {PAIRS: _lines(_pair(0), _pair(1, chosen_tokens="many"))}, f"{PAIRS}, line 2, field 'chosen_tokens'"),
    ("pair id twice", "train", ["--run", "dpo-pairs-s0"], {}, {PAIRS: _lines(_pair(0), _pair(0))},
     f"{PAIRS}, line 2, field 'id': duplicate id"),
    ("pair id unsafe", "train", ["--run", "dpo-pairs-s0"], {}, {PAIRS: _lines(_pair(0), _pair(1, id="../../x"))},
     f"{PAIRS}, line 2, field 'id': unsafe id"),
    ("pair split unknown", "train", ["--run", "dpo-pairs-s0"], {}, {PAIRS: _lines(_pair(0), _pair(1, split="dev"))},
     f"{PAIRS}, line 2, field 'split'"),
    ("pair with invalid UTF-8", "train", ["--run", "dpo-pairs-s0"], {},
     {PAIRS: _lines(_pair(0)) + b'{"id": "p\xff"}\n'}, f"{PAIRS}, line 2: invalid UTF-8"),
    ("outside pair prefers nothing", "train", ["--run", "dpo-external-s0"], OUTSIDE,
     {"data/external/outside.jsonl": _lines(_outside(0), _outside(1, rejected="Yes, in writing."))},
     "data/external/outside.jsonl, line 2, field 'rejected': the same text as chosen"),
    ("outside pair empty chosen", "train", ["--run", "dpo-external-s0"], OUTSIDE,
     {"data/external/outside.jsonl": _lines(_outside(0, chosen="  "))},
     "data/external/outside.jsonl, line 1, field 'chosen': missing or empty string"),
    ("outside pair id twice", "train", ["--run", "dpo-external-s0"], OUTSIDE,
     {"data/external/outside.jsonl": _lines(_outside(0), _outside(0))},
     "data/external/outside.jsonl, line 2, field 'id': duplicate id"),
    ("score is NaN", "report", [], {}, {**SCORES, "data/scores/base/pairs.jsonl": _lines(_score(0), _score(1, chosen=NAN))},
     "data/scores/base/pairs.jsonl, line 2, field 'chosen': nan is not a finite number"),
    ("score margin is Infinity", "report", [], {},
     {**SCORES, "data/scores/base/pairs.jsonl": _lines(_score(0, margin=INF))},
     "data/scores/base/pairs.jsonl, line 1, field 'margin': inf is not a finite number"),
    ("score is -Infinity", "report", [], {},
     {**SCORES, "data/scores/base/pairs.jsonl": _lines(_score(0), _score(1), _score(2, rejected=-INF))},
     "data/scores/base/pairs.jsonl, line 3, field 'rejected': -inf is not a finite number"),
]


@pytest.mark.parametrize(("name", "stage", "argv", "overrides", "files", "names"), RECORDS, ids=[c[0] for c in RECORDS])
def test_bad_record_names_file_line_and_field_and_changes_nothing(tmp_path, monkeypatch, name, stage, argv,
                                                                   overrides, files, names):
    monkeypatch.chdir(project(tmp_path, raw_with(overrides), files))
    before = snapshot(tmp_path)
    message = run_main(stage, argv)
    assert names in message and "\n" not in message, message
    assert snapshot(tmp_path) == before


def test_enough_distinct_bad_inputs_are_tested():
    assert len(PARAMS) + len(RECORDS) >= 40
    assert len({_params_id(c) for c in PARAMS}) == len(PARAMS) and len({c[0] for c in RECORDS}) == len(RECORDS)


# ------------------------------------------------------------------------------- non-finite results
def _tiny_base(root: Path, poison: bool):
    """A tiny random Llama and its tokenizer saved as models/base (the built-in layout); `poison` puts a
    NaN into the final norm, so every log-prob and loss is NaN."""
    import torch
    from conftest import tiny_llama_config
    from transformers import LlamaForCausalLM

    from pipeline.models.tokenizer import train_tokenizer

    texts = [_pair(i)["prompt"] + " " + _pair(i)["chosen"] + " " + _pair(i)["rejected"] for i in range(20)]
    tokenizer = train_tokenizer(texts * 5, 300)
    torch.manual_seed(0)
    model = LlamaForCausalLM(tiny_llama_config(tokenizer)).eval()
    if poison:
        with torch.no_grad():
            model.model.norm.weight[0] = float("nan")
    base = root / "models/base"
    model.save_pretrained(base)
    tokenizer.save_pretrained(base)
    (base / "meta.json").write_text(json.dumps({"base_model": "builtin"}))
    return model, tokenizer


def test_training_loss_that_turns_nan_stops_the_run_naming_run_and_step(tmp_path):
    from pipeline.training.data import Example, tokenize
    from pipeline.training.run import train_adapter

    model, tokenizer = _tiny_base(tmp_path, poison=True)
    examples = [Example(f"p{i}", _pair(i)["prompt"], _pair(i)["chosen"], _pair(i)["rejected"], "pairs")
                for i in range(4)]
    rows = tokenize(examples, tokenizer, 512, "drop")
    t = params_mod.TrainParams(lora=params_mod.LoraParams(r=2, alpha=4, dropout=0.0), lr=1e-3, epochs=1.0,
                               batch_size=2, grad_accum=1, max_length=512, max_steps=2, logging_steps=1)
    with pytest.raises(NonFiniteError, match=r"run dpo-pairs-s0: training loss is nan at step 1 "):
        train_adapter(model, tokenizer, rows, "dpo", t, seed=0, name="dpo-pairs-s0")


def test_train_stage_with_a_nan_loss_writes_no_adapter(tmp_path, monkeypatch):
    from pipeline.stages import train

    raw = raw_with({"train.max_steps": 2, "train.logging_steps": 2, "train.batch_size": 2, "train.lora.r": 2})
    root = project(tmp_path, raw, {PAIRS: _lines(*[_pair(i) for i in range(4)])})
    _tiny_base(root, poison=True)
    monkeypatch.chdir(root)
    before = snapshot(root)
    with pytest.raises(NonFiniteError, match=r"run dpo-pairs-s1: training loss is nan at step 2 \(first bad step in "
                                             r"1\.\.2\); no adapter was written"):
        train.main(["--run", "dpo-pairs-s1"])
    assert snapshot(root) == before


def test_non_finite_loss_callback_names_the_logging_window():
    from types import SimpleNamespace

    from pipeline.training.run import StopOnNonFiniteLoss

    callback = StopOnNonFiniteLoss("sft-pairs-s1")
    args, state = SimpleNamespace(logging_steps=5), SimpleNamespace(global_step=20)
    callback.on_log(args, state, None, logs={"loss": 0.7, "grad_norm": 1.0})
    with pytest.raises(NonFiniteError, match=r"run sft-pairs-s1: training loss is inf at step 20 \(first bad step in "
                                             r"16\.\.20\)"):
        callback.on_log(args, state, None, logs={"loss": INF})
    with pytest.raises(NonFiniteError, match="training loss is nan"):
        callback.on_log(args, state, None, logs={"train_loss": NAN})


def _score_project(tmp_path: Path) -> Path:
    pairs = _lines(*[_pair(i, split="test", id=f"t{i}") for i in range(3)])
    raw = raw_with({"score.corpora": ["pairs"], "score.splits": ["test"], "score.max_pairs": 0})
    root = project(tmp_path, raw, {"data/processed/pairs/test.jsonl": pairs})
    (root / "models/adapters").mkdir(exist_ok=True)
    _tiny_base(root, poison=True)
    return root


def test_nan_log_probs_stop_the_score_stage_naming_model_and_pair(tmp_path, monkeypatch):
    from pipeline.stages import score

    monkeypatch.chdir(_score_project(tmp_path))
    before = snapshot(tmp_path)
    with pytest.raises(NonFiniteError, match=r"model base: chosen_sum log-probs of corpus pairs: 3 non-finite "
                                             r"value\(s\), first pair 't0': the model's weights or logits are broken"):
        score.main(["--adapters", "models/adapters"])
    assert snapshot(tmp_path) == before


# ---------------------------------------------------------------------------------------- one line
def _cli(tmp_path: Path, stage: str, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "LRP_DEBUG"}
    environ.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", f"pipeline.stages.{stage}", *argv], cwd=tmp_path, env=environ,
                          capture_output=True, text=True, timeout=300)


def _one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc.stderr.strip().splitlines()[-1]


CLI = [
    ("pairs", [], {"pairs.train": 1.0}, {},
     "pairs: error: params.yaml: pairs: train 1 + val 0.1 + test 0.1 = 1.2 (allowed: train + val + test = 1)"),
    ("contexts", [], {"contexts.k": 0}, {}, "contexts: error: params.yaml: contexts.k: 0 is out of range (allowed: >= 1)"),
    ("decisions", [], {**IMPORT, "decisions.import_path": "data/external/mine"}, {"data/external/mine/a.txt": b"x"},
     "decisions: error: data/external/mine: a folder with no *.jsonl files"),
    ("score", [], {"score.max_pairs": -1}, {},
     "score: error: params.yaml: score.max_pairs: -1 is out of range (allowed: >= 0; 0 = all)"),
    ("train", ["--run", "dpo-pairs-s0"], {"train.beta": NAN}, {},
     "train: error: params.yaml: train.beta: nan is not a finite number (allowed: > 0)"),
]


@pytest.mark.parametrize(("stage", "argv", "overrides", "files", "line"), CLI, ids=[c[0] for c in CLI])
def test_command_line_failure_is_one_line_and_exit_1(tmp_path, stage, argv, overrides, files, line):
    project(tmp_path, raw_with(overrides), files)
    before = snapshot(tmp_path)
    last = _one_line(_cli(tmp_path, stage, *argv))
    assert last.startswith(line), last
    assert snapshot(tmp_path) == before


def test_non_finite_scores_end_the_score_command_in_one_line(tmp_path):
    _score_project(tmp_path)
    last = _one_line(_cli(tmp_path, "score"))
    assert last.startswith("score: error: model base: chosen_sum log-probs of corpus pairs"), last
    assert "first pair 't0'" in last


@pytest.mark.parametrize(("argv", "env"), [([], {"LRP_DEBUG": "1"}), (["--debug"], {})], ids=["env", "flag"])
def test_debug_switch_shows_the_traceback(tmp_path, argv, env):
    project(tmp_path, raw_with({"pairs.train": 1.0}))
    proc = _cli(tmp_path, "pairs", *argv, env=env)
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "ParamsError: params.yaml: pairs: train 1" in proc.stderr


# ---------------------------------------------------------------------------------- expected failures
def _failures():
    import torch

    from pipeline.backends.base import BackendError
    from pipeline.models.loading import ModelLoadError

    return [
        ("generate", BackendError("http://127.0.0.1:9/v1: connection refused after 3 retries"),
         "http://127.0.0.1:9/v1: connection refused after 3 retries: check that the server is up"),
        ("train", torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB\nmore"),
         "out of memory (CUDA out of memory. Tried to allocate 2.00 GiB): lower train.batch_size"),
        ("score", RuntimeError("[enforce fail] DefaultCPUAllocator: can't allocate memory: you tried 9 GB"),
         "lower score.batch_tokens or score.max_length"),
        ("contexts", MemoryError(), "out of memory (MemoryError): lower contexts.embed_batch_size"),
        ("score", ModelLoadError("models/base: cannot load the model: no file named model.safetensors"),
         "models/base: cannot load the model: no file named model.safetensors: re-run the stage"),
        ("report", PermissionError(13, "Permission denied", "reports/report.md"),
         "[Errno 13] Permission denied: 'reports/report.md' (check the path"),
    ]


def test_expected_failures_get_a_message_that_says_what_to_do():
    for stage, exc, says in _failures():
        message = explain(exc, stage)
        assert message is not None and says in message, (stage, message)
    assert explain(KeyError("a bug"), "pairs") is None


def test_run_prints_one_line_and_keeps_tracebacks_for_bugs_and_debug(monkeypatch):
    def failing():
        raise InputError("data/x.jsonl", 3, "id", "duplicate id 'a'\n(first on line 1)")

    monkeypatch.delenv("LRP_DEBUG", raising=False)
    with pytest.raises(SystemExit) as info:
        run_stage(failing)
    assert info.value.code == ("test_reliability_params: error: data/x.jsonl, line 3, field 'id': duplicate id 'a' "
                               "(first on line 1)")

    def buggy():
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        run_stage(buggy)
    monkeypatch.setenv("LRP_DEBUG", "1")
    with pytest.raises(InputError):
        run_stage(failing)


def test_unreadable_model_folder_is_named(tmp_path):
    from pipeline.models.loading import ModelLoadError, load_base

    (tmp_path / "meta.json").write_text('{"base_model": "builtin"}')
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match=f"{tmp_path}: cannot load the tokenizer"):
        load_base(tmp_path, device="cpu")
