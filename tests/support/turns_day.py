"""The frozen set of a BI engineer's day as chat turns (issue 29, ``tests/data/turns_day.yaml``), shared by
``tests/toolset/test_turns_day_set.py`` (its sha256 is pinned there) and ``bench/turns.py``."""

from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.support.aspects import ChatRow, row_fields

PATH = Path(__file__).parents[1] / "data" / "turns_day.yaml"
#: ``first`` / ``reach`` entry meaning "an answer without any tool call".
NO_TOOL = "none"


@dataclass(frozen=True)
class DayQuestion(ChatRow):
    """One row of ``tests/data/turns_day.yaml``; the file's header explains the fields. ``first`` the right first
    steps (``NO_TOOL`` among them: no call is right too), ``reach`` the tools of which one must be reached within
    the turn (empty: none needed, the row's right answer calls no tool); ``held`` a row kept for the figure only
    (its misses are not read while changing the planner)."""

    first: tuple[str, ...]
    reach: tuple[str, ...]
    item: str
    held: bool = False


def load_day_questions(path: Path = PATH) -> list[DayQuestion]:
    """Read the set into ``DayQuestion`` rows, in file order."""
    out = []
    for row in yaml.safe_load(path.read_text(encoding="utf-8")):
        first = tuple(row["first"])
        reach = tuple(row.get("reach") or [t for t in first if t != NO_TOOL])
        out.append(
            DayQuestion(
                **row_fields(row),
                first=first,
                reach=reach,
                item=str(row["item"]),
                held=bool(row.get("held")),
            )
        )
    return out
