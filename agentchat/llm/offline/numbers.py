"""Which numbers of a question are ids (offline planner, DESIGN §11): «дашборд 2», "dataset #1", «задача 15».

A number is an id unless the words around it make it a year, a date or a count: «за 2024», "for 2024", «в 2023
году», «январь 2024», «за последние 30 дней», "first 10 rows". Right after its object's noun a number is its id
whatever noun follows ("dashboard 3 charts"), unless a year's or a date's word does («отчёт 2024 года»); the
noun's ids are that number and those listed after it («дашборды 1, 2 и 5»), not a number further on, which is part
of something else ("the dashboard Region 3 overview": an id of no kind). And a
noun pointed at («этот дашборд», "this dashboard") is the page's object: a number after it is not its id
(«покажи этот дашборд за 2024», «этот дашборд 2024»), unless it comes right after the noun and is no year ("the
charts that dashboard 5 has": a relative "that" looks like a demonstrative). Pure functions of the text.
"""

import re

# Words naming an object type, by the stem they start with (ru) or the word (en).
OBJECT_WORDS = {
    "dashboard": r"дашборд\w*|отч[её]т\w*|панел\w*|dashboards?|reports?",
    "dataset": r"датасет\w*|dataset\w*|набор\w* данных",
    "database": r"баз\w*(?: данных)?|databases?|\bdb\b",
    "task": r"задач\w*|tasks?|jobs?",
    "chart": r"график\w*|чарт\w*|charts?",
    "backup": r"бэкап\w*|бекап\w*|копи[яиюей]\w*|backups?|cop(?:y|ies)",
    "migration": r"миграц\w*|migrations?",
}
# Demonstratives: the noun after one is the object on the page, not one given by its number.
DEMONSTRATIVES = r"this|that|these|those|этот|эта|это|эти|этого|этой|этому|этим|этом|этих|эту|тот|та|те|того|той|том|ту"
# Before a number, a word of time or of a range makes a year of it («за 2024», "since 2023", «с 2022 по 2024»).
TIME_BEFORE = re.compile(
    r"(?<!\w)(?:за|в|во|с|со|по|до|после|от|с начала|from|for|in|since|until|till|before|after|during|through|of"
    r"|to)\s+$",
    re.I,
)
MONTHS = (
    r"январ\w*|феврал\w*|март\w*|апрел\w*|ма[йяе]|июн\w*|июл\w*|август\w*|сентябр\w*|октябр\w*|ноябр\w*|декабр\w*"
    r"|january|february|march|april|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
)
# After a number, a year's or a month's word makes a year or a date of it («2024 году», «отчёт 2024 года», «5 мая»),
# even right after an object's noun.
DATE_AFTER = re.compile(rf"^\s*(?:год(?:а|у|ом|е|ы|ов|ах|ам)?\b|г\.|гг\b|years?\b|(?:{MONTHS})\b)", re.I)
# After a number, a unit makes a count of it («30 дней», "10 rows", «5 дашбордов»), unless the number comes right
# after an object's noun ("dashboard 3 charts", "dataset 2 rows": its id, then what of it is asked).
UNIT_AFTER = re.compile(
    r"^\s*(?:%|процент\w*|percent\b|лет\b|yrs?\b|квартал\w*|quarters?\b|месяц\w*|months?\b"
    r"|недел\w*|weeks?\b|дн\w*|день\b|days?\b|час\w*|hours?\b|минут\w*|minutes?\b|секунд\w*|seconds?\b"
    r"|ноч[иь]\b|утра\b|вечера\b|дня\b|[ap]\.?m\.?(?!\w)|o'clock\b"
    r"|строк\w*|rows?\b|запис\w*|records?\b|раз\b|раза\b|times\b|штук\w*|items?\b|человек\b|users?\b"
    r"|пользователей\b|графиков\b|charts\b|дашбордов\b|dashboards\b)",
    re.I,
)
# Between an object's noun and its id («дашборд 2», "dataset #1", «датасет с id 5», "dashboard number 3").
ID_GAP = re.compile(r"^\s*(?:(?:#|№|(?:с|with)\s+(?:id|номер\w*)|id|номер\w*|number|no\.?)\s*)*$", re.I)
# Between two ids of one noun («дашборды 1, 2 и 5», "dashboards 3, 4 and 7").
LIST_GAP = re.compile(r"^\s*(?:,|;|&|\+|и|или|а также|and|or)?\s*(?:#|№)?\s*$", re.I)
# Before a number, a quantity word or a month makes a count or a date of it ("first 10", «топ 5», "January 2024").
COUNT_BEFORE = re.compile(
    rf"(?:\b(?:first|top|last|latest|первые|первых|последние|последних|топ|top-)|\b(?:{MONTHS}))\s*-?\s*$", re.I
)
# Before a number, the person's own figure or an estimate makes a quantity of it («у меня 2088», "I got 2088",
# «около 500», "~500"; turns_day6 y48 read 2088 as an object's id).
FIGURE_BEFORE = re.compile(
    r"(?:\bу (?:меня|нас)|получил\w*|получается|вышло|выходит|насчитал\w*|\bI(?:'ve)? (?:have|got|get|see)"
    r"|\bwe (?:have|got|get|see)|\bshows?|показывает|около|примерно|почти|about|around|roughly|~|≈)\s*$",
    re.I,
)
YEARS = range(1900, 2101)
# How long ago, the unit before the number («запускал минут 20 назад») or "ago" after it.
AGO_AFTER = re.compile(r"^\s*(?:назад|тому назад|ago)\b", re.I)
UNIT_BEFORE = re.compile(r"\b(?:минут\w*|мин|час\w*|дн(?:я|ей)|недел\w*|секунд\w*)\s*$", re.I)
# How far before a number its words are read: the longest phrase above and its spaces fit in it.
BEFORE_CHARS = 40


def _words_before(text: str, start: int) -> str:
    """The whole words in the ``BEFORE_CHARS`` before ``text[start]``: a search ending at ``$`` over all of
    ``text[:start]`` for each number took seconds on a long message of numbers (the planner's shared thread)."""
    head = max(0, start - BEFORE_CHARS)
    window = text[head:start]
    return re.sub(r"^\w+", "", window) if head and text[head - 1].isalnum() else window


def _not_an_id(text: str, start: int, end: int, number: int, *, after_noun: bool) -> bool:
    """The number at ``text[start:end]`` is a year, a date or a count by the words around it (``after_noun``: it
    comes right after an object's noun, where only a year's or a date's word makes it no id)."""
    before, after = _words_before(text, start), text[end:]
    if DATE_AFTER.match(after) or re.match(r"^[:./-]\d", after) or re.search(r"\d[:./-]$", before):
        return True  # «2024 года», "May 5", a date: 2024-01-31, 31.01.2024, a time of day: 23:00
    if AGO_AFTER.match(after) or UNIT_BEFORE.search(before):
        return True  # «минут 20 назад», "20 minutes ago": how long ago, said either way round
    if after_noun:
        return False
    if UNIT_AFTER.match(after) or COUNT_BEFORE.search(before) or FIGURE_BEFORE.search(before):
        return True
    return number in YEARS and bool(TIME_BEFORE.search(before))


def ids_read(text: str) -> dict[str, list[int]]:
    """Numbers with the object word before them («дашборд 2», "dataset #1", «задача 15», «№2»), by kind; ``any``
    holds every number that is an id, in order. A year, a date or a count is none; a number after a noun pointed
    at by a demonstrative belongs to no kind (the noun is the page's object), unless it comes right after the noun
    and is no year ("that dashboard 5")."""
    out: dict[str, list[int]] = {"any": []}
    words = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in OBJECT_WORDS.items())
    last_kind: str | None = None
    pointed = False  # the last object's noun came after a demonstrative
    noun_end = -1  # where the last object's noun ended
    listed_end = -1  # where the last of its ids ended
    tokens = re.finditer(
        rf"(?P<pointer>\b(?:{DEMONSTRATIVES})\s+)?(?:{words})|(?:#|№\s?)?\b(?P<num>\d{{1,40}})\b(?![.-]\d)", text, re.I
    )
    for match in tokens:
        if match.group("num") is None:
            kind = next(kind for kind in OBJECT_WORDS if match.group(kind))
            last_kind, pointed = kind, bool(match.group("pointer"))
            noun_end, listed_end = match.end(), -1
            continue
        number = int(match.group("num"))
        after_noun = noun_end >= 0 and bool(ID_GAP.match(text[noun_end : match.start("num")]))
        if _not_an_id(text, match.start("num"), match.end("num"), number, after_noun=after_noun):
            continue
        out["any"].append(number)
        # The noun's ids: the number right after it, and those listed after that («дашборды 1, 2 и 5»); a number
        # further on is part of something else (the title in "the dashboard Region 3 overview").
        listed = listed_end >= 0 and bool(LIST_GAP.match(text[listed_end : match.start("num")]))
        # After a pointed noun only a number right after it that is no year is its id: "that dashboard 5" (a
        # relative "that" too: "the charts that dashboard 5 has"), not «этот дашборд 2024», «этот дашборд, 3 …».
        if last_kind and (after_noun or listed) and (not pointed or (after_noun and number not in YEARS)):
            out.setdefault(last_kind, []).append(number)
            listed_end = match.end()
    return out
