"""The values a figure's condition names, written into the SQL the offline planner writes itself (issue 29: «сколько
стоил газ в 2025», «потребление в Москве по источникам за 2024» were asked back as SQL, and before that summed every
row — a figure of another question).

The planner reads the distinct values of the dataset's text columns once (``values_sql``: one read-only query, at
most ``VALUES_PER_COLUMN`` values of each of ``TEXT_COLUMNS`` columns), then matches the question's words that the
dataset's names do not account for (``sql_aggregate.unread_words``) against them: «Москве» → region «Москва»,
«газу» → source «Газ», «Свердловской области» → «Свердловская область». A word that matches no value, or several
values alike («области»: two regions), stays unread, and the SQL is asked for with that word named, as before; no
value is guessed. English words do not match Russian values ("coal" is no «Уголь»): asked for too.
"""

import os
import re
from collections.abc import Callable
from typing import Any

from agentchat.llm.offline.answers.base import items
from agentchat.superset.result_table import row_values

#: Values read of each text column, and text columns read (the rest of a wide dataset's columns are not matched).
VALUES_PER_COLUMN, TEXT_COLUMNS = 100, 5
#: The rows the values query may return (the SQL tool's ``row_limit``).
VALUES_ROW_LIMIT = VALUES_PER_COLUMN * TEXT_COLUMNS
COLUMN, VALUE = "column", "value"  # the values query's result columns
# Column types, by the words Superset's type names hold: numbers, dates and times, flags (the rest hold words).
NUMERIC = re.compile(r"int|real|float|double|numeric|decimal|number", re.I)
DATED = re.compile(r"date|time", re.I)
FLAG = re.compile(r"bool", re.I)


def numeric(column: dict[str, Any]) -> bool:
    """The column's type is a number's (``NUMERIC``)."""
    return bool(NUMERIC.search(str(column.get("type"))))


def dated(column: dict[str, Any]) -> bool:
    """The column's type is a date's or a time's (``DATED``)."""
    return bool(DATED.search(str(column.get("type"))))


def text_columns(payload: dict[str, Any]) -> list[str]:
    """The names of the dataset's text columns (not numeric, not a date or time) in ``payload``
    (``superset_explore_database``'s dataset answer), at most ``TEXT_COLUMNS``."""
    columns = payload.get("columns") or []
    text = [c for c in columns if c.get("name") and not (numeric(c) or dated(c) or FLAG.search(str(c.get("type"))))]
    names = [str(c["name"]) for c in text]
    return names[:TEXT_COLUMNS]


def values_sql(
    payload: dict[str, Any], relation: str, quote: Callable[[Any], str], columns: list[str] | None = None
) -> str | None:
    """The one query that reads the distinct values of the dataset's text columns (or of ``columns``) from
    ``relation``, as rows ``(column, value)``; None when there is no such column. ``quote`` quotes an identifier."""
    parts = [
        f"SELECT {literal(name)} AS {quote(COLUMN)}, {quote(VALUE)} FROM (SELECT DISTINCT {quote(name)} AS "  # noqa: S608
        f"{quote(VALUE)} FROM {relation} WHERE {quote(name)} IS NOT NULL LIMIT {VALUES_PER_COLUMN}) AS values_{n}"
        for n, name in enumerate(text_columns(payload) if columns is None else columns)
    ]
    return " UNION ALL ".join(parts) or None


def values_read(payload: Any) -> dict[str, list[str]]:
    """``{column: [values]}`` from the values query's result (``superset_execute_sql``: ``columns``, ``rows``)."""
    payload = payload if isinstance(payload, dict) else {}
    names = [str(c.get("name")) for c in items(payload.get("columns"))[0] if isinstance(c, dict)]
    out: dict[str, list[str]] = {}
    for row in items(payload.get("rows"))[0]:
        column, value = (row_values(row, names) + [None, None])[:2]
        if column is not None and value is not None:
            out.setdefault(str(column), []).append(str(value))
    return out


def value_conditions(words: list[str], values: dict[str, list[str]]) -> tuple[dict[str, list[str]], list[str]]:
    """Match the unread ``words`` (folded, ``sql_aggregate.unread_words``) against the columns' ``values``.

    A word names a value when it is one of the value's words in another case («Москве», «Татарстану», «газа»). A
    value is taken when some word names it and no other value; a word that names several values is then accounted
    for only by a value taken («области» beside «Свердловской»).

    Returns:
        ``({column: [values taken]}, [words still unread])``.
    """
    named = {w: [(c, v) for c, vs in values.items() for v in vs if names_value(w, v)] for w in words}
    taken = {pairs[0] for pairs in named.values() if len(pairs) == 1}
    conditions: dict[str, list[str]] = {}
    for column, value in sorted(taken):
        conditions.setdefault(column, []).append(value)
    unread = [w for w, pairs in named.items() if not pairs or not set(pairs) & taken]
    return conditions, unread


def values_where(conditions: dict[str, list[str]], quote: Callable[[Any], str], left_out: bool = False) -> list[str]:
    """The SQL conditions of ``conditions`` (``value_conditions``): ``"col" = 'v'`` or ``"col" IN ('a', 'b')``; with
    ``left_out``, ``"col" <> 'v'`` or ``"col" NOT IN ('a', 'b')``."""
    out = []
    for column, values in conditions.items():
        listed = ", ".join(literal(v) for v in values)
        one, many = ("<>", "NOT IN") if left_out else ("=", "IN")
        out.append(f"{quote(column)} {one} {listed}" if len(values) == 1 else f"{quote(column)} {many} ({listed})")
    return out


# A negation before values («кроме газа», «без учёта угля и ВИЭ», «не считая Москвы», "excluding coal"): the values
# it names are left out of the figure (a QA check: each was asked back as SQL).
# A bare «не» / "not" before a value («газ НЕ в Москве», «не газ», "not in Moscow") negates it too: read as «= Москва»
# it gave the opposite figure (a fresh check); «не только», «не менее», "not only" are no negation of a value.
NEGATION = re.compile(
    r"(?<!\w)(кроме|без\s+уч[её]та|без|не\s+считая|за\s+исключением|исключая|except|excluding|without"
    r"|не(?!\s+(?:только|менее|более|больше|меньше))|not(?!\s+only))\s+",
    re.I,
)
# Between a negation and its values: lists («и», ",") and prepositions («не в Москве», "not in Moscow").
_CONNECTOR = re.compile(r"^(и|а\s+также|and|or|или|в|во|на|из|по|у|для|от|in|from|at|for|of)$", re.I)


def negated_values(question: str, values: dict[str, list[str]]) -> tuple[dict[str, list[str]], str]:
    """The values ``question`` names right after a negation (``NEGATION``), as ``{column: [values]}``, and the
    question without the negation and those words. A word after it that names no value (or several alike) ends the
    list and stays, with the negation when no value came before it: the condition is then not written."""
    left_out: dict[str, list[str]] = {}
    text = question
    for match in reversed(list(NEGATION.finditer(question))):
        end, found = match.end(), list[tuple[str, str]]()
        for word in re.finditer(r"[^\W\d_]+|,", question[match.end() :]):  # «Санкт-Петербурга»: two words
            said = word.group(0).casefold().replace("ё", "е")
            if said == "," or _CONNECTOR.match(said):
                continue
            named, _unread = value_conditions([said], values)
            if not named and any(names_value(said, v) for _c, v in found):
                end = match.end() + word.end()  # «Свердловской области»: a word of the value taken
                continue
            if not named:
                break
            found += [(c, v) for c, vs in named.items() for v in vs if (c, v) not in found]
            end = match.end() + word.end()
        if found:
            text = text[: match.start()] + " " + text[end:]
            for column, value in found:
                left_out.setdefault(column, []).append(value)
    return left_out, text


def names_value(word: str, value: str) -> bool:
    """``word`` is one of ``value``'s words (three letters or more) in another case form: the same, the value's word
    with an ending of up to three letters («газ» → «газу»), or a shared stem that leaves at most two letters of the
    value's word and three of the question's («Москва» → «Москвы», «Центральный» → «Центральном»), also without a
    fleeting vowel («уголь» → «угля»)."""
    for part in re.findall(r"[a-zа-яё]+", value.casefold().replace("ё", "е")):
        if len(part) < 3:
            continue
        if word == part or (word.startswith(part) and len(word) - len(part) <= 3):
            return True
        for stem in {part, FLEETING.sub("", part)}:  # «уголь» → «угл»: «угля», «углем»
            common = len(os.path.commonprefix([word, stem]))
            if common >= 3 and len(stem) - common <= 2 and len(word) - common <= 3:
                return True
    return False


# A vowel Russian drops before the last consonant in other cases («уголь» → «угля», «Питер» stays).
FLEETING = re.compile(r"[ое](?=[бвгджзклмнпрстфхцчшщ]ь?$)")


def literal(text: Any) -> str:
    """``text`` as an SQL string literal (an inner ``'`` doubled)."""
    return "'" + str(text).replace("'", "''") + "'"
