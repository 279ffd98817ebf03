"""The typed params loader: every knob declared, typos and wrong types stop with the dotted key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from pipeline import params
from pipeline.params import Params, ParamsError, from_dict, load

ROOT = Path(__file__).resolve().parents[1]


PROFILES = ["params.yaml", *sorted(f"params/{p.name}" for p in (ROOT / "params").glob("*.yaml"))]


@pytest.mark.parametrize("name", PROFILES)
def test_shipped_profiles_load(name):
    p = load(ROOT / name)
    assert isinstance(p, Params)
    assert p.decisions.n_decisions > 0 and p.corpus.questions_per_decision > 0


def _declared(cls, prefix=""):
    """Dotted names of every declared knob (nested dataclasses expanded)."""
    names = set()
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if dataclasses.is_dataclass(default):
            names |= _declared(type(default), f"{prefix}{f.name}.")
        else:
            names.add(f"{prefix}{f.name}")
    return names


def _present(raw, cls, prefix=""):
    """Dotted names of the knobs a params file sets, expanding only the declared sections."""
    hints = {f.name: f for f in dataclasses.fields(cls)}
    names = set()
    for key, value in raw.items():
        f = hints.get(key)
        default = None
        if f is not None:
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if dataclasses.is_dataclass(default) and isinstance(value, dict):
            names |= _present(value, type(default), f"{prefix}{key}.")
        else:
            names.add(f"{prefix}{key}")
    return names


@pytest.mark.parametrize("name", ["params.yaml", "params/smoke.yaml"])
def test_shipped_profiles_list_every_knob(name):
    raw = yaml.safe_load((ROOT / name).read_text())
    assert _present(raw, Params) == _declared(Params)


def test_defaults_build_without_a_file():
    assert from_dict({}) == Params()
    assert params.to_dict(from_dict({"seed": 7}))["seed"] == 7


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"sed": 1}, "sed: unknown key"),
        ({"decisions": {"n_decision": 3}}, "decisions.n_decision: unknown key"),
        ({"train": {"lora": {"rank": 8}}}, "train.lora.rank: unknown key"),
    ],
)
def test_unknown_keys_are_named(raw, where):
    with pytest.raises(ParamsError, match=where.replace(".", r"\.")):
        from_dict(raw, source="p.yaml")


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"seed": "13"}, "seed: expected int"),
        ({"decisions": {"n_decisions": 2.5}}, "decisions.n_decisions: expected int"),
        ({"decisions": {"n_decisions": True}}, "decisions.n_decisions: expected int"),
        ({"decisions": {"synthetic": 1}}, "decisions.synthetic: expected bool"),
        ({"train": {"lora": {"r": "32"}}}, "train.lora.r: expected int"),
        ({"generate": {"decoding": {"temperature": "hot"}}}, "generate.decoding.temperature: expected float"),
        ({"corpus": {"qa_kinds": "factual"}}, "corpus.qa_kinds: expected a list"),
        ({"corpus": {"qa_kinds": ["factual", 3]}}, r"corpus.qa_kinds\[1\]: expected str"),
        ({"train": {"runs": {"dpo": ["pairs-s0", 1]}}}, r"train.runs.dpo\[1\]: expected str"),
        ({"train": {"runs": {"dpo": ["pairs-sx"]}}}, r"train.runs.dpo\[0\]: run 'dpo-pairs-sx' is not"),
        ({"train": {"runs": {"ppo": ["pairs-s0"]}}}, r"train.runs.ppo: unknown objective"),
        ({"train": {"runs": {"sft": ["pairs-s0", "pairs-s0"]}}}, "train.runs.sft: a run is listed twice"),
        ({"train": {"runs": ["dpo-pairs-s0"]}}, r"train.runs: expected a mapping"),
        (
            {"decisions": {"case_mix": {"insider_trading": "a lot"}}},
            "decisions.case_mix.insider_trading: expected float",
        ),
        ({"decisions": {"case_mix": ["insider_trading"]}}, "decisions.case_mix: expected a mapping"),
        ({"train": {"overlong": "cut"}}, "train.overlong: expected one of"),
        ({"corpus": 3}, "corpus: expected a mapping"),
    ],
)
def test_wrong_types_are_named(raw, where):
    with pytest.raises(ParamsError, match="p.yaml: " + where):
        from_dict(raw, source="p.yaml")


def test_ints_are_accepted_for_floats_and_null_for_optionals():
    p = from_dict({"train": {"lr": 1}, "decisions": {"import_path": None}})
    assert p.train.lr == 1.0 and isinstance(p.train.lr, float)
    assert p.decisions.import_path is None


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(ParamsError, match="missing.yaml: file not found"):
        load(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: [1,\n")
    with pytest.raises(ParamsError, match="bad.yaml: not valid YAML"):
        load(bad)
    top = tmp_path / "list.yaml"
    top.write_text("- 1\n- 2\n")
    with pytest.raises(ParamsError, match="list.yaml: top level: expected a mapping"):
        load(top)


def test_the_variant_list_has_one_home():
    """Each section's default variants come from params' one list, and that list is the variant table's."""
    from pipeline.retrieval.variants import VARIANTS

    p = Params()
    assert params.CONTEXT_VARIANTS == params.MAIN_VARIANTS + params.ABLATION_VARIANTS
    assert set(params.CONTEXT_VARIANTS) == set(VARIANTS) and len(params.CONTEXT_VARIANTS) == len(VARIANTS)
    assert p.contexts.variants == p.generate.variants == list(params.CONTEXT_VARIANTS)
    assert p.pairs.variants == ["gold_plus_random", "gold_plus_bm25", "gold_plus_dense", "random_context",
                                "bm25_hard_negative", "dense_hard_negative"]
    assert [v for v in VARIANTS if v not in p.pairs.variants] == ["gold_only", "gold_surrounding"]
    # A default is a fresh list, never the shared constant.
    assert p.contexts.variants is not Params().contexts.variants


def test_run_names_keep_their_grammar_in_their_own_module():
    from pipeline import run_names

    assert params.parse_run is run_names.parse_run and params.OBJECTIVES is run_names.OBJECTIVES
    spec = run_names.parse_run("dpo-pairs_aug+external-s12")
    assert (spec.objective, spec.corpus, spec.seed, spec.name) == ("dpo", "pairs_aug+external", 12,
                                                                  "dpo-pairs_aug+external-s12")
    for bad in ("dpo-pairs-s07", "ppo-pairs-s0", "dpo-web-s0", f"sft-pairs-s{2**32}"):
        with pytest.raises(ValueError, match="run "):
            run_names.parse_run(bad)
    train = params.TrainParams(runs={"sft": ["pairs-s0"], "dpo": ["pairs-s1", "pairs_aug-s0"]})
    assert params.run_names(train) == ["dpo-pairs-s1", "dpo-pairs_aug-s0", "sft-pairs-s0"]
