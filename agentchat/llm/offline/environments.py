"""Which environments a question names (offline planner, DESIGN §11): ids and tier words («прод», "staging"),
which is the source («из X») and the target («в Y»), never the words of a quoted title. Pure functions of the text
and of the active environments ``[(env_id, tier)]``.
"""

import difflib
import re

QUOTED = re.compile(r"«([^»]{1,200})»|“([^”]{1,200})”|\"([^\"]{1,200})\"|'([^']{2,200})'")

# Words meaning an environment tier.
TIER_WORDS = {
    # «прод» and its case forms, not every word it starts («продукты», «продвижение», «продолжи»).
    "prod": r"прод(?:а|у|е|ом|ов(?:ый|ая|ое|ой|ом|ую|ые|ых|ого|ому))?|продакшн\w*|продакшен\w*|production|\bprod\b"
    r"|боев\w*|продуктивн\w*\s+(?:сред|контур|окружени|стенд)\w*",
    "staging": r"стейдж\w*|стейджинг\w*|staging",
    "dev": r"\bdev\b|\bдев(?:а|у|е|ом)?\b|разработк\w*",
}
# A hyphenated word with a tier in it («ss-prod», «прод-2», "prod-eu"): an environment's name, if one exists.
_ENV_LIKE = re.compile(r"(?<![\w-])(?:\w+-)+\w+(?![\w-])")
TIER_PART = re.compile(r"prod\w*|прод\w*|dev|дев\w*|stag\w*|стейдж\w*", re.I)
# Parts that make a hyphenated word an environment's name though no tier is in it ("uat-7", "qa-env").
_ENV_PART = re.compile(r"uat|qa|env|sandbox", re.I)
# A Russian word beside the tier («prod-репозитории», «прод-база») makes a compound of what it names: no name.
_WORD_PART = re.compile(r"[а-яё]{4,}", re.I)
# A name said right after the environment's noun («в окружение uat7», "to the environment blue"): its name.
_ENV_AFTER_NOUN = re.compile(r"(?:окружени[еяию]|environment|env)\s+([A-Za-z][\w-]*)", re.I)
_NOT_A_NAME = frozenset(
    {"selector", "switcher", "list", "page", "here", "please", "pls", "is", "are", "of", "for", "name", "names", "id"}
)  # "I'll type the env name" names none (turns_day9 e903)
# Environment names without a tier word of their own, or with a number after it ("prod2", "preprod", "uat"), and
# the words that are one only after a preposition ("on test", «на тесте»): a fresh check saw each replaced by the
# page's environment silently.
_ENV_NAME = re.compile(
    r"(?<![\w-])(?:(?:pre-?)?(?:prod|dev|stag\w*|прод|дев)\d+|pre-?prod\w*|препрод\w*|uat)(?![\w-])",
    re.I,
)
_ENV_AFTER_PREPOSITION = re.compile(
    r"(?<![\w-])(?:в|во|на|из|to|into|on|from)\s+(?:the\s+)?(test|testing|qa|sandbox|тест(?:е|ов\w*)?|песочниц\w*)"
    r"(?=\s*(?:$|[.,!?;:)]|env|environment|окружени\w*|стенд\w*|сред\w*|please|pls|плиз|пожалуйста))",
    re.I,
)
# A word after a preposition of place that is a typo of an environment's id or tier ("to prdo", "on stagign"):
# said not to exist, with the active ones, never taken for one (a fresh check asked «to which environment?»).
# «в прд», «на прде»: three letters are enough for a typo of «прод»
_AFTER_PLACE = re.compile(r"(?<![\w-])(?:to|into|on|in|from|в|во|на|из)\s+([A-Za-z][\w-]{2,}|[а-яё]{3,})", re.I)
_TIERS_RU = frozenset({"прод", "стейдж", "стейджинг"})  # «в прдо»
TYPO_RATIO = 0.75  # difflib's ratio: «prdo» ~ «prod» 0.75, «stagign» ~ «staging» 0.86
_ONE_WORD = re.compile(r"(?:(?:из|from|в|во|на|to|into)\s+)?[\w-]+", re.I)  # “to prod”, «staging»


def titles_blanked(text: str, environments: list[tuple[str, str]]) -> str:
    """``text`` without its quoted names: a title's words («Отчёт 5», «Staging KPIs») name no id and no
    environment. A quote that only gives an environment (“to prod”, as the planner's question writes it) stays; so
    does a possessive's apostrophe ("dashboard 3's dataset")."""

    def blank(match: re.Match[str]) -> str:
        inner = next(g for g in match.groups() if g).strip()
        possessive = match.group(0).startswith("'") and text[max(match.start() - 1, 0)].isalnum()
        only_env = _ONE_WORD.fullmatch(inner) and envs_named(inner, environments)[0]
        return match.group(0) if possessive or only_env else " "

    return QUOTED.sub(blank, text)


def env_for(word: str, environments: list[tuple[str, str]]) -> str | None:
    lowered = word.lower()
    for env_id, _tier in environments:
        if lowered == env_id.lower():
            return env_id
    for tier, pattern in TIER_WORDS.items():
        if re.fullmatch(pattern, lowered, re.I):
            matching = [env_id for env_id, env_tier in environments if env_tier == tier]
            if len(matching) == 1:
                return matching[0]
    return None


# An environment set aside after a comma or instead of another («…, а не на деве», "…, not dev", "instead of
# staging"): not named for the call (a QA check: "the health of this dash on the prod env, not dev" read ss-dev).
NOT_THIS_ENV = re.compile(
    r"(,\s*(but\s+)?not|,\s*(а|но)\s+не|\binstead\s+of|\brather\s+than|(?<!\w)вместо)\s+(the\s+|на\s+|в\s+|in\s+|on\s+)?$",
    re.I,
)


def set_aside_dropped(text: str, environments: list[tuple[str, str]]) -> str:
    """``text`` without the environments it sets aside (``NOT_THIS_ENV``: "how does it look on prod, not on dev?"
    read as a comparison of the two; a QA check), so the rest is read as asked."""
    ids = sorted((re.escape(e) for e, _ in environments), key=len, reverse=True)
    words = "|".join([*ids, *TIER_WORDS.values()])
    aside = NOT_THIS_ENV.pattern.removesuffix("$") + rf"(?<![\w-])(?:{words})(?![\w-])"
    return re.sub(aside, " ", text, flags=re.I)


def envs_named(text: str, environments: list[tuple[str, str]]) -> tuple[list[str], str | None, str | None]:
    """Environments named in ``text``, and which is the source («из X», "from X") and target («в Y», "to Y")."""
    ids = sorted((re.escape(e) for e, _ in environments), key=len, reverse=True)
    tiers = "|".join(TIER_WORDS.values())
    alternatives = "|".join([*ids, tiers]) if ids else tiers
    pattern = re.compile(
        rf"(?:(?P<prep>из|from|с|в|во|на|to|into)\s+)?(?<![\w-])(?P<word>{alternatives})(?![\w-])", re.I
    )
    found, source, target = [], None, None
    for match in pattern.finditer(text):
        env_id = env_for(match.group("word"), environments)
        if env_id is None or NOT_THIS_ENV.search(text[: match.start()]):
            continue  # "on prod, not dev", «на проде, а не на деве»: the one set aside is not named for the call
        if env_id not in found:
            found.append(env_id)
        prep = (match.group("prep") or "").lower()
        if prep in {"из", "from"} and source is None:
            source = env_id
        elif prep in {"в", "во", "на", "to", "into"} and target is None:
            target = env_id
    return found, source, target


def source_environment_named(text: str, environments: list[tuple[str, str]]) -> str | None:
    """The environment ``text`` names, not in a quoted title (issue 29 item 3: taken where the page has none): the one
    it names («сделай бэкап ss-dev», "back up prod"); where it names several, the one it starts from («чем
    отличается … в ss-dev и в prod», «из ss-dev в prod»: the source it names, else the first); None for none."""
    found, source, _target = envs_named(titles_blanked(text, environments), environments)
    return source or (found[0] if found else None)


def unknown_environments_named(text: str, environments: list[tuple[str, str]]) -> list[str]:
    """Hyphenated words of ``text`` that look like an environment's name (a tier in one of their parts: «ss-prod»,
    «прод-2»), or environment names without a tier word («preprod», "prod2", "uat", "on test"), that are no active
    environment's id, and typos of an id or a tier after "to", «в» ("to prdo"), in order, outside quoted titles. Day
    set d35: «какие бэкапы есть в ss-prod?» listed prod's
    backups — its «prod» was read as the prod tier — where no ss-prod exists."""
    ids = {env_id.lower() for env_id, _ in environments}
    text = titles_blanked(text, environments)
    found = [
        (m.start(), m.group(0))
        for m in _ENV_LIKE.finditer(text)
        if any(TIER_PART.fullmatch(part) or _ENV_PART.fullmatch(part) for part in m.group(0).split("-"))
        and not any(_WORD_PART.fullmatch(part) and not TIER_PART.fullmatch(part) for part in m.group(0).split("-"))
    ]
    found += [
        (m.start(1), m.group(1))
        for m in _ENV_AFTER_NOUN.finditer(text)
        if not TIER_PART.fullmatch(m.group(1)) and m.group(1).lower() not in _NOT_A_NAME
    ]
    found += [(m.start(), m.group(0)) for m in _ENV_NAME.finditer(text)]
    found += [(m.start(1), m.group(1)) for m in _ENV_AFTER_PREPOSITION.finditer(text)]
    names = ids | set(TIER_WORDS) | _TIERS_RU
    found += [
        (m.start(1), m.group(1))
        for m in _AFTER_PLACE.finditer(text)
        if not envs_named(m.group(1), environments)[0]
        and not re.fullmatch("|".join(TIER_WORDS.values()), m.group(1), re.I)  # a tier's word, active or not
        and any(difflib.SequenceMatcher(None, m.group(1).lower(), n).ratio() >= TYPO_RATIO for n in names)
    ]
    words: list[str] = []
    for _, word in sorted(found):
        if word.lower() not in ids and word not in words:
            words.append(word)
    return words
