"""Draw unlabelled items for the validation set labelled by reading (docs/method.md §4).

    python scripts/sample_validation.py --interim data/interim --source default \
        --per-stratum 4 --collisions 20 --cutoff 10 --seed 0 --out items.jsonl
    python scripts/sample_validation.py --interim real/data/interim --source real --params params/real.yaml \
        --per-stratum 0 --count hf:smollm2-135m-instruct=6 --count offline:confident=1 --cutoff 10 \
        --exclude items.jsonl --seed 0 --out real_items.jsonl

Reads the interim records of one profile (passages, qa, contexts, candidates) and writes one JSON
object per candidate in the validation record format: source, language, half, the QA, the context,
its passages in the context's order, the candidate, the refusal sentence, an empty `gold` ({}) and an
empty `note`, for a reader to fill.

What is drawn, all seeded:
- strata: every (variant, generator) pair gets --per-stratum candidates (--count GEN=N overrides the
  count for one generator, 0 leaves it out). Within a stratum a question not drawn yet is preferred,
  so the draw spreads over questions.
- collisions (--collisions K): extra candidates whose context holds a party name (a Hong Kong-style
  name, a company, a Chinese 某-name) in passages of two different decisions, the case a reader and a
  party-aware judge must tell apart. Contexts where the question's own party appears in another
  decision's passage come first. The bare refusal sentence is skipped here: it says nothing about a name.
- cut-off answers (--cutoff K): extra candidates with finish_reason "length".
Extras are drawn round-robin over generators so no one generator fills them.

Labelling is blind: the judges' labels (data/interim/labels/) are never opened, and nothing here
reads any file but the four record files and the params file. The half of an item is decided by its
question (half_of), so no question is in both halves.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pipeline import params as params_mod  # noqa: E402
from pipeline.io import read_records  # noqa: E402
from pipeline.language import detect  # noqa: E402
from pipeline.records import QA, Candidate, Context, Passage, to_dict  # noqa: E402

RECORD_FILES = ("passages.jsonl", "qa.jsonl", "contexts.jsonl", "candidates.jsonl")
# Hong Kong-style personal names: an optional English given name, a surname, a hyphenated given name
# ("Raymond Lo Wai-lun"); the key is the last two words, so "Lo Wai-lun" and "Raymond Lo Wai-lun" meet.
_HK_NAME = re.compile(r"\b(?:[A-Z][a-z]+ )?([A-Z][a-z]+ [A-Z][a-z]+-[a-z]+)\b")
_EN_COMPANY = re.compile(r"\b((?:[A-Z][A-Za-z&]+ ){1,4}(?:Limited|Ltd|Company|Holdings|Corporation))\b")
_ZH_NAME = re.compile(r"([\u4e00-\u9fff]某+[\u4e00-\u9fff0-9x]?)")
_ZH_COMPANY = re.compile(r"([\u4e00-\u9fff]{2,12}有限公司)")


def half_of(qa_id: str) -> str:
    """dev or test, by question: the formula of the validation set (never tune a judge on test)."""
    h = int(hashlib.sha256(f"validation:{qa_id}".encode()).hexdigest(), 16)
    return "dev" if h % 2 == 0 else "test"


def names_in(text: str) -> set[str]:
    """Party names a passage or question mentions (persons, companies, 某-names)."""
    found = {m.group(1) for m in _HK_NAME.finditer(text)}
    found |= {m.group(1).strip() for m in _EN_COMPANY.finditer(text)}
    found |= {m.group(1) for m in _ZH_NAME.finditer(text)}
    found |= {m.group(1) for m in _ZH_COMPANY.finditer(text)}
    return found


def collision_rank(qa: QA, context: Context, passages: dict[str, Passage]) -> int:
    """2: the question's party is named in a passage of a decision other than the question's;
    1: some name appears in passages of two different decisions of the context; 0: neither."""
    decisions_of: dict[str, set[str]] = defaultdict(set)
    for pid in context.passage_ids:
        p = passages[pid]
        for name in names_in(p.text):
            decisions_of[name].add(p.decision_id)
    gold = passages.get(qa.gold_passage_id)
    own_decision = gold.decision_id if gold else qa.family
    if any(d != own_decision for n in names_in(qa.question) for d in decisions_of.get(n, ())):
        return 2
    return 1 if any(len(ds) > 1 for ds in decisions_of.values()) else 0


def load_profile(interim: Path) -> tuple[dict, dict, dict, list[Candidate]]:
    passages = {p.id: p for p in read_records(interim / "passages.jsonl", Passage)}
    qas = {q.id: q for q in read_records(interim / "qa.jsonl", QA)}
    contexts = {c.id: c for c in read_records(interim / "contexts.jsonl", Context)}
    candidates = read_records(interim / "candidates.jsonl", Candidate)
    return passages, qas, contexts, candidates


def parse_counts(items: Sequence[str]) -> dict[str, int]:
    counts = {}
    for item in items:
        gen, sep, n = item.rpartition("=")
        if not sep or not gen or not n.isdigit():
            raise SystemExit(f"--count {item!r}: expected GENERATOR=N")
        counts[gen] = int(n)
    return counts


def draw_strata(candidates: list[Candidate], contexts: dict[str, Context], per_stratum: int,
                counts: dict[str, int], seed: int, taken: set[str]) -> list[Candidate]:
    strata: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
    for c in candidates:
        strata[(contexts[c.context_id].variant, c.generator)].append(c)
    seen_q: set[str] = set()
    out: list[Candidate] = []
    for variant, generator in sorted(strata):
        n = counts.get(generator, per_stratum)
        pool = [c for c in strata[(variant, generator)] if c.id not in taken]
        random.Random(f"{seed}:stratum:{variant}:{generator}").shuffle(pool)
        # Unseen questions first (stable sort keeps the shuffled order within each group).
        pool.sort(key=lambda c: contexts[c.context_id].qa_id in seen_q)
        for c in pool[:n]:
            out.append(c)
            taken.add(c.id)
            seen_q.add(contexts[c.context_id].qa_id)
    return out


def round_robin(pool: Iterable[Candidate], k: int, seed: int, tag: str, taken: set[str],
                key=lambda c: 0) -> list[Candidate]:
    """k candidates of `pool` not taken, lowest `key` first, alternating generators; seeded."""
    by_gen: dict[str, list[Candidate]] = defaultdict(list)
    for c in pool:
        if c.id not in taken:
            by_gen[c.generator].append(c)
    for gen, items in by_gen.items():
        random.Random(f"{seed}:{tag}:{gen}").shuffle(items)
        items.sort(key=key)
    out: list[Candidate] = []
    gens = sorted(by_gen)
    while len(out) < k and any(by_gen[g] for g in gens):
        for g in gens:
            if by_gen[g] and len(out) < k:
                c = by_gen[g].pop(0)
                out.append(c)
                taken.add(c.id)
    return out


def record(source: str, c: Candidate, qa: QA, ctx: Context, passages: dict[str, Passage],
           refusals: dict[str, str]) -> dict:
    lang = detect(qa.question)
    return {
        "id": f"{source}/{c.id}",
        "source": source,
        "language": lang,
        "half": half_of(qa.id),
        "qa": to_dict(qa),
        "context": to_dict(ctx),
        "passages": [to_dict(passages[pid]) for pid in ctx.passage_ids],
        "candidate": to_dict(c),
        "refusal": refusals[lang],
        "gold": {},
        "note": "",
    }


def sample(interim: Path, source: str, per_stratum: int, seed: int, counts: dict[str, int] | None = None,
           collisions: int = 0, cutoff: int = 0, refusals: dict[str, str] | None = None,
           exclude: set[str] = frozenset(), language: str | None = None, kind: str | None = None,
           skip_refusals: bool = False) -> list[dict]:
    """The drawn records, strata first, then collision and cut-off extras; no candidate twice and none of
    `exclude` (candidate ids or validation ids). `kind` keeps one kind of question (factual, yesno, rule);
    `skip_refusals` leaves out the bare refusal sentence, which a reader and every judge call abstained."""
    passages, qas, contexts, candidates = load_profile(interim)
    if refusals is None:
        refusals = params_mod.load(ROOT / "params.yaml").generate.refusal_by_language()
    if language:
        candidates = [c for c in candidates if detect(qas[contexts[c.context_id].qa_id].question) == language]
    if kind:
        candidates = [c for c in candidates if qas[contexts[c.context_id].qa_id].kind == kind]
    if skip_refusals:
        refusal_texts = set(refusals.values())
        candidates = [c for c in candidates if c.text.strip() not in refusal_texts]
    taken = {x.removeprefix(f"{source}/") for x in exclude}
    drawn = draw_strata(candidates, contexts, per_stratum, counts or {}, seed, taken)
    if collisions:
        refusal_texts = set(refusals.values())
        ranks = {}
        for c in candidates:
            if c.text.strip() in refusal_texts or c.id in taken:
                continue
            ctx = contexts[c.context_id]
            ranks[c.id] = collision_rank(qas[ctx.qa_id], ctx, passages)
        pool = [c for c in candidates if ranks.get(c.id, 0) > 0]
        drawn += round_robin(pool, collisions, seed, "collision", taken, key=lambda c: -ranks[c.id])
    if cutoff:
        pool = [c for c in candidates if c.finish_reason == "length"]
        drawn += round_robin(pool, cutoff, seed, "cutoff", taken)
    out = []
    for c in drawn:
        ctx = contexts[c.context_id]
        out.append(record(source, c, qas[ctx.qa_id], ctx, passages, refusals))
    return out


def read_ids(paths: Sequence[str]) -> set[str]:
    ids: set[str] = set()
    for path in paths:
        if Path(path).exists():
            with open(path, encoding="utf-8") as fh:
                ids |= {json.loads(line)["id"] for line in fh if line.strip()}
    return ids


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interim", required=True, help="a profile's interim folder (passages, qa, contexts, candidates)")
    ap.add_argument("--source", required=True, help="the source name the ids carry (default, real, ...)")
    ap.add_argument("--per-stratum", type=int, required=True, help="candidates per (variant, generator)")
    ap.add_argument("--count", action="append", default=[], metavar="GEN=N",
                    help="per-stratum count for one generator (overrides --per-stratum)")
    ap.add_argument("--collisions", type=int, default=0, help="extra items with a name in two decisions' passages")
    ap.add_argument("--cutoff", type=int, default=0, help='extra items cut off (finish_reason "length")')
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--params", default=str(ROOT / "params.yaml"), help="the profile's params (refusal sentences)")
    ap.add_argument("--language", choices=("en", "zh"), help="only questions of this language")
    ap.add_argument("--kind", choices=("factual", "yesno", "rule"), help="only questions of this kind")
    ap.add_argument("--skip-refusals", action="store_true", help="leave out answers that are the bare refusal")
    ap.add_argument("--exclude", action="append", default=[], help="JSONL of items already drawn (skipped)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    refusals = params_mod.load(args.params).generate.refusal_by_language()
    items = sample(Path(args.interim), args.source, args.per_stratum, args.seed, parse_counts(args.count),
                   args.collisions, args.cutoff, refusals, read_ids(args.exclude), args.language, args.kind,
                   args.skip_refusals)
    write_items(items, args.out)
    return 0


def write_items(items: list[dict], out: str) -> None:
    """The drawn items as JSONL, and a one-line count per half."""
    with open(out, "w", encoding="utf-8") as fh:
        for item in items:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    halves = {h: sum(i["half"] == h for i in items) for h in ("dev", "test")}
    print(f"{len(items)} items -> {out} ({halves['dev']} dev, {halves['test']} test)")


if __name__ == "__main__":
    raise SystemExit(main())
