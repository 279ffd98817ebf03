"""Party names across decisions: which passages name a party of another decision (docs/method.md §2).

Two judgments about "the same" 李某, or a synthetic corpus that reused a name, let retrieval put a passage
about another case's party beside the question's: a context then holds conflicting facts about one name,
and an answer quoting the wrong case looks supported. The contexts stage passes such a distractor over
(`Guard`, `PartyIndex.clashes`); the data report counts the contexts that still hold one
(`clashing_contexts`, 0 expected).

A decision's party names, each as the word set pipeline.matching.names gives (English: a run of
capitalised words; Chinese: 李某, 张某甲, and whatever else matching.names reads as a name):
- a decision record that declares names (its `parties`, and the values of its fields typed "name"): the
  declared names its title or its questions name ("HKSAR v Chan Tai-man", "Tong Sau-shan v Elaine Yuen
  Wai-yan", "中国证监会行政处罚决定书（李某）"), and its declared `parties` always. A court or a cited
  precedent is typed "name" too, but neither the title nor a question names it, so "District Court" is
  nobody's party.
- otherwise (a paragraph of an outside QA set, a record declaring no name): the names its questions ask
  about. For Chinese these are party names by their form; an English question's capitalised words may
  also be a place ("Hong Kong"), which then counts as well: more distractors are passed over, none wrongly
  kept.
A Latin name of one word ("Court", "Tribunal", "Government") is nobody's: it would be found in every name
that holds the word (a Chinese one, 李某, is a whole name).
A passage names a party when one of its names holds every word of the party's name ("Peter Chan Tai-man"
names Chan Tai-man, "Harbour Crest Holdings Limited" names Harbour Crest). A near-name is someone else:
Yip Kin-fai does not name Yeung Kin-fai, nor 曹x1 曹x0, nor 张某 李某.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from pipeline import matching
from pipeline.records import QA, Context, Decision, Passage

Name = frozenset[str]


def party_names(
    decisions: Sequence[Decision],
    passages: Sequence[Passage],
    qas: Sequence[QA],
    languages: Sequence[str | None],
) -> dict[str, list[Name]]:
    """Decision id -> its party names (module doc), in a fixed order. `languages[i]` is `passages[i]`'s."""
    lang_of = {p.id: lang for p, lang in zip(passages, languages, strict=True)}
    decision_of = {p.id: p.decision_id for p in passages}
    asked: dict[str, set[Name]] = defaultdict(set)
    for q in qas:
        if q.gold_passage_id in decision_of:
            lang = lang_of[q.gold_passage_id]
            asked[decision_of[q.gold_passage_id]].update(matching.names(q.question, lang, skip_first=True))
    records = {d.id: d for d in decisions}
    out: dict[str, list[Name]] = {}
    for decision_id in sorted(set(decision_of.values())):
        record = records.get(decision_id)
        declared, parties = _declared(record) if record else (set(), set())
        if record and declared:
            named = asked[decision_id] | set(matching.names(record.title, record.language))
            found = {n for n in declared if any(a <= n or n <= a for a in named if a)} | parties
        else:
            found = asked[decision_id]
        out[decision_id] = sorted((n for n in found if len(n) > 1 or not min(n).isascii()), key=sorted)
    return out


def _declared(record: Decision) -> tuple[set[Name], set[Name]]:
    """(every name the record declares, the names of its declared parties)."""
    lang = record.language
    parties = {n for p in record.parties for n in matching.names(p.name, lang)}
    values = [v for fields in (record.fields, *(p.fields for p in record.parties))
              for k, v in fields.items() if record.field_types.get(k) == "name"]
    return parties | {n for v in values for n in matching.names(v, lang)}, parties


@dataclass(frozen=True)
class PartyIndex:
    """Per passage, its decision and the other decisions whose parties it names (`hits`)."""

    decision_of: Sequence[str]
    hits: Sequence[frozenset[str]]

    def clashes(self, candidate: int, decisions: Collection[str], shown: Sequence[int]) -> bool:
        """Whether `candidate` may not join a context that holds the passages `shown` and draws on
        `decisions` (the question's decision and those of `shown`): it names a party of one of them, or one
        of `shown` names a party of its decision."""
        own = self.decision_of[candidate]
        if any(d != own for d in self.hits[candidate] if d in decisions):
            return True
        return any(own in self.hits[j] for j in shown)

    def clashing(self, passages: Sequence[int], question_decision: str) -> bool:
        """Whether a context of these passages, for a question on `question_decision`, holds a passage that
        names a party of another decision of the context."""
        decisions = {question_decision, *(self.decision_of[i] for i in passages)}
        return any(self.hits[i] & (decisions - {self.decision_of[i]}) for i in passages)


@dataclass
class Guard:
    """One context being filled: what it holds so far, and how many candidates it passed over for naming
    a party of another of its decisions (`skipped`)."""

    index: PartyIndex
    decisions: set[str]
    shown: list[int]
    skipped: int = 0

    @classmethod
    def start(cls, index: PartyIndex, question_decision: str, shown: Sequence[int]) -> Guard:
        return cls(index, {question_decision, *(index.decision_of[i] for i in shown)}, list(shown))

    def admit(self, candidate: int) -> bool:
        """Take `candidate` into the context unless it clashes (then count it as skipped)."""
        if self.index.clashes(candidate, self.decisions, self.shown):
            self.skipped += 1
            return False
        self.decisions.add(self.index.decision_of[candidate])
        self.shown.append(candidate)
        return True

    def copy(self) -> Guard:
        return Guard(self.index, set(self.decisions), list(self.shown), self.skipped)


def build_index(
    passages: Sequence[Passage], parties: Mapping[str, Sequence[Name]], languages: Sequence[str | None]
) -> PartyIndex:
    """Which decisions' parties each passage names (its own decision left out)."""
    by_word: dict[str, list[tuple[str, Name]]] = defaultdict(list)
    for decision_id, names in parties.items():
        for name in names:
            if name:
                by_word[min(name)].append((decision_id, name))
    hits = []
    for p, lang in zip(passages, languages, strict=True):
        found: set[str] = set()
        for name in matching.names(f"{p.heading}\n{p.text}", lang):
            found.update(d for word in name for d, party in by_word.get(word, ()) if party <= name)
        found.discard(p.decision_id)
        hits.append(frozenset(found))
    return PartyIndex([p.decision_id for p in passages], hits)


def index_corpus(
    decisions: Sequence[Decision],
    passages: Sequence[Passage],
    qas: Sequence[QA],
    languages: Sequence[str | None],
) -> PartyIndex:
    """The index of a corpus: party names from the decisions and questions, hits from the passages."""
    return build_index(passages, party_names(decisions, passages, qas, languages), languages)


def clashing_contexts(
    contexts: Sequence[Context], qas: Mapping[str, QA], passages: Sequence[Passage], index: PartyIndex
) -> list[Context]:
    """The contexts holding a passage that names a party of another decision of the context (none expected)."""
    position = {p.id: i for i, p in enumerate(passages)}
    return [c for c in contexts
            if index.clashing([position[p] for p in c.passage_ids],
                              index.decision_of[position[qas[c.qa_id].gold_passage_id]])]
