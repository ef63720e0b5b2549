"""Issue 29, the sixth session: what turns_day10's read half and a fresh check found the offline planner doing in
place of what was asked (no Superset needed)."""

import dataclasses

import pytest

from agentchat.llm.offline.environments import unknown_environments_named
from agentchat.llm.offline.replies import unserved_part
from agentchat.llm.offline.sql_steps import sql_for
from agentchat.llm.offline.state import Result, Turn
from agentchat.toolset.aspects import foreign_verb, leading_verb, unheard_action, unheard_focus
from agentchat.toolset.clauses import main_clause
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.verbs import told_to
from tests.llm.test_offline_planner import knowledge, offered, only_call, page, specs, step  # noqa: F401 - fixtures
from tests.support.stand_in_tools import specs_with_stand_ins

SOURCE = {"schema": "main", "table": "energy_consumption"}
COLUMNS = [{"name": "date", "type": "DATE"}, {"name": "region", "type": "STRING"}]


def test_zero_rows_asked_are_zero_rows_not_the_whole_table():
    payload = {"mode": "dataset", "source": SOURCE, "columns": COLUMNS}
    assert sql_for("покажи все строки, первые 0", payload, 0) == 'SELECT * FROM "main"."energy_consumption" LIMIT 0'
    assert sql_for("покажи все строки", payload, None) == 'SELECT * FROM "main"."energy_consumption"'
    assert sql_for("первые строки", payload, None) == 'SELECT * FROM "main"."energy_consumption" LIMIT 10'


def test_a_fact_wanted_is_asked_not_made(specs, knowledge):  # noqa: F811
    """f1017: «need the id of last night's one» read «need» as a request and put a backup of prod on a card."""
    question = "prod backups, newest first. need the id of last night's one"
    assert only_call(step(specs, knowledge, question, "@prod", role="engineer")) == ("list_backups", {"env_id": "prod"})
    assert only_call(step(specs, knowledge, "need a backup of prod", "@prod", role="engineer"))[0] == "run_backup"


def test_a_precondition_ends_with_its_sentence(specs, knowledge):  # noqa: F811
    """f1001: «…что перед любыми правками нужно заводить отдельную ветку. Создайте … ветку под задачу BI-214» — the
    precondition clause took the rest of the message, the request with it, and nothing was understood."""
    question = (
        "Добрый день! Я первую неделю в команде, мне сказали, что перед любыми правками нужно заводить отдельную "
        "ветку. Создайте, пожалуйста, ветку под задачу BI-214 для этого дашборда."
    )
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer")) == (
        "create_branch",
        {"env_id": "ss-dev", "name": "feature/BI-214"},
    )
    assert main_clause("сделай бэкап перед миграцией") == "сделай бэкап"  # said last, it still goes
    assert main_clause("validate it before I deploy, thanks") == "validate it"


def test_a_precondition_names_no_request(specs, knowledge):  # noqa: F811
    """f1059: «… перед откатом хочу знать» was refused as a rollback nobody asked for."""
    question = "в гите прода есть незакоммиченное? перед откатом хочу знать"
    assert request_without_tool(question) is None
    assert only_call(step(specs, knowledge, question, "@prod"))[0] == "get_git_status"
    assert request_without_tool("удали дашборд 3") == "удали"


def test_a_request_after_a_how_question_is_what_is_asked(specs, knowledge):  # noqa: F811
    """f1071: «Как это сохранить в гит? Если можно, закоммитьте с сообщением «…»» answered a chart's details."""
    question = (
        "Я поменяла подпись оси на графике по месяцам. Как это теперь правильно сохранить в гит? Если можно, "
        "закоммитьте с сообщением «BI-214: подпись оси»."
    )
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer")) == (
        "commit_changes",
        {"env_id": "ss-dev", "dashboard_id": 1, "message": "BI-214: подпись оси"},
    )


@pytest.mark.parametrize(
    "question", ["last run died on a timeout, rerun it", "I need to know who owns it", "my backup failed, retry"]
)
def test_an_english_sentence_s_first_word_is_no_verb_unless_it_is_one(question):
    """f1065: "last run died on a timeout, rerun it" was told «I cannot do “last”» after its preview."""
    assert leading_verb(question) is None
    assert unheard_action(question) is None
    assert foreign_verb(question, "preview_migration") is None
    assert leading_verb("rerun the last migration") == "rerun"


def test_a_status_in_any_case_is_the_task_s(specs, knowledge):  # noqa: F811
    """f1041: «миграция висит уже минут 40, что со статусом?» showed the plan's preview."""
    question = "миграция висит уже минут 40, что со статусом?"
    assert only_call(step(specs, knowledge, question, "migration/1@prod")) == (
        "get_task_status",
        {"kind": "migration", "migration_id": 1},
    )


def test_a_change_the_role_lacks_is_refused_never_read_instead(specs, knowledge):  # noqa: F811
    """f1063: the analyst's "please run a fresh LLM validation on this dashboard" showed the summary."""
    question = "please run a fresh LLM validation on this dashboard before sign-off"
    role_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "role")
    assert only_call(step(specs, role_only, question, "dashboard/1@ss-dev", role="analyst"))[0] == "run_llm_validation"
    assert step(specs, knowledge, question, "dashboard/1@ss-dev", role="analyst").content == "why:run_llm_validation"


@pytest.mark.parametrize(
    "question",
    [
        "format this sql: select 1",
        "отформатируй пж запрос из чарта с населением, приложу к баг-репорту: select region, population from regions",
    ],
)
def test_sql_formatting_on_a_dashboard_page_is_said_to_be_elsewhere(specs, knowledge, question):  # noqa: F811
    """f1021: a format of SQL on a dashboard's page showed the dashboard's summary (with a chart's details said
    to be out of reach); the tool is on a dataset's page."""
    assert step(specs, knowledge, question, "dashboard/1@ss-dev", role="analyst").content == "why:superset_format_sql"


def test_a_title_before_its_kind_names_that_kind(specs, knowledge):  # noqa: F811
    """f1007: "the «Обзор регионов» dashboard: … on the regions dataset?" was refused as a dataset search."""
    question = "the «Обзор регионов» dashboard: is its population chart still on the regions dataset?"
    assert only_call(step(specs, knowledge, question, "dashboard/1@prod")) == (
        "search_dashboards",
        {"env_id": "prod", "query": "Обзор регионов"},
    )


@pytest.mark.parametrize(
    "question", ["Скажите, есть ли такой дашборд в ss-dev?", "а этот дашборд есть в ss-dev?", "is it in ss-dev too?"]
)
def test_the_page_s_dashboard_in_another_environment_is_its_copy_there(specs, knowledge, question):  # noqa: F811
    """A fresh check: «есть ли такой дашборд в ss-dev?» on prod's dashboard page listed every dashboard of ss-dev;
    «а этот дашборд есть в ss-dev?» read prod's id 1 in ss-dev. The copy is found by its uuid and compared."""
    assert only_call(step(specs, knowledge, question, "dashboard/1@prod")) == (
        "compare_versions",
        {"env_id": "prod", "dashboard_id": 1, "other_env_id": "ss-dev"},
    )


def test_a_title_with_no_noun_asked_for_in_an_environment_is_searched(specs, knowledge):  # noqa: F811
    """A fresh check: «есть ли «Обзор регионов» в ss-dev?» was not understood; «…на проде?» listed environments."""
    for question, env in (
        ("есть ли «Обзор регионов» в ss-dev?", "ss-dev"),
        ("а «Обзор регионов» на проде есть?", "prod"),
    ):
        assert only_call(step(specs, knowledge, question, "dashboard/1@prod")) == (
            "search_dashboards",
            {"env_id": env, "query": "Обзор регионов"},
        )


def _turn_after(question: str, where: str, used: list[str], role: str = "admin"):
    context = page(where)
    results = [Result(tool, {}, {}, True) for tool in used]
    return Turn(question, "ru", context, offered(specs_with_stand_ins(), context, role), results, "")


@pytest.mark.parametrize(
    ("question", "where", "used", "unserved"),
    [
        ("что вы умеете? сделайте бэкап прода", "@prod", ["show_capabilities"], "сделайте бэкап прода"),
        ("что вы умеете? сделайте бэкап прода", "@prod", ["run_backup"], "что вы умеете?"),
        # the context after a question asks for nothing
        (
            "кто может читать этот датасет? хочу поменять типы колонок",
            "dataset/1@ss-dev",
            ["superset_audit_permissions"],
            "",
        ),
        ("какие бэкапы есть в prod?", "@prod", ["list_backups"], ""),  # one question
    ],
)
def test_a_second_request_left_unserved_is_said(question, where, used, unserved):
    """A fresh check: of «что вы умеете? сделайте бэкап» one part was served and the other dropped silently."""
    assert unserved_part(_turn_after(question, where, used)) == unserved


def test_a_leading_precondition_ends_at_its_colon_too():
    """aspects_unserved3 a3-m10 (a regression of this session's first round, found on the read set): "before I run
    this: is anybody editing prod?" read a run of the migration, refused for the role, instead of what is asked."""
    assert main_clause("before I run this: is anybody editing prod right now?") == "is anybody editing prod right now?"
    assert main_clause("Перед тем как деплоить, проверь дашборд") == "проверь дашборд"


def test_an_access_review_is_the_permissions_audit(specs, knowledge):  # noqa: F811
    """f1005: "run an access review of the Energy database" asked which dashboard to review (a review run)."""
    question = "Please run an access review of the Energy database on ss-dev: which roles can query it?"
    assert only_call(step(specs, knowledge, question, "@ss-dev")) == ("superset_explore_database", {"env_id": "ss-dev"})
    assert only_call(step(specs, knowledge, "проведи ревью доступов к датасету 2", "@ss-dev")) == (
        "superset_audit_permissions",
        {"env_id": "ss-dev", "object_type": "dataset", "object_id": 2},
    )


def test_a_request_not_offered_on_the_page_is_said_unserved_too():
    """A fresh check: on a dashboard's page «что вы умеете? сделайте бэкап прода» listed the tools and said nothing of
    the backup (not offered there)."""
    turn = _turn_after("что вы умеете? сделайте бэкап прода", "dashboard/1@prod", ["show_capabilities"])
    assert unserved_part(turn) == "сделайте бэкап прода"


def test_a_polite_plural_of_an_any_tool_verb_is_no_foreign_verb():
    """A fresh check: «Скажите, есть ли такой дашборд в ss-dev?» was answered «Не могу выполнить «скажите»» first."""
    assert foreign_verb("Скажите, есть ли такой дашборд в ss-dev?", "compare_versions") is None
    assert foreign_verb("Подготовьте, пожалуйста, бэкап прода", "run_backup") is None


@pytest.mark.parametrize(
    ("sentence", "told"),
    [
        ("Создайте, пожалуйста, ветку под задачу BI-214.", True),
        ("Если можно, закоммитьте с сообщением «правка».", True),
        ("please commit it", True),
        ("нужен для графика", False),  # a need is the context of a question
        ("Можно ли сделать бэкап этого окружения?", False),  # a question
        ("Можно сгенерировать описания.", False),  # an infinitive (a held row's shape, diagnosed by a helper)
    ],
)
def test_an_imperative_is_told_apart_from_a_need_a_question_and_an_infinitive(sentence, told):
    assert told_to(sentence) is told


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("create a branch named 'feature/axis label' please", "feature/axis label"),
        ("создай ветку «feature/axis label»", "feature/axis label"),
        ("создай ветку feature/kpi", "feature/kpi"),
    ],
)
def test_a_quoted_branch_name_is_taken_whole(specs, knowledge, question, name):  # noqa: F811
    """A fresh check: 'feature/axis label' became a card for «feature/axis», cut at the space without a word; the
    whole name goes to the tool, which refuses it as git does."""
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer")) == (
        "create_branch",
        {"env_id": "ss-dev", "name": name},
    )


@pytest.mark.parametrize("question", ["total cost by source", "total consumption by region"])
def test_an_aggregate_by_a_column_is_a_breakdown(question):
    """A fresh check: "total cost by source" asked for the SQL (the Russian «сумма стоимости по источникам» got it)."""
    from tests.llm.test_day9_readings import _sql

    assert (_sql(question) or "").startswith('SELECT "')
    assert "GROUP BY" in (_sql(question) or "")


@pytest.mark.parametrize(
    ("text", "unknown"),
    [
        ("deploy this dashbord to prdo", ["prdo"]),
        ("move it to stagign", ["stagign"]),
        ("deploy to staging", []),  # a tier's word, active or not («staging здесь не активно» says the rest)
        ("deploy to production", []),
        ("send it to the team", []),
    ],
)
def test_a_typo_of_an_environment_is_said_not_to_exist(text, unknown):
    """A fresh check: "deploy this dashbord to prdo" asked «to which environment?», as if none had been named."""
    environments = [("ss-dev", "dev"), ("prod", "prod")]
    assert unknown_environments_named(text, environments) == unknown


def test_a_swapped_letter_typo_of_a_filler_is_no_topic():
    """A fresh check: "what's teh git status of this dash?" was told «Если вы спрашиваете про «teh»…»."""
    assert unheard_focus("what is teh git status of this dash?") is None
    assert unheard_focus("what is teh cache ttl?") == "cache"  # the word after it still is


@pytest.mark.parametrize(
    ("question", "measures"),
    [
        ("average consumption_mwh by region", 'AVG("consumption_mwh") AS "avg_consumption_mwh"'),
        ("средняя стоимость по источникам", 'AVG("cost_rub") AS "avg_cost_rub"'),
        (
            "min and max consumption per region",
            'MIN("consumption_mwh") AS "min_consumption_mwh", MAX("consumption_mwh") AS "max_consumption_mwh"',
        ),
    ],
)
def test_an_average_or_extremes_asked_per_column_are_those_functions(question, measures):
    """A second fresh check: "average consumption_mwh by region" and "min and max consumption per region" ran the
    dataset's SUM, with no word that it was another figure."""
    from tests.llm.test_day9_readings import _sql

    assert f", {measures} FROM" in (_sql(question) or ""), _sql(question)


def test_an_average_of_nothing_named_asks_for_the_sql():
    from tests.llm.test_day9_readings import _sql

    assert _sql("average by region") is None  # never the total in its place
    assert "SUM(consumption_mwh)" in (_sql("регион с максимальным потреблением за 2024") or "")  # a ranking still


def test_a_russian_typo_of_an_environment_is_said_not_to_exist():
    environments = [("ss-dev", "dev"), ("prod", "prod")]
    assert unknown_environments_named("задеплой в прдо", environments) == ["прдо"]
    assert unknown_environments_named("покажи данные в отчёте на проде", environments) == []


@pytest.mark.parametrize(
    ("question", "where", "used", "unserved"),
    [
        (
            "list backups in prod and who owns this dashboard?",
            "dashboard/1@prod",
            ["list_backups"],
            "who owns this dashboard?",
        ),
        ("покажи колонки и метрики этого датасета", "dataset/1@ss-dev", ["superset_explore_database"], ""),  # one thing
        ("проверь дашборд и если всё ок — закоммить", "dashboard/1@ss-dev", ["run_llm_validation"], ""),  # a next step
    ],
)
def test_a_second_request_joined_by_and_is_said_unserved(question, where, used, unserved):
    """A second fresh check: "list backups in prod and who owns this?" answered the backups only, saying nothing of
    the owner."""
    assert unserved_part(_turn_after(question, where, used)) == unserved
