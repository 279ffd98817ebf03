"""pairs.hierarchy (docs/method.md §5): which pairs the method and the grounded hierarchies make from the same
hand-built labels, and what the grounded one leaves out, by reason; and the pairs_grounded stage beside pairs."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml
from test_pairs import write_corpus

from pipeline import paths
from pipeline.io import read_records
from pipeline.judges import labels_file
from pipeline.judges.inputs import InterimData
from pipeline.params import Params, ParamsError, load, to_dict
from pipeline.preferences import decide
from pipeline.records import Candidate, Context, Label, Pair
from pipeline.reporting.data_hierarchy import hierarchy_counts
from pipeline.reporting.data_render import render_hierarchies
from pipeline.stages import judge as judge_stage
from pipeline.stages import pairs as pairs_stage
from pipeline.training.data import load_training_examples

# Six answers to one answerable question, and three to one the passages do not answer.
ANSWERABLE = {
    "A": ("attempted", "unsupported", "correct", "complete"),  # a right "Yes" the passages do not bear out
    "B": ("abstained", None, None, None),  # an honest refusal
    "C": ("attempted", "fully_supported", "correct", "complete"),  # the ideal answer
    "D": ("attempted", "contradicted", "incorrect", "incomplete"),  # a flipped "Yes"
    "E": ("attempted", "fully_supported", "incorrect", "incomplete"),  # another party's figure, quoted
    "F": ("unusable", None, None, None),
}
UNANSWERABLE = {
    "G": ("abstained", None, None, None),
    "H": ("attempted", "unsupported", "incorrect", "incomplete"),
    "I": ("unusable", None, None, None),
}
# chosen-rejected under the method (worked out by hand from §5), and the reason the grounded hierarchy drops
# a pair (None: it keeps it).
METHOD = {
    ("A", "B"): "unsupported", ("C", "A"): None, ("A", "D"): "unsupported", ("E", "A"): "incorrect",
    ("A", "F"): "unsupported", ("C", "B"): None, ("D", "B"): "contradicted", ("E", "B"): "incorrect",
    ("B", "F"): None, ("C", "D"): None, ("C", "E"): None, ("C", "F"): None, ("E", "D"): "incorrect",
    ("D", "F"): "contradicted", ("E", "F"): "incorrect",
    ("G", "H"): None, ("G", "I"): None, ("H", "I"): "unsupported",
}  # fmt: skip


def corpus():
    contexts = {"q/ans": Context("q/ans", "q", "gold_plus_bm25", True, ["p"], 0),
                "r/un": Context("r/un", "r", "bm25_hard_negative", False, ["p"], None)}
    candidates, labels = [], {}
    for cid, answers in (("q/ans", ANSWERABLE), ("r/un", UNANSWERABLE)):
        for name, label in answers.items():
            candidates.append(Candidate(name, cid, f"gen:{name}", f"answer {name}", "stop"))
            labels[name] = Label(name, "rule:strict", *label, "ok")  # type: ignore[arg-type]
    return contexts, candidates, labels


def made(hierarchy: str) -> tuple[set[tuple[str, str]], Counter]:
    contexts, candidates, labels = corpus()
    prefs, stats = decide(contexts, candidates, labels, ["gold_plus_bm25", "bm25_hard_negative"], hierarchy)
    return {(p.chosen, p.rejected) for p in prefs}, stats


def test_the_method_pairs_every_decided_pair():
    pairs, stats = made("method")
    assert pairs == set(METHOD)
    assert not any(k.startswith("skipped_chosen_") for k in stats)


def test_grounded_drops_pairs_whose_chosen_side_is_unsupported_contradicted_or_incorrect():
    pairs, stats = made("grounded")
    assert pairs == {p for p, reason in METHOD.items() if reason is None}
    assert pairs == {("C", "A"), ("C", "B"), ("B", "F"), ("C", "D"), ("C", "E"), ("C", "F"), ("G", "H"), ("G", "I")}
    dropped = Counter(reason for reason in METHOD.values() if reason)
    assert {k.removeprefix("skipped_chosen_"): v for k, v in stats.items() if k.startswith("skipped_chosen_")} == \
        dict(dropped) == {"unsupported": 4, "contradicted": 2, "incorrect": 4}
    # The other counts are the method's: the grounded hierarchy decides the same way, then declines.
    method_stats = made("method")[1]
    assert {k: v for k, v in stats.items() if not k.startswith("skipped_chosen_") and k != "pairs"} == \
        {k: v for k, v in method_stats.items() if k != "pairs"}
    assert (stats["pairs"], method_stats["pairs"]) == (8, 18)


def test_grounded_never_turns_a_pair_around():
    assert made("grounded")[0] <= made("method")[0]


def test_an_unknown_hierarchy_is_refused():
    contexts, candidates, labels = corpus()
    with pytest.raises(ValueError, match="pairs.hierarchy: unknown hierarchy 'strict'"):
        decide(contexts, candidates, labels, ["gold_plus_bm25"], "strict")


def test_the_param_defaults_to_the_method_and_takes_only_the_two(tmp_path):
    assert Params().pairs.hierarchy == "method"
    raw = to_dict(Params())
    raw["pairs"]["hierarchy"] = "lenient"
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(ParamsError, match="pairs.hierarchy"):
        load(tmp_path / "p.yaml")


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    """judge, then pairs (params default: method) and pairs_grounded, on test_pairs' corpus."""
    root = tmp_path_factory.mktemp("hierarchy")
    write_corpus(root)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        judge_stage.main([])
        pairs_stage.main([])
        pairs_stage.main(["--hierarchy", "grounded", "--out", str(paths.PAIRS_GROUNDED)])
    read = lambda folder: {p.id: p for p in paths.read_pairs(root / folder)}  # noqa: E731
    labels = {lab.candidate_id: lab for lab in read_records(root / labels_file("rule:strict"), Label, unique_key="candidate_id")}
    return read(paths.PAIRS), read(paths.PAIRS_GROUNDED), labels, root


def test_the_grounded_corpus_is_the_method_corpus_less_ungrounded_chosen_sides(stages):
    method, grounded, labels, _ = stages
    def label_of(pair: Pair) -> Label:
        return labels[f"{pair.context_id}/{pair.chosen_generator}"]

    expected = {i for i, p in method.items()
                if label_of(p).faithfulness not in ("unsupported", "contradicted")
                and label_of(p).correctness != "incorrect"}
    assert set(grounded) == expected and len(expected) < len(method)
    assert all(grounded[i] == method[i] for i in grounded)  # same pair, same split


def test_each_corpus_card_names_its_hierarchy(stages):
    *_, root = stages
    assert "Preference hierarchy `method`" in (root / paths.PAIRS / "README.md").read_text()
    card = (root / paths.PAIRS_GROUNDED / "README.md").read_text()
    assert "Stage `pairs_grounded`" in card and "Preference hierarchy `grounded`" in card


def test_a_run_set_on_the_grounded_pairs_is_declared_in_params(stages, tmp_path):
    # What the lead sets to compare the hierarchies side by side in one `dvc repro`.
    _, grounded, _, root = stages
    raw = to_dict(Params())
    raw["train"]["runs"]["dpo"] = ["pairs-s0", "pairs_grounded-s0"]
    raw["score"]["corpora"] = ["pairs", "pairs_aug", "pairs_grounded"]
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(raw))
    p = load(tmp_path / "p.yaml")
    assert p.train.runs["dpo"] == ["pairs-s0", "pairs_grounded-s0"] and "pairs_grounded" in p.score.corpora
    # The train stage reads the corpus by that name.
    examples = load_training_examples("pairs_grounded", "train", root=root)
    assert {e.id for e in examples} == {i for i, pair in grounded.items() if pair.split == "train"}
    assert {e.source for e in examples} == {"pairs_grounded"}


def test_the_data_report_counts_the_pairs_of_each_hierarchy():
    contexts, candidates, labels = corpus()
    corpus_data = InterimData({}, {}, contexts, candidates)
    counts = hierarchy_counts(corpus_data, labels, Params())
    assert counts["in_use"] == "method"
    assert counts["method"] == {"pairs": 18, "not_made": {},
                                "by_dimension": {"correctness": 1, "faithfulness": 5, "refusal_answerable": 9,
                                                 "refusal_unanswerable": 3}}
    assert counts["grounded"]["pairs"] == 8
    assert counts["grounded"]["not_made"] == {"contradicted": 2, "incorrect": 4, "unsupported": 4}
    table = "\n".join(render_hierarchies(counts))
    assert "| method (in use) | 18 | 9 | 3 | 5 | 1 | 0 | 0 | 0 | 0 |" in table
    assert "| grounded | 8 |" in table and table.rstrip().endswith("| 4 | 2 | 4 |")
