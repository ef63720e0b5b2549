"""The frozen set of questions whose asked aspect no tool serves (issue 29, Must show 2), shared by
``tests/toolset/test_aspects_set.py`` (its sha256 is pinned there) and ``bench/aspects.py``."""

from dataclasses import dataclass
from pathlib import Path

import yaml

PATH = Path(__file__).parents[1] / "data" / "aspects_unserved.yaml"
PAGE_KINDS = ("dashboard", "dataset", "migration", "none")
#: The saved migration plan the bench creates for the migration-page rows (``page.name`` of those rows).
MIGRATION_PLAN = "energy report to prod"


@dataclass(frozen=True)
class AspectQuestion:
    """One row of ``tests/data/aspects_unserved.yaml``; the file's header explains the fields.

    ``object_type`` is None for a page without an object, ``env_id`` None for a page without an environment,
    ``offer`` the tool names that come closest (empty: "nothing close").
    """

    id: str
    q: str
    lang: str
    object_type: str | None
    object_name: str | None
    env_id: str | None
    role: str
    kind: str
    aspect: str
    offer: tuple[str, ...]
    held: bool

    @property
    def page_kind(self) -> str:
        """``dashboard`` | ``dataset`` | ``migration`` | ``none``."""
        return self.object_type or "none"


def _none(value: str | None) -> str | None:
    return None if value in (None, "", "none") else value


def load_aspect_questions(path: Path = PATH) -> list[AspectQuestion]:
    """Read the set (a YAML list of rows, see the file's header) into ``AspectQuestion`` rows, in file order."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for row in rows:
        page = row["page"]
        offer = row["offer"]
        out.append(
            AspectQuestion(
                id=row["id"],
                q=row["q"],
                lang=row["lang"],
                object_type=_none(page["object"]),
                object_name=_none(page.get("name")),
                env_id=_none(page.get("env")),
                role=row.get("role", "admin"),
                kind=row["kind"],
                aspect=row["aspect"],
                offer=tuple(offer) if isinstance(offer, list) else (),
                held=bool(row.get("held")),
            )
        )
    return out
