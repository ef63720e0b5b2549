"""The labelled router questions of ``tests/data/router_questions.yaml`` (issue 8 item 4), shared by the tests
and ``bench/router.py``."""

from dataclasses import dataclass
from pathlib import Path

import yaml

PATH = Path(__file__).parents[1] / "data" / "router_questions.yaml"
HOLDOUT_PATH = Path(__file__).parents[1] / "data" / "router_holdout.yaml"
# The frozen fresh set of issue 16 (its sha256 is pinned in tests/toolset/test_question_set.py).
FRESH_PATH = Path(__file__).parents[1] / "data" / "router_fresh.yaml"
# The blind set of issue 16: written without reading the rules, never tuned on (sha256 pinned in the same test).
BLIND_PATH = Path(__file__).parents[1] / "data" / "router_blind.yaml"
# Development set 2 of issue 16: frozen before the rules were generalised on it (sha256 pinned in the same test).
DEV2_PATH = Path(__file__).parents[1] / "data" / "router_dev2.yaml"
# Development set 3 of issue 16: written without reading the rules, frozen before tuning (sha256 pinned there too).
DEV3_PATH = Path(__file__).parents[1] / "data" / "router_dev3.yaml"
# Development set 4 of issue 16: written without reading the rules, frozen before tuning (sha256 pinned there too).
DEV4_PATH = Path(__file__).parents[1] / "data" / "router_dev4.yaml"
# Development set 5 of issue 16: written without reading the rules, weighted to migration pages, frozen before tuning.
DEV5_PATH = Path(__file__).parents[1] / "data" / "router_dev5.yaml"
# Blind set 2 of issue 16: written without reading the rules, never tuned on (sha256 pinned in the same test).
BLIND2_PATH = Path(__file__).parents[1] / "data" / "router_blind2.yaml"


@dataclass(frozen=True)
class QuestionSet:
    """A labelled set ``bench/router.py`` reports on: its option (``--<flag>``), file, title, and whether it is blind
    (never tuned on: the bench prints none of its questions)."""

    flag: str
    path: Path
    title: str
    blind: bool = False


_TUNED_AFTER = "issue 16, frozen, tuned on after"
# The sets other than the main one (``PATH``), in the order bench/router.py lists its options.
QUESTION_SETS = (
    QuestionSet("holdout", FRESH_PATH, "fresh held-out (issue 16, frozen)"),
    *(
        QuestionSet(f"dev{n}", path, f"development set {n} ({_TUNED_AFTER})")
        for n, path in ((2, DEV2_PATH), (3, DEV3_PATH), (4, DEV4_PATH), (5, DEV5_PATH))
    ),
    QuestionSet("blind", BLIND_PATH, "blind (issue 16, frozen, never tuned on)", blind=True),
    QuestionSet("blind2", BLIND2_PATH, "blind set 2 (issue 16, frozen, never tuned on)", blind=True),
    QuestionSet("old-holdout", HOLDOUT_PATH, "held-out (issue 8)"),
)


@dataclass(frozen=True)
class Question:
    """One labelled question; see the header of the YAML file for the fields."""

    q: str
    page: str
    tools: tuple[str, ...]
    first: tuple[str, ...]
    read: bool | None = None  # the fresh set only: True = asks to see something, False = asks for a change

    @property
    def object_type(self) -> str | None:
        obj = self.page.partition("@")[0]
        return obj.split("/")[0] if obj else None

    @property
    def object_id(self) -> str | None:
        obj = self.page.partition("@")[0]
        return obj.split("/")[1] if "/" in obj else None

    @property
    def env_id(self) -> str | None:
        return self.page.partition("@")[2] or None

    def context(self) -> dict | None:
        """The UIContext the page would send (None for a page without object and environment)."""
        if not self.object_type and not self.env_id:
            return None
        return {
            "contextVersion": 1,
            "objectType": self.object_type,
            "objectId": self.object_id,
            "objectName": None,
            "envId": self.env_id,
            "route": f"/{self.object_type}s/{self.object_id}" if self.object_type else "/settings/",
        }


def load_questions(path: Path = PATH) -> list[Question]:
    """Read the question set."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Question(
            q=row["q"],
            page=row.get("page") or "",
            tools=tuple(row["tools"]),
            first=tuple(row.get("first") or row["tools"]),
            read=row.get("read"),
        )
        for row in rows
    ]
