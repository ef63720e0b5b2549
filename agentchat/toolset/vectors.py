"""The router's vector cache (DESIGN §12): vectors of texts by SHA-256, per embeddings backend, on disk.

Moved out of ``router.py`` unchanged (issue 16: that module reached 400 lines); the router and the labelled
examples (``examples.py``) both use it.
"""

import hashlib
import logging
import threading
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from agentchat.toolset.embeddings import backend_id

log = logging.getLogger(__name__)


def _digest(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\x00{text}".encode()).hexdigest()


class VectorStore:
    """Vectors of texts by SHA-256 of (kind, text), for one embeddings backend; persisted as one ``.npz`` file.

    Thread-safe; a missing or unreadable file is an empty store. Writes go to a temporary file renamed over
    the old one, so concurrent processes never read half a file (the last writer wins; both are correct).
    """

    def __init__(self, backend: Embeddings, directory: Path | None):
        self.backend = backend
        self.key = hashlib.sha256(backend_id(backend).encode()).hexdigest()[:16]
        self.path = directory / f"{self.key}.npz" if directory else None
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        if not self.path or not self.path.exists():
            return
        try:
            with np.load(self.path) as data:
                self._vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        except (OSError, ValueError, KeyError):
            log.warning("router cache %s unreadable; re-embedding", self.path)

    def _save(self) -> None:
        if not self.path:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            keys = list(self._vectors)
            tmp = self.path.with_suffix(f".{threading.get_ident()}.tmp.npz")
            np.savez(tmp, keys=np.array(keys), vectors=np.vstack([self._vectors[k] for k in keys]))
            tmp.replace(self.path)
        except OSError as exc:
            log.warning("router cache not written: %s", exc)

    def vectors(self, kind: str, texts: list[str]) -> np.ndarray:
        """Return the vectors of ``texts`` (``kind`` ``passage`` or ``query``), embedding only unknown ones."""
        digests = [_digest(kind, text) for text in texts]
        with self._lock:
            missing = [(d, t) for d, t in zip(digests, texts, strict=True) if d not in self._vectors]
            if missing:
                fresh = self._embed(kind, [t for _, t in dict(missing).items()])
                for (digest, _), vector in zip(dict(missing).items(), fresh, strict=True):
                    self._vectors[digest] = vector
                self._save()
            return np.vstack([self._vectors[d] for d in digests]) if digests else np.zeros((0, 1), np.float32)

    def _embed(self, kind: str, texts: list[str]) -> np.ndarray:
        if kind == "query" and hasattr(self.backend, "embed_queries"):
            raw = self.backend.embed_queries(texts)
        elif kind == "query":
            raw = [self.backend.embed_query(text) for text in texts]
        else:
            raw = self.backend.embed_documents(texts)
        return normalised(np.asarray(raw, dtype=np.float32))


def normalised(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` (… × d) with each last-axis vector scaled to length 1 (a zero vector stays zero)."""
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
