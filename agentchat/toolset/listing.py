"""Questions that list a column's values («какие регионы есть в данных?», «список регионов», «и источники тоже
перечисли», "which sources are there"), not the dataset's columns, metrics or the objects that use it (issue 29:
turns_day12 h1211 and a QA check were shown the dataset's description). Which columns, the dataset decides
(``llm.offline.sql_aggregate.listed_columns``); the values are read with one DISTINCT query (``sql_values``).
"""

import re

# The dataset's schema and the objects that use it: «какие колонки есть», "which charts use it" list no values.
_SCHEMA = (
    r"колонк|столбц|пол[еяю]|метрик|\bcolumns?\b|\bfields?\b|\bmetrics?\b|графи|чарт|\bcharts?\b|дашборд|dashboards?"
    r"|таблиц|\btables?\b|датасет|datasets?|баз[аыеу]|databases?|владел|owners?|прав[аяо]|\bрол|\broles?\b|тип"
)
NOT_VALUES = re.compile(_SCHEMA, re.I)
# The listing word and the words after it, or the words before «перечисли».
LISTING = re.compile(
    r"\b(?:какие|перечисли\w*|список|which|what|list)\s+"
    # "what does the avg_price metric compute?" asks no listing: a verb follows the question word (a QA check)
    r"(?!(?:does|do|did|is|are|was|were|can|could|should|will|would|has|have)\b)((?:[\w-]+\s+){0,2}[\w-]+)"
    r"|((?:[\w-]+\s+)?[\w-]+)\s+(?:тоже\s+|также\s+|ещё\s+|еще\s+)?перечисли\w*",
    re.I,
)
# The same said with where they are («… есть в данных», "… are in the data"): a request for SQL on a dataset page
# whatever its columns (``intents``).
VALUES_LISTED = re.compile(
    r"\b(какие|перечисли\w*|which|what)\s+(?!(\w+\s+)?(" + _SCHEMA + r"))"
    r"[^.?!]{0,40}\b(есть|встречаются|бывают|are there|are in|exist|appear)\b[^.?!]{0,30}"
    r"\b(данных|датасете|таблице|data|dataset|table)\b",
    re.I,
)


def listing_phrases(question: str) -> list[str]:
    """The words ``LISTING`` finds next to a listing word («какие регионы есть» → «регионы есть»), those of the
    schema (``NOT_VALUES``) left out."""
    phrases = [m.group(1) or m.group(2) for m in LISTING.finditer(question)]
    return [p for p in phrases if not NOT_VALUES.search(p)]


def values_listed(question: str) -> bool:
    """True when ``question`` may list a column's values (``listing_phrases`` or ``VALUES_LISTED``)."""
    return bool(VALUES_LISTED.search(question) or listing_phrases(question))
