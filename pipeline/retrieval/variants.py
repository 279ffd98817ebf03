"""The context variants of docs/method.md §2: which passages a question sees, and where its gold sits.

Pure: passages, questions and retrievers in, Context records out. Retrievers are looked up by the
variant's source ("bm25", "dense"), so tests can hand in fakes and the stage hands in the real ones.

Distractors are drawn in the question's language (that of its gold passage): a context mixing two
languages is unanswerable at a glance, and a reward model would learn the script instead of the content.
Only when a language runs out of passages do other languages fill the remaining slots (the contexts
stage counts them, pipeline/retrieval/languages.py), so a report can say how far a corpus falls short.
A retriever scores most passages of another script 0 (BM25 shares no token with them); among those the
order is a seeded draw per question (pipeline/sampling.py), else every Chinese question of a corpus would
take the same English fill-ins, those of the lowest indices.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.records import QA, SAFE_ID, Context, Passage
from pipeline.retrieval.parties import Guard, PartyIndex
from pipeline.retrieval.rank import Retriever, Ties
from pipeline.sampling import seeded_order
from pipeline.text import stable_hash


@dataclass(frozen=True)
class Variant:
    answerable: bool
    # Where the other passages come from: none, surrounding, random, bm25 or dense.
    source: str


VARIANTS: dict[str, Variant] = {
    "gold_only": Variant(True, "none"),
    "gold_surrounding": Variant(True, "surrounding"),
    "gold_plus_random": Variant(True, "random"),
    "gold_plus_bm25": Variant(True, "bm25"),
    "gold_plus_dense": Variant(True, "dense"),
    "random_context": Variant(False, "random"),
    "bm25_hard_negative": Variant(False, "bm25"),
    "dense_hard_negative": Variant(False, "dense"),
}


class ContextError(ValueError):
    """A question whose context cannot be built; names the question and the offending field."""

    def __init__(self, qa_id: str, field: str, message: str):
        super().__init__(f"question {qa_id!r}, field '{field}': {message}")
        self.qa_id, self.field, self.message = qa_id, field, message


def variant_spec(name: str) -> Variant:
    """The variant of a name. A dense variant may name a second embedding model after a dot,
    e.g. "gold_plus_dense.e5": its source is then "dense.e5" (see params contexts.dense_models)."""
    base, _, alias = name.partition(".")
    spec = VARIANTS.get(base)
    if spec is None or (alias and spec.source != "dense") or name.endswith("."):
        raise ValueError(
            f"unknown context variant {name!r}; known: {sorted(VARIANTS)} "
            "(dense ones may add '.<alias>' of contexts.dense_models)"
        )
    return Variant(spec.answerable, f"dense.{alias}") if alias else spec


def sources(variants: Sequence[str]) -> set[str]:
    return {variant_spec(v).source for v in variants}


def no_answer(qa: QA) -> bool:
    """A question its own gold passage does not answer (an imported SQuAD 2.0 "impossible" question,
    pipeline/importers/squad.py): no reference answer and no facts. Every variant of it is unanswerable;
    where a variant would show the gold passage it shows that paragraph all the same, at its hashed
    slot, as the hard negative the question was written against (gold_surrounding is not built)."""
    return not qa.answer.strip() and not qa.facts


def gold_slot(qa_id: str, variant: str, size: int) -> int:
    """The gold passage's preferred index: a hash of (qa_id, variant), so it is uncorrelated with
    the retrieval ranks and the same on every run."""
    return stable_hash("gold_slot", qa_id, variant) % size


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def build_contexts(
    passages: Sequence[Passage],
    qas: Sequence[QA],
    variants: Sequence[str],
    k: int,
    seed: int,
    retrievers: Mapping[str, Retriever],
    pool: int,
    progress: Callable[[int], None] | None = None,
    languages: Sequence[str] | None = None,
    parties: PartyIndex | None = None,
    skips: Counter | None = None,
) -> list[Context]:
    """One Context per (question, variant), sorted by id.

    A question with no answer (`no_answer`) gets every variant built the same way, marked unanswerable,
    except gold_surrounding (neighbours of its paragraph may hold the answer).
    Distractors never come from the gold passage's family (gold_surrounding alone takes neighbours of
    the same decision on purpose), and a passage whose text duplicates the gold passage or an earlier
    distractor is skipped, so a "distractor" can never be the evidence under another id.

    `languages[i]` is the language of `passages[i]` (None: one language). A question's distractors come
    from its gold passage's language; passages of other languages fill in only once that language has no
    candidate left outside the family. gold_surrounding stays in one decision, hence one language.

    With `parties` (pipeline/retrieval/parties.py), a candidate that names a party of another decision of
    the context (the question's own decision always counts) is passed over for the next one; `skips`
    counts them per variant.
    """
    if k < 1:
        raise ValueError(f"contexts.k must be >= 1, got {k}")
    if pool < k:
        raise ValueError(f"contexts.pool ({pool}) must be >= contexts.k ({k})")
    needed = sources(variants)
    missing = sorted({s for s in needed if s.startswith(("bm25", "dense"))} - set(retrievers))
    if missing:
        raise ValueError(f"no retriever given for {missing}")

    if languages is not None and len(languages) != len(passages):
        raise ValueError(f"{len(languages)} passage languages for {len(passages)} passages")
    lang_of = list(languages) if languages is not None else [""] * len(passages)
    by_language: dict[str, list[int]] = defaultdict(list)
    for i, lang in enumerate(lang_of):
        by_language[lang].append(i)
    # Once per language: a retriever, which ranks the whole corpus, skips these like the family.
    foreign = {lang: set(range(len(passages))) - set(members) for lang, members in by_language.items()}

    index = {p.id: i for i, p in enumerate(passages)}
    by_family: dict[str, list[int]] = defaultdict(list)
    by_decision: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(passages):
        by_family[p.family].append(i)
        by_decision[p.decision_id].append(i)
    for members in by_decision.values():
        members.sort(key=lambda i: (passages[i].position, passages[i].id))
    norm_text = [_norm(p.text) for p in passages]

    contexts: list[Context] = []
    for qi, qa in enumerate(qas):
        gold = index.get(qa.gold_passage_id)
        if gold is None:
            raise ContextError(qa.id, "gold_passage_id", f"unknown passage {qa.gold_passage_id!r}")
        if passages[gold].family != qa.family:
            raise ContextError(
                qa.id,
                "family",
                f"{qa.family!r} differs from the gold passage's family {passages[gold].family!r}",
            )
        family = by_family[qa.family]
        family_set = set(family)
        lang = lang_of[gold]
        family_here = sum(lang_of[i] == lang for i in family)
        own = Pool(
            by_language[lang],
            family_set,
            len(by_language[lang]) - family_here,
            family_set | foreign[lang] if foreign[lang] else family_set,
        )
        mine: list[Context] = []
        for variant in variants:
            spec = variant_spec(variant)
            cid = f"{qa.id}/{variant}"
            if not SAFE_ID.match(cid):
                raise ContextError(qa.id, "id", f"context id {cid!r} is not a safe id (too long?)")
            if spec.source == "none":
                mine.append(Context(cid, qa.id, variant, True, [passages[gold].id], 0))
                continue
            if spec.source == "surrounding":
                if no_answer(qa):
                    # Its neighbours may hold the answer: SQuAD 2.0 rules it out of the paragraph only.
                    continue
                ids, slot = _surrounding(by_decision[passages[gold].decision_id], gold, k, qa.id, variant)
                mine.append(Context(cid, qa.id, variant, True, [passages[i].id for i in ids], slot))
                continue
            need = k - 1 if spec.answerable else k
            rng = (
                random.Random(stable_hash(seed, "contexts", qa.id, variant))
                if spec.source == "random"
                else None
            )
            seen = {norm_text[gold]}
            guard = (
                Guard.start(parties, passages[gold].decision_id, [gold] if spec.answerable else [])
                if parties is not None
                else None
            )
            chosen, exhausted = _draw(own, need, spec.source, qi, rng, retrievers, pool, norm_text, seen,
                                      guard=guard)
            if len(chosen) < need and exhausted and foreign[lang]:
                members = sorted(foreign[lang])
                others = Pool(
                    members,
                    family_set,
                    len(foreign[lang]) - (len(family) - family_here),
                    family_set.union(by_language[lang]),
                )
                more, _ = _draw(
                    others, need - len(chosen), spec.source, qi, rng, retrievers, pool, norm_text, seen,
                    _seeded_ties(members, passages, seed, qa.id), guard,
                )
                chosen += more
            if guard is not None and skips is not None:
                skips[variant] += guard.skipped
            if len(chosen) < need:
                outside = len(passages) - len(family)
                raise ContextError(
                    qa.id,
                    "family",
                    f"variant {variant} needs {need} distractors outside family {qa.family!r}, found only "
                    f"{len(chosen)} distinct ones ({outside} passages outside the family, pool {pool}"
                    + (f", other languages filling in once {lang!r} runs out" if foreign[lang] else "")
                    + (f", {guard.skipped} passed over for naming a party of another decision of the context"
                       if guard is not None and guard.skipped else "") + ")"
                    + f": contexts.k = {k} asks for k - 1 distractors per answerable context and k per unanswerable "
                      "one; lower contexts.k or add decisions",
                )
            if spec.answerable:
                slot = gold_slot(qa.id, variant, k)
                chosen = chosen[:slot] + [gold] + chosen[slot:]
                mine.append(Context(cid, qa.id, variant, True, [passages[i].id for i in chosen], slot))
            else:
                mine.append(Context(cid, qa.id, variant, False, [passages[i].id for i in chosen], None))
        if no_answer(qa):
            mine = [dataclasses.replace(c, answerable=False, gold_slot=None) for c in mine]
        contexts.extend(mine)
        if progress:
            progress(1)
    contexts.sort(key=lambda c: c.id)
    return contexts


def _surrounding(members: list[int], gold: int, k: int, qa_id: str, variant: str) -> tuple[list[int], int]:
    """A window of up to k consecutive passages of the gold's decision; the gold sits at its hashed
    slot unless the decision's edge forces the window over."""
    where = members.index(gold)
    size = min(k, len(members))
    start = min(max(where - gold_slot(qa_id, variant, size), 0), len(members) - size)
    return members[start : start + size], where - start


@dataclass(frozen=True)
class Pool:
    """Where a question's distractors may come from: the passages `members` (indices, ascending) outside
    its `family`, `outside` of them. `skip` is what a retriever, which ranks the whole corpus, must pass
    over: the family plus every passage that is not a member."""

    members: Sequence[int]
    family: set[int]
    outside: int
    skip: set[int]


def _draw(
    where: Pool,
    need: int,
    source: str,
    qi: int,
    rng: random.Random | None,
    retrievers: Mapping[str, Retriever],
    pool: int,
    norm_text: list[str],
    seen: set[str],
    ties: Ties | None = None,
    guard: Guard | None = None,
) -> tuple[list[int], bool]:
    """Up to `need` distinct distractors from `where`, best first, and whether `where` ran dry (every
    candidate was looked at), which alone lets another language fill in: a short list from a full pool
    means duplicates ate the pool, not that the language lacks passages. `ties`: the retriever's order
    among zero scores. With a `guard`, candidates that clash with the context's parties are passed over
    (and counted on it); where they leave the list short, the draw is made again from twice the pool
    (a retriever's longer list starts with the shorter one), so a name shared across many decisions
    never ends the stage while unseen candidates remain."""
    want = pool
    state = rng.getstate() if rng is not None else None
    while True:
        if rng is not None and state is not None:
            rng.setstate(state)
            ranked = _random_order(rng, where.members, where.family, where.outside, need + want)
        else:
            ranked = retrievers[source].top(qi, want, where.skip, ties)
        tried = set(seen)
        trial = guard.copy() if guard is not None else None
        chosen = _distinct(ranked, norm_text, tried, need, trial)
        exhausted = len(ranked) >= where.outside
        short_by_skips = guard is not None and trial is not None and trial.skipped > guard.skipped
        if len(chosen) == need or exhausted or not short_by_skips:
            break
        want *= 2
    seen |= tried
    if guard is not None and trial is not None:
        guard.decisions, guard.shown, guard.skipped = trial.decisions, trial.shown, trial.skipped
    return chosen, exhausted


def _seeded_ties(members: Sequence[int], passages: Sequence[Passage], seed: int, qa_id: str) -> Ties:
    """The fill-in candidates `members` in a seeded order of (params seed, question id), computed only
    if a zero score reaches the retriever's top: the same question draws the same passages on every run
    and in every variant, another question others."""
    return lambda: seeded_order(members, passages, seed, f"contexts.fill_in_ties/{qa_id}")


def _random_order(
    rng: random.Random, members: Sequence[int], exclude: set[int], outside: int, want: int
) -> list[int]:
    """A uniform random ordering of up to `want` of the `outside` members not in `exclude` (rejection on
    the family, which is small next to the corpus, so this stays O(want)). With every passage as
    `members` the draws are those of a plain range, so a one-language corpus gets the contexts it
    always got."""
    want = min(want, outside)
    if want <= 0:
        return []
    if outside <= 4 * want:
        return rng.sample([i for i in members if i not in exclude], want)
    out: list[int] = []
    seen: set[int] = set()
    while len(out) < want:
        i = members[rng.randrange(len(members))]
        if i not in exclude and i not in seen:
            seen.add(i)
            out.append(i)
    return out


def _distinct(
    ranked: Sequence[int], norm_text: list[str], seen: set[str], need: int, guard: Guard | None = None
) -> list[int]:
    """The first `need` of `ranked` whose text is not in `seen` (the gold's and earlier picks'), which
    it extends, so a fill-in never repeats a text the question's own language already gave; with a
    `guard`, only those it admits (no party of another decision of the context)."""
    out: list[int] = []
    for i in ranked:
        if norm_text[i] in seen:
            continue
        if guard is not None and not guard.admit(i):
            continue
        seen.add(norm_text[i])
        out.append(i)
        if len(out) == need:
            break
    return out
