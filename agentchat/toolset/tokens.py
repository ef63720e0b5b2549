"""Words of a question as the reading knows them (issue 16): tokens, typos and Russian prefixes read through.

- a Latin word of 6+ letters is corrected to the vocabulary word it is close to (``difflib`` ratio ≥ 0.8:
  "valdiate", "dashbaord");
- a Russian word whose start is one edit away from a stem of 6+ letters is rewritten with the stem («дошборд»,
  «датасэты»), keeping the stem's first and last letters so an inflection is never taken for a typo; a kind
  noun's last consonant may be written as its voiced or voiceless pair, as it sounds («дашборт», «датасед»);
- a Russian word that is still unknown is read again without its perfective prefix («смигрируй» → «мигрируй»);
- a Russian word typed with a Latin letter that looks the same («датасетe», a Latin "e") is read in Cyrillic
  (``scripts_unmixed``, applied to the whole question before it is read).
"""

import difflib
import functools
import re

from agentchat.toolset.words import (
    ACTION_OBJECTS,
    CHECK_WORDS,
    IMPERATIVE_RU,
    INFINITIVE_RU,
    MAKE_EN,
    MAKE_RU,
    NEGATED,
    NEGATED_AFTER,
    NOT_INFINITIVE_RU,
    OBJECTS,
    PREFIXES_RU,
    SHOW_WORDS,
    SQL_IN_TEXT,
)


def _vocabulary() -> list[str]:
    words = [stem.rstrip("$") for stems in OBJECTS.values() for stem in stems if len(stem.rstrip("$")) >= 5]
    words += ["validate", "validation", "dashboard", "dashboards", "environments", "environment", "descriptions"]
    return sorted(set(words))


VOCABULARY = _vocabulary()


def tokens_of(question: str) -> list[str]:
    """The words of ``question``, case-folded, «ё» read as «е»."""
    return re.findall(r"[\w'-]+", question.casefold().replace("ё", "е"))


def _stems_pattern() -> re.Pattern[str]:
    """One alternation of every stem of ``OBJECTS``, a group per object name, in ``OBJECTS`` order: the regex engine
    tries alternatives left to right, so the first name (and stem) that fits wins, as a loop over them would."""
    groups = []
    for n, stems in enumerate(OBJECTS.values()):
        alternatives = (re.escape(s[:-1]) + r"\Z" if s.endswith("$") else re.escape(s) for s in stems)
        groups.append(f"(?P<o{n}>{'|'.join(alternatives)})")
    return re.compile("|".join(groups))


_STEMS = _stems_pattern()
_NAMES = {f"o{n}": name for n, name in enumerate(OBJECTS)}


@functools.lru_cache(maxsize=4096)
def object_of(token: str) -> str | None:
    """The object name of ``OBJECTS`` whose stem ``token`` starts with (or equals, for a ``$`` stem), or None.

    One precompiled match and a cache of the words seen (issue 17: a loop over the 299 stems took 150 µs a call,
    about a fifth of a turn's own CPU)."""
    found = _STEMS.match(token)
    return None if found is None or found.lastgroup is None else _NAMES[found.lastgroup]


@functools.lru_cache(maxsize=4096)
def unprefixed(token: str) -> str:
    """A Russian ``token`` without its perfective prefix when only the rest is a known word («смигрируй» →
    «мигрируй», «перепроверь» → «проверь»); else ``token``."""
    if object_of(token) or MAKE_RU.match(token) or CHECK_WORDS.match(token) or not re.match("[а-я]", token):
        return token
    for prefix in PREFIXES_RU:
        rest = corrected(token[len(prefix) :])  # «незакомиченные» → «закоммиченные»
        if (
            token.startswith(prefix)
            and len(rest) >= 4
            and (object_of(rest) or MAKE_RU.match(rest) or CHECK_WORDS.match(rest))
        ):
            return rest
    return token


# Latin letters drawn like Cyrillic ones, as a keyboard left on the wrong layout types them inside a Russian word.
_HOMOGLYPHS = str.maketrans("aceopxyKMHTBACEOPX", "асеорхуКМНТВАСЕОРХ")
_MIXED_WORD = re.compile(r"\b(?=\w*[а-яё])(?=\w*[a-z])\w+\b", re.IGNORECASE)


def scripts_unmixed(text: str) -> str:
    """``text`` with each word that mixes Cyrillic and Latin letters written in Cyrillic where a Latin letter has a
    Cyrillic twin («датасетe» → «датасете»); a word with a Latin letter that has none («sqlзапрос») is kept."""

    def unmixed(match: re.Match[str]) -> str:
        word = match.group(0).translate(_HOMOGLYPHS)
        return match.group(0) if re.search("[a-z]", word, re.IGNORECASE) else word

    return _MIXED_WORD.sub(unmixed, text)


# A title in the other quotes people type: German-style „…“, English “…” and ‘…’ (an apostrophe is ’ alone).
_OTHER_QUOTES = re.compile(r"„([^“”„\n]+)[“”]|“([^“”\n]+)”|‘([^‘’\n]+)’")


# A title in straight quotes ("Обзор регионов", 'Обзор регионов'): not inside a word (an apostrophe: "I'll").
_STRAIGHT_QUOTES = re.compile(r"(?<![\w\"'])\"([^\"\n]{2,80})\"(?![\w\"])|(?<![\w'\"])'([^'\n]{2,80})'(?!\w)")


def quotes_unified(text: str) -> str:
    """``text`` with a title in „…“, “…”, ‘…’ or straight quotes put in «…», the quotes the title readers know («в
    „Обзоре регионов“ сколько графиков?» → «в «Обзоре регионов» …», a fresh check: `deploy "Обзор регионов" to
    prod` deployed the page's dashboard); straight quotes are kept in a text with SQL (its literals, identifiers)."""
    text = _OTHER_QUOTES.sub(lambda m: f"«{next(g for g in m.groups() if g)}»", text)
    if SQL_IN_TEXT.search(text):
        return text
    return _STRAIGHT_QUOTES.sub(lambda m: f"«{next(g for g in m.groups() if g)}»", text)


@functools.lru_cache(maxsize=4096)
def corrected(token: str) -> str:
    """``token`` or the vocabulary word it is a typo of (Latin words of 6+ letters: ``difflib`` ratio ≥ 0.8;
    Russian ones: ``_stem_typo``)."""
    if len(token) < 6 or object_of(token) or MAKE_EN.match(token) or SHOW_WORDS.match(token):
        return token  # a known verb is no typo ("publish" is not "published")
    if any(c.isdigit() for c in token):
        return token  # an id or a name ("ss-dev2", "a1b2c3"): the vocabulary has no digits
    if not token.isascii():
        return _stem_typo(token)
    close = difflib.get_close_matches(token, VOCABULARY, n=1, cutoff=0.8)
    if not close or close[0].rstrip("s") == token.rstrip("s"):
        return token  # "feature" is not a typo of "features": another word's plural or singular is kept
    return close[0]


def _stem_typo(token: str) -> str:
    """A Russian ``token`` whose start is one edit away from a stem of 6+ letters («дошборд», «датасэты»,
    «дашбоард»), rewritten with that stem; else ``token``.

    Russian endings change with case and number, so the edit must keep the stem's first and last letters (an
    inflected «проверь» is not a typo of «проверк», nor «коммент» of «коммит»), and a verb form is never
    corrected."""
    if MAKE_RU.match(token) or CHECK_WORDS.match(token) or SHOW_WORDS.match(token):
        return token
    for stem in RU_STEMS:
        n = len(stem)
        head = token[:n]
        if stem in KIND_STEMS and head[:-1] == stem[:-1] and VOICE_PAIRS.get(head[-1:]) == stem[-1]:
            return stem + token[n:]  # «дашборт», «дашборта»: the final consonant as it sounds
        if len(head) == n and head[0] == stem[0] and head[-1] == stem[-1]:
            diff = [i for i in range(n) if head[i] != stem[i]]
            swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and head[diff[0]] == stem[diff[1]]
            if len(diff) == 1 or (swapped and head[diff[1]] == stem[diff[0]]):
                return stem + token[n:]
        longer = token[: n + 1]  # one letter too many
        if (
            len(longer) == n + 1
            and longer[-1] == stem[-1]
            and any(longer[:i] + longer[i + 1 :] == stem for i in range(1, n))
        ):
            return stem + token[n + 1 :]
        shorter = token[: n - 1]  # one letter missing
        if shorter[-1:] == stem[-1] and any(stem[:i] + stem[i + 1 :] == shorter for i in range(1, n - 1)):
            return stem + token[n - 1 :]
    return token


RU_STEMS = sorted(
    {stem for stems in OBJECTS.values() for stem in stems if len(stem) >= 6 and "$" not in stem and not stem.isascii()},
    key=lambda stem: (-len(stem), stem),
)
# The kind nouns (a bare dashboard or dataset), whose final consonant is often written as it sounds: «дашборт».
KIND_STEMS = frozenset(s for s in RU_STEMS if s in OBJECTS["dashboard"] + OBJECTS["dataset"])
VOICE_PAIRS = dict(zip("дтбпгкзсвфжш", "тдпбкгсзфвшж", strict=True))


def unnegated(question: str) -> str:
    """``question`` without its negated actions («не деплой пока, скажи что в нём» → «пока, скажи что в нём»):
    a negated imperative, infinitive or check verb, or the noun of an action («без коммита», "without a
    deploy"), is not asked for, also when the negation follows it («откатывать не надо»). Other negations stay
    («какие дашборды не опубликованы»).

    Returns:
        The text with each such negation and its word removed (the text itself when there is none).
    """

    def action(text: str) -> bool:
        word = unprefixed(corrected(text.casefold().replace("ё", "е")))
        return bool(
            MAKE_RU.match(word)
            or MAKE_EN.match(word)
            or IMPERATIVE_RU.match(word)
            or CHECK_WORDS.match(word)
            or (INFINITIVE_RU.match(word) and not NOT_INFINITIVE_RU.search(word))
            or object_of(word) in ACTION_OBJECTS
        )

    def drop(match: re.Match, group: int | None = None) -> str:
        return " " if action(match.group(group or match.lastindex or 0)) else match.group(0)

    return NEGATED_AFTER.sub(lambda m: drop(m, 1), NEGATED.sub(drop, question))
