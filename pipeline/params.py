"""One typed loader for params.yaml.

Every knob of every stage is declared here, one dataclass per section, so a newcomer finds them in one
place and a typo in params.yaml (unknown key, wrong type) or a value outside its declared range (NaN, a
negative count, splits that do not sum to 1) stops with the dotted path of the key, the value and what is
allowed, instead of being silently ignored or turned into a result. The ranges are declared in the types
(`Count`, `Share`, `Annotated[float, Range(...)]`: pipeline/ranges.py); rules between params are below.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml

from pipeline import paths, typed
from pipeline.importers.registry import formats as import_formats
from pipeline.params_names import BUILTIN_MIN_VOCAB, check_names
from pipeline.ranges import (
    NEEDED,
    Count,
    NonNegative,
    NonNegInt,
    Positive,
    Range,
    Seed,
    Share,
    TopP,
    check_ranges,
    format_number,
    rule_broken,
)
from pipeline.run_names import OBJECTIVES, names_of, parse_run
from pipeline.typed import shown

DEFAULT_PATH = Path("params.yaml")


class ParamsError(ValueError):
    """A params file that does not match the declared sections."""


# --------------------------------------------------------------------------------------------- data
# Where an import that is off points: dvc.yaml lists every import path as a dependency of the stage that
# reads it (interpolated from these params), and a DVC dependency must exist.
EXTERNAL = paths.EXTERNAL.as_posix()
# The formats of each import: "none" (off) and the readers pipeline/importers/registry.py registers.
DOCUMENT_FORMATS = import_formats("decisions.documents")
QA_FORMATS = import_formats("corpus.qa_import")
CANDIDATE_FORMATS = import_formats("generate.import_candidates")
PAIR_FORMATS = import_formats("train.external_pairs")


@dataclass(frozen=True)
class DocumentsImportParams:
    """The user's own decisions through a field mapping (pipeline/importers/documents.py)."""

    # none (off) | records (docs/method.md §1 Decision JSONL, a file or folder of *.jsonl) | jsonl (one source
    # document per line) | json_folder (a folder of *.json files, one document or a list each).
    format: Literal[DOCUMENT_FORMATS] = "none"
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
    # Declared value type per mapped field (docs/method.md §1); a field without a kind takes exact (text: semantic).
    field_types: dict[str, Literal["money", "number", "date", "name", "yesno", "text"]] = field(default_factory=dict)
    # What an invalid record does (data/external/README.md): stop (the stage stops naming file, line and
    # key) or skip (left out, counted by reason in the stage's skipped-records file and the data report).
    on_invalid: Literal["stop", "skip"] = "stop"


@dataclass(frozen=True)
class DecisionsParams:
    n_decisions: NonNegInt = 300
    # Share of each case type among synthetic decisions; keys are the generator's case types.
    case_mix: dict[str, NonNegative] = field(
        default_factory=lambda: {
            "insider_trading": 0.4,
            "criminal_sentencing": 0.3,
            "residential_tenancy": 0.3,
        }
    )
    # Optional JSONL of user decisions (docs/method.md §1 Decision), validated and appended after the synthetic ones.
    import_path: str | None = None
    # Set false to run on imported decisions only.
    synthetic: bool = True
    # The user's own documents through a field mapping; off by default (format none).
    documents: DocumentsImportParams = field(default_factory=DocumentsImportParams)


@dataclass(frozen=True)
class QaImportParams:
    """A QA set that brings its own contexts (pipeline/importers/squad.py)."""

    # none (off) | squad (SQuAD 2.0-style JSON: data[].paragraphs[].context/qas[], yes/no answers too).
    format: Literal[QA_FORMATS] = "none"
    path: str = EXTERNAL
    language: Literal["en", "zh"] = "en"
    # Prepended to passage, QA and family ids so they never meet ids made from decisions.
    id_prefix: str = "qa-"
    # Evidence family of a paragraph (distractors never come from the gold family): its article, or
    # the paragraph alone (for sets whose articles are unrelated paragraphs).
    family: Literal["article", "paragraph"] = "article"
    # What an invalid record does (data/external/README.md): stop (the stage stops naming file, line and
    # key) or skip (left out, counted by reason in the stage's skipped-records file and the data report).
    on_invalid: Literal["stop", "skip"] = "stop"
    # A question bound to its document (本案/原告/the applicant, no name of its own; docs/method.md §1):
    # prefix (with its case number or title), skip (left out, counted) or keep (as written).
    standalone: Literal["prefix", "skip", "keep"] = "prefix"


@dataclass(frozen=True)
class CorpusParams:
    questions_per_decision: NonNegInt = 2
    qa_kinds: Annotated[list[str], NEEDED] = field(default_factory=lambda: ["factual", "yesno", "rule"])
    # Passages shorter than this (characters) are merged into their neighbour.
    min_passage_chars: NonNegInt = 200
    # Longer sections (imported corpora) are cut at sentence boundaries into passages of at most this.
    max_passage_chars: Count = 1500
    # A question may share at most this many consecutive words with its gold passage (paraphrase check).
    max_shared_ngram: Count = 4
    # Passages and questions of an outside QA set, appended to those made from decisions.
    qa_import: QaImportParams = field(default_factory=QaImportParams)


# The context variants (docs/method.md §2; what each one shows: pipeline/retrieval/variants.py). The main
# corpus pairs the first six; gold_only and gold_surrounding are the ablation, built and answered but not
# paired by default. A dense variant may also be written "<variant>.<alias>" of contexts.dense_models, so
# the variant lists are checked by name (pipeline/params_names.py), not typed as a Literal.
MAIN_VARIANTS = ("gold_plus_random", "gold_plus_bm25", "gold_plus_dense",
                 "random_context", "bm25_hard_negative", "dense_hard_negative")
ABLATION_VARIANTS = ("gold_only", "gold_surrounding")
CONTEXT_VARIANTS = MAIN_VARIANTS + ABLATION_VARIANTS


@dataclass(frozen=True)
class ContextsParams:
    k: Count = 10
    variants: Annotated[list[str], NEEDED] = field(default_factory=lambda: list(CONTEXT_VARIANTS))
    bm25_k1: NonNegative = 1.5
    bm25_b: Share = 0.75
    # Sentence-embedding model for dense variants. Builtin, packaged (offline): "minilm" (English only),
    # "e5" (multilingual-e5-small) and "use" (multilingual USE v3), see pipeline/embeddings/builtin.py;
    # anything else is a sentence-transformers id or path.
    dense_model: str = "minilm"
    embed_batch_size: Count = 64
    # BM25/dense distractors are the best hits outside the gold family, in rank order, looked for
    # among the top `pool` (hits whose text duplicates the gold passage or an earlier pick are
    # skipped); a question whose pool runs dry stops the stage with a message. Must be >= k.
    pool: Count = 50
    # Extra embedding models, alias -> model name; variant "gold_plus_dense.<alias>" (or
    # "dense_hard_negative.<alias>") retrieves with that model instead of dense_model.
    dense_models: dict[str, str] = field(default_factory=dict)
    # Embedding model per language for the plain dense variants ({zh: e5}): a question in a listed
    # language is retrieved with that model; a language not listed uses dense_model.
    dense_language_models: dict[str, str] = field(default_factory=lambda: {"zh": "e5"})
    # A model whose tokenizer leaves more than this share of a language's tokens unknown does not cover
    # that language: the stage stops and names contexts.dense_language_models.<language>, unless
    # allow_uncovered_language is true (retrieval then runs on the poor embeddings, the choice of the user).
    max_unknown_token_rate: Share = 0.05
    allow_uncovered_language: bool = False


@dataclass(frozen=True)
class DecodingParams:
    temperature: NonNegative = 0.0
    top_p: TopP = 1.0
    max_new_tokens: Count = 256


@dataclass(frozen=True)
class CandidatesImportParams:
    # none (off) | jsonl (one outside answer per line).
    format: Literal[CANDIDATE_FORMATS] = "none"
    path: str = EXTERNAL
    # What an invalid record does (data/external/README.md): stop (the stage stops naming file, line and
    # key) or skip (left out, counted by reason in the stage's skipped-records file and the data report).
    on_invalid: Literal["stop", "skip"] = "stop"


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
    variants: list[str] = field(default_factory=lambda: list(CONTEXT_VARIANTS))
    # The fixed refusal sentence of English records; `refusals` holds it for every other language, and the
    # language of a record's question picks one (pipeline/language/refusal.py has the rule, and every stage
    # goes through it). Refusal detection also knows close paraphrases.
    refusal: str = "The provided passages do not contain enough information to answer this question."
    refusals: dict[Literal["zh"], str] = field(default_factory=lambda: {"zh": "提供的段落没有足够的信息来回答这个问题。"})
    # Outside answers (with optional grades) added to the generated candidates
    # (pipeline/importers/candidates.py).
    import_candidates: CandidatesImportParams = field(default_factory=lambda: CandidatesImportParams())
    decoding: DecodingParams = field(default_factory=DecodingParams)
    # HTTP backend: requests in flight at once per panel member, over all its base URLs (a killed run
    # repeats at most this many calls). Raise it to keep a vLLM server or fleet busy (e.g. 64-256).
    concurrency: Count = 4
    # Seconds one try may take before it counts as failed and is retried (> 0).
    timeout_s: Positive = 120.0
    max_retries: NonNegInt = 3
    # First retry delay of the HTTP backend (doubles per retry, plus jitter; a Retry-After header wins
    # when longer).
    retry_backoff_s: NonNegative = 1.0
    # Longest wait before a retry: caps the backoff and a server's Retry-After.
    retry_max_wait_s: NonNegative = 30.0
    # Requests per second sent to each base URL of an HTTP panel member; 0 = no limit.
    rate_limit_rps: Annotated[float, Range(0, note="0 = no limit")] = 0.0
    # How a panel member with several base URLs (openai:<url>,<url>|<model>) spreads its requests:
    # least_loaded (fewest in flight) or round_robin.
    routing: Literal["least_loaded", "round_robin"] = "least_loaded"
    # Name of the environment variable holding the HTTP backend's API key (the key itself never
    # appears in params, caches or logs).
    api_key_env: str = "OPENAI_API_KEY"
    # Panel entry -> how many questions it answers (all their context variants), drawn by a seeded hash;
    # a member not listed answers every question. For members that cost time or money (a real model on
    # CPU, a paid API) beside the full-coverage offline panel.
    budgets: dict[str, Count] = field(default_factory=dict)
    # Prompts per forward pass of the hf backend.
    batch_size: Count = 8
    # Prompt tokens whose keys and values the hf backend keeps for later prompts that start the same way
    # (pipeline/backends/prefix_cache.py: IRAC's modes repeat one decision, the judge one context); 0 = off.
    # Memory is this times the model's bytes per token (SmolLM2-135M float32: ~46 KB; a 7B model in bf16
    # with grouped KV heads: ~128 KB).
    prefix_cache_tokens: NonNegInt = 65536
    trust_remote_code: bool = False
    # Minimum normalised BM25 score (share of the question's IDF mass) of the best context sentence
    # below which each offline answerer refuses.
    offline_thresholds: dict[str, Share] = field(
        default_factory=lambda: {"cautious": 0.45, "confident": 0.15, "terse": 0.3, "verbose": 0.35}
    )

    def refusal_for(self, lang: str) -> str:
        """The refusal sentence of a language ("en" is `refusal`); which language a record has is
        pipeline.language.refusal_of's rule (its question's)."""
        if lang == "en":
            return self.refusal
        if lang in self.refusals:
            return self.refusals[lang]  # type: ignore[index]
        raise ValueError(f"no refusal sentence for language {lang!r}: set generate.refusals.{lang}")

    def refusal_by_language(self) -> dict[str, str]:
        return {"en": self.refusal, **self.refusals}


@dataclass(frozen=True)
class JudgeEvalParams:
    # How many test-half validation items judge_eval gives a sampled LLM judge (judge.llm_max_candidates): a
    # seeded sample of whole contexts; 0 = it is not measured there, only against the other judges on its
    # own sample. A section of its own: the judge section is digested on the pair datasets' cards.
    llm_items: NonNegInt = 60
    # The languages that sample is drawn from (empty: all): a profile whose answers are in one language
    # measures its LLM judge on that language's items.
    llm_languages: list[Literal["en", "zh"]] = field(default_factory=list)


@dataclass(frozen=True)
class JudgeParams:
    # Each entry is kind:name; the first is the primary judge that builds the pairs.
    judges: Annotated[list[str], NEEDED] = field(default_factory=lambda: ["rule:strict", "rule:lenient"])
    # Retries of an LLM judge whose reply does not match the schema, before it is recorded unparseable.
    max_retries: NonNegInt = 2
    decoding: DecodingParams = field(default_factory=lambda: DecodingParams(max_new_tokens=128))
    # The validation set labelled by reading (docs/method.md §4): a folder of JSONL files that every judge
    # of `judges` is measured against (stage judge_eval). A profile in its own folder names it as ../.
    validation: str = paths.VALIDATION.as_posix()
    # LLM judges: ask for each label under its JSON schema (pipeline/structured): local models decode only
    # allowed labels, servers get response_format; the reason is capped at reason_max_chars characters.
    constrained: bool = True
    reason_max_chars: Count = 200
    # How many candidates each LLM judge labels: a seeded sample of whole contexts up to this many
    # candidates (0 = all). The primary judge labels all (it builds the pairs); a sampled judge's labels
    # file holds its sample, which its agreement with the others is measured on.
    llm_max_candidates: Annotated[int, Range(0, note="0 = all")] = 0


@dataclass(frozen=True)
class PairsParams:
    # Variants that form the main corpus; the others are the ablation (counted, not paired).
    variants: Annotated[list[str], NEEDED] = field(default_factory=lambda: list(MAIN_VARIANTS))
    train: Annotated[float, Range(0, 1, low_open=True)] = 0.8
    val: Share = 0.1
    test: Share = 0.1
    # docs/method.md §5: "method" puts any attempt above a refusal on answerable contexts; "grounded" makes
    # no pair whose chosen side is unsupported, contradicted or incorrect (counted as skipped). The
    # pairs_grounded stage always builds the grounded corpus beside it (data/processed/pairs_grounded).
    hierarchy: Literal["method", "grounded"] = "method"


@dataclass(frozen=True)
class AugmentParams:
    rewriter: str = "offline:rewriter"
    temperature: NonNegative = 0.7
    top_p: TopP = 0.9
    max_new_tokens: Count = 128
    # A response is "short" when it has at most this many tokens (pipeline.text.count_tokens).
    short_refusal_tokens: NonNegInt = 30
    short_answer_tokens: NonNegInt = 8
    # Samples per rewrite: the one that passes re-judging and best fits the planned length wins.
    samples: Count = 4


# ------------------------------------------------------------------------------------------- models
@dataclass(frozen=True)
class PretrainParams:
    # "builtin" trains the small Llama model below; a packaged model's name (smollm2-135m-instruct: a real
    # instruct model whose GGUF a Python package ships, pipeline/models/packaged.py) is converted from it;
    # anything else is a Hugging Face id or local path.
    base_model: str = "builtin"
    revision: str | None = None
    vocab_size: Count = 4096
    hidden_size: Count = 128
    intermediate_size: Count = 384
    num_layers: Count = 4
    num_heads: Count = 4
    num_kv_heads: Count = 2
    max_position_embeddings: Count = 2048
    # Tokens per training window; one token alone has no next token to predict.
    seq_len: Annotated[int, Range(2, note="a window needs a next token to predict")] = 256
    batch_size: Count = 16
    steps: Count = 600
    lr: Positive = 3e-3
    warmup_steps: NonNegInt = 30


@dataclass(frozen=True)
class LoraParams:
    r: Count = 32
    alpha: Count = 64
    dropout: Annotated[float, Range(0, 1, high_open=True)] = 0.05
    target_modules: Annotated[list[str], NEEDED] = field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])
    # 0 = every decoder layer; n = only the last n layers (PEFT layers_to_transform): the frozen trunk below
    # needs no backward pass, which makes a step of a real model on CPU much cheaper.
    top_layers: NonNegInt = 0


EXTERNAL_PAIRS_PLACEHOLDER = (paths.EXTERNAL / "no_outside_pairs.txt").as_posix()


@dataclass(frozen=True)
class ExternalPairsParams:
    # none (off) | jsonl: one {"prompt", "chosen", "rejected"[, "id"]} object per line. dvc.yaml lists the
    # path as a dependency of train, score and report, so an edit to the file re-runs them.
    format: Literal[PAIR_FORMATS] = "none"
    # Off: a placeholder file (not empty: DVC warns of an empty dependency on every run), so that editing
    # data/external/README.md does not re-train anything.
    path: str = EXTERNAL_PAIRS_PLACEHOLDER
    # What an invalid record does (data/external/README.md): stop (the stage stops naming file, line and
    # key) or skip (left out, counted by reason in the stage's skipped-records file and the data report).
    on_invalid: Literal["stop", "skip"] = "stop"


@dataclass(frozen=True)
class LaunchParams:
    """How many processes run a stage (train, score); pipeline/distributed.py starts them."""

    # 1 = the stage runs in its own process, no torch.distributed. N > 1: the stage re-executes itself
    # under `accelerate launch` (GPUs, or any config_file) or torchrun with gloo (CPU only), N ranks;
    # rank 0 alone writes the outputs. Training keeps the global batch batch_size x grad_accum: each
    # rank takes train.batch_size / N pairs a step (N not dividing it: see _check_launch).
    num_processes: Count = 1
    # An accelerate config YAML (params/accelerate/ddp.yaml, fsdp.yaml, deepspeed_zero{2,3}.yaml);
    # null = plain DDP. num_processes above wins over the file's own.
    config_file: str | None = None


@dataclass(frozen=True)
class TrainParams:
    # The run matrix: per objective, the runs to train, each "<corpus>-s<seed>"; the run's name is
    # "<objective>-<corpus>-s<seed>". dvc.yaml makes a train_<objective>@<corpus>-s<seed> stage of each
    # entry, so a study trains exactly the runs it compares and adding a seed only adds stages.
    runs: dict[str, list[str]] = field(default_factory=lambda: {"dpo": ["pairs-s0", "pairs_aug-s0"],
                                                                "sft": ["pairs-s0", "pairs_aug-s0"]})
    lora: LoraParams = field(default_factory=LoraParams)
    beta: Positive = 0.1
    loss_type: str = "sigmoid"
    lr: Positive = 2e-5
    epochs: Positive = 3.0
    batch_size: Count = 4
    grad_accum: Count = 4
    max_length: Count = 1024
    # A pair longer than max_length, in training and in scoring alike (pipeline.models.fitting):
    # "drop_distractors" removes whole distractor passages (never the gold one, the question or the rules)
    # until it fits; "drop" leaves it out. Every case is counted per variant in the report.
    overlong: Literal["drop_distractors", "drop"] = "drop_distractors"
    # Training log-probs. DPO (pipeline/training/dpo.py): "shared" = our fused kernel with each pair's prompt
    # run once and the layers below train.lora.top_layers run once for policy and reference; "kernel" = the
    # fused kernel on TRL's rows; "trl" = TRL's own. SFT (pipeline/training/sft.py): "shared" and "kernel" =
    # the fused kernel on the response tokens only; "trl" = TRL's own. Every path gives TRL's loss.
    logprobs: Literal["shared", "kernel", "trl"] = "shared"
    # Outside preference pairs (prompt, chosen, rejected): a training corpus part ("external") and, when
    # score.corpora lists "external", an extra held-out evaluation corpus (transfer evaluation).
    external_pairs: ExternalPairsParams = field(default_factory=ExternalPairsParams)
    max_steps: Annotated[int, Range(1, also=(-1,), note="-1 = train.epochs decide")] = -1
    logging_steps: Count = 5
    # Seeded cap on training pairs per run (null = all): fits the offline default into the CPU budget.
    max_pairs: Annotated[int, Range(1, note="null = all")] | None = None
    # Mixed precision (GPU profile); the offline CPU default trains in float32.
    bf16: bool = False
    # Processes per run (pipeline/distributed.py); 1 = today's single process.
    launch: LaunchParams = field(default_factory=LaunchParams)
    # Any other DPOConfig / SFTConfig argument (TRL), passed through as is and applied last, over the
    # arguments the keys above set (e.g. {warmup_steps: 10, lr_scheduler_type: cosine}); a key that is
    # not a field of the objective's config class stops the run. Empty = TRL's defaults.
    trainer_kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreParams:
    splits: Annotated[list[str], NEEDED] = field(default_factory=lambda: ["train", "val", "test"])
    batch_tokens: Count = 8192
    max_length: Count = 1024
    # Eval corpora: pairs, pairs_aug, pairs_grounded (the grounded hierarchy's pairs, docs/method.md §5),
    # and external (train.external_pairs, all of it held out as "test").
    corpora: Annotated[list[Literal["pairs", "pairs_aug", "pairs_grounded", "external"]], NEEDED] = field(
        default_factory=lambda: ["pairs", "pairs_aug"]
    )
    # Pairs scored per (corpus, split), chosen by a seeded hash of the pair id (the same pairs for every
    # model, so comparisons stay paired); 0 = all. Reported in the report header. The train split's
    # sample is taken in the order of the training cap (train.max_pairs), so it holds trained-on pairs.
    max_pairs: Annotated[int, Range(0, note="0 = all")] = 0
    # Pairs in the seeded sample of the train split (learning vs generalisation); 0 = max_pairs.
    train_sample: Annotated[int, Range(0, note="0 = score.max_pairs")] = 0
    # "shared_prefix" (prompt once, both responses from it) or "two_pass" (one forward per response).
    scorer: Literal["shared_prefix", "two_pass"] = "shared_prefix"
    # Processes that share the pairs (pipeline/distributed.py); the Score files are the same bytes as
    # with 1.
    launch: LaunchParams = field(default_factory=LaunchParams)


@dataclass(frozen=True)
class ReportParams:
    bootstrap_resamples: Count = 10000
    bootstrap_seed: Seed = 42
    # Length-controlled accuracy keeps pairs with max(len)/min(len) <= this ratio.
    length_ratio: Annotated[float, Range(1)] = 1.5
    baseline: str = "base"
    # Split of the main, per-dimension, per-variant and significance tables (per-split shows all).
    main_split: str = "test"
    # The scoring the report leads with (records.SCORINGS); the others follow. ref_* scores of a trained
    # model are compared with the baseline's better of sum and mean (its own ref scores are all 0).
    main_scoring: Literal["sum", "mean", "ref_sum", "ref_mean"] = "ref_sum"
    # Label noise (data report, explorer; pipeline/reporting/label_noise.py): a passage of an unanswerable
    # context answers its question when a sentence holds at least this share of the question's content words
    # (and its facts, or a figure when one is asked).
    leak_coverage: Share = 0.8


@dataclass(frozen=True)
class ServeParams:
    """`python -m pipeline.reward serve` (pipeline/reward/server.py): where it listens and what one request
    and one model call may hold."""

    host: str = "127.0.0.1"
    port: Annotated[int, Range(1, 65535)] = 8765
    # A request body above this many bytes gets 413 before it is parsed.
    max_body_bytes: Count = 1_048_576
    # Items one request may hold (422 above it).
    max_items: Count = 64
    # After the first waiting request, how long the queue waits for more before scoring them together.
    batch_wait_ms: Annotated[float, Range(0, 60_000)] = 5.0
    # Items (from any number of requests) scored in one model call.
    max_batch_items: Count = 64


@dataclass(frozen=True)
class RewardParams:
    """A trained reward model in use (pipeline/reward): the API, the command, the server and the rerank
    stage. Prompts, max_length, the token budget of a batch and the refusal sentences are those of the
    score stage and generation (score.max_length, score.batch_tokens, generate.refusal(s))."""

    # The reward an adapter gives (records.SCORINGS), and the base model's (it has no reference).
    scoring: Literal["sum", "mean", "ref_sum", "ref_mean"] = "ref_sum"
    base_scoring: Literal["sum", "mean"] = "mean"
    # An item whose prompt and longest response exceed score.max_length: "error" stops with the item and
    # field; "drop_distractors" drops whole passages, last first (never the item's `gold` one), as the score
    # stage does, and says how many in the output.
    overlong: Literal["error", "drop_distractors"] = "error"
    # Responses one item may hold.
    max_responses: Count = 64
    # Items scored per model call of the command and the rerank stage: bounds the hidden states kept for a
    # shared trunk, and is the step of the progress bar.
    chunk_items: Count = 64
    # Test contexts the rerank stage scores: a seeded sample (pipeline/sampling.py), for a CPU budget; the
    # report says how many of how many.
    rerank_max_contexts: Annotated[int, Range(0, note="0 = all")] = 0
    serve: ServeParams = field(default_factory=ServeParams)


@dataclass(frozen=True)
class IracParams:
    # Systems that do the docs/method.md §11 tasks: "rule" (the offline rule-based extractor and analysis writer)
    # and/or generator specs as in generate.panel (hf:<id>, openai:<base_url>|<model>).
    systems: Annotated[list[str], NEEDED] = field(default_factory=lambda: ["rule"])
    tasks: Annotated[list[Literal["fields", "analysis"]], NEEDED] = field(default_factory=lambda: ["fields", "analysis"])
    # Prompt modes of the model systems (the rule system has one way of working, reported as standard).
    modes: Annotated[list[Literal["standard", "expert_steps", "self_steps"]], NEEDED] = field(
        default_factory=lambda: ["standard", "expert_steps", "self_steps"]
    )
    # Modes of one task where they differ from `modes` ({analysis: [standard]}); a task not listed uses `modes`.
    task_modes: dict[Literal["fields", "analysis"], list[Literal["standard", "expert_steps", "self_steps"]]] = field(
        default_factory=dict
    )
    # A semantic field (or analysis segment) matches when the cosine of its embeddings is >= tau of the
    # embedding model: model name -> threshold. A builtin model not listed keeps its default (minilm 0.6,
    # e5 0.94, use 0.74: pipeline/embeddings/builtin.py); any other model in use must be listed.
    tau: dict[str, Annotated[float, Range(-1, 1)]] = field(default_factory=dict)
    # "minilm" (English only), "e5" or "use" (multilingual, packaged), or a sentence-transformers model.
    embedding_model: str = "minilm"
    # Embedding model per record language ({zh: e5}); a language not listed uses embedding_model.
    embedding_models: dict[str, str] = field(default_factory=lambda: {"zh": "e5"})
    # A model whose tokenizer leaves more than this share of a language's tokens unknown does not cover
    # that language: the stage stops and names irac.embedding_models.<language>, unless
    # allow_uncovered_language is true.
    max_unknown_token_rate: Share = 0.05
    allow_uncovered_language: bool = False
    # The LLM that grades analyses A/B/C (a generator spec); empty: no judge score, the report says so.
    judge: str = ""
    max_retries: NonNegInt = 2
    decoding: DecodingParams = field(default_factory=lambda: DecodingParams(max_new_tokens=1024))
    # Model systems and the grader: ask for the fields object and the grade under their JSON schemas
    # (pipeline/structured), string values capped at value_max_chars, grade reasons at reason_max_chars.
    constrained: bool = True
    value_max_chars: Count = 160
    reason_max_chars: Count = 200
    # Token budgets of the free first call of the reasoning modes and of a free (unconstrained) fields
    # object, each 0 = decoding.max_new_tokens (which analyses and grades use). A constrained fields object
    # gets the bound any object its schema allows fits in (pipeline/structured/schemas.py fields_token_bound).
    reasoning_max_new_tokens: NonNegInt = 0
    fields_max_new_tokens: NonNegInt = 0
    # Decisions with annotated fields to evaluate, taken in id order; 0 = all.
    max_decisions: Annotated[int, Range(0, note="0 = all")] = 0
    bootstrap_resamples: Count = 10000
    bootstrap_seed: Seed = 42


@dataclass(frozen=True)
class Params:
    seed: Seed = 13
    # Tells reports what ran: "offline" (the embedded default) or "real" (real models / servers).
    profile: str = "offline"
    decisions: DecisionsParams = field(default_factory=DecisionsParams)
    corpus: CorpusParams = field(default_factory=CorpusParams)
    contexts: ContextsParams = field(default_factory=ContextsParams)
    generate: GenerateParams = field(default_factory=GenerateParams)
    judge: JudgeParams = field(default_factory=JudgeParams)
    judge_eval: JudgeEvalParams = field(default_factory=JudgeEvalParams)
    pairs: PairsParams = field(default_factory=PairsParams)
    augment: AugmentParams = field(default_factory=AugmentParams)
    pretrain: PretrainParams = field(default_factory=PretrainParams)
    train: TrainParams = field(default_factory=TrainParams)
    score: ScoreParams = field(default_factory=ScoreParams)
    report: ReportParams = field(default_factory=ReportParams)
    irac: IracParams = field(default_factory=IracParams)
    reward: RewardParams = field(default_factory=RewardParams)


# ----------------------------------------------------------------------------------------- run names
# A run's name is "<objective>-<corpus>-s<seed>" (pipeline/run_names.py parses it). dvc.yaml makes one
# foreach stage per objective, so each run's stage depends on exactly the params its objective reads
# (RUN_PARAMS): a DPO-only knob such as train.beta never re-runs SFT, and the run matrix itself is no
# stage's param. These are the dotted keys its dvc.yaml stage lists, and what train_meta.json records
# (tests/test_dvc_deps.py holds the two together).
_SHARED_RUN_PARAMS = ("seed", "train.lora", "train.lr", "train.epochs", "train.batch_size", "train.grad_accum",
                      "train.max_length", "train.overlong", "train.external_pairs", "train.max_steps",
                      "train.logging_steps", "train.max_pairs", "train.bf16", "train.launch",
                      "train.trainer_kwargs")
RUN_PARAMS = {
    "dpo": (*_SHARED_RUN_PARAMS, "train.beta", "train.loss_type", "train.logprobs"),
    "sft": (*_SHARED_RUN_PARAMS, "train.logprobs"),
}


def run_names(train: TrainParams) -> list[str]:
    """Every run of train.runs by name, objectives in OBJECTIVES order."""
    return names_of(train.runs)


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
    check_ranges(params, fail)
    _check_runs(params.train, fail)
    _check_relations(params, fail)
    check_names(params, fail)
    return params


def _check_runs(train: TrainParams, fail: typed.Fail) -> None:
    for objective, entries in train.runs.items():
        if objective not in OBJECTIVES:
            raise fail(f"train.runs.{objective}", f"unknown objective (known: {', '.join(OBJECTIVES)})")
        for i, entry in enumerate(entries):
            try:
                spec = parse_run(f"{objective}-{entry}")
            except ValueError as exc:
                raise fail(f"train.runs.{objective}[{i}]", f"{exc} (an entry is <corpus>-s<seed>)") from None
            if "external" in spec.corpus.split("+") and train.external_pairs.format == "none":
                raise fail(f"train.runs.{objective}[{i}]",
                           f"{shown(entry)} trains on outside pairs, but train.external_pairs.format is none")
        if len(set(entries)) != len(entries):
            raise fail(f"train.runs.{objective}", "a run is listed twice")
    if not run_names(train):
        # The score and report stages compare trained reward models with the base model: with none there
        # is nothing to compare, and a report of the base model alone would only look like a result.
        raise fail("train.runs", f"{shown(train.runs)} lists no run (allowed: at least one <corpus>-s<seed> under "
                                 f"{' or '.join(OBJECTIVES)}, e.g. dpo: [pairs-s0])")


def _check_relations(p: Params, fail: typed.Fail) -> None:
    """Rules between params that no single range can say."""
    _check_sources(p, fail)
    if p.contexts.pool < p.contexts.k:
        raise fail("contexts.pool", f"{p.contexts.pool} is out of range (allowed: >= contexts.k = {p.contexts.k}; "
                                    "distractors are picked among the top `pool` hits)")
    _check_generate(p, fail)
    _check_splits(p, fail)
    if "external" in p.score.corpora and p.train.external_pairs.format == "none":
        raise fail("score.corpora", "lists 'external', but train.external_pairs.format is none")
    if p.train.external_pairs.format != "none" and p.train.external_pairs.path == EXTERNAL_PAIRS_PLACEHOLDER:
        raise fail("train.external_pairs.path", f"is still the placeholder {EXTERNAL_PAIRS_PLACEHOLDER}: name your "
                                                "pairs file (see data/external/README.md)")
    if p.pretrain.base_model == "builtin":
        _check_builtin_model(p.pretrain, fail)
    _check_irac_tau(p.irac, fail)
    _check_launch(p, fail)
    if not p.reward.serve.host.strip():
        raise fail("reward.serve.host", "is empty (allowed: the address the reward server listens on, e.g. 127.0.0.1)")


def _check_irac_tau(p: IracParams, fail: typed.Fail) -> None:
    """Every embedding model IRAC uses needs a cosine threshold: its own in irac.tau, or a builtin default."""
    from pipeline.embeddings.builtin import MODELS

    defaults = ", ".join(f"{m} {s.tau}" for m, s in MODELS.items())
    used = [("irac.embedding_model", p.embedding_model)]
    used += [(f"irac.embedding_models.{lang}", model) for lang, model in sorted(p.embedding_models.items())]
    for key, model in used:
        if model not in p.tau and model not in MODELS:
            raise fail(key, f"model {typed.shown(model)} has no cosine threshold: set irac.tau.<model> to the "
                            f"cosine at which its embeddings count as the same statement (builtin: {defaults})")


def _check_sources(p: Params, fail: typed.Fail) -> None:
    """There must be decisions to build and questions to ask."""
    d = p.decisions
    imported = bool(d.import_path) or d.documents.format != "none"
    if not imported and not d.synthetic:
        raise fail("decisions.synthetic", "false and nothing is imported (decisions.import_path, "
                                          "decisions.documents): there are no decisions to build")
    if not imported and d.n_decisions == 0:
        raise fail("decisions.n_decisions", "0 is out of range (allowed: >= 1, or 0 when decisions.import_path or "
                                            "decisions.documents imports decisions): there are no decisions to build")
    if p.corpus.questions_per_decision == 0 and p.corpus.qa_import.format == "none":
        raise fail("corpus.questions_per_decision", "0 is out of range (allowed: >= 1, or 0 with corpus.qa_import): "
                                                    "there would be no questions")


def _check_generate(p: Params, fail: typed.Fail) -> None:
    """The panel and the variants it answers (GenerateParams keeps its lists bare; they are ruled here)."""
    for key, entries in (("panel", p.generate.panel), ("variants", p.generate.variants)):
        message = rule_broken(entries, (NEEDED,), False)
        if message:
            raise fail(f"generate.{key}", message)
    # An empty refusal is in every answer: the offline answerers could not refuse, nor the judges tell one.
    for lang, sentence in p.generate.refusal_by_language().items():
        if not sentence.strip():
            raise fail("generate.refusal" if lang == "en" else f"generate.refusals.{lang}",
                       "is empty (allowed: the sentence an answer gives when the passages do not hold the answer)")
    # A variant the contexts stage does not build has nothing to answer; a run that narrows
    # contexts.variants for a quick look may leave generate.variants wider, but not disjoint.
    if not set(p.generate.variants) & set(p.contexts.variants):
        raise fail("generate.variants", f"{p.generate.variants} has no variant that contexts.variants builds "
                                        f"(allowed: at least one of {p.contexts.variants})")


def _check_splits(p: Params, fail: typed.Fail) -> None:
    """Split fractions sum to 1, and every scored split (and the report's main one) gets pairs."""
    fractions = {"train": p.pairs.train, "val": p.pairs.val, "test": p.pairs.test}
    total = sum(fractions.values())
    if abs(total - 1.0) > 1e-6:
        terms = " + ".join(f"{name} {format_number(f)}" for name, f in fractions.items())
        raise fail("pairs", f"{terms} = {format_number(total)} (allowed: train + val + test = 1)")
    for i, split in enumerate(p.score.splits):
        if split not in fractions:
            raise fail(f"score.splits[{i}]", f"unknown split {shown(split)} (allowed: train, val, test)")
        if fractions[split] == 0:
            raise fail(f"pairs.{split}", f"0 leaves the {split} split empty, but score.splits lists it "
                                         f"(allowed: > 0, or leave {split} out of score.splits)")
    if p.report.main_split not in p.score.splits:
        raise fail("report.main_split", f"{shown(p.report.main_split)} is not scored (allowed: one of score.splits "
                                        f"{p.score.splits})")


def _check_launch(p: Params, fail: typed.Fail) -> None:
    """Training on N processes keeps the global batch train.batch_size x train.grad_accum: each rank takes
    batch_size / N pairs a step, or (N not dividing batch_size) batch_size / gcd(N, batch_size) pairs over
    grad_accum x gcd / N steps (pipeline.distributed.split_batch); N must allow one of the two."""
    t = p.train
    n, g = t.launch.num_processes, math.gcd(t.launch.num_processes, t.batch_size)
    if t.grad_accum % (n // g):
        raise fail("train.launch.num_processes",
                   f"{n} processes cannot share the global batch train.batch_size x train.grad_accum = "
                   f"{t.batch_size} x {t.grad_accum} (allowed: a divisor of train.batch_size, or n with "
                   f"n / gcd(n, batch_size) dividing train.grad_accum)")


def _check_builtin_model(p: PretrainParams, fail: typed.Fail) -> None:
    """Shapes the built-in Llama can take."""
    if p.hidden_size % p.num_heads:
        raise fail("pretrain.num_heads", f"{p.num_heads} does not divide pretrain.hidden_size ({p.hidden_size})")
    if (p.hidden_size // p.num_heads) % 2:
        raise fail("pretrain.num_heads", f"head size pretrain.hidden_size / pretrain.num_heads = {p.hidden_size} / "
                                         f"{p.num_heads} is odd (allowed: an even head size; rotary position "
                                         "embeddings turn pairs of dimensions)")
    if p.vocab_size < BUILTIN_MIN_VOCAB:
        raise fail("pretrain.vocab_size", f"{p.vocab_size} is out of range (allowed: >= {BUILTIN_MIN_VOCAB}: the "
                                          "tokenizer's 256 bytes and its special tokens)")
    if p.num_heads % p.num_kv_heads:
        raise fail("pretrain.num_kv_heads", f"{p.num_kv_heads} does not divide pretrain.num_heads ({p.num_heads})")
    if p.seq_len > p.max_position_embeddings:
        raise fail("pretrain.seq_len", f"{p.seq_len} is out of range (allowed: <= pretrain.max_position_embeddings "
                                       f"= {p.max_position_embeddings})")


def to_dict(params: Any) -> dict:
    """The params as plain data (for writing a complete params file)."""
    return dataclasses.asdict(params)
