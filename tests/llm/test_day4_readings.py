"""Readings fixed in the session that wrote ``tests/data/turns_day4.yaml`` (issue 29), each failing before its change.

- «скока строк в датасетe», typed with a Latin "e", was not read as a dataset: the noun did not match.
- «откати этот дашборд в prod к версии, которая была до последнего деплоя» showed the dashboard's summary: «откати»
  was no verb the reading knew, so «была» made it a question about state (first aspects set, d19).
- «в проде этот датсет такой же как в деве?» answered that the dataset's filters and charts were the same: the
  dashboard's list of compared fields (turns_day3 v36).
- «готова ли последняя миграция?» asked which dashboards to migrate: «готова» counted only right before the "?"
  (turns_day t05).
- A fresh aspects set (``tests/data/aspects_unserved3.yaml``, a development set): requests no tool performs were
  asked back for a dataset's table («заведи … пользователя», «добавь в датасет метрику»), answered with another
  operation's card («смерджи ветку» a new branch, «отмени бэкап» a backup, «сертифицируй дашборд» a review run) or
  with the page's summary ("add a chart"); questions about views, default filter values, SQL Lab use, ETL loads,
  encryption, who is editing now, sign-ins were answered with a summary and no word that they were not.
- "what does cost_rub mean…" asked for SQL; "how many rows are in regions on prod?" for SQL too (turns_day3 v40,
  v79).
- A fresh day set (``tests/data/turns_day5.yaml``, a development set): «что там с моей последней задачей? бэкап
  запускал минут 20 назад» was said unavailable on a dataset page (then read as task 20); «выкатывай на прод …» was
  not understood; «превью смотрел, всё ок. запускай» showed the preview again; "first 5 rows of energy_consumption
  on dev" listed the environments; the deploy history of a dashboard found by its title was refused with a
  validator's text (env_id); «сколько всего дашбордов на деве?» on a dashboard page read «всего» as «его» (this
  dashboard); "create a superset account …" showed the environment list after saying it cannot; «Добрый день!
  Расскажите …» was «Не могу выполнить «день»», then a comparison of the dataset with itself was refused with a
  validator's text (turns_day3 v68).
- A fresh check on a clean clone: «пакажи …», "shwo …" and «слушай, …» began with «Не могу выполнить …»; «в
  окружение uat-7» and "to qa-env" were asked «В какое окружение?»; «задеплой этот дашборд в prod» on prod's page
  was told to write «в prod»; «найди все дашборды где в названии есть регион» listed every dashboard as a match.
- «откати эту миграцию» on a migration page rolled back in the plan's source environment (ss-dev): it is asked where.
"""

import pytest
from django.utils import translation
from langchain_core.messages import HumanMessage, SystemMessage

from agentchat.llm.offline.answers.versions import compare_versions
from agentchat.llm.offline.mentions import mentions_read
from agentchat.llm.offline.model import turn_read
from agentchat.llm.offline.sql_steps import sql_for
from agentchat.llm.offline.state import Result
from agentchat.toolset.aspects import asked_aspect, foreign_verb, unheard_action
from agentchat.toolset.reading import read_question
from agentchat.toolset.tokens import scripts_unmixed
from agentchat.turn.prompt import system_prompt
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.support.contexts import DASHBOARD_1
from tests.support.wording import text


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("скока строк в датасетe", "скока строк в датасете"),  # a Latin "e"
        ("Отчёт пo энергопотреблению", "Отчёт по энергопотреблению"),  # a Latin "o"
        ("energy_consumption в sqlзапросе", "energy_consumption в sqlзапросе"),  # "l", "q" have no Cyrillic twin
    ],
)
def test_a_russian_word_typed_with_latin_twins_is_read_in_cyrillic(typed, read):
    assert scripts_unmixed(typed) == read


def test_the_turn_reads_the_question_in_one_script():
    system = SystemMessage(content=system_prompt(DASHBOARD_1, unavailable=False, language="ru"))
    turn = turn_read([system, HumanMessage(content="скока строк в датасетe")], tools=None)

    assert turn.question == "скока строк в датасете"
    assert "dataset" in read_question(turn.question).objects


@pytest.mark.parametrize(
    "question",
    [
        "откати этот дашборд в prod к версии, которая была до последнего деплоя",  # «была» read as a question
        "откати этот дашборд в prod к прошлой версии",
    ],
)
def test_a_rollback_to_the_version_before_the_deploy_is_asked_for(specs, knowledge, question):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer"))
    assert (name, args.get("env_id")) == ("rollback_deploy", "prod")


@pytest.mark.parametrize(
    ("kind", "said", "not_said"),
    [("dataset", "SQL, columns and metrics", "filters"), ("dashboard", "filters, charts", "SQL")],
)
def test_no_differences_names_what_was_compared_for_the_object_s_kind(kind, said, not_said):
    result = {
        "object": {"type": kind, "name": "energy_consumption"},
        "found": True,
        "counts": {"changed": 0},
        "env_id": "prod",
        "other": {"env_id": "ss-dev"},
    }
    with translation.override("en"):
        answer = compare_versions(result, "en")

    assert said in answer
    assert not_said not in answer


def test_whether_the_last_migration_is_ready_is_its_task(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "готова ли последняя миграция?", "@ss-dev"))
    assert (name, args.get("kind")) == ("get_task_status", "migration")


@pytest.mark.parametrize(
    ("question", "where", "phrase"),
    [
        ("создай новый дашборд «Цены по регионам» с графиком средней цены по месяцам", "@ss-dev", "дашборд"),
        ("заведи в суперсете на проде пользователя petrov.i с ролью Gamma", "@ss-dev", "пользователя"),
        ("добавь в датасет метрику avg = SUM(cost_rub), пжлст", "dataset/1@ss-dev", "метрику"),
        ("обнови колонки датасета из источника (sync columns)", "dataset/1@ss-dev", "колонки"),
        ("добавь в план ещё «Обзор регионов», пусть едет вместе с отчётом", "migration/1@ss-dev", "план"),
        ("смерджи ветку feature/energy-q4 в main", "@ss-dev", "смерджи"),
        ("отмени бэкап, который я запустил минут 5 назад", "@ss-dev", "бэкап"),
        ("почисти бэкапы старше 30 дней", "@ss-dev", "бэкапы"),
        ("pls add a chart with population by federal district", "dashboard/2@ss-dev", "add a chart"),
        ("включи staging, надо там прогнать миграцию перед продом", "@ss-dev", "staging"),
        ("подключи новую базу postgres (наш dwh) к ss-dev", "@ss-dev", "базу"),
        ("push the dashboards git repo to our GitLab remote so the team can review", "@ss-dev", "GitLab"),
    ],
)
def test_a_request_no_tool_performs_is_said_not_asked_back_or_carded(specs, knowledge, question, where, phrase):  # noqa: F811
    message = step(specs, knowledge, question, where, role="engineer")

    assert message.tool_calls == []
    assert phrase in message.content


@pytest.mark.parametrize(
    ("question", "where", "tool"),
    [
        ("сделай мне список дашбордов", "@ss-dev", "search_dashboards"),
        ("добавь описание к дашборду 1", "@ss-dev", "run_llm_documentation"),
        ("создай датасет из таблицы regions в базе Energy", "@ss-dev", "superset_create_dataset"),
        ("kick off an LLM review of the metadata here", "dashboard/1@ss-dev", "run_llm_validation"),
        ("diff this dashboard between dev and prod", "dashboard/1@ss-dev", "compare_versions"),
        ("добавь описание в дашборд 1", "@ss-dev", "run_llm_documentation"),  # a description is made
        ("добавь датасет из базы Energy по таблице regions", "@ss-dev", "superset_create_dataset"),
    ],
)
def test_a_request_a_tool_performs_still_reaches_it(specs, knowledge, question, where, tool):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, question, where, role="engineer"))
    assert name == tool


def test_another_tool_s_verb_gets_no_card_of_the_chosen_one(specs, knowledge):  # noqa: F811
    question = "ревью прошли, сертифицируй дашборд пожалуйста — certified by BI team"
    turn_tool, _args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer"))

    assert foreign_verb(question, "run_llm_validation") == "сертифицируй"
    assert turn_tool == "get_health_summary"  # shown after the sentence that it cannot certify
    assert foreign_verb("сделай бэкап", "run_backup") is None
    assert foreign_verb("закоммить дашборд", "commit_changes") is None


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("привет) а можно как-то узнать, сколько человек реально смотрит этот дашик в проде?", "views"),
        ("интересно, какое значение стоит по дефолту в фильтре по региону?", "native_filters"),
        ("кто-нибудь выгружал с этого дашборда данные в CSV за последний месяц?", "views"),
        ("датасетик energy_consumption кто вообще юзает в SQL Lab?", "query_usage"),
        ("как миграция закончится — напиши в телегу в канал бизнеса", "notify"),
        ("вопрос от ИБ: база Energy шифруется на диске (at rest)?", "infrastructure"),
        ("before I run this: is anybody editing prod right now?", "sessions"),
        ("покажи все входы в прод-суперсет за последний месяц", "users_list"),
        ("когда последний раз отработала загрузка в energy_consumption? етл ночью падал", "data_freshness"),
        ("Was there a backfill or a retro correction of the 2024 data lately?", "data_freshness"),
        ("when was the federal_district column added to regions, and by whom?", "object_history"),
        ("what does cost_rub mean, is it per decade or per month?", "column_meaning"),
        ("cost_rub это с НДС или без? в описании колонки не сказано", "column_meaning"),
    ],
)
def test_what_a_fresh_set_asked_that_no_tool_returns_is_named(question, aspect):
    found = asked_aspect(question)
    assert found is not None
    assert found.name == aspect


@pytest.mark.parametrize(
    "question",
    ["какие колонки в датасете", "кто владелец", "сколько строк в таблице", "что значит статус previewed у миграции?"],
)
def test_what_a_tool_returns_names_no_aspect(question):
    assert asked_aspect(question) is None


def test_an_undo_asked_on_a_migration_page_is_left_to_the_plan_s_target(specs, knowledge):  # noqa: F811
    """The page's environment is the plan's source: the planner names none, and ``runtime.plans.plan_arguments``
    fills in the plan's target (it asked «в каком окружении?», which the plan says; a QA check); a place named is
    taken."""
    undo = step(specs, knowledge, "откати эту миграцию", "migration/1@ss-dev", role="engineer")
    named = step(specs, knowledge, "откати эту миграцию в prod", "migration/1@ss-dev", role="engineer")

    assert only_call(undo) == ("rollback_deploy", {})
    assert only_call(named) == ("rollback_deploy", {"env_id": "prod"})


def test_a_column_s_meaning_shows_the_dataset_not_a_request_for_sql(specs, knowledge):  # noqa: F811
    question = "what does cost_rub mean, is it per decade or per month?"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", role="analyst"))
    assert (name, args.get("dataset_id")) == ("superset_explore_database", 1)


@pytest.mark.parametrize(
    ("question", "table"),
    [("how many rows are in regions on prod?", "regions"), ("how many rows in ss-dev?", None)],
)
def test_rows_in_a_plain_name_name_a_table(question, table):
    assert mentions_read(question, [("ss-dev", "dev"), ("prod", "prod")]).table == table


def test_the_deploy_history_of_a_dashboard_found_by_its_title_takes_where_it_was_found(specs, knowledge):  # noqa: F811
    question = "кто и когда последний раз деплоил Отчёт по энергопотреблению на прод?"
    search, search_args = only_call(step(specs, knowledge, question, "@prod", role="analyst"))
    found = {"count": 1, "dashboards": [{"id": 1, "title": "Отчёт по энергопотреблению"}]}
    results = [Result(search, search_args, found, True)]
    name, args = only_call(step(specs, knowledge, question, "@prod", results=results, role="analyst"))

    assert search == "search_dashboards"
    assert name == "deploy_history"
    assert "env_id" not in args  # deploy_history takes none: it was refused with a validator's text
    assert (args["dashboard_id"], args["source_env_id"]) == (1, search_args["env_id"])


def test_a_table_s_rows_on_an_environment_are_not_the_environment_list(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "first 5 rows of energy_consumption on dev please", "@ss-dev"))
    assert (name, args.get("query")) == ("search_datasets", "energy_consumption")


def test_one_s_last_task_minutes_ago_is_its_status_not_task_20(specs, knowledge):  # noqa: F811
    question = "не подскажешь, что там с моей последней задачей? бэкап запускал минут 20 назад"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", role="engineer"))
    assert (name, args) == ("get_task_status", {"kind": "backup"})


def test_an_imperfective_imperative_asks_for_the_deploy(specs, knowledge):  # noqa: F811
    question = "выкатывай на прод, только сначала покажи что именно там поменяется"
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev"))
    assert (name, args["target_env_id"]) == ("deploy_dashboard", "prod")  # its card shows what changes


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("превью смотрел, всё ок. запускай", "execute_migration"),
        ("run this migration now pls, I've checked the preview", "execute_migration"),
        ("запускай", "preview_migration"),  # DESIGN §11: previewed first
        ("покажи превью", "preview_migration"),
    ],
)
def test_a_preview_the_person_has_seen_is_not_shown_again(specs, knowledge, question, tool):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, question, "migration/1@ss-dev"))
    assert name == tool


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("запусти миграцию energy report to prod", "energy report to prod"),
        ("запусти миграцию «Энергетика в прод»", "Энергетика в прод"),
        ("preview the migration 'energy report to prod'", "energy report to prod"),
        ("run the migration of dashboards 1 and 2 to prod", None),
        ("запусти миграцию дашбордов 1 и 2 в prod", None),
        ("статус миграции 3", None),
    ],
)
def test_a_saved_migration_is_named_by_its_name(question, name):
    assert mentions_read(question, [("ss-dev", "dev"), ("prod", "prod")]).migration_name == name


def test_a_column_s_max_written_as_sql_is_queried_after_the_dataset_is_read(specs, knowledge):  # noqa: F811
    question = "quick sanity check: max(date) in prod, did last night's load land?"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@prod", role="engineer"))
    read = {
        "mode": "dataset",
        "source": {"table": "energy_consumption", "schema": "main"},
        "columns": [{"name": "date"}],
    }
    then, sql_args = only_call(
        step(specs, knowledge, question, "dataset/1@prod", results=[Result(name, args, read, True)], role="engineer")
    )

    assert (name, args) == ("superset_explore_database", {"env_id": "prod", "dataset_id": 1})
    assert then == "superset_execute_sql"
    assert sql_args["sql"] == 'SELECT MAX("date") AS "max_date" FROM "main"."energy_consumption"'
    assert sql_for("min(nope) please", read, None) is None  # a column the dataset does not have


def test_how_many_dashboards_on_a_dashboard_page_is_the_dashboard_list(specs, knowledge):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, "сколько всего дашбордов на деве?", "dashboard/1@ss-dev"))
    assert name == "search_dashboards"  # «всего» was read as «его» (this dashboard): its summary


def test_an_action_no_tool_performs_lists_what_can_be_done_not_the_environments(specs, knowledge):  # noqa: F811
    question = "create a superset account for maria.k on dev with Gamma + sql lab, she starts monday"
    message = step(specs, knowledge, question, "@ss-dev")

    assert message.tool_calls == []
    assert message.content.startswith(
        text(
            "en",
            "I cannot %(aspect)s: I have no tool for it, and I changed nothing.",
            aspect="manage Superset users and passwords",
        )
    )


@pytest.mark.parametrize(
    "question",
    [
        "Добрый день! Расскажите, пожалуйста, подробно про датасет energy_consumption",
        "Здравствуйте! Подскажите, что с дашбордом",
    ],
)
def test_a_greeting_is_no_request_no_tool_performs(question):
    assert unheard_action(question) is None  # «день», «здравствуйте» read as imperatives: «Не могу выполнить «день»»


def test_a_comparison_with_the_environment_the_object_was_found_in_asks_with_what(specs, knowledge):  # noqa: F811
    question = "есть ли такой же датасет energy_consumption в проде?"
    search = Result(
        "search_datasets",
        {"env_id": "prod", "query": "energy_consumption"},
        {"count": 1, "datasets": [{"id": 1}]},
        True,
    )
    message = step(specs, knowledge, question, "@prod", results=[search], role="engineer")

    assert message.tool_calls == []  # compared with itself it was refused with a validator's text
    assert message.content == text(
        "ru", "Compared with what? Name the other environment (“with prod”) or a saved copy (“with copy 12”)."
    )


@pytest.mark.parametrize(
    "question",
    [
        "пакажи какие калонки в этом датасете",  # a typo of «покажи»
        "shwo me teh colums of this datset pls",
        "слушай, когда последний раз меняли этот дашборд и кто?",  # an opener
    ],
)
def test_a_typo_or_an_opener_is_no_request_no_tool_performs(question):
    assert unheard_action(question) is None  # «Не могу выполнить «пакажи»» before the answer


@pytest.mark.parametrize(
    ("question", "env"),
    [("задеплой этот дашборд в окружение uat-7", "uat-7"), ("deploy this dashboard to qa-env", "qa-env")],
)
def test_an_environment_that_does_not_exist_is_said_not_asked_for(specs, knowledge, question, env):  # noqa: F811
    message = step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer")
    assert message.tool_calls == []
    assert f"«{env}»" in message.content or f"“{env}”" in message.content  # was «В какое окружение?»


def test_a_deploy_to_the_page_s_own_environment_asks_where_from(specs, knowledge):  # noqa: F811
    message = step(specs, knowledge, "задеплой этот дашборд в prod", "dashboard/1@prod", role="engineer")
    assert message.content == text(
        "ru",
        "The dashboard on this page is already there. From which environment should it come? Write, for example, "
        "“from ss-dev to prod”, or open it on the source environment's page.",
    )  # it was told «В какое окружение? Напишите, например, «в prod»» — what it had written


@pytest.mark.parametrize(
    ("question", "verb"),
    [("Please mark this dataset as certified — golden source", "mark"), ("set up a check that pings me", "set")],
)
def test_a_short_verb_of_its_own_is_no_typo(question, verb):
    assert unheard_action(question) == verb  # "mark" is not "make", "set" not "sets"


def test_a_word_the_title_holds_is_searched_for(specs, knowledge):  # noqa: F811
    question = "найди все дашборды где в названии есть регион"
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="analyst"))
    assert (name, args.get("query")) == ("search_dashboards", "регион")  # the whole list had been shown as matches
