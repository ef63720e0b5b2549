"""Which language the user writes in: the UI is Russian first, English second.

``detect_language`` is the one language decision of a turn (DESIGN §5); everything the user sees in that turn is
then produced under ``translation.override`` of it (Django i18n, ``locale/ru``).
"""

import re
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import get_language_info

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")
# Text that is not prose: quoted code, SQL, and tokens such as feature/energy-report, energy_consumption,
# ss-dev or Energy.main — English-looking names inside a Russian sentence must not make it English.
_CODE = re.compile(
    r"`[^`]*`"
    r"|\b(select\b[^;]{0,500}?\bfrom|with\s+\w+\s+as\s*\(|(create|drop)\s+(or\s+replace\s+)?(table|view|index)|"
    r"delete\s+from|update\s+\w+\s+set|insert\s+into|alter\s+table|pragma|attach\s+database|truncate|"
    r"grant\s+\w+\s+on)\b[\s\S]*"
    r"|(?<!\S)\S*[/_.\\-]\S*",  # anchored at a token's start: linear in the token's length
    re.I,
)
# Quoted names («Отчёт по энергопотреблению», "…", “…”, „…“) are the objects' own names, not the writer's words:
# an English question about a Russian-named dashboard is English.
_QUOTED = re.compile(r"«[^«»]*»|“[^“”]*”|„[^„“”]*[“”]|\"[^\"]*\"")
# A Russian word of three letters or more, or a one- or two-letter word standing alone (a preposition or a
# particle: «в prod», «на staging», «и dev»): English prose practically never contains one.
_RUSSIAN_WORD = re.compile(r"[\u0400-\u04ff]{3,}|(?<!\w)[\u0400-\u04ff]{1,2}(?!\w)")
# A language asked for in so many words ("And in English please: сколько …?", «ответь по-русски»): the answer's
# language whatever the rest is written in. The phrase with its «и»/"and" and «пожалуйста»/"please" is no part of
# the question itself (``ASKED_LANGUAGE.sub`` leaves the question).
ASKED_LANGUAGE = re.compile(
    r"(?<!\w)((and|also|а|и)\s+)?((answer|reply|write|respond)\s+)?(in\s+(?P<en>english)|in\s+(?P<ru>russian)"
    r"|по-(?P<en2>английски)|по-(?P<ru2>русски)|на\s+(?P<en3>английском)|на\s+(?P<ru3>русском)(\s+языке)?"
    r")(\s+языке)?(,?\s+(please|pls|пожалуйста|плиз))?(?!\w)",
    re.I,
)


def _prose(text: str) -> str:
    """The writer's own words of ``text``: without code, SQL, identifiers and (unless that leaves no letters)
    quoted names."""
    prose = _CODE.sub(" ", text or "")
    unquoted = _QUOTED.sub(" ", prose)
    return unquoted if _LATIN.search(unquoted) or _CYRILLIC.search(unquoted) else prose


def says_language(text: str) -> bool:
    """Whether ``text`` tells which language its writer speaks: a Russian word, or at least two Latin words of
    prose. A lone Latin word («prod», "staging", "ok") or nothing but names and code is what a Russian writer
    answers too (the answer to «В какое окружение?»)."""
    prose = _prose(text)
    return bool(_RUSSIAN_WORD.search(prose)) or len(re.findall(r"[A-Za-z]+", prose)) >= 2


def conversation_language(messages: Sequence[str], default: str | None = None) -> str:
    """The language of a conversation's last user message (``messages``, oldest first): ``detect_language`` of
    the latest message that ``says_language``, so a one-word follow-up keeps the language the conversation was in;
    when none does, ``default`` (the page's language, from the socket's handshake: a first message «prod» on a
    Russian page is Russian), else ``detect_language`` of the last one ("ru" without messages)."""
    for message in reversed(messages):
        if says_language(message):
            return detect_language(message)
    return default or detect_language(messages[-1] if messages else "")


# English prose may carry a Russian name typed without quotes ("… with the Москва filter applied?", "who pushed
# Обзор регионов to prod?"): it stays English when it has at least this many English words, and this many times
# as many as Russian ones («задеплой dashboard в prod» is Russian).
ENGLISH_WORDS_MIN, ENGLISH_WORDS_RATIO = 5, 3


def _english_around_names(prose: str, russian_words: int) -> bool:
    """True when ``prose`` (with ``russian_words`` Russian words) is English holding a few Russian names: it starts
    with an English word («покажи last deploys …» starts in Russian) and has enough of them."""
    first = re.search(r"[A-Za-z\u0400-\u04ff]+", prose)
    if first is None or _CYRILLIC.match(first.group(0)):
        return False
    english = len(re.findall(r"\b[A-Za-z]{2,}\b", prose))
    if english >= 2 and _only_names(prose):
        return True  # every Russian word a name: "avg_price for Республика Татарстан in 2025?" (a QA check)
    return english >= ENGLISH_WORDS_MIN and english >= ENGLISH_WORDS_RATIO * russian_words


def _only_names(prose: str) -> bool:
    """Every Russian word of ``prose`` is part of a name: capitalised, or a lower-case word right after a capitalised
    Russian one («Обзор регионов», «Республика Татарстан»)."""
    words = re.findall(r"[A-Za-z\u0400-\u04ff]+", prose)
    for before, word in zip(["", *words], words, strict=False):
        if _CYRILLIC.match(word) and word[0].islower() and not (_CYRILLIC.match(before) and before[0].isupper()):
            return False
    return True


def detect_language(text: str) -> str:
    """Return ``"en"`` when ``text`` has more Latin than Cyrillic letters in its prose, else ``"ru"`` (the
    default). Code, SQL (from its first keyword on) and identifiers (``feature/x``, ``energy_consumption``,
    ``ss-dev``) are not counted; a text that is nothing but those is Russian; prose with a Russian word is
    Russian (a word of three letters or more, or a short one standing alone: «в prod», the answer to «В какое
    окружение?») unless it is English prose around a few Russian names (``_english_around_names``). Quoted names
    («…», "…", “…”, „…“) are not counted either, unless the text has no letters outside them (a whole message in
    quotes). A language asked for in so many words (``ASKED_LANGUAGE``: "in English please", «по-русски») is the
    answer."""
    asked = ASKED_LANGUAGE.search(text or "")
    if asked:
        return "en" if asked["en"] or asked["en2"] or asked["en3"] else "ru"
    prose = _prose(text)
    russian = _RUSSIAN_WORD.findall(prose)
    if russian:
        return "en" if _english_around_names(prose, len(russian)) else "ru"
    if not _LATIN.search(prose) and not _CYRILLIC.search(prose):
        return "ru"  # nothing but code or SQL says nothing of the writer: the UI's first language
    latin = len(_LATIN.findall(prose))
    cyrillic = len(_CYRILLIC.findall(prose))
    return "en" if latin > cyrillic else "ru"


def in_language(language: str | None) -> AbstractContextManager[object]:
    """A context in which gettext speaks ``language`` (``ru``/``en``), or the active language when None or empty.

    ``translation.override(None)`` would deactivate translation altogether (English msgids), so a function that
    takes an optional language enters this instead. The turn and each background job already run under
    ``translation.override`` of their language (``turn.agent``, ``runtime.background``); an explicit language
    makes a function right on its own too (a card rendered later in its stored language).
    """
    return translation.override(language) if language else nullcontext()


def language_name(language: str | None) -> str | None:
    """Django's English name of ``language`` («Russian», «English»: ``get_language_info``) when it is one of
    ``settings.LANGUAGES``, else None. What the model is told to answer in (issue 16): the instructions it reads
    are English, so the language is named in English."""
    if language not in dict(settings.LANGUAGES):
        return None
    return str(get_language_info(language)["name"])


def socket_language(scope: Mapping[str, Any]) -> str:
    """The language of the page that opened the socket, as ``LocaleMiddleware`` chose it for that page: the
    language cookie, else the handshake's ``Accept-Language``, else ``LANGUAGE_CODE`` (``ru``).

    Errors that belong to no message or card (a malformed frame, an unknown card) are written in it; a turn
    speaks its message's (``conversation_language``: the page's for one that says nothing of it, «prod»).
    """
    request = HttpRequest()
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
    request.META["HTTP_ACCEPT_LANGUAGE"] = headers.get("accept-language", "")
    request.COOKIES = dict(scope.get("cookies") or {})
    return translation.get_language_from_request(request) or settings.LANGUAGE_CODE
