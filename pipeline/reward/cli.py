"""`python -m pipeline.reward`: score, rank or serve answers with a trained reward model.

    python -m pipeline.reward score --model models/adapters/dpo-pairs_aug-s0 --input answers.jsonl --output scored.jsonl
    python -m pipeline.reward rank  --model models/adapters/dpo-pairs_aug-s0 --input answers.jsonl --output ranked.jsonl
    python -m pipeline.reward serve --model models/adapters/dpo-pairs_aug-s0 --port 8765

Input: one item per line (pipeline/reward/items.py: question, passages, responses, optional id and gold).
Output: one line per item, in input order:

    {"id": "q1", "model": "dpo-pairs_aug-s0", "scoring": "ref_sum", "rewards": [1.7, -0.4],
     "scores": {"sum": [...], "mean": [...], "ref_sum": [...], "ref_mean": [...]}, "tokens": [12, 9],
     "passages_used": 4, "passages_dropped": 0}

`rank` adds "order" (response indices, best first; a tie keeps input order) and "pick" (the first of
them). Bad input stops before anything is scored, with one line naming file, line and field, and the
output is written whole or not at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline import params as params_mod
from pipeline.io import InputError, iter_json, write_records
from pipeline.reward.items import FieldError, Item, parse_item
from pipeline.reward.loading import kind_of
from pipeline.reward.model import ItemError, RewardModel, Scored, ScoringError, ranking


def read_items(path: str | Path, max_responses: int) -> tuple[list[Item], list[int]]:
    """The items of a JSONL file and the line each came from; InputError names file, line and field."""
    items, lines, seen = [], [], {}
    for line, obj in iter_json(path):
        try:
            item = parse_item(obj, str(line), max_responses)
        except FieldError as exc:
            raise InputError(path, line, exc.field, exc.message) from None
        if item.id in seen:
            raise InputError(path, line, "id", f"duplicate id {item.id!r} (first on line {seen[item.id]})")
        seen[item.id] = line
        items.append(item)
        lines.append(line)
    if not items:
        raise InputError(path, None, None, "no items: the file holds no JSON line")
    return items, lines


def output_record(rm: RewardModel, scored: Scored, scoring: str, rank: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": scored.id, "model": rm.name, "scoring": scoring, "rewards": scored.rewards(scoring),
        "scores": scored.scores, "tokens": scored.tokens, "passages_used": scored.passages_used,
        "passages_dropped": scored.passages_dropped,
    }
    if rank:
        order = ranking(scored.rewards(scoring))
        record["order"], record["pick"] = order, order[0]
    return record


def score_items(rm: RewardModel, items: list[Item], lines: list[int], source: str | Path, target: str | Path,
                scoring: str | None, rank: bool) -> int:
    """Score (and rank) `items` (read from `source`, at `lines`) into `target`; the count of items."""
    from tqdm import tqdm

    scoring = rm.check_scoring(scoring or rm.scoring)
    try:
        fitted = rm.encode(items)
    except ItemError as exc:
        raise InputError(source, lines[exc.index], exc.field, exc.message) from None
    with tqdm(total=len(items), desc=f"{'rank' if rank else 'score'} {rm.name}", unit="item", leave=False) as bar:
        scored = rm.score_fitted(items, fitted, bar.update)
    return write_records(target, (output_record(rm, s, scoring, rank) for s in scored))


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipeline.reward", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, what in (("score", "one reward per response"), ("rank", "responses ordered, the pick marked"),
                       ("serve", "POST /v1/score and GET /health over HTTP")):
        sub = commands.add_parser(name, help=what)
        sub.add_argument("--model", required=True, help="an adapter folder (models/adapters/<run>) or a base folder")
        sub.add_argument("--base", default=None, help="the base the adapter was trained on (default: models/base "
                                                      "beside the adapters, else the local cache)")
        sub.add_argument("--params", default=str(params_mod.DEFAULT_PATH))
        sub.add_argument("--device", default=None, help="cpu, cuda, cuda:1 (default: cuda when there is one)")
        if name == "serve":
            sub.add_argument("--host", default=None, help="default: reward.serve.host")
            sub.add_argument("--port", type=int, default=None, help="default: reward.serve.port")
        else:
            sub.add_argument("--input", required=True)
            sub.add_argument("--output", required=True)
            sub.add_argument("--scoring", default=None, choices=("sum", "mean", "ref_sum", "ref_mean"),
                             help="default: reward.scoring (an adapter), reward.base_scoring (a base)")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = _arguments().parse_args(argv)
    from pipeline.models.loading import ModelLoadError
    from pipeline.stages import quiet_library_warnings

    quiet_library_warnings()
    try:
        params = params_mod.load(args.params)
        kind_of(Path(args.model))  # an unknown folder stops before anything is read
        if args.command != "serve":
            items, lines = read_items(args.input, params.reward.max_responses)
        rm = RewardModel.load(args.model, params, args.base, args.device)
        if args.command == "serve":
            from pipeline.reward.server import serve

            serve(rm, params.reward.serve, args.host, args.port)
            return
        count = score_items(rm, items, lines, args.input, args.output, args.scoring, args.command == "rank")
    except (InputError, ModelLoadError, params_mod.ParamsError, ScoringError) as exc:
        sys.exit(f"reward {args.command}: error: {' '.join(str(exc).split())}")
    print(f"reward {args.command}: {count} items, {rm.name} ({args.scoring or rm.scoring}) -> {args.output}")
