"""How a figure's question names the dataset's columns and measures, for the SQL the offline planner writes itself
(``sql_aggregate``): a column by its name or its label's first letters, a metric by a word of its name, money said in
words, the order (most or least) and the number of rows asked."""

import re
from collections.abc import Callable
from typing import Any

#: Rows a ranking shows when the question gives no number.
RANKING_ROWS = 10
LEAST = re.compile(
    r"меньше всего|дешевле всего|реже всего|наименьш|сам(ый|ая|ое|ые|ых|ым|ой|ую|ом|ыми)\s+(низк|дешёв|дешев|мал)"
    r"|least|lowest|smallest|fewest|минимальн\w*|\bminimum\b"
    r"|по\s+возрастани\w*|\b(sorted\s+|order(ed)?\s+)?(asc|ascending)\b",  # a breakdown sorted from the least
    re.I,
)
NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "один": 1, "одну": 1, "два": 2, "две": 2,
    "три": 3, "четыре": 4, "пять": 5, "десять": 10, "тройка": 3, "тройку": 3, "пятёрка": 5, "пятерку": 5,
    "пятёрку": 5, "десятка": 10, "десятку": 10,
}  # fmt: skip
_STEM = 5  # letters of a label's word compared with the question's words («регион» ~ «регионов», «потреб»)

# Money asked in words that name no column («во сколько обошлось», "how much did we pay"): the cost's measure.
COST_ASKED = re.compile(
    r"обош[её]?л|\bденьг|\bденег\b|\bmoney\b|стоил|потратил|заплатил|затрат|\bpaid\b|\bspent\b|\bpay\b|\bexpens|\bspending\b",
    re.I,
)

# Energy asked by its unit («скок МВт·ч ушло по Татарстану», "how many MWh"): the consumption measure. A price per
# unit («сколько стоил 1 МВт·ч») is read as the price before it (``PER_UNIT``).
ENERGY_UNIT = re.compile(r"(?<!\w)(мвт|мегаватт|квт|киловатт|mwh|kwh|megawatt|kilowatt)", re.I)

# A price asked in words («дешевле всего», "the most expensive"): the price's measure, ranked first.
PRICE_ASKED = re.compile(r"дешев|дешёв|дорог|cheap|expensive|pric|цен[аыу]\b", re.I)


def question_words(question: str) -> set[str]:
    """The question's words, case-folded («ё» as «е»), with "cost" and «стоимость» when money is asked in others,
    "price" when a price is, "consumption" and «потребление» when energy is asked by its unit and not as a price's."""
    folded = question.casefold().replace("ё", "е")
    words = set(re.findall(r"[a-zа-яё0-9]+", folded)) | set(re.findall(r"[a-z0-9]+(?:_[a-z0-9]+)+", folded))
    words |= {"cost", "стоимость"} if COST_ASKED.search(question) else set()
    words |= {"consumption", "потребление"} if ENERGY_UNIT.search(question) and not PER_UNIT.search(question) else set()
    return words | {"price"} if PRICE_ASKED.search(question) else words


def column_named(column: dict[str, Any], words: set[str]) -> bool:
    """The question names ``column`` by its name ("region" in "regions", "consumption" for consumption_mwh) or its
    label's first word («Регион»)."""
    name = str(column["name"]).casefold()
    if any(w == name or (len(name) >= 4 and w.startswith(name)) or (len(w) >= 5 and name.startswith(w)) for w in words):
        return True
    return _label_named(column.get("label"), words)


def _label_named(label: Any, words: set[str]) -> bool:
    first = next(iter(re.findall(r"[a-zа-яё]+", str(label or "").casefold().replace("ё", "е"))), "")
    return len(first) >= _STEM and any(w.startswith(first[: _STEM + 1]) for w in words)


def measure_named(metric: dict[str, Any], words: set[str]) -> bool:
    """A metric named by a word of its name beyond "total"/"sum"/"avg" ("total consumption") or its label."""
    parts = [
        p for p in str(metric.get("name") or "").casefold().split("_") if p not in ("total", "sum", "avg", "count")
    ]
    if any(len(p) >= 4 and any(w.startswith(p[: _STEM + 1]) for w in words) for p in parts):
        return True
    return _label_named(metric.get("label"), words)


def rows_asked(question: str) -> int:
    """The number of rows a ranking asks for: "top 3", «топ-5», «какие 2 источника», «какие три региона»;
    ``RANKING_ROWS`` by default."""
    if match := re.search(
        r"\b(?:top|топ)[\s-]*(\d{1,3})\b|\b(\d{1,2})\s+(?!(?:год|лет|месяц|недел|дн|дек|year|month|week|day))[a-zа-яё]",
        question,
        re.I,
    ):
        return int(next(g for g in match.groups() if g))
    return next((n for w, n in NUMBERS.items() if re.search(rf"\b{w}\b", question, re.I)), RANKING_ROWS)


# A threshold on a figure («больше 10 млн МВт·ч», "more than 1000", «не менее 5»): a HAVING the SQL does not write.
THRESHOLD = re.compile(
    r"(?<!\w)(больше|меньше|выше|ниже|более|менее|свыше|от|до|не менее|не более|over|above|below|under|more than"
    # a tolerance in per cent («расхождение больше 5%») is context, no HAVING
    r"|less than|at least|at most|exceed\w*)\s+\d+(?:[.,]\d+)?(?![\d.,]|\s*(?:%|процент|percent))",
    re.I,
)

# What a figure is asked in that the planner's SQL does not shape, so the SQL is asked for rather than a figure in
# other terms given (a QA check: each was dropped): per cent outside a share, a scale or rounding, an average per
# day or month (the average of the records is another figure), values apart («газа и угля по отдельности»: one sum).
NOT_WRITTEN = re.compile(
    r"процент\w*|\bpercent\w*|%|\bв\s+(тысяч\w*|тыс\.?|млн|миллион\w*|млрд|миллиард\w*)|\bin\s+(thousands|millions"
    r"|billions)\b|округл\w*|\bround(ed|ing)?\b|\bdecimals?\b|среднемесячн\w*|среднесуточн\w*|среднедневн\w*"
    r"|\b(в|за)\s+(день|сутки|месяц)\b|\bв\s+среднем\s+за\s+\w+|\b(per|a)\s+(day|month)\b|\b(daily|monthly)\s+average"
    r"|\baverage\s+(daily|monthly)\b|скользящ\w*|нарастающ\w*|\b(moving|rolling|running|cumulative)\b"
    r"|\bне\s+только\b|\bnot\s+only\b",  # «не только в Москве»: which rows, then?
    re.I,
)
# Per cent as the unit of a share («доля угля … в процентах?», "each one's share of the total, in %"): a share is
# written in per cent (``sql_shares``), so the word is no condition left out.
PERCENT_UNIT = re.compile(r"(?<!\w)(в\s+)?процент\w*|\b(in\s+)?(per\s*cent|percent(age)?s?)\b|(\bin\s+)?%", re.I)
# What says only the answer's form («только цифру», «без графиков», "just the number", "no charts"): no condition,
# no object (turns_day14 m1443 read «без графиков» as charts and showed the dataset's description).
ANSWER_FORM = re.compile(
    r"(?<!\w)(только|просто|одной|just|only)\s+(одн\w+\s+)?(цифр\w*|числ\w*|number|figure)"
    r"|без\s+(график\w*|диаграмм\w*|картин\w*|визуализаци\w*)|\b(without|no)\s+(charts?|graphs?|visuali[sz]ations?)\b",
    re.I,
)
# Values or years apart («газа и угля по отдельности», «2024 и 2025 отдельно»): a row each, never one sum.
SEPARATELY = re.compile(r"по\s+отдельности|отдельно|раздельно|\bseparately\b|\bapart\b", re.I)
# A price per unit («сколько стоил 1 МВт·ч газа», "cost per MWh"): the price's measure, not the total cost.
# Also the price asked as what a unit cost («сколько стоил МВт·ч газа», «стоимость МВт·ч», "what did one MWh cost").
PER_UNIT = re.compile(
    r"\b1\s*(мвт|квт|mwh|kwh)|\bза\s+(1\s+|один\s+|одну\s+)?(мвт|квт|мегаватт|киловатт)|\bper\s+(mwh|kwh|unit)\b"
    r"|(стоил\w*|стоит|стоимость|цен[аыу])\s+(одного\s+|1\s+)?(мвт|квт|мегаватт|киловатт)"
    r"|\b(one|an?|each)\s+(mwh|kwh|megawatt)",
    re.I,
)
# A price named as such («цена», "price per MWh"), not money in a word of ranking («дорогой»).
PRICE_NAMED = re.compile(r"\bцен\w*|\bpric\w*|за\s+мвт|per\s+mwh", re.I)

# Records, not a figure per value: «топ-5 записей по потреблению», "the 10 most expensive rows".
# One record: «самая дорогая запись», «максимальное потребление за одну декаду» (the data's grain), "in a single row".
_SINGLE = (
    r"|за\s+одну\s+(декаду|запись|строку|неделю)|за\s+один\s+(день|месяц)|\bin\s+a\s+single\s+(record|row|entry|decade)"
)
ONE_RECORD = re.compile(rf"\b(запись|строка|строку|record|row|entry)\b{_SINGLE}", re.I)
TOP_ROWS = re.compile(rf"\b(запис(ей|и|ь)|строк[иа]?|rows?|records?|entries)\b{_SINGLE}", re.I)


# A metric that sums one column (``SUM(consumption_mwh)``).
SUMMED = re.compile(r"\s*SUM\(\s*\"?(\w+)\"?\s*\)\s*", re.I)


def measure_columns(payload: dict[str, Any], words: set[str], numeric: Callable[[dict[str, Any]], bool]) -> list[str]:
    """The numeric columns the question's ``words`` name as a measure: the column a named metric sums
    (``total_consumption`` → ``consumption_mwh``), then the numeric columns named by name or label (``numeric``
    tells a column's type: ``sql_values.numeric``)."""
    summed = [
        m.group(1)
        for metric in payload.get("metrics") or []
        if measure_named(metric, words) and (m := SUMMED.fullmatch(str(metric.get("expression") or "")))
    ]
    return summed + [str(c["name"]) for c in payload.get("columns") or [] if numeric(c) and column_named(c, words)]


# The words of a figure's question besides the dataset's own (its table, columns, metrics and their labels) and the
# plain words (``toolset.aspects.plain_words``): how it is asked and summed, in five-letter stems. Any other word may
# be a condition the SQL would leave out — a region, a source, a customer ("total cost 2024 Moscow", "how much did
# coal cost in total" summed every row: a QA check) — so nothing is written and the SQL is asked for.
FRAME_STEMS = frozenset(
    """сколь всего итого сумма суммы сумму суммарн общий общая общее общую одна одну одной цифра цифру цифро числом
    разби год года году годы годам лет весь всем всех каждо разрез топ больш меньш дороже дешев чаще реже самый
    самая самые самых наибо наиме средн минимал максим мин макс дубли дубле строк данны датас табли нужна нужно
    надо покаж посчи выведи дай скажи руб рублей мвт мвтч квт квтч потре стоим плиз пожал разом вместе целом получи
    вышло what whats which how much many total sum overall altog one number figure break without in for the of by
    per each all across over year years top most least highe lowest large small bigge avera avg mean min max minim
    maxim dupe dupes dupli rows row recor data datas table show give tell get calcu compu count please pls spend
    spent paid pay value amount sold consu used use uses whole entire there total and or more than also now okay
    just then есть спаси добры здрав приве thank thanks hello млн млрд тыс милли тысяч знак округ decim round digit
    milli billi thous обошл стоил потра запла электр энерг power energ скока скоко запис колич тольк only менял
    измен динам тренд trend chang разны разли уника diffe disti uniqu expen cheap дорог самым самой самую самом был
    была было были скок доля доли долю доле share прихо отдел разде separ apart затра перва первы последн дата даты
    датой когда начин закан конча start begin денег деньг money ушло ушли ушел ушла графи диагр chart graph визуа
    картин цена цены цену price first last earli lates range cover каког идут идет числ дату sort sorte order desc
    asc desce ascen убыва возра сорти отсор упоря перио время общем общег общей проце perce декад singl
    вырос упал упали упало упала сниз снизи увели умень роста росту росто рост приро паден сравн относ grow grew growt
    incre decre drop dropp vs versu compa годом годах годам проти обоше""".split()
) | frozenset(NUMBERS)
