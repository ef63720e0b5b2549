"""The frozen set of questions whose asked aspect no tool serves (issue 29, Must show 2), shared by
``tests/toolset/test_aspects_set.py`` (its sha256 is pinned there) and ``bench/aspects.py``."""

import re
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

PATH = Path(__file__).parents[1] / "data" / "aspects_unserved.yaml"
# The answer classifier's patterns (not frozen: corrected when an answer is misread; see the file's header).
PATTERNS_PATH = Path(__file__).parents[1] / "data" / "aspects_patterns.yaml"
PAGE_KINDS = ("dashboard", "dataset", "migration", "none")
#: ``offer`` of a row no tool comes near: ``nothing close``, written alone or as a one-item list.
NOTHING_CLOSE = "nothing close"
#: The saved migration plan the bench creates for the migration-page rows (``page.name`` of those rows).
MIGRATION_PLAN = "energy report to prod"


@dataclass(frozen=True)
class ChatRow:
    """What every row of a question set of chat turns has (``row_fields``): ``object_type`` is None for a page
    without an object, ``env_id`` None for a page without an environment."""

    id: str
    q: str
    lang: str
    object_type: str | None
    object_name: str | None
    env_id: str | None
    role: str

    @property
    def page_kind(self) -> str:
        """``dashboard`` | ``dataset`` | ``migration`` | ``none``."""
        return self.object_type or "none"


@dataclass(frozen=True)
class AspectQuestion(ChatRow):
    """One row of ``tests/data/aspects_unserved.yaml``; the file's header explains the fields. ``offer`` the tool
    names that come closest (empty: "nothing close")."""

    kind: str
    aspect: str
    offer: tuple[str, ...]
    held: bool


def _none(value: str | None) -> str | None:
    return None if value in (None, "", "none") else value


def row_fields(row: dict) -> dict:
    """The fields every question set of chat turns shares (this one, ``turns_day``): ``id``, ``q``, ``lang``, the
    page (``object_type``, ``object_name``, ``env_id``; ``none`` read as None) and the asking ``role`` (admin)."""
    page = row["page"]
    return {
        "id": row["id"],
        "q": row["q"],
        "lang": row["lang"],
        "object_type": _none(page["object"]),
        "object_name": _none(page.get("name")),
        "env_id": _none(page.get("env")),
        "role": row.get("role", "admin"),
    }


def load_aspect_questions(path: Path = PATH) -> list[AspectQuestion]:
    """Read the set (a YAML list of rows, see the file's header) into ``AspectQuestion`` rows, in file order."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for row in rows:
        offer = row["offer"]
        out.append(
            AspectQuestion(
                **row_fields(row),
                kind=row["kind"],
                aspect=row["aspect"],
                offer=tuple(o for o in offer if o != NOTHING_CLOSE) if isinstance(offer, list) else (),
                held=bool(row.get("held")),
            )
        )
    return out


CLASSES = ("good", "generic", "other")


@dataclass(frozen=True)
class Outcome:
    """What one turn showed: the final answer's text, the tools called (``tools``) and those that finished well
    (``tools_ok``), the tools of confirmation cards and of «Недостаточно прав» cards, error codes, every tool used in
    the order the frames came (``steps``: run, on a card, or refused on a card), wall seconds."""

    answer: str
    tools: tuple[str, ...] = ()
    tools_ok: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    seconds: float = 0.0

    def as_dict(self) -> dict:
        """The fields as JSON-ready values (tuples as lists)."""
        return asdict(self)


def patterns_load(path: Path = PATTERNS_PATH) -> dict[str, dict[str, list[tuple[str, re.Pattern[str]]]]]:
    """Read ``tests/data/aspects_patterns.yaml``: ``{group: {lang: [(name, compiled regex)]}}`` for the groups
    ``cannot``, ``can``, ``ask`` and ``runaround`` (case-insensitive, multi-line)."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {
        group: {
            lang: [(row["name"], re.compile(row["re"], re.IGNORECASE | re.MULTILINE)) for row in rows]
            for lang, rows in by_lang.items()
        }
        for group, by_lang in raw.items()
    }


@dataclass(frozen=True)
class Verdict:
    """The class of one answer (``cls``, one of ``CLASSES``), how it got it (``how``: for ``good`` the name of the
    "cannot" pattern that matched; ``card`` | ``shows`` for ``generic``; ``error`` | ``cannot only`` |
    ``runaround`` | ``asks back`` | ``no answer`` | ``unrecognised`` for ``other``) and a one-line reason quoting
    what matched."""

    cls: str
    how: str
    reason: str


def _first_match(text: str, rows: list[tuple[str, re.Pattern[str]]]) -> tuple[str, str] | None:
    """``(pattern name, matched text)`` of the first pattern that matches ``text``, or None."""
    for name, pattern in rows:
        found = pattern.search(text)
        if found:
            return name, found.group(0).strip()
    return None


def answer_classify(outcome: Outcome, lang: str, patterns: dict) -> Verdict:
    """Classify one turn's answer to a question whose aspect no tool serves (issue 29, Must show 2).

    Args:
        outcome: what the turn showed.
        lang: ``ru`` | ``en``, the question's language (its patterns first, then the other language's, so an
            answer in the wrong language is still read).
        patterns: ``patterns_load()``.

    Returns:
        A ``Verdict``, decided in this order:

        1. an error frame or a «Недостаточно прав» card → ``other``;
        2. a "cannot" sentence and either a "can instead" sentence, a tool result or a card → ``good``;
           a "cannot" sentence alone → ``other`` (it names nothing the product can do);
        3. sent to another page without a tool result → ``other`` (a runaround);
        4. a confirmation card, or a tool result presented, with no "cannot" sentence → ``generic``;
        5. a question back → ``other``; anything else → ``other``.
    """
    text = outcome.answer
    langs = [lang] + [other for other in ("ru", "en") if other != lang]

    def match(group: str) -> tuple[str, str] | None:
        for code in langs:
            found = _first_match(text, patterns[group].get(code, []))
            if found:
                return found
        return None

    def quote(found: tuple[str, str]) -> str:
        return f"{found[0]} «{found[1]}»"

    if outcome.errors or outcome.denied:
        return Verdict("other", "error", f"error {','.join(outcome.errors + outcome.denied)}")
    cannot, can = match("cannot"), match("can")
    shown, cards = ",".join(outcome.tools_ok), ",".join(outcome.cards)
    if cannot:
        instead = (quote(can) if can else None) or (f"shows {shown}" if shown else None) or (cards and f"card {cards}")
        if instead:
            return Verdict("good", cannot[0], f"cannot: {quote(cannot)}; instead: {instead}")
        return Verdict("other", "cannot only", f"cannot: {quote(cannot)}; names nothing it can do")
    runaround = match("runaround")
    if runaround and not shown:
        return Verdict("other", "runaround", f"runaround: {quote(runaround)}")
    if cards:
        return Verdict("generic", "card", f"card {cards} in place of the asked, no cannot sentence")
    if shown:
        return Verdict("generic", "shows", f"shows {shown}, no cannot sentence")
    ask = match("ask")
    if ask:
        return Verdict("other", "asks back", f"asks back: {quote(ask)}")
    if not text.strip():
        return Verdict("other", "no answer", "no answer")
    return Verdict("other", "unrecognised", "no cannot sentence, no tool result, no question back")
