"""Clauses of a question that say when or on what condition, not what is asked now (the reading's rules read the
question without them): a precondition or purpose («перед миграцией», "so that I can…"), a next step on a condition
(«… и если всё ок, то закоммить», "… and then deploy it"), a hypothetical condition ("if I dropped it").
"""

import re

from agentchat.toolset.verbs import told_to

# Precondition and purpose clauses: what is to happen later («перед миграцией», "before I deploy", «…, чтобы
# добавить их в миграцию», "so that I can…") is not what is asked now; a request in a later sentence is
# (``main_clause``).
# «перед последним изменением», "before the last deploy": a time in the past, which the question asks about
# (turns_day11 g1169: «Подтвердите, что перед последним изменением … была сохранена копия» read no request).
_PAST = r"(?!\s+(the\s+|its\s+|this\s+)?(последн|прошл|предыдущ|вчерашн|last\b|previous|yesterday))"
BEFORE_CLAUSE = re.compile(
    rf"(?<=.)\s*[,(]?\s*\b(before|перед|прежде чем|чтобы|so that|in order to)\b{_PAST}.*$", re.I | re.S
)
# The same said first: up to its comma or colon («Перед тем как деплоить, проверь …», "before I run this: is …?"),
# else the word it governs («Перед релизом прогони валидацию …», "Before release, …"): the request follows it
# (turns_day6 y51 read no request).
LEADING_BEFORE = re.compile(
    r"^\s*(?:(?:перед тем,? как|прежде чем|before (?:i|we|you|they|it|\w+ing)\b)[^,.?!:]{0,60}[,:]"
    # after a greeting, up to a colon: "hi! before the standup: who owns …?" (a QA check read no request)
    r"|(?:hi|hello|hey|привет)[!.,]+\s*(?:before|перед)\s[^,.?!:]{0,40}:"
    r"|(?:перед|before)\s+\S+)\s*",
    re.I,
)


def main_clause(question: str) -> str:
    """``question`` without what it says is to happen later (``BEFORE_CLAUSE`` after the request, ``LEADING_BEFORE``
    before it); the whole question when nothing else is left. An imperative in a sentence after the clause is kept:
    «…что перед любыми правками нужно заводить ветку. Создайте, пожалуйста, ветку под задачу BI-214» asks for the
    branch (turns_day10 f1001 was not understood)."""
    text = LEADING_BEFORE.sub("", question).strip()
    clause = BEFORE_CLAUSE.search(text)
    if clause is None:
        return text or question
    later = re.split(r"(?<=[.!])\s+", clause.group(0), maxsplit=1)
    request = later[1] if len(later) == 2 and told_to(later[1]) else ""
    return ". ".join(p for p in (text[: clause.start()], request) if p) or question


# Quoted text is a name or a message, not a request («закоммить, commit message: «charts: fix source pie labels»»
# was refused «fix», turns_day12 h1257).
QUOTED = re.compile(r"«[^«»]*»|“[^“”]*”|\"[^\"]*\"|`[^`]*`")


# A next step on a condition («прогони валидацию и если всё ок то закоммить», "validate it and if it passes, commit")
# or after it («нужна ветка release/2.5, и сразу закоммить»): the first action is asked first; the next one waits.
THEN_CLAUSE = re.compile(
    r"\s*,?\s*\b((и|а|and)\s+(если|как только|сразу|if|once|as soon as)|(and\s+)?then"
    r"|(а\s+|и\s+)?(потом|затем|после этого))\b.*$",
    re.I | re.S,
)
# A condition clause is hypothetical: "which charts would break if I dropped it?", «что сломается, если удалить
# датасет?» ask what would happen, not for the deletion (up to the clause's end: «если можно, удали …» still asks).
IF_CLAUSE = re.compile(r"\b(if|если|в случае)\b[^,.;?!]*", re.I)
# The person says they have seen a migration's preview or a comparison («превью смотрел, всё ок. запускай», "I've
# checked the preview", "ok the diff looks fine, ship it to prod"): no preview or comparison is shown again before
# the card (turns_day5 x35, x60; turns_day11 g1139).
# The English noun in a Russian sentence counts too («запускай миграцию, preview я уже смотрел», turns_day12 h1203).
_SEEN_WHAT = r"(превью|предпросмотр|дифф?|сравнение|preview|diff)"
_WHO = r"((я|мы)\s+)?(уже\s+)?"
PREVIEW_SEEN = re.compile(
    rf"({_SEEN_WHAT}\w*\s+{_WHO}(смотрел|видел|глянул|посмотрел|проверил)\w*"
    rf"|(смотрел|видел|глянул|посмотрел|проверил)\w*\s+{_WHO}{_SEEN_WHAT}"
    r"|\b(checked|seen|saw|reviewed|looked at|went through)\s+(the\s+)?(preview|diff|comparison)"
    r"|\b(the\s+)?(preview|diff|comparison|changes)\s+(looks?|seems?|is|are)\s+(fine|good|ok|okay|right|great)\b"
    r"|^\W*(looks|seems)\s+(fine|good|ok|okay|great)\b|^\W*(lgtm|all good)\b"  # "looks good, ship it" (a QA check)
    r")(,?\s*(и\s+)?(всё|все)\s+(ок|окей|хорошо|норм\w*|в порядке)\b)?",
    re.I,
)


# The first word of a request said after a question («…? list the targets», «…? глянь»): no context, a request.
_REQUEST_HEAD = re.compile(
    r"^\W*(list|show|give|tell|check|run|find|compare|глянь|покажи|посмотри|дай|скажи|проверь|найди|сравни|выведи)\b",
    re.I,
)


def question_before_context(text: str) -> str | None:
    """The question of ``text`` when only context follows it, or None: «who can read this dataset? I'm about to
    change column types» (what follows the «?» says why, and the objects it names are not asked about; turns_day9
    e911). None with no «?», with another «?» after it, or when a request follows («…? list the targets»)."""
    asked, mark, context = text.partition("?")
    if not mark or not context.strip() or "?" in context or _REQUEST_HEAD.match(context):
        return None
    return asked


# A request word in a sentence before a question («Запусти бэкап. Он уже готов?»): that sentence asks for something.
_REQUEST_WORD = re.compile(
    r"(?<!\w)(сделай|создай|запусти|выполни|задеплой|перенеси|покажи|проверь|найди|глянь|дай|скажи|please|pls"
    r"|run|deploy|make|create|show|check|find|give|tell|хочу|хотим|хотел|нужн|надо|прошу|want|need|would like)\w*(?!\w)"
    r"|\w+(и|й|ь)(те)?(?=[\s,]+пожалуйста)",  # a wish is a request too («хочу свой датасет: …. создашь?»)
    re.I,
)


def question_after_context(text: str) -> str | None:
    """The question a message ends with when only statements come before it, or None: «Коллеги просили перенести
    ещё и «Обзор регионов». Скажите, пожалуйста, такой дашборд вообще есть в ss-dev?» asks whether it exists (the
    reported request is its context; turns_day8 d835 read a migration's plan). None for one sentence, with no «?» at
    the end, or when a sentence before it asks or requests something."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p]
    if len(parts) < 2 or not parts[-1].endswith("?"):
        return None
    before = " ".join(parts[:-1])
    if "?" in before or _REQUEST_WORD.search(before):
        return None
    return parts[-1].rstrip("?")
