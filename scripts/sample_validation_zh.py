"""Draw Chinese items for the validation set labelled by reading: scripts/sample_validation.py's seeded,
stratified draw (variant x generator, half by question, never a judge label read), restricted to
Chinese questions, with the bare refusal sentence thinned.

    python scripts/sample_validation_zh.py --interim data/interim --source bilingual \
        --params params/bilingual.yaml --per-stratum 1 --keep-refusals 0.34 --seed 0 --out items.jsonl
    python scripts/sample_validation_zh.py --interim data/interim --source zh_published \
        --params params/zh_published.yaml --per-stratum 2 --cutoff 8 --keep-refusals 0.34 --seed 0 --out items.jsonl

Why thin: the offline panel's cautious member refuses on most Chinese contexts, so a plain stratified
draw is half bare refusals (47 of 93 items over the bilingual, Chinese-judgments and messy sources),
each one the same sentence a reader and every judge call abstained. A bare refusal (the candidate's
text is exactly the refusal sentence of its language) is kept when a hash of its id falls under
--keep-refusals; every other answer, refusals with any further wording included, is kept.

Yes/no flips (--yesno-flips K): extra candidates that open with 是 or 否 against the reference's bottom
line on an answerable context (its gold passage is shown), drawn round-robin over generators, seeded. The
panel rarely contradicts its context, so a plain draw holds almost no answer a reader calls
contradicted; this is the one dimension value the draw oversamples, and it reads only the reference.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_validation import (  # noqa: E402
    ROOT,
    load_profile,
    parse_counts,
    read_ids,
    record,
    round_robin,
    sample,
    write_items,
)

from pipeline import params as params_mod  # noqa: E402
from pipeline.language import detect  # noqa: E402


def kept(item: dict, keep_refusals: float, seed: int) -> bool:
    if item["candidate"]["text"].strip() != item["refusal"]:
        return True
    h = int(hashlib.sha256(f"{seed}:refusal:{item['id']}".encode()).hexdigest(), 16)
    return (h % 10_000) / 10_000 < keep_refusals


def yes_no_flips(interim: Path, source: str, k: int, seed: int, refusals: dict[str, str],
                 taken: set[str]) -> list[dict]:
    """k Chinese yes/no answers whose 是/否 differs from the reference's, on answerable contexts."""
    passages, qas, contexts, candidates = load_profile(interim)
    pool = []
    for c in candidates:
        ctx = contexts[c.context_id]
        qa = qas[ctx.qa_id]
        if qa.kind != "yesno" or not ctx.answerable or detect(qa.question) != "zh":
            continue
        reference = "是" if qa.answer.startswith(("是", "Y", "y")) else "否"
        if c.text.startswith(("是", "否")) and c.text[0] != reference:
            pool.append(c)
    taken = {x.removeprefix(f"{source}/") for x in taken}
    drawn = round_robin(pool, k, seed, "yesno_flip", taken)
    return [record(source, c, qas[contexts[c.context_id].qa_id], contexts[c.context_id], passages, refusals)
            for c in drawn]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interim", required=True, help="a profile's interim folder (passages, qa, contexts, candidates)")
    ap.add_argument("--source", required=True, help="the source name the ids carry (bilingual, messy, ...)")
    ap.add_argument("--per-stratum", type=int, required=True, help="candidates per (variant, generator)")
    ap.add_argument("--count", action="append", default=[], metavar="GEN=N",
                    help="per-stratum count for one generator (overrides --per-stratum)")
    ap.add_argument("--cutoff", type=int, default=0, help='extra items cut off (finish_reason "length")')
    ap.add_argument("--yesno-flips", type=int, default=0, help="extra yes/no answers against the reference")
    ap.add_argument("--keep-refusals", type=float, default=1.0, help="share of bare refusals kept (seeded)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--params", default=str(ROOT / "params.yaml"), help="the profile's params (refusal sentences)")
    ap.add_argument("--exclude", action="append", default=[], help="JSONL of items already drawn (skipped)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    refusals = params_mod.load(args.params).generate.refusal_by_language()
    items = sample(Path(args.interim), args.source, args.per_stratum, args.seed, parse_counts(args.count),
                   cutoff=args.cutoff, refusals=refusals, exclude=read_ids(args.exclude), language="zh")
    items = [i for i in items if kept(i, args.keep_refusals, args.seed)]
    if args.yesno_flips:
        taken = read_ids(args.exclude) | {i["id"] for i in items}
        items += yes_no_flips(Path(args.interim), args.source, args.yesno_flips, args.seed, refusals, taken)
    write_items(items, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
