"""The reward API (pipeline/reward): the score stage's numbers for the same pairs, bit for bit, through the same
prompt function; items of any size; over-long items; loading an adapter with the base it names.

The project is tests/reward_project.py's: a random tiny Llama, two LoRA adapters, English and Chinese
questions over four or five passages, pairs scored by the real score stage (score.max_length 300, so
some prompts lose a distractor passage on the way).
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest
import reward_project

from pipeline.io import read_records
from pipeline.models.loading import ModelLoadError
from pipeline.params import load as load_params
from pipeline.records import QA, Context, Pair, Passage
from pipeline.reward import Item, RewardModel, ranking
from pipeline.reward.model import ItemError, ScoringError
from pipeline.scoring import encode_pairs

SCORINGS = ("sum", "mean", "ref_sum", "ref_mean")


def scored_project(root: Path, top_layers: bool) -> Path:
    from pipeline.stages import score as score_stage

    reward_project.build(root, top_layers=top_layers, **{"score.max_length": 300,
                                                          "reward.overlong": "drop_distractors"})
    with contextlib.chdir(root):
        score_stage.main(["--params", "params.yaml"])
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """Adapters on the top layer only: the score stage and the API score over a shared trunk."""
    return scored_project(tmp_path_factory.mktemp("reward-top"), top_layers=True)


def interim(root: Path) -> tuple[dict, dict, dict]:
    folder = root / "data" / "interim"
    return ({p.id: p for p in read_records(folder / "passages.jsonl", Passage)},
            {q.id: q for q in read_records(folder / "qa.jsonl", QA)},
            {c.id: c for c in read_records(folder / "contexts.jsonl", Context)})


def scored_pairs(root: Path) -> list[Pair]:
    """The pairs the score stage scored, in its order (every pair of both splits, sorted by id)."""
    pairs = [p for split in ("train", "test") for p in read_records(root / f"data/processed/pairs/{split}.jsonl", Pair)]
    return sorted(pairs, key=lambda p: p.id)


def pair_items(root: Path, pairs: list[Pair]) -> list[Item]:
    """Each pair as a user would send it: its context's question and passages, and its two answers."""
    passages, qas, contexts = interim(root)
    return [Item(p.id, qas[p.qa_id].question, tuple(passages[i] for i in contexts[p.context_id].passage_ids),
                 (p.chosen, p.rejected), contexts[p.context_id].gold_slot) for p in pairs]


def score_records(root: Path, model: str) -> dict[tuple[str, str], dict]:
    path = root / "data" / "scores" / model / "pairs.jsonl"
    return {(r["pair_id"], r["scoring"]): r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


@pytest.mark.parametrize("top_layers", [True, False], ids=["shared-trunk", "every-layer"])
def test_the_api_gives_the_score_stage_s_scores_bit_for_bit(project, tmp_path, top_layers):
    root = project if top_layers else scored_project(tmp_path / "every-layer", top_layers=False)
    pairs = scored_pairs(root)
    items = pair_items(root, pairs)
    meta = json.loads((root / "data/scores/meta.json").read_text())
    assert meta["corpora"]["pairs"]["fit"]["all"]["refit"] > 0  # some prompts lost a passage, in both ways
    assert {i.question[-1] for i in items} == {"?", "？"}  # English and Chinese
    for folder in ("models/adapters/dpo-pairs-s0", "models/adapters/dpo-pairs-s1", "models/base"):
        rm = RewardModel.load(root / folder, root / "params.yaml")
        assert rm.split == (1 if top_layers and "adapters" in folder else 0)
        records = score_records(root, Path(folder).name)
        scored = rm.score(items)
        compared = 0
        for pair, got in zip(pairs, scored, strict=True):
            for scoring in rm.scorings:
                want = records[(pair.id, scoring)]
                assert got.scores[scoring] == [want["chosen"], want["rejected"]], (folder, pair.id, scoring)
                assert got.tokens == [want["chosen_tokens"], want["rejected_tokens"]]
                compared += 1
        assert compared == len(pairs) * (4 if "adapters" in folder else 2)


def test_an_item_s_prompt_and_tokens_are_the_pair_s(project):
    """The prompt is built by the function that built the pairs' prompts, and tokenized as the score stage
    tokenizes them: the same string, the same ids (over-long ones fitted the same way)."""
    pairs = scored_pairs(project)
    items = pair_items(project, pairs)
    params = load_params(project / "params.yaml")
    rm = RewardModel.load(project / "models/base", params)
    fitted = encode_pairs(rm.tokenizer, pairs, params.score.max_length, params.train.overlong)
    for pair, item, want in zip(pairs, items, fitted, strict=True):
        prompt, spans = item.prompt(params.generate.refusal_by_language())
        assert (prompt, spans) == (pair.prompt, pair.passage_spans)
        got = rm.fit(item)
        assert (got.prompt, got.responses, got.passages_dropped) == (want.prompt, (want.chosen, want.rejected),
                                                                      want.passages_dropped)
    zh = next(i for i in items if i.question.endswith("？"))
    prompt = zh.prompt(params.generate.refusal_by_language())[0]
    assert prompt.startswith("段落：") and "提供的段落没有足够的信息来回答这个问题。" in prompt


def test_items_of_several_responses_score_each_as_a_pair_would(project):
    """Five answers in one item get the scores each gets beside any other answer (within float noise:
    the batches differ), and rank orders them by reward, a tie keeping input order."""
    items = pair_items(project, scored_pairs(project))
    rm = RewardModel.load(project / "models/adapters/dpo-pairs-s0", project / "params.yaml")
    first = items[0]
    answers = ("Yes.", "No.", first.responses[0], "The provided passages do not contain enough information to "
               "answer this question.", first.responses[1])
    five = Item("five", first.question, first.passages, answers, first.gold)
    [many] = rm.score([five])
    [pair] = rm.score([first])
    for scoring in SCORINGS:
        assert many.scores[scoring][2] == pytest.approx(pair.scores[scoring][0], abs=1e-5)
        assert many.scores[scoring][4] == pytest.approx(pair.scores[scoring][1], abs=1e-5)
    assert many.scores["ref_sum"] == pytest.approx([a - b for a, b in zip(many.scores["sum"], rm_base_sums(project, five),
                                                                           strict=True)], abs=1e-9)
    rewards = many.rewards("ref_sum")
    assert ranking(rewards) == sorted(range(5), key=lambda k: -rewards[k])
    assert ranking([1.0, 2.0, 2.0, 0.5]) == [1, 2, 0, 3]


def rm_base_sums(project: Path, item: Item) -> list[float]:
    [base] = RewardModel.load(project / "models/base", project / "params.yaml").score([item])
    return base.scores["sum"]


def test_an_overlong_item_stops_or_loses_distractors_never_its_gold_passage(project, tmp_path):
    items = pair_items(project, scored_pairs(project))
    rm = RewardModel.load(project / "models/adapters/dpo-pairs-s0", project / "params.yaml")
    assert rm.settings.max_length == 300 and rm.settings.overlong == "drop_distractors"
    fits = [rm.fit(i) for i in items]
    short = items[next(k for k, f in enumerate(fits) if not f.passages_dropped)]
    long_item = next(i for i, f in zip(items, fits, strict=True)
                     if f.passages_dropped and i.gold is not None and i.gold < len(i.passages) - 1)
    strict = tmp_path / "strict.yaml"
    strict.write_text(json.dumps(reward_project.params(**{"score.max_length": 300, "reward.overlong": "error"})),
                      encoding="utf-8")
    with pytest.raises(ItemError) as err:
        RewardModel.load(project / "models/adapters/dpo-pairs-s0", strict).score([short, long_item])
    assert err.value.index == 1 and err.value.field == "passages" and "score.max_length 300" in err.value.message
    fitted = rm.fit(long_item)
    [scored] = rm.score([long_item])
    assert scored.passages_dropped == fitted.passages_dropped > 0
    assert scored.passages_used == len(long_item.passages) - scored.passages_dropped
    kept = rm.tokenizer.decode(fitted.prompt)
    assert long_item.passages[long_item.gold].text in kept
    assert long_item.passages[-1].text not in kept  # the last slot goes first
    huge = Item("huge", long_item.question, long_item.passages, ("word " * 400,), None)
    with pytest.raises(ItemError) as err:
        rm.score([huge])
    assert err.value.field == "responses[0]"


def test_a_base_model_gives_sum_and_mean_only(project):
    rm = RewardModel.load(project / "models/base", project / "params.yaml")
    assert rm.scorings == ("sum", "mean") and rm.scoring == "mean"
    with pytest.raises(ScoringError, match="no reference"):
        rm.check_scoring("ref_sum")


def test_an_adapter_loads_with_the_base_it_names_and_refuses_another(project, tmp_path):
    moved = tmp_path / "elsewhere" / "dpo-pairs-s0"
    shutil.copytree(project / "models/adapters/dpo-pairs-s0", moved)
    other = tmp_path / "other-base"
    reward_project.write_base(other, seed=7)
    items = pair_items(project, scored_pairs(project))[:3]
    want = RewardModel.load(project / "models/adapters/dpo-pairs-s0", project / "params.yaml").score(items)
    got = RewardModel.load(moved, project / "params.yaml", base=project / "models/base").score(items)
    assert [g.scores for g in got] == [w.scores for w in want]
    with pytest.raises(ModelLoadError, match="was trained on legal-rm/builtin-"):
        RewardModel.load(moved, project / "params.yaml", base=other)
    with pytest.raises(ModelLoadError, match="neither .* nor in the local Hugging Face cache"):
        RewardModel.load(moved, project / "params.yaml")
    with pytest.raises(ModelLoadError, match="not a model folder"):
        RewardModel.load(tmp_path / "nothing-here", project / "params.yaml")
