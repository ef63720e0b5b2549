"""The frozen set of a BI engineer's day as chat turns (issue 29, ``tests/data/turns_day.yaml``), shared by
``tests/toolset/test_turns_day_set.py`` (its sha256 is pinned there) and ``bench/turns.py``."""

from dataclasses import dataclass
from pathlib import Path

import yaml

PATH = Path(__file__).parents[1] / "data" / "turns_day.yaml"
#: ``first`` / ``reach`` entry meaning "an answer without any tool call".
NO_TOOL = "none"


@dataclass(frozen=True)
class DayQuestion:
    """One row of ``tests/data/turns_day.yaml``; the file's header explains the fields.

    ``object_type`` is None for a page without an object, ``env_id`` None without an environment; ``first`` the
    right first steps (``NO_TOOL`` among them: no call is right too), ``reach`` the tools of which one must be
    reached within the turn (empty: none needed, the row's right answer calls no tool).
    """

    id: str
    q: str
    lang: str
    object_type: str | None
    object_name: str | None
    env_id: str | None
    role: str
    first: tuple[str, ...]
    reach: tuple[str, ...]
    item: str

    @property
    def page_kind(self) -> str:
        """``dashboard`` | ``dataset`` | ``migration`` | ``none``."""
        return self.object_type or "none"


def _none(value: str | None) -> str | None:
    return None if value in (None, "", "none") else value


def load_day_questions(path: Path = PATH) -> list[DayQuestion]:
    """Read the set into ``DayQuestion`` rows, in file order."""
    out = []
    for row in yaml.safe_load(path.read_text(encoding="utf-8")):
        page = row["page"]
        first = tuple(row["first"])
        reach = tuple(row.get("reach") or [t for t in first if t != NO_TOOL])
        out.append(
            DayQuestion(
                id=row["id"],
                q=row["q"],
                lang=row["lang"],
                object_type=_none(page["object"]),
                object_name=_none(page.get("name")),
                env_id=_none(page.get("env")),
                role=row.get("role", "admin"),
                first=first,
                reach=reach,
                item=str(row["item"]),
            )
        )
    return out
