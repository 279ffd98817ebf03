"""scripts/sample_validation.py: the draw of unlabelled validation items from a profile's interim records.

The interim folder is built here from real record types (written with pipeline.io), with a labels/ folder
beside the records that the sampler must never open (checked with an audit hook, which sees every file
open of the process, however it is made)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from pipeline.io import write_records
from pipeline.records import QA, Candidate, Context, Passage, parse

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("sample_validation", ROOT / "scripts" / "sample_validation.py")
sv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sv)

REFUSAL = "The provided passages do not contain enough information to answer this question."
REFUSALS = {"en": REFUSAL, "zh": "提供的段落没有足够的信息来回答这个问题。"}
VARIANTS = ("gold_only", "bm25_hard_negative", "random_context")
GENERATORS = ("offline:terse", "offline:confident", "hf:tiny")
KEYS = ["id", "source", "language", "half", "qa", "context", "passages", "candidate", "refusal", "gold", "note"]

# Every open of a path under a labels/ folder while OPENS_WATCHED is set; the hook cannot be removed, so it
# is installed once and switched by the flag.
OPENED: list[str] = []
OPENS_WATCHED = [False]


def _audit(event: str, args: tuple) -> None:
    if OPENS_WATCHED[0] and event == "open" and args and isinstance(args[0], (str, bytes, Path)):
        OPENED.append(str(args[0] if not isinstance(args[0], bytes) else args[0].decode()))


sys.addaudithook(_audit)


def build_interim(root: Path, n_questions: int = 8) -> Path:
    """n_questions tenancy questions, each in every variant, answered by every generator. Question 0's
    bm25 context also holds a passage of decision 'syn-x' that names its party (a collision), and the
    hf generator's answers to question 1 are cut off."""
    interim = root / "data" / "interim"
    passages, qas, contexts, candidates = [], [], [], []
    other = Passage("syn-x/s1-1", "syn-x", "syn-x", "Orders", "Chan Wai-man must pay HK$9,000 in arrears.", 0)
    passages.append(other)
    for q in range(n_questions):
        dec = f"syn-{q:03d}"
        party = "Chan Wai-man" if q == 0 else f"Lee Ka-{'abcdefghij'[q]}ing"
        gold = Passage(f"{dec}/s1-1", dec, dec, "Orders", f"{party} must pay HK${q + 1},000 in arrears.", 0)
        filler = Passage(f"{dec}/s2-1", dec, dec, "Costs", "Each party is to bear its own costs.", 1)
        passages += [gold, filler]
        qa = QA(f"{dec}/q1", f"How much must {party} pay?", f"{party} must pay HK${q + 1},000.",
                gold.id, dec, "factual", [f"HK${q + 1},000"], [])
        qas.append(qa)
        for variant in VARIANTS:
            answerable = variant == "gold_only"
            ids = [gold.id] if answerable else [filler.id]
            if variant == "bm25_hard_negative" and q == 0:
                ids = [filler.id, other.id]
            ctx = Context(f"{qa.id}/{variant}", qa.id, variant, answerable, ids, 0 if answerable else None)
            contexts.append(ctx)
            for gen in GENERATORS:
                text = REFUSAL if (gen == "offline:terse" and not answerable) else f"HK${q + 1},000."
                finish = "length" if (gen == "hf:tiny" and q == 1) else "stop"
                candidates.append(Candidate(f"{ctx.id}/{gen}", ctx.id, gen, text, finish, {}))
    write_records(interim / "passages.jsonl", passages)
    write_records(interim / "qa.jsonl", qas)
    write_records(interim / "contexts.jsonl", contexts)
    write_records(interim / "candidates.jsonl", candidates)
    labels = interim / "labels"
    labels.mkdir()
    (labels / "rule_strict.jsonl").write_text('{"secret": "a judge label"}\n', encoding="utf-8")
    return interim


def expected_half(qa_id: str) -> str:
    # The formula of the validation set's README, written out independently of the script.
    digest = hashlib.sha256(("validation:" + qa_id).encode("utf-8")).digest()
    return "dev" if int.from_bytes(digest, "big") % 2 == 0 else "test"


def run(interim: Path, out: Path, *extra: str) -> list[dict]:
    args = ["--interim", str(interim), "--source", "default", "--seed", "7", "--out", str(out), *extra]
    OPENED.clear()
    OPENS_WATCHED[0] = True
    try:
        assert sv.main(args) == 0
    finally:
        OPENS_WATCHED[0] = False
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def interim(tmp_path: Path) -> Path:
    return build_interim(tmp_path)


def test_records_are_valid_validation_items(interim: Path, tmp_path: Path) -> None:
    items = run(interim, tmp_path / "out.jsonl", "--per-stratum", "2")
    assert items
    for item in items:
        assert list(item) == KEYS
        assert item["source"] == "default" and item["language"] == "en"
        assert item["id"] == "default/" + item["candidate"]["id"]
        qa, ctx = parse(QA, item["qa"]), parse(Context, item["context"])
        cand = parse(Candidate, item["candidate"])
        passages = [parse(Passage, p) for p in item["passages"]]
        assert cand.context_id == ctx.id and ctx.qa_id == qa.id
        assert [p.id for p in passages] == ctx.passage_ids  # the context's order, as the generator saw it
        assert item["refusal"] == REFUSAL
        assert item["gold"] == {} and item["note"] == ""
    assert len({i["id"] for i in items}) == len(items)


def test_strata_are_filled_and_counts_override(interim: Path, tmp_path: Path) -> None:
    items = run(interim, tmp_path / "a.jsonl", "--per-stratum", "3", "--count", "hf:tiny=1",
                "--count", "offline:confident=0")
    strata = Counter((i["context"]["variant"], i["candidate"]["generator"]) for i in items)
    assert strata == {**{(v, "offline:terse"): 3 for v in VARIANTS}, **{(v, "hf:tiny"): 1 for v in VARIANTS}}
    # Within a stratum distinct questions come first.
    for (variant, gen), _ in strata.items():
        qs = [i["qa"]["id"] for i in items if (i["context"]["variant"], i["candidate"]["generator"]) == (variant, gen)]
        assert len(set(qs)) == len(qs)


def test_seeded(interim: Path, tmp_path: Path) -> None:
    a = run(interim, tmp_path / "a.jsonl", "--per-stratum", "2")
    b = run(interim, tmp_path / "b.jsonl", "--per-stratum", "2")
    assert a == b
    other = sv.sample(interim, "default", 2, seed=8, refusals=REFUSALS)
    assert [i["id"] for i in other] != [i["id"] for i in a]


def test_halves_are_by_question(interim: Path, tmp_path: Path) -> None:
    items = run(interim, tmp_path / "a.jsonl", "--per-stratum", "8")
    halves: dict[str, set[str]] = {}
    for item in items:
        assert item["half"] == expected_half(item["qa"]["id"])
        halves.setdefault(item["qa"]["id"], set()).add(item["half"])
    assert all(len(h) == 1 for h in halves.values())
    assert {h for hs in halves.values() for h in hs} == {"dev", "test"}  # 8 questions fall both ways


def test_never_opens_judge_labels(interim: Path, tmp_path: Path) -> None:
    run(interim, tmp_path / "a.jsonl", "--per-stratum", "2", "--collisions", "3", "--cutoff", "2")
    opened = [Path(p).resolve() for p in OPENED]
    assert any(p.name == "candidates.jsonl" for p in opened)  # the hook does see the sampler's reads
    assert not [p for p in opened if (interim / "labels") in p.parents or p == interim / "labels"]


def test_collision_and_cutoff_extras(interim: Path, tmp_path: Path) -> None:
    items = run(interim, tmp_path / "a.jsonl", "--per-stratum", "0", "--collisions", "5", "--cutoff", "5")
    collisions = [i for i in items if i["context"]["id"] == "syn-000/q1/bm25_hard_negative"]
    # The collision context is drawn for the generators that answer; the bare refusal (terse) is skipped.
    assert sorted(i["candidate"]["generator"] for i in collisions) == ["hf:tiny", "offline:confident"]
    cut = [i for i in items if i["candidate"]["finish_reason"] == "length"]
    assert len(cut) == 3 and {i["qa"]["id"] for i in cut} == {"syn-001/q1"}
    assert len(items) == len(collisions) + len(cut)


def test_collision_rank() -> None:
    p = {x.id: x for x in [
        Passage("a/1", "a", "a", "h", "Chan Wai-man must pay.", 0),
        Passage("b/1", "b", "b", "h", "Raymond Chan Wai-man must pay.", 0),
        Passage("c/1", "c", "c", "h", "Lee Land Limited let the flat to Ho Ka-ming.", 0),
        Passage("d/1", "d", "d", "h", "Lee Land Limited was refused possession.", 0),
    ]}
    qa = QA("a/q1", "How much must Chan Wai-man pay?", "x", "a/1", "a", "factual", [], [])
    ctx = lambda ids: Context("c", "a/q1", "v", True, ids, 0)  # noqa: E731
    assert sv.collision_rank(qa, ctx(["a/1", "b/1"]), p) == 2  # the asked name in another decision
    assert sv.collision_rank(qa, ctx(["a/1", "c/1", "d/1"]), p) == 1  # a company in two decisions
    assert sv.collision_rank(qa, ctx(["a/1", "c/1"]), p) == 0


def test_exclude_skips_drawn_items(interim: Path, tmp_path: Path) -> None:
    first = run(interim, tmp_path / "a.jsonl", "--per-stratum", "2")
    second = run(interim, tmp_path / "b.jsonl", "--per-stratum", "2", "--exclude", str(tmp_path / "a.jsonl"))
    assert not {i["id"] for i in first} & {i["id"] for i in second}


def test_bad_count_is_one_clear_error(interim: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="GENERATOR=N"):
        sv.main(["--interim", str(interim), "--source", "d", "--per-stratum", "1", "--seed", "0",
                 "--count", "hf:tiny", "--out", str(tmp_path / "x.jsonl")])


def test_kind_and_skip_refusals_narrow_the_pool(interim: Path, tmp_path: Path) -> None:
    plain = run(interim, tmp_path / "a.jsonl", "--per-stratum", "8")
    assert any(i["candidate"]["text"] == REFUSAL for i in plain)
    answers = run(interim, tmp_path / "b.jsonl", "--per-stratum", "8", "--skip-refusals")
    assert answers and all(i["candidate"]["text"] != REFUSAL for i in answers)
    # The terse generator refuses on every unanswerable context: only its gold_only answers are left.
    assert {i["context"]["variant"] for i in answers if i["candidate"]["generator"] == "offline:terse"} == {"gold_only"}
    assert run(interim, tmp_path / "c.jsonl", "--per-stratum", "8", "--kind", "factual") == plain
    assert run(interim, tmp_path / "d.jsonl", "--per-stratum", "8", "--kind", "rule") == []
