"""Keyword rules and extra example questions of the tool router (DESIGN §11, §12; seed AGTL-FR-006).

The embedding similarity ranks tools by meaning; these rules add what a small embedding model misses: the
imperative vs the question ("закоммить" vs "сохранён ли в git?"), SQL in the text, ids, and the page the user is
on ("this dataset" on a dataset page). Each rule adds its weight to one tool's score; weights are in the units of
cosine similarity (e5 similarities of related texts differ by a few hundredths, so 0.1 is a strong hint).

``request_without_tool`` (``toolset.unsupported``) recognises requests no tool can do (delete, rename, grant
rights…): the offline planner explains them honestly instead of calling the nearest read tool.
"""

import re
from dataclasses import dataclass

from agentchat.toolset.clauses import PREVIEW_SEEN, THEN_CLAUSE, main_clause
from agentchat.toolset.listing import VALUES_LISTED
from agentchat.toolset.reading import CHECK, MAKE, asks_for_review, asks_to_see, read_question, unnegated
from agentchat.toolset.versions import DEPLOY_HISTORY, ROLLBACK, VERSION_GIT, VERSIONS_COMPARED
from agentchat.toolset.weights import intent_scores
from agentchat.toolset.words import TERSE_BACKUP

STRONG, MEDIUM, WEAK = 0.16, 0.09, 0.045


@dataclass(frozen=True)
class Rule:
    """``pattern`` found in the question (case-insensitive) → ``weight`` added to ``tool``'s score.

    Attributes:
        pages: object types of the page where the rule applies (``"none"`` = no object); None = everywhere.
    """

    tool: str
    pattern: re.Pattern
    weight: float
    pages: frozenset[str] | None = None


def _r(tool: str, pattern: str, weight: float, pages: str | None = None) -> Rule:
    return Rule(tool, re.compile(pattern, re.I), weight, frozenset(pages.split()) if pages else None)


# Reusable fragments (Russian stems; English words).
THIS = r"\b(эт(от|ом|ого|у|и|их|а|ой)|его|него|this|it|this one)\b"  # «всего» holds no «его»
DASH = r"(дашборд|отч[её]т|панел|dashboard|report)"
DATASET = r"(датасет|набор\w* данн|dataset)"
# A query made readable (superset_format_sql; and no run of it): «отформатируй», «причеши запрос», "prettify".
FORMAT_WORDS = (
    r"(от)?формат|оформи|читаем|читабельн|в порядок|нормальн\w* вид|красив|отступ|причеш|причес|beautif|\bformat"
    r"|indent|pretty|prettif|tidy|clean ?up"
)
SQL_TEXT = r"(\bselect\b.+\bfrom\b|\bselect\s+(\d|\*|count\()|`[^`]*\bselect\b[^`]*`|\bwith\b\s+\w+\s+as\s*\()"
IMPERATIVE_RU = r"(сделай|создай|заведи|запусти|выполни|примени|добавь|сохрани|зафиксируй)"

RULES: list[Rule] = [
    # --- what the agent can do
    # «вы»: a polite or plural «что вы умеете / чем можете помочь» asks the same (turns_day8 d865)
    _r(
        "show_capabilities",
        r"что (ты |вы )?(умеешь|можешь|умеете|можете)|(чем|с чем) (ты |вы )?(можешь |можете )?помо|возможност",
        STRONG,
    ),
    _r("show_capabilities", r"что (вообще )?можно (у тебя )?(спросить|попросить)|какие .*(действия|команды)", STRONG),
    _r("show_capabilities", r"what (can|are) you|what kinds? of things|your (functions|capabilities|tools)", STRONG),
    _r("show_capabilities", r"how can you help|^\s*(help|помощь|справка)\W*$", STRONG),
    # --- environments
    _r(
        "list_environments",
        r"(окружени[яй]|стенд(ы|ов|ах|ам)?|инстанс(ы|ов|ах)?|енв(ы|ов|ах)?|environments|instances|envs)\b",
        STRONG,
    ),
    _r("list_environments", r"(адрес|url|ссылк)\w* .*(суперсет|superset)|(суперсет|superset)\w* .*(адрес|url)", STRONG),
    _r("list_environments", r"\b(which|what) env\b|staging and|where can i (migrate|deploy)|targets?\b", MEDIUM),
    _r("list_environments", r"боев(ой|ое|ая)", WEAK),
    # --- dashboards: search (plural, lists, a title to look up)
    _r("search_dashboards", r"(найди|найти|поищи|ищи|поиск|есть ли)\b.*" + DASH, STRONG),
    _r("search_dashboards", r"(какие|список|покажи|перечисли)\b.*(дашборд|отч[её]т|панел|черновик)", MEDIUM),
    _r("search_dashboards", r"(дашборд(ы|ов)|отч[её]т(ы|ов)|панел(ей|ями)|черновик(и|ов))\b", MEDIUM),
    _r(
        "search_dashboards",
        r"\b(find|look up|search)\b.*dashboard|\b(list|any|all)\b.*dashboards|dashboards \w+ by",
        STRONG,
    ),
    _r("search_dashboards", r"\b(unpublished|published|draft)\b.*dashboards|dashboards.*\b(unpublished|draft)", MEDIUM),
    # --- dashboards: one dashboard's summary
    _r("get_health_summary", THIS + r".{0,20}" + DASH, MEDIUM, "dashboard"),
    _r(
        "get_health_summary",
        r"(что с|как дела|как пожива|владел|кто .*(мен|созда|влад|сдела|автор)|автор|когда .*мен|график|сколько|"
        r"из каких|откуда .*данн|источник|опубликован|черновик|статус|состояни|расскаж|сводк|итог|результат|"
        r"сохран[её]н)",
        MEDIUM,
        "dashboard",
    ),
    _r(
        "get_health_summary",
        r"\b(health|owns?|owner|charts?|published|status|summar\w*|tell me about|overview|state|who (made|created|"
        r"built|changed)|where does .* data come from|data sources?|anything wrong|is it (ok|okay|fine|broken))\b",
        MEDIUM,
        "dashboard",
    ),
    _r(
        "get_health_summary",
        r"(как пожива\w*|как дела|что с|в каком состояни\w*|сводк\w*|summar\w*|how is)\b.*" + DASH,
        STRONG,
        "none",
    ),
    _r("get_health_summary", DASH + r"\s*(#|№|id\s*)?\d+\b", WEAK, "none"),
    _r("get_health_summary", r"(итог|результат)\w* .*проверк", STRONG),
    # --- datasets: search
    _r("search_datasets", r"(найди|найти|поищи|поиск|есть ли|покажи|какие|список)\b.*(датасет|набор\w* данн)", STRONG),
    _r("search_datasets", r"(датасет(ы|ов)|наборы данных)\b|\bdatasets\b", MEDIUM),
    _r(
        "search_datasets",
        r"\b(find|search|look up)\b.*dataset|(un)?certified datasets|сертифицированн\w+ датасет",
        STRONG,
    ),
    # --- one dataset by id (no affinity: asked without a dataset page)
    _r("get_dataset_details", DATASET + r"\w*\s*(номер|id|#|№)?\s*\d+\b", STRONG, "none"),
    _r(
        "get_dataset_details",
        r"(колонк|метрик|сертифицир|зависим|других окружени|depend|columns|metrics)",
        WEAK,
        "none",
    ),
    _r("get_dataset_details", r"\bdescribe\b.*dataset|dataset .*\bcertified\?", MEDIUM, "none"),
    _r("get_dataset_details", r"(колонк|метрик|пол[яе]\b|columns|metrics)\w*.*(датасет|dataset)", MEDIUM, "none"),
    # --- databases, tables, and "this dataset" on a dataset page
    _r("superset_explore_database", r"\bбаз(а|ы|е|у|ой)?\b( данных)?|\bdatabases?\b|\bdb\b|схем|\bschemas?\b", MEDIUM),
    _r("superset_explore_database", r"таблиц|\btables?\b", MEDIUM),
    _r("superset_explore_database", THIS + r".{0,12}" + r"(датасет|данн|dataset|data)", MEDIUM, "dataset"),
    _r(
        "superset_explore_database",
        r"(расскаж|колонк|пол(я|е)\b|таблиц|построен|откуда|источник|использ|зависим|график|"
        r"tell me about|columns?|underlying|source|built on|depend|charts?)",
        MEDIUM,
        "dataset",
    ),
    # --- SQL
    _r(
        "superset_format_sql",
        FORMAT_WORDS,
        STRONG,
    ),
    _r("superset_format_sql", r"\b(postgres\w*|mysql|sqlite|tsql|bigquery|snowflake|clickhouse)\b", WEAK),
    _r("superset_execute_sql", r"(выполни|запусти|run|execute|query)\b.*(" + SQL_TEXT + r"|запрос|sql|query)", STRONG),
    _r("superset_execute_sql", r"^\s*(выполни|run|execute|query)\b", MEDIUM),
    # «проверь, что база живая: select count(*) …»: a check with the SQL given runs it (turns_day6 y63)
    _r("superset_execute_sql", r"(провер|check|глян|посмотр|verify|test)\w*\b.*" + SQL_TEXT, STRONG),
    _r("superset_execute_sql", r"^\s*(select|with)\b", MEDIUM),  # a bare query pasted into the chat
    _r("superset_execute_sql", SQL_TEXT, WEAK),
    # The values a column holds: a DISTINCT the planner writes from the dataset's columns (``sql_steps``).
    _r(
        "superset_execute_sql",
        r"(какие|все|уникальн\w*|различн\w*)\s+(\w+\s+)?значени\w*|\b(distinct|unique)\s+values\b",
        STRONG,
        "dataset",
    ),
    Rule("superset_execute_sql", VALUES_LISTED, STRONG, frozenset({"dataset"})),  # «какие регионы есть в данных?»
    _r(
        "superset_execute_sql",
        r"(посчитай|(сколько|скока|скоко) (записей|строк)|больше всего|меньше всего|максимальн|минимальн|средн|суммарн|"
        r"первые \d+|\brows\b|\bmax\b|\bmin\b|\bavg\b|\baverage\b|\btotal\b|\bsum\b|\bhow many\b|\bmost\b"
        r"|\bмакс\b|\bмин\b|(последн|свеж|ранн)\w* дат|\b(latest|earliest) date|(все|всю) (строки|записи|таблицу))",
        MEDIUM,
        "dataset",
    ),
    # --- permissions
    _r(
        "superset_audit_permissions", r"доступ|\bправ(а|ами)?\b|кто (может|имеет)|(?<!\w)кому\b|\bрол(ь|и|ей)\b", STRONG
    ),
    _r("superset_audit_permissions", r"\baccess\b|permission|who can|\broles?\b|\bgrant", STRONG),
    # --- background tasks
    _r("get_task_status", r"(задач\w*|\bjob\b|\btask\b)\s*(#|№|id\s*)?([0-9a-f-]{6,}|\d+)", STRONG),
    _r("get_task_status", r"фонов\w* задач|\btask\b|\bjob\b|задач(а|у|и)\b", MEDIUM),
    _r("get_task_status", r"(как там|закончил|готов[аоы]?\b|\bdone\b|finished|how far|progress|статус задач)", WEAK),
    # --- git
    _r(
        "get_git_status",
        r"(сохран[её]н\w*|закомм?ич\w*|зафиксирован\w*|незафиксирован\w*)\b.*(git|гит|репозитор)"
        r"|(\bgit|\bгит|репозитор)\w*\b.*\b(сохран[её]н\w*|закомм?ич\w*|зафиксирован\w*)",
        STRONG,
    ),
    _r(
        "get_git_status",
        r"(отличает|совпадает|изменилось|what changed|\bdiff\b|since the last commit|is .* committed)",
        STRONG,
    ),
    _r("get_git_status", r"не\s?зафиксирован|не\s?закомм?ич|uncommitted|not committed|\bgit status\b", STRONG),
    _r(
        "commit_changes",
        r"закоммит|зафиксируй|\bcommit (this|the|it|dashboard)|сохрани .*(репозитор|git|гит|ветк)",
        STRONG,
    ),
    _r("commit_changes", r"\b(put|push|save)\b.*\b(branch|repo|git)\b|snapshot", STRONG),
    _r("commit_changes", r"коммит|\bcommit\b", WEAK),
    _r("create_branch", r"(создай|заведи|сделай|нужна|новую|отдельн|открой)\w*.*\bветк|ветк\w* .*(назови|от )", STRONG),
    # A branch for a work item («ветку под задачу 123», 'a branch for ticket 123') is a new branch, not the task's
    # status (issue 29 item 4; a fresh user's «открой ветку под задачу 123» with no page read the task).
    _r(
        "get_task_status",
        r"ветк\w*\s+(под|для|по)\s+(задач|тикет|таск)|\bbranch (for|per) (the )?(task|ticket|issue)",
        -2 * STRONG,
    ),
    _r("create_branch", r"\b(create|make|new)\b.*\bbranch\b|\bbranch (off|from)\b", STRONG),
    # --- two versions of one object
    Rule("compare_versions", VERSIONS_COMPARED, 2 * STRONG, frozenset({"dashboard", "dataset", "none"})),
    Rule("deploy_history", DEPLOY_HISTORY, 2 * STRONG),
    Rule("rollback_deploy", ROLLBACK, 3 * STRONG),
    # --- backups
    _r("list_backups", r"(бэкап\w*|резервн\w* копи\w*|backups?)\b", MEDIUM),
    _r(
        "list_backups",
        r"(какие|когда|покажи|список|есть ли|последн)\w*.*(бэкап|резервн)|(list|latest|when|any)\b.*backup",
        STRONG,
    ),
    _r("list_backups", r"do we have (a|any) backup", STRONG),
    _r("run_backup", r"(сдела[йт]|созда[йт]|сним|запуст|забэкап)\w*.*(бэкап|бекап|резервн)|забэкап", STRONG),
    _r("run_backup", r"\bback (it )?up\b|\b(take|make|run|create) (a )?backup|\bexport (all|every)", STRONG),
    _r("run_backup", TERSE_BACKUP, 2 * STRONG),
    # --- migrations
    _r(
        "preview_migration",
        r"предварительн|что изменится|что будет|без применения|будут перезаписан|перезапиш|превью",
        STRONG,
    ),
    _r("preview_migration", r"\bpreview|dry.?run|what would|would be (overwritten|changed)|overwritten", STRONG),
    _r("execute_migration", r"миграц|мигрир|\bmigrat", MEDIUM),
    # on a migration's page, its «перенос» run is the migration («можешь сам запустить этот перенос?», turns_day9
    # e923); the bare noun asks about it (a preview), not for a run
    _r("execute_migration", r"(запуст|выполн|примен|run|execute|apply)\w*.*(перенос|перенес)", STRONG, "migration"),
    # on its page a bare go-ahead runs the plan («запускай, превью я видел», "go ahead, I saw the preview": a QA check)
    _r("execute_migration", r"^\W*(запускай|запусти|погнали|поехали|go ahead|run it)\b", STRONG, "migration"),
    _r("preview_migration", r"миграц|мигрир|\bmigrat", WEAK),  # the planner previews before it migrates
    _r("execute_migration", r"(запусти|выполни|примени|мигрируй|run|execute|apply)\w*.*(миграц|migrat)", STRONG),
    _r("execute_migration", r"мигрируй|\bmigrate\b.*\band\b|одной миграц|дашборд(ы|ов) .*\d+.*(и|,)\s*\d+", MEDIUM),
    # --- review and documentation of a dashboard
    _r(
        "run_llm_validation",
        r"провер(ь|ку|ка)|ревью|\breview\b|\blint\b|quality|качеств|проблем|ошибк|в порядке",
        STRONG,
    ),
    _r("run_llm_validation", r"\bissues\b|\bcheck\b.*dashboard", MEDIUM),
    _r("run_llm_documentation", r"описани|документ|\bdocs?\b|descriptions?|documentation|\bdocument\b", STRONG),
    # --- creating a dataset
    _r("superset_create_dataset", r"(создай|сделай|заведи|добавь)\w*.*(датасет|в суперсет|в superset)", STRONG),
    _r("superset_create_dataset", r"\b(create|make|register|add)\b.*\b(dataset|as a dataset)", STRONG),
    _r("superset_create_dataset", r"виртуальн\w* датасет|virtual dataset", STRONG),
    # --- deploying one dashboard
    _r(
        "deploy_dashboard",
        r"деплой|задеплой|выкат|\bкат(им|ите|ни|ним|нём|нем|нуть|ить)\b|разверн|\bdeploy|\bship\b|промоут",
        STRONG,
    ),
    _r("deploy_dashboard", r"(перенеси|копируй|скопируй|опубликуй|push|copy)\w*.*(\bв\b|\bна\b|\bto\b)", MEDIUM),
    _r("deploy_dashboard", r"(в|на) (прод|prod|staging|боев)|to (prod|production|staging)\b", WEAK),
]

# An explicit request to change something: the planner picks a write or dangerous tool only when the question
# asks for an action («задеплой», «создай ветку», "commit it"), never for a question about state («а в проде он
# такой же?», «git-статус», «где документация?»), whatever the similarity says (a card the user did not ask for
# is a card they might confirm by mistake).
ACTION_REQUEST = re.compile(
    r"(задепло|депло[йи]|разверн|выкат|перенес|перенос|скопир|копируй|опубликуй|закомм|зафиксир|сохрани"
    r"|созда[йт]|заведи|завест|сделай|сделать|запусти|запуст|выполни|примени|мигрир|сгенер|напиши|опиши"
    r"|задокумент|документир|обнови|добав|провер[ьи]|проверить|проверку|ревью|забэкап|сними|бэкап\w* сдела"
    r"|назови|заполни|выгрузи|экспортир|нуж(на|ен|но|ны) (нов|отдельн)"
    r"|в порядке|проблем"  # «всё ли в порядке?», «найди проблемы»: a request for a validation run
    r"|открой|пожалуйста|нов\w* ветк|(?:" + TERSE_BACKUP + ")"
    r"|\b(deploy|ship|promote|push|copy|publish|commit|save|create|make|add|run|execute|apply|migrate"
    r"|generate|write|describe|document|update|check|validate|review|back ?up|take|branch (off|from)"
    r"|put|fill|register|export|set up|lint|please|new branch|open)\b)",
    re.I,
)


# When a question about state lands on a write tool, the read tool that answers the same question about state.
READ_COUNTERPART: dict[str, str] = {
    "deploy_dashboard": "preview_migration",
    "execute_migration": "preview_migration",
    "commit_changes": "get_git_status",
    "create_branch": "get_git_status",
    "run_backup": "list_backups",
    "run_llm_validation": "get_health_summary",
    "run_llm_documentation": "get_health_summary",
    "superset_create_dataset": "superset_explore_database",
}


def action_requested(question: str) -> bool:
    """True when ``question`` asks for a change (an action verb), not just about the state of something: a
    question whose verb asks to see (``reading.asks_to_see``) is never an action request."""
    if asks_to_see(question):
        return False
    return (
        bool(ACTION_REQUEST.search(unnegated(question)))
        or read_question(question).verb in (MAKE, CHECK)
        or asks_for_review(question)
    )


# Penalties: a word that rules a tool out (a formatting request is not an execution, a result is not a new run).
PENALTIES: list[Rule] = [
    _r(
        "superset_execute_sql",
        FORMAT_WORDS,
        -STRONG,
    ),
    _r("superset_execute_sql", r"(создай|сделай|заведи)\w* .*датасет|\b(create|make)\b.*dataset", -STRONG),
    _r("run_llm_validation", r"(итог|результат)\w* .*проверк", -STRONG),
    _r("run_llm_validation", SQL_TEXT, -STRONG),  # SQL to check is run, not a dashboard's review
    _r("list_backups", r"(сдела[йт]|созда[йт]|сним|забэкап)|\b(take|make|run) (a )?backup|\bback up\b", -STRONG),
    _r(
        "execute_migration",
        r"предварительн|что изменится|что будет|без применения|перезапиш|\bpreview|dry.?run|would",
        -STRONG,
    ),
    _r("execute_migration", r"задач\w* \d+|\btask \d+|\bjob \d+", -STRONG),
    Rule("preview_migration", PREVIEW_SEEN, -2 * STRONG),  # «превью смотрел, запускай»: the run is asked
    _r("get_git_status", r"закоммить|зафиксируй|\bcommit (this|the|it)", -STRONG),
    Rule("compare_versions", VERSION_GIT, -3 * STRONG),  # the export against git is the git status
    # An undo names the deploy or migration it undoes: no request for a new one, nor a backup.
    *(
        Rule(tool, ROLLBACK, -3 * STRONG)
        for tool in ("deploy_dashboard", "execute_migration", "preview_migration", "deploy_history", "run_backup")
    ),
    # Past deploys asked about are no request for one.
    *(
        Rule(tool, DEPLOY_HISTORY, -2 * STRONG)
        for tool in ("deploy_dashboard", "execute_migration", "preview_migration")
    ),
    _r("search_dashboards", r"(перенеси|мигрир|миграц|migrat|deploy|задеплой|перезапиш|overwrit)", -MEDIUM),
    _r("search_dashboards", r"бэкап|резервн|backup|back up", -STRONG),
    _r("execute_migration", r"where can i|куда (можно|вообще)|list the targets|targets\?", -MEDIUM),
    _r("search_dashboards", r"использ|зависим|построен|\buses?\b|\bdepend|built on", -MEDIUM, "dataset"),
    _r("get_dataset_details", r"(создай|сделай|заведи|добавь|create|make|register)\b", -MEDIUM),
    _r("search_datasets", r"колонк|метрик|\bcolumns\b|\bmetrics\b", -MEDIUM),
]

# Extra example questions (beyond each tool's own) embedded with the tool's texts. They are not taken from the
# labelled question sets of tests/data (a test checks that no question there repeats an example of its tool).
ROUTER_EXAMPLES: dict[str, tuple[str, ...]] = {
    "show_capabilities": ("Что ты можешь сделать на этой странице?", "What can I do with you here?"),
    "list_environments": ("Какие окружения Superset подключены?", "Which Superset instances are configured?"),
    "search_dashboards": ("Покажи все дашборды окружения", "Show me every dashboard of this environment"),
    "get_health_summary": ("Кто и когда менял этот дашборд?", "When was this dashboard last modified?"),
    "search_datasets": ("Какие датасеты есть в Superset?", "Which datasets do we have?"),
    "get_dataset_details": ("Покажи колонки и метрики датасета 3", "Show the columns of dataset 3"),
    "superset_explore_database": ("Какие таблицы в этой базе данных?", "Which columns does this dataset have?"),
    "superset_format_sql": ("Отформатируй запрос", "Format this query"),
    "superset_audit_permissions": ("Кто может редактировать этот дашборд?", "Which users can see this data?"),
    "superset_execute_sql": ("Сколько строк в таблице?", "Count the rows of this dataset"),
    "get_task_status": ("Готова ли задача 5?", "Status of background job 5"),
    "get_git_status": ("Есть ли изменения дашборда, которых нет в git?", "Is the dashboard export up to date in git?"),
    "list_backups": ("Покажи резервные копии", "Show the backups"),
    "preview_migration": ("Что будет перезаписано при миграции в prod?", "Preview the migration to prod"),
    "compare_versions": ("Чем версия в staging отличается от этой?", "Compare it with the version in staging"),
    "deploy_history": ("Кто и когда выкатывал этот отчёт?", "Who deployed this report, and when?"),
    "rollback_deploy": ("Откати последний деплой", "Roll back the last deploy"),
    "create_branch": ("Создай новую ветку в git", "Create a new git branch"),
    "commit_changes": ("Закоммить дашборд в git", "Commit the dashboard export"),
    "run_llm_validation": ("Проверь дашборд", "Check this dashboard for problems"),
    "run_llm_documentation": ("Опиши графики дашборда", "Describe the charts of this dashboard"),
    "superset_create_dataset": ("Создай датасет", "Create a new dataset"),
    "run_backup": ("Сделай резервную копию", "Back up this environment"),
    "deploy_dashboard": ("Разверни дашборд в prod", "Deploy the dashboard"),
    "execute_migration": ("Запусти миграцию дашбордов", "Run the dashboard migration"),
}


def rule_scores(question: str, object_type: str | None) -> dict[str, float]:
    """Sum the weights of the rules that match ``question`` asked on a page of ``object_type``.

    Args:
        question: the user's text.
        object_type: ``dashboard``, ``dataset``, ``migration`` or None (no object).

    Returns:
        ``{tool name: summed weight}`` for the tools with a matching rule (penalties are negative).
    """
    page = object_type or "none"
    # A next step on a condition («… и если всё ок, то закоммить») waits: the reading weighs the first action.
    scores: dict[str, float] = dict(intent_scores(THEN_CLAUSE.sub("", question) or question, object_type))
    # A precondition clause («… перед миграцией», "… before I deploy") says when, not what: the rules that name
    # a tool read the question without it (the penalties read it all).
    unseen = PREVIEW_SEEN.sub("", question)
    main = unnegated(THEN_CLAUSE.sub("", main_clause(unseen)) or question)
    for rule in (*RULES, *PENALTIES):
        if rule.pages is not None and page not in rule.pages:
            continue
        # a preview said to be seen («preview я уже смотрел») is no preview asked: only its own rule reads it
        penalised = question if rule.pattern is PREVIEW_SEEN else unseen
        if rule.pattern.search(main if rule.weight > 0 else penalised):
            scores[rule.tool] = scores.get(rule.tool, 0.0) + rule.weight
    return scores
