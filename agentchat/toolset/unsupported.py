"""Requests no tool can do (seed AGTL-FR-006; issue 29 item 1): delete, rename, grant rights, draw a chart, make a
dashboard or a user, stop running work, merge or push branches, connect a database, switch an environment on. The
offline planner says so in one sentence, with what can be done in Superset itself, instead of calling the nearest
read tool.
"""

import re

from agentchat.toolset.clauses import IF_CLAUSE, QUOTED, main_clause
from agentchat.toolset.morphology import past_ru
from agentchat.toolset.tokens import unnegated
from agentchat.toolset.versions import DEPLOY_HISTORY, ROLLBACK, UNDO_POSSIBLE

REQUESTS_WITHOUT_TOOL = re.compile(
    r"\b(удали\w*|удалить|удалю|снеси|снесу|переимену(ю|ем)|delete|remove|drop|переименуй\w*|rename|откат\w*|rollback"
    r"|roll back|revert|"
    r"восстанови\w*|restore|"
    # «дай права» grants; «дай список ролей» asks to see (a list, an overview follows the verb).
    r"(дай|выдай|назначь|отбери|забери)\w* (?!(мне |нам )?(список|перечень|обзор|сводк|отч[её]т|инф))\S.*"
    r"(прав|рол|доступ)\w*"
    r"|(?<!permission\s)(?<!the\s)\bgrant\b|revoke|"  # "permission grants", "the grants on it": what is granted
    # "give petrov the engineer role", "make her an admin" (day set d44 read a permissions audit instead)
    r"\b(give|assign)\s+\w+\s+(the\s+|an?\s+)?(\w+\s+)?(role|rights|access)\b|\bmake\s+\w+\s+an?\s+(admin|engineer|analyst)\b|"
    r"(создай|сделай|нарисуй|добавь|построй|постройте|нарисуйте) ((мне|нам|ещё|еще|один|одну) )?(нов\w+ )?"
    r"(график|чарт|диаграмм)"
    r"|create (a )?(new )?chart|\b(draw|plot|build)\s+(me\s+)?(a\s+)?(new\s+)?(chart|graph|plot)\b|"
    # Branches merged or pushed to a remote: the repositories are agentchat's own, with no remote (DESIGN §8 git).
    r"\b(с?мерджи|смёрджи|замерджи|merge)\b|"
    r"\bpush\w*\b.{0,40}\b(remote|gitlab|github|origin)\b|запушь\w*.{0,40}(gitlab|github|гитлаб|remote|origin)|"
    r"(измени|поменяй) (цвет|график|фильтр|sql датасета)|change the (colou?r|chart|filter)|"
    # a chart's type changed ("turn the population table into a bar chart", «переделай таблицу в столбчатую»)
    r"\b(turn|convert|change|switch|make)\b.{0,60}\binto\b.{0,20}\b(chart|graph|pie|bars?|lines?)\b"
    r"|(переделай|преврати|перестрой|поменяй)\w*\b.{0,60}\bв\s+(виде\s+)?(\w+\s+)?(график|диаграмм|столбч|кругов|линейн))",
    re.I,
)


# Requests for what no tool makes or does, read only when the request names no description or review (which
# run_llm_documentation and run_llm_validation make: «добавь описание в дашборд», «обнови описания колонок»).
NOT_MADE = re.compile(
    r"("
    # Objects no tool makes or edits: dashboards, users, a dataset's metrics and columns, a saved plan's contents
    # (a fresh aspects set: «создай новый дашборд …», «заведи … пользователя», «добавь в датасет метрику …»,
    # «добавь в план ещё …», "add a chart …" were asked back for a dataset's table or shown a summary).
    # («создай ветку feature/x под этот дашборд», «сделай бэкап дашборда»: what is made is named first)
    r"(созда[йт]|сделай|заведи|добавь)\w* ((?!описани|список|перечень|документ|ветк|бэкап|бекап|копи|коммит)"
    r"\S+ ){0,4}"
    r"(нов\w+ )?(дашборд|дашборды"
    r"|дашик|пользовател[яей]\w*|юзер[ао]?|метрик[уи]|колонк[уи])\b"
    r"|добав(ь|им|ьте|ите)\w* (\S+ )?в (\S+ )?(план|plan|датасет|дашборд)\w*|"
    # a saved plan's dashboards are chosen when it is made («можешь отредактировать план?», turns_day11 g1127)
    r"(отредактир|редактир|измени|поменя|поправ)\w* (\S+ )?(план|plan)\b|\b(edit|change|modify)\s+(the\s+|this\s+)?"
    r"(migration\s+)?plan\b|"
    r"\b(create|add|make)\s+(a |an |the )?(new )?(\w+ )?(dashboard|chart|user|metric|column)s?\b|"  # "add a gdp column"
    r"(обнови|синхронизируй|пересинхронизируй)\w* (\S+ )?колонк\w*|\bsync\w*\s+(the\s+)?columns|"
    # A database's own schema: indexes and tables are made in the database, not through Superset's SQL Lab, which
    # runs reads here (turns_day11 g1137: "create an index … the region filter is slow" was told about run times).
    r"(созда[йт]|сделай|добавь|построй|удали|дропни)\w* (\S+ ){0,2}индекс\w*"
    r"|\b(create|add|build|drop)\s+(an?\s+|the\s+)?(\w+\s+)?ind(ex|exes|ices)\b|\b(alter|drop|truncate|create)\s+table\b|"
    # Running work stopped, a repository's branches merged: nothing does it (a backup's «отмени» is no rollback).
    r"(отмени|останови|прерви)\w* (\S+ )?(бэкап|бекап|задач)\w*|"
    r"\b(cancel|stop|abort|kill)\b.{0,20}\b(backup|task|job)s?\b|"
    # The repositories are local to agentchat (no remote), databases are connected and environments switched on in
    # Superset or the admin site.
    r"подключи\w* (\S+ ){0,2}баз[уы]\b|(добавь|заведи)\w* нов\w+ баз[уы]\b"
    r"|\b(connect|add)\s+(a |the )?(new )?database\b|"
    r"(включи|активируй|выключи|отключи)\w* (\S+ )?(staging|стейдж\w*|окружени\w*)|"
    r"\b(enable|disable|turn on|turn off)\s+(the\s+)?(staging|environment)\b|"
    r"(почисти|очисти)\w* .{0,20}(бэкап|бекап|копи)\w*|\b(clean ?up|purge|prune)\b.{0,20}\bbackups?\b|"
    # A table's rows copied between databases: a deploy or migration moves Superset's objects, never the data
    # («скопируй заодно и данные energy_consumption в базу на проде» showed the migration's card).
    r"(скопируй|перенеси|перелей|залей|загрузи|выгрузи|синхронизируй)\w* (\S+ ){0,3}(данн\w+|строк\w*|записи)\b"
    r"|\b(copy|move|migrate|load|sync)\s+(over\s+)?(the\s+)?(table\s+)?(data|rows|records)\b|"
    # Work paused or resumed: a tool's run is not held (scheduled runs and notifications are aspects of their own,
    # aspects.yaml, answered with the nearest read).
    r"(поставь|поставить)\w* (\S+ )?на паузу|приостанови\w*|возобнови\w*|\b(pause|resume)\b"
    r")",
    re.I,
)
DOCUMENTED = re.compile(r"описани|документ|коммент|ревью|валидац|description|document|\bdocs\b|review", re.I)


def request_without_tool(question: str) -> str | None:
    """Return the phrase of a request no tool can do (delete, rename, grant rights, draw a chart), or None.

    What a condition clause supposes ("if I dropped it", «если удалить») or a precondition names («есть
    незакоммиченное? перед откатом хочу знать», ``main_clause``) is not asked for (turns_day10 f1059 refused «откатом»);
    undoing a deploy or migration has a tool (``ROLLBACK``: rollback_deploy), undoing anything else has none."""
    if ROLLBACK.search(question) or DEPLOY_HISTORY.search(question) or UNDO_POSSIBLE.search(question):
        return None  # undone, asked about, or whether it can be: tools of their own (the copy saved, the history)
    asked = unnegated(IF_CLAUSE.sub(" ", main_clause(QUOTED.sub(" ", question))))  # «откатывать не надо»: not asked
    patterns = [REQUESTS_WITHOUT_TOOL] if DOCUMENTED.search(asked) else [REQUESTS_WITHOUT_TOOL, NOT_MADE]
    for pattern in patterns:
        match = next((m for m in pattern.finditer(asked) if not _past(asked, m)), None)
        if match:
            return match.group(0)
    return None


def _past(text: str, match: re.Match[str]) -> bool:
    """The match's verb is said in the past ("I renamed a chart yesterday", «я вчера удалил график»): what was done,
    no request (turns_day12 h1263 was refused «rename»)."""
    head = re.match(r"\w+", match.group(0))
    word = re.match(r"\w+", text[match.start() :])
    if head is None or word is None:
        return False
    tail = word.group(0)[len(head.group(0)) :].casefold()
    if head.group(0).isascii():
        return tail in ("d", "ed", "ped")
    return past_ru(word.group(0).casefold())
