"""What a question asks of an object's versions and deploys (issue 28): two versions compared, the deploy history,
a deploy undone. Data and the one predicate that reads it (``asked_tool``); ``reading`` and ``intents`` use them.
"""

import re

# Two versions of one object compared (issue 28 item 1): a word of comparison with the other side named (an
# environment, a version, a saved copy), in either order. Against git it is the git status (``VERSION_GIT``).
COMPARE_WORDS = (
    r"(отлича\w*|разниц\w*|различ\w*|расхожд\w*|сравни\w*|\bdiff\w*|differ\w*|compar\w*|совпада\w*|the same as"
    r"|\bтак(ой|ая|ое|ие) же\b|identical|идентичн\w*|одинаков\w*|\bdrift\w*|разъехал\w*|(in|out of) sync"
    r"|синхрон\w*)"
)
# An environment's tier word («прод», "staging", "dev"; not «продажи», «девять»): the other side of a comparison, the
# place a copy is looked for.
_TIERS = r"\bprod\w*|\bпрод(?!аж)\w*|staging|стейдж\w*|\bdev\b|\bдев(?!ят)\w*"
OTHER_VERSION = rf"({_TIERS}|окружени\w*|environments?|верси\w*|versions?|копи[яиюей]\w*|бэкап\w*|backups?)"
VERSIONS_COMPARED = re.compile(
    COMPARE_WORDS + r".{0,60}" + OTHER_VERSION + "|" + OTHER_VERSION + r".{0,60}" + COMPARE_WORDS, re.I
)
# Whether the page's object is in another environment too («а этот дашборд есть в ss-dev?», «есть ли такой дашборд
# в ss-dev?», "is this dashboard in prod too?"): its copy there is found and compared (its id there is another one,
# so the page's id is no object of that environment; a QA check listed every dashboard of ss-dev).
_ENVIRONMENT = rf"(ss-dev|{_TIERS})"
PRESENT_ELSEWHERE = re.compile(
    r"\b(этот|эта|это|такой|такая|такое|он|она|this|it)\b(\s+\w+)?\s+(вообще\s+|уже\s+|тоже\s+|также\s+)?"
    r"(есть|имеется|существует|лежит)\s+(и\s+)?(в|на)\s+"
    + _ENVIRONMENT
    + r"|\bесть\s+ли\s+(\w+\s+)?(такой|этот|эта|такая)\s+(\w+\s+)?(вообще\s+|уже\s+)?(и\s+)?(в|на)\s+"
    + _ENVIRONMENT
    + r"|\b(is|does)\s+(this|it)(\s+\w+)?\s+(exist\s+|also\s+|already\s+)?(in|on)\s+"
    + _ENVIRONMENT,
    re.I,
)
# "repo", not "report" («diff the energy report between dev and prod» is two versions, turns_day9 e947).
VERSION_GIT = re.compile(r"\bgit\b|\bгит\w*|репозитор\w*|\bрепо\b|\brepo(s|sitor\w*)?\b|коммит\w*|\bcommit\w*", re.I)


# Whether a change can be undone («если что-то пойдёт не так, миграцию можно откатить?», "can we roll it back
# later?"): a question about the copy saved first, not a request to undo anything (a QA check: refused).
_UNDO_POSSIBLE = (
    r"(можно|получится|сможем|смогу|удастся|возможно(сть)?)\s+(ли\s+)?(\w+\s+){0,2}(откат|вернуть|восстанов)\w*"
    r"|(откат|вернуть|восстанов)\w*\s+(\w+\s+){0,2}(можно|получится|сможем|удастся)"
    r"|\b(can|could)\s+(we|i|it|this|you)\b.{0,30}\b(roll(ed)?\s*back|undo(ne)?|revert(ed)?)\b|\bway back\b"
)
UNDO_POSSIBLE = re.compile(_UNDO_POSSIBLE, re.I)


# Rollbacks asked about, not asked for ("were there any rollbacks of this dashboard in prod?", «были ли откаты на
# проде?», «когда его откатывали?»): the deploy history, which lists them (turns_day15: refused as «rollback»).
ROLLBACKS_ASKED = (
    r"\brollbacks\b|\b(was|were|has|have|had)\b.{0,40}\brolled\s+back\b|\b(any|last|previous|recent)\s+rollback\b"
    r"|\b(был|была|были|было)\s+(ли\s+)?(\w+\s+)?откат\w*|\bоткат(ы|ов|ах|ами)\b|\bоткатывал(и|ся|ась|ось|ись)?\b"
)
# Who deployed what and when (issue 28 item 5): a question about past deploys, not a request for one.
DEPLOY_HISTORY = re.compile(
    r"\b(когда|кто|кем)\b.{0,50}(деплоил|задеплоил|выкатывал|выкатил|катил|выкладывал|выложил|разв[её]ртывал|развернул|переносил|перен[её]с"
    r"|мигрировал|запускал\w* миграц|(выполнял|проводил|делал|запускал)\w*\s+(деплой|деплои|развёртыван|развертыван"
    r"|выкатк|релиз))|истори\w* (деплое|выкат|развёртыван|развертыван|миграци)"
    r"|\bdeploy(ment)? (history|log)\b|\b(when|who)\b.{0,50}\b(deployed|migrated|rolled out|shipped|pushed|promoted"
    r"|released|ran the migration)"
    r"|\bwhen did the last (deploy|migration)"
    # the deploy told first, who asked after («мы вчера задеплоили в прод, … скажи кто это был», a QA check)
    r"|(задеплоил|выкатил|деплоил|выкатывал|выложил|развернул)\w*\b[^?]{0,80}\b(кто|кем)\b"
    rf"|{ROLLBACKS_ASKED}"
    # a migration's runs («история запусков этой миграции — кто и когда запускал?»; a QA check got its preview)
    r"|истори\w* (запуск|прогон)\w*\s+(\w+\s+)?миграц|миграц\w*.{0,40}\bкто\b.{0,20}\bзапускал"  # «когда»: its status
    r"|\b(deployed|shipped|rolled out|promoted)\b[^?]{0,80}\bwho\b"
    r"|\b(какие|сколько)\s+(деплоев|деплои|миграци\w*|выкатк\w*)\b.{0,20}(запускал|делал|выполнял|проводил)\w*"
    # how often it went out («сколько раз его деплоили?», "how many times was it deployed?")
    r"|\bсколько\s+раз\b.{0,30}(деплоил|выкатывал|выкладывал|переносил|мигрировал|разворачивал|развёртывал)"
    r"|\bhow (many times|often)\b.{0,30}\b(deployed|migrated|shipped|rolled out|pushed|promoted|released)"
    # What reached an environment lately ("anything deployed to prod since yesterday?", «что выкатывали вчера»).
    r"|\b(anything|something|what|which dashboards?)\b.{0,30}\b(deployed|migrated|shipped|rolled out)\b"
    r"|\b(deploys?|deployments|migrations)\b.{0,30}\b(since|today|yesterday|this week|last week)\b"
    r"|\b(что|чо|чё|че|шо|что-нибудь|что-то|какие дашборды)\b.{0,30}\b(деплоили|задеплоили|выкатывали|выкатили"
    r"|переносили|мигрировали)\b|\b(деплои|деплоев|выкатки|выкаток)\s+(за|с|со)\s+(сегодня|вчера|недел|последн|понедельн)",
    re.I,
)


# Undo a deploy or migration from the copy saved before it (issue 28 item 4): a write, not a question about it
# (``ROLLBACKS_ASKED`` anywhere in the text asks about past rollbacks, ``UNDO_POSSIBLE`` whether one can be done).
ROLLBACK = re.compile(
    rf"^(?![\s\S]*(?:{ROLLBACKS_ASKED}|{_UNDO_POSSIBLE}))[\s\S]*?(?:"
    r"\b(откат\w*|откати\w*)\b.{0,60}(деплой|деплоя|выкат\w*|миграци\w*|релиз\w*|прод\w*|\bprod\b|копи\w*)"
    # «откати этот дашборд», «откати его к прошлой версии», a bare «откати» on a dashboard's page (a fresh check:
    # «Этого я сделать не могу («откати»)» above a list that names the rollback)
    r"|\bоткати(те)?\b.{0,40}(дашборд\w*|\bего\b|\bеё\b|\bэто\b|изменени\w*|верси\w*)|^\W*откати(те)?\W*$"
    r"|\bотмени\w*\b.{0,40}(деплой|деплоя|выкат\w*|последн\w* миграци\w*|миграци\w*,? котор)"
    r"|\b(верни\w*|восстанови\w*)\b.{0,60}(как было|из копии|к копии|копи\w* (№ ?)?\d|до (деплоя|выкатки|миграции)"
    r"|назад|обратно|предыдущ\w*|прежн\w*|(прошл|стар)\w* верси\w*)"
    r"|\broll(ing)?[ -]?back\b|\bundo\b.{0,40}\b(deploy\w*|migration|it)\b"
    r"|\brestore\b.{0,40}\b(prod\w*|from (the )?(copy|backup)|copy)\b"
    r"|\brevert\b.{0,40}\b(deploy\w*|prod\w*|migration))",
    re.I,
)


def versions_compared(text: str) -> bool:
    """True when ``text`` compares two versions of one object with the other side named, not against git."""
    return bool(VERSIONS_COMPARED.search(text)) and not VERSION_GIT.search(text)


def asked_tool(text: str) -> str:
    """The tool a question names by what it asks about, whatever its objects: a deploy undone (rollback_deploy),
    two versions compared (compare_versions), past deploys (deploy_history); '' for none."""
    if ROLLBACK.search(text):
        return "rollback_deploy"
    if versions_compared(text) or PRESENT_ELSEWHERE.search(text):
        return "compare_versions"
    return "deploy_history" if DEPLOY_HISTORY.search(text) else ""
