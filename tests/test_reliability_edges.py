"""Edge values of every declared param (issue 19): one message form for every stop, no traceback.

Every leaf key of params.yaml (and of params/real.yaml where it has keys of its own) gets the edge values
of its type: 0, -1, 1, a huge value, NaN and infinities, a float for an int, text for a number; an empty,
a very long and an unknown name; an empty list, one with a duplicate, one with a wrong-typed item; an
empty mapping, one with an unknown key, a wrong type; null. The cases come from the params files, so a
key added there is covered without touching this file.

The params check the stages run before any work must accept each value or stop with one line naming the
dotted key. An accepted value must then not crash the stage that reads it: the cheap stages (dvc.yaml
says which read the key) run every accepted value of their keys on the smoke profile, in a child process
per stage; the expensive ones (pretrain, train, score) run a few chosen values.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import typing
from pathlib import Path

import pytest
import yaml

from pipeline import params as params_mod
from pipeline.ranges import declared

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ["params.yaml", "params/real.yaml"]
SMOKE = ROOT / "params" / "smoke.yaml"
HUGE_INT, HUGE_FLOAT, LONG = 2**63, 1e12, "x" * 5000
# A stop the user can act on: one line, short enough that what is allowed is not lost behind the value.
MAX_MESSAGE = 600
# Stages cheap enough to run every accepted edge value of their keys (seconds each on the smoke profile).
CHEAP = ("decisions", "corpus", "contexts", "generate", "judge", "pairs", "augment", "data_report", "irac")
# Each case may take this long in a stage (the first one of a child loads the models); a value that makes
# a stage work for longer (a huge weight) has passed the point where it could stop with a traceback.
CASE_BUDGET_S, FIRST_CASE_BUDGET_S = 8, 60
# The smoke profile as the stages run it here, unless the case sets the key: IRAC on a few decisions with
# few resamples keeps a case under a second.
STAGE_BASE = {("irac", "max_decisions"): 3, ("irac", "bootstrap_resamples"): 50}


# ------------------------------------------------------------------------------------------- cases
@dataclasses.dataclass(frozen=True)
class Case:
    profile: str
    path: tuple[str, ...]
    value: typing.Any

    @property
    def key(self) -> str:
        return ".".join(self.path)

    def raw(self, base: dict) -> dict:
        raw = copy.deepcopy(base)
        node = raw
        for part in self.path[:-1]:
            node = node[part]
        node[self.path[-1]] = self.value
        return raw

    def __str__(self) -> str:
        return f"{self.key}={self.value!r}"[:100]


def leaves(raw: dict, cls: type = params_mod.Params, path: tuple[str, ...] = ()):
    """(path, value, declared type) of every key under a params section: the keys of a mapping param
    (decisions.case_mix.insider_trading) as well as the mapping itself."""
    hints = typing.get_type_hints(cls, include_extras=True)
    for key, value in raw.items():
        _, bare, _ = declared(hints[key])
        if dataclasses.is_dataclass(bare) and isinstance(value, dict):
            yield from leaves(value, bare, (*path, key))
            continue
        yield (*path, key), value, hints[key]
        if typing.get_origin(bare) is dict and isinstance(value, dict):
            for name, item in value.items():
                yield (*path, key, name), item, typing.get_args(bare)[1]


def _kind(hint: typing.Any, value: typing.Any) -> str:
    _, bare, _ = declared(hint)
    origin = typing.get_origin(bare)
    if origin in (list, dict):
        return origin.__name__
    if origin is typing.Literal:
        return "str"
    if bare in (int, float, str, bool):
        return bare.__name__
    # Any (train.trainer_kwargs entries): the type the file gives it.
    return type(value).__name__ if isinstance(value, int | float | str | bool | list | dict) else "str"


def edge_values(hint: typing.Any, value: typing.Any) -> list:
    kind = _kind(hint, value)
    if kind == "int":
        values = [0, -1, 1, HUGE_INT, 2.5, "7"]
    elif kind == "float":
        values = [0.0, -1.0, 1.0, HUGE_FLOAT, math.nan, math.inf, -math.inf, "0.5"]
    elif kind == "bool":
        values = [True, False, "yes"]
    elif kind == "str":
        values = ["", LONG, "no-such-name", 7]
    elif kind == "list":
        first = value[0] if value else "no-such-name"
        values = [[], [first, first], [*value, 12345], [*value[:1], "no-such-name"], "no-such-name"]
    else:
        sample = next(iter(value.values())) if value else "no-such-name"
        values = [{}, {**value, "no-such-name": sample}, "no-such-name", [1]]
    return [*values, None]


def cases() -> list[Case]:
    out, seen = [], set()
    for profile in PROFILES:
        for path, value, hint in leaves(yaml.safe_load((ROOT / profile).read_text(encoding="utf-8"))):
            if path not in seen:
                seen.add(path)
                out += [Case(profile, path, v) for v in edge_values(hint, value)]
    return out


CASES = cases()
BASES = {p: yaml.safe_load((ROOT / p).read_text(encoding="utf-8")) for p in PROFILES}


# ------------------------------------------------------------------------------------- validation
def names_the_key(message: str, key: str, prefix: str) -> bool:
    """Whether a stop says which key: the message's place is the key (or an item under it), the key is
    in the text, or the place is its section and the text names the key's last part (pairs: train 1 + ...)."""
    if not message.startswith(prefix):
        return False
    where, _, what = message[len(prefix):].partition(": ")
    if where == key or where.startswith((f"{key}.", f"{key}[")) or re.search(rf"(?<![\w.]){re.escape(key)}\b", what):
        return True
    return key.startswith(f"{where}.") and key[len(where) + 1:] in re.findall(r"[\w.]+", what)


def outcome(message: str | None, key: str, prefix: str) -> str:
    if message is None:
        return "accept"
    if "Traceback" in message:
        return "traceback"
    clear = "\n" not in message and len(message) <= MAX_MESSAGE and names_the_key(message, key, prefix)
    return "stop" if clear else "unclear"


def validate(case: Case) -> tuple[str, str | None]:
    """The outcome of the params check on the case, and its message."""
    try:
        params_mod.from_dict(case.raw(BASES[case.profile]), source="params.yaml")
    except params_mod.ParamsError as exc:
        return outcome(str(exc), case.key, "params.yaml: "), str(exc)
    except Exception as exc:  # a bug of the check itself
        return "traceback", f"Traceback: {type(exc).__name__}: {exc}"
    return "accept", None


def test_every_key_of_the_profiles_gets_edge_values():
    keys = {c.key for c in CASES}
    for profile in PROFILES:
        raw = yaml.safe_load((ROOT / profile).read_text(encoding="utf-8"))
        assert {".".join(p) for p, _, _ in leaves(raw)} <= keys
    assert {"seed", "train.trainer_kwargs.gradient_checkpointing", "decisions.case_mix.insider_trading"} <= keys
    assert len(CASES) > 900


def test_every_edge_value_is_accepted_or_stops_in_one_line_naming_its_key():
    bad = [f"{case}: {outcome_}: {message}" for case in CASES
           for outcome_, message in [validate(case)] if outcome_ in ("traceback", "unclear")]
    assert not bad, "\n".join(m[:400] for m in bad)


# ----------------------------------------------------------------------------------------- stages
def stages_reading() -> dict[str, list[str]]:
    """Stage module -> the params dvc.yaml lists for it (dotted key prefixes)."""
    dvc = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for stage in dvc["stages"].values():
        stage = stage.get("do", stage)
        module = re.search(r"pipeline\.stages\.(\w+)", stage["cmd"])
        if module:
            out.setdefault(module[1], []).extend(p for p in stage.get("params", []) if isinstance(p, str))
    return out


def reads(listed: list[str], key: str) -> bool:
    return any(key == p or key.startswith(f"{p}.") for p in listed)


def stage_cases(stage: str) -> list[Case]:
    listed = stages_reading().get(stage, [])
    return [c for c in CASES if c.profile == "params.yaml" and reads(listed, c.key) and validate(c)[0] == "accept"]


UPSTREAM = ("decisions", "corpus", "contexts", "generate", "judge", "pairs", "augment", "irac")


def stage_base() -> dict:
    raw = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    for path, value in STAGE_BASE.items():
        raw = Case("smoke", path, value).raw(raw)
    return raw


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LRP_DEBUG"}
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TQDM_DISABLE="1")
    env.setdefault("PIPELINE_EXT_DIR", str(ROOT / ".cache" / "torch_extensions"))
    return env


@pytest.fixture(scope="module")
def smoke_outputs(tmp_path_factory) -> Path:
    """The outputs of the cheap upstream stages on the smoke profile (every stage's inputs)."""
    root = tmp_path_factory.mktemp("smoke")
    shutil.copytree(ROOT / "data" / "external", root / "data" / "external")
    (root / "params.yaml").write_text(yaml.safe_dump(stage_base(), allow_unicode=True), encoding="utf-8")
    for stage in UPSTREAM:
        proc = subprocess.run([sys.executable, "-m", f"pipeline.stages.{stage}"], cwd=root, env=_env(),
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
    return root


def run_cases(stage: str, argv: list[str], cases_: list[Case], fixture: Path, work: Path) -> list[dict]:
    """Each case in a fresh copy of `fixture`, through the stage's main in one child process."""
    smoke = stage_base()
    spec = work / "cases.yaml"
    spec.write_text(yaml.safe_dump([{"case": str(c), "key": c.key, "params": c.raw(smoke)} for c in cases_],
                                   allow_unicode=True), encoding="utf-8")
    proc = subprocess.run([sys.executable, __file__, stage, str(fixture), str(spec), str(work), *argv], cwd=work,
                          env=_env(), capture_output=True, text=True, timeout=FIRST_CASE_BUDGET_S + 30 + CASE_BUDGET_S * len(cases_))
    assert proc.returncode == 0, proc.stderr[-4000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def stage_problems(stage: str, results: list[dict]) -> list[str]:
    """Results that are neither a finished run nor a stop of the stage in one line naming the key (or
    the mapping it is an entry of)."""
    bad = []
    for r in results:
        if r["status"] in ("ok", "busy"):
            continue
        message, key = r["message"], r["key"]
        named = key in message or key.rsplit(".", 1)[0] in message.split(": ", 2)[-1]
        if (r["status"] == "traceback" or not message.startswith(f"{stage}: error: ") or "\n" in message
                or len(message) > MAX_MESSAGE or not named):
            bad.append(f"{r['case']}: {r['status']}: {message[:600]}")
    return bad


@pytest.mark.parametrize("stage", CHEAP)
def test_accepted_edge_values_do_not_crash_the_cheap_stages(stage, smoke_outputs, tmp_path):
    results = run_cases(stage, [], stage_cases(stage), smoke_outputs, tmp_path)
    assert results and not stage_problems(stage, results), "\n".join(stage_problems(stage, results))


# ------------------------------------------------------------------------------------- child process
class OverBudget(BaseException):
    """A case that ran past its budget (BaseException: a stage's own `except Exception` cannot eat it)."""


def _child(stage: str, fixture: str, spec: str, work: str, *argv: str) -> None:
    import importlib
    import signal

    from pipeline.stages import explain

    def over(*_):
        raise OverBudget

    signal.signal(signal.SIGALRM, over)
    module = importlib.import_module(f"pipeline.stages.{stage}")
    for i, case in enumerate(yaml.safe_load(Path(spec).read_text(encoding="utf-8"))):
        root = Path(work) / f"case{i}"
        shutil.copytree(fixture, root)
        (root / "params.yaml").write_text(yaml.safe_dump(case["params"], allow_unicode=True), encoding="utf-8")
        os.chdir(root)
        status, message, start = "ok", "", time.monotonic()
        signal.alarm(FIRST_CASE_BUDGET_S if i == 0 else CASE_BUDGET_S)
        try:
            module.main(list(argv))
        except OverBudget:
            status = "busy"
        except SystemExit as exc:
            if exc.code not in (0, None):
                status, message = "stop", str(exc.code)
        except Exception as exc:  # what run() would print, or the traceback it would keep
            said = explain(exc, stage)
            status = "traceback" if said is None else "stop"
            message = f"{type(exc).__name__}: {exc}" if said is None else f"{stage}: error: {' '.join(said.split())}"
        finally:
            signal.alarm(0)
        os.chdir(work)
        shutil.rmtree(root, ignore_errors=True)
        print(json.dumps({"case": case["case"], "key": case["key"], "status": status, "message": message,
                          "seconds": round(time.monotonic() - start, 2)}), flush=True)


if __name__ == "__main__":
    _child(*sys.argv[1:])
