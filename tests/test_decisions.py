"""The synthetic decision generator (docs/method.md §7) and the decisions stage."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.io import dumps, read_records
from pipeline.params import ParamsError
from pipeline.records import Decision
from pipeline.stages import decisions as stage
from pipeline.synth import CASE_TYPES, allocate, generate_decisions
from pipeline.synth.common import words

ROOT = Path(__file__).resolve().parents[1]
MIX = {"insider_trading": 0.4, "criminal_sentencing": 0.3, "residential_tenancy": 0.3}


@pytest.fixture(scope="module")
def corpus() -> list[Decision]:
    return generate_decisions(60, MIX, seed=13)


def test_same_seed_same_bytes_other_seed_differs():
    a = [dumps(d) for d in generate_decisions(9, MIX, seed=5)]
    b = [dumps(d) for d in generate_decisions(9, MIX, seed=5)]
    c = [dumps(d) for d in generate_decisions(9, MIX, seed=6)]
    assert a == b
    assert a != c


def test_allocation_follows_case_mix(corpus):
    counts = defaultdict(int)
    for d in corpus:
        counts[d.case_type] += 1
    assert dict(counts) == {"insider_trading": 24, "criminal_sentencing": 18, "residential_tenancy": 18}
    assert set(CASE_TYPES) == set(counts)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 500),
    weights=st.lists(st.floats(0.01, 10.0), min_size=3, max_size=3),
)
def test_allocate_sums_to_n_and_stays_within_one_of_share(n, weights):
    mix = dict(zip(CASE_TYPES, weights, strict=True))
    counts = allocate(n, mix)
    assert sum(counts.values()) == n
    total = sum(weights)
    for name, w in mix.items():
        assert abs(counts[name] - n * w / total) < 1.0


def test_unknown_case_type_and_bad_weights_are_rejected():
    with pytest.raises(ValueError, match="unknown case type"):
        allocate(5, {"maritime": 1.0})
    with pytest.raises(ValueError, match=">= 0"):
        allocate(5, {"insider_trading": -1.0})
    with pytest.raises(ValueError, match="zero"):
        allocate(5, {"insider_trading": 0.0})


def test_records_are_valid_and_ids_unique(corpus, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(dumps(d) + "\n" for d in corpus), encoding="utf-8")
    back = read_records(path, Decision)
    assert [d.id for d in back] == [f"syn-{i:04d}" for i in range(1, 61)]
    assert all(d.language == "en" and d.source == "synthetic" for d in back)


def test_insider_trading_carries_irac_fields_with_kinds(corpus):
    exact = {
        "decision_date",
        "penalty_amount",
        "profit_amount",
        "multiplier",
        "respondent",
        "securities",
        "company",
    }
    semantic = {"issue", "rule", "application", "conclusion"}
    insider = [d for d in corpus if d.case_type == "insider_trading"]
    assert insider
    for d in insider:
        assert set(d.fields) == set(d.field_kinds)
        assert {k for k in exact} <= {k for k, v in d.field_kinds.items() if v == "exact"}
        assert semantic <= {k for k, v in d.field_kinds.items() if v == "semantic"}
        assert re.fullmatch(r"HK\$\d{1,3}(,\d{3})*", d.fields["penalty_amount"])
        # The penalty is the stated multiple of the profit.
        amount = lambda s: int(s.replace("HK$", "").replace(",", ""))  # noqa: E731
        mult = {"two times": 2, "three times": 3}[d.fields["multiplier"]]
        assert amount(d.fields["penalty_amount"]) == mult * amount(d.fields["profit_amount"])


def test_exact_fields_are_stated_in_the_text(corpus):
    for d in corpus:
        for name, kind in d.field_kinds.items():
            value = d.fields[name]
            if kind == "exact" and value not in ("Yes", "No"):
                assert value.lower() in d.text.lower(), (d.id, name, value)


def test_section_shape(corpus):
    for d in corpus:
        assert 5 <= len(d.sections) <= 9
        assert len({s.id for s in d.sections}) == len(d.sections)
        for s in d.sections:
            assert 60 <= words(s.text) <= 140, (d.id, s.heading, words(s.text))
            assert s.heading in d.text and s.text in d.text


def _skeleton(text: str) -> str:
    """The wording of a text with its particulars (numbers, names) masked."""
    return re.sub(r"\b[A-Z0-9][\w$,().'/-]*", "X", text)


def test_phrasings_vary_across_decisions(corpus):
    by_type = defaultdict(list)
    for d in corpus:
        by_type[d.case_type].append(d)
    for case_type, docs in by_type.items():
        skeletons = {_skeleton(" ".join(s.text for s in d.sections)) for d in docs}
        assert len(skeletons) == len(docs), case_type
        headings = {d.sections[0].heading for d in docs}
        assert len(headings) >= 3, case_type


def _vocab(d: Decision) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", d.text.lower()))


def test_same_case_type_shares_more_vocabulary_than_other_types(corpus):
    def jaccard(a, b):
        return len(a & b) / len(a | b)

    same, other = [], []
    for i, a in enumerate(corpus[:30]):
        for b in corpus[i + 1 : 30]:
            (same if a.case_type == b.case_type else other).append(jaccard(_vocab(a), _vocab(b)))
    assert sum(same) / len(same) > 1.5 * sum(other) / len(other)


def _write_params(tmp_path: Path, **decisions) -> Path:
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text())
    raw["decisions"].update(decisions)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _user_decision(i: int) -> dict:
    return {
        "id": f"user-{i}",
        "source": "user",
        "language": "en",
        "case_type": "contract",
        "title": f"Acme v Widget {i}",
        "date": "1 May 2020",
        "text": "The buyer sued for the price. The claim succeeded.",
        "sections": [{"id": "1.1.1", "heading": "Facts", "text": "The buyer sued for the price."}],
        "fields": {"price": "HK$10,000"},
        "field_kinds": {"price": "exact"},
        "field_types": {"price": "money"},
    }


def test_stage_writes_synthetic_then_imported(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user.jsonl").write_text("".join(json.dumps(_user_decision(i)) + "\n" for i in range(2)))
    params = _write_params(tmp_path, n_decisions=4, import_path="user.jsonl")
    stage.main(["--params", str(params)])
    out = read_records(tmp_path / "data/raw/decisions.jsonl", Decision)
    assert [d.id for d in out] == ["syn-0001", "syn-0002", "syn-0003", "syn-0004", "user-0", "user-1"]
    assert "6 decisions" in capsys.readouterr().out
    first = (tmp_path / "data/raw/decisions.jsonl").read_bytes()
    stage.main(["--params", str(params)])
    assert (tmp_path / "data/raw/decisions.jsonl").read_bytes() == first


def test_stage_imported_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user.jsonl").write_text(json.dumps(_user_decision(0)) + "\n")
    params = _write_params(tmp_path, synthetic=False, import_path="user.jsonl")
    stage.main(["--params", str(params), "--out", "out.jsonl"])
    assert [d.id for d in read_records(tmp_path / "out.jsonl", Decision)] == ["user-0"]


def test_stage_rejects_empty_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = _write_params(tmp_path, synthetic=False)
    # The params loader sees it before any work: nothing synthetic and nothing imported.
    with pytest.raises(ParamsError, match="decisions.synthetic: .*no decisions"):
        stage.main(["--params", str(params)])
    # Imports that exist but hold nothing are only seen by the stage.
    (tmp_path / "user.jsonl").write_text("\n")
    params = _write_params(tmp_path, synthetic=False, import_path="user.jsonl")
    with pytest.raises(SystemExit, match=r"user.jsonl: no records \(decisions.import_path names an empty file\)"):
        stage.main(["--params", str(params)])
