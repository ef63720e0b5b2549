"""Readings fixed in the session that wrote ``tests/data/turns_day6.yaml`` and ``turns_day7.yaml`` (issue 29), each
failing before its change.

- A search for dashboards built on a named dataset with no other search words raised ``KeyError: 'query'`` inside
  the planner (the whole turn failed; found when the wholly held set's run stopped on it).
- "which tables are in the database behind this dataset?" on a dataset page named a database «behind» (then «the»)
  and showed the dataset only: the tables of the dataset's own database are read after it.
- "run select 1 in the Energy db" sent «select 1 in the Energy db» as the SQL.
- A fresh development day set (``turns_day6``): a sentence of context or a heading before the request was read as a
  verb no tool performs («Freeze lifted at 10:00. Run it.», "Change freeze check: …", "Quick one: …"), «выведи» too;
  «релиз согласован с CAB» said beside «запусти миграцию» was answered as a question of who approved the plan;
  "identical to ss-dev" compared nothing; «у меня 2088» made 2088 an id and a year (the count asked SQL back); «макс
  дату глянь» and «выведи … все строки» were not understood; «назови X» named no dataset; «в прод» on a dashboard
  page and «бэкап дева» were not understood / listed the backups; "the avg_price metric in energy_consumption"
  searched dashboards for avg_price; "which charts are on «…»?" ended with the search's row.
"""

import pytest

from agentchat.llm.offline.arguments import Page, args_fill
from agentchat.llm.offline.mentions import Mentions, mentions_read
from agentchat.llm.offline.numbers import ids_read
from agentchat.llm.offline.sql_steps import database_tables_args, sql_for
from agentchat.llm.offline.state import Result
from agentchat.toolset.aspects import asked_aspect, asks_anything, foreign_verb, unheard_action, unheard_focus
from agentchat.toolset.reading import read_question
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.versions import versions_compared
from agentchat.toolset.weights import writes_sql
from agentchat.toolset.words import MAKE
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.support.wording import text

ENVIRONMENTS = [("ss-dev", "dev"), ("prod", "prod")]
SEARCH_DASHBOARDS = {"properties": {"env_id": {}, "query": {}, "dataset": {}}, "required": ["env_id"]}


def test_dashboards_on_a_dataset_with_no_other_words_are_searched_by_the_dataset():
    mentions = Mentions(envs=["ss-dev"], used_dataset="energy_consumption")
    page = Page(object_type=None, object_id=None, env_id="ss-dev")

    args, missing = args_fill(tool="search_dashboards", parameters=SEARCH_DASHBOARDS, mentions=mentions, page=page)

    assert (args, missing) == ({"env_id": "ss-dev", "dataset": "energy_consumption"}, [])


@pytest.mark.parametrize(
    "question",
    [
        "which tables are in the database behind this dataset?",
        "какие ещё таблицы есть в базе этого датасета?",
        "what other tables does the database of this dataset have?",
    ],
)
def test_the_tables_of_the_dataset_s_own_database_are_read_after_the_dataset(specs, knowledge, question):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1})

    payload = {"mode": "dataset", "source": {"database_id": 3, "schema": "main", "table": "energy_consumption"}}
    read = Result(name, args, payload, True)
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[read]))

    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev", "database_id": 3, "schema": "main"})


@pytest.mark.parametrize(
    "question", ["из какой таблицы этот датасет?", "which table and database does this dataset read from?"]
)
def test_the_dataset_s_own_table_is_no_list_of_the_database_s_tables(question):
    payload = {"mode": "dataset", "source": {"database_id": 3, "schema": "main", "table": "energy_consumption"}}
    assert database_tables_args(question, payload) is None


@pytest.mark.parametrize(
    ("question", "sql", "database"),
    [
        ("run select 1 in the Energy db", "select 1", "Energy"),
        ("выполни select count(*) from regions в базе Energy", "select count(*) from regions", "Energy"),
        ("which tables are in the database behind this dataset?", None, None),
    ],
)
def test_a_database_named_after_the_sql_is_no_part_of_it(question, sql, database):
    mentions = mentions_read(question, ENVIRONMENTS)
    assert (mentions.sql, mentions.database) == (sql, database)


# --- a fresh development day set (tests/data/turns_day6.yaml) -------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("Freeze lifted at 10:00. Run it.", "execute_migration"),  # y12: context, then the request
        (
            "Change freeze check: is the prod copy of this dataset identical to ss-dev? Nothing should have drifted.",
            "compare_versions",
        ),
        ("Quick one: total cost_rub for Q3 vs Q4 2025 from energy_consumption.", "superset_execute_sql"),
        ("нужно население по регионам. выведи из regions все строки", "superset_execute_sql"),  # «выведи»: to see
    ],
)
def test_a_sentence_of_context_or_a_heading_is_no_request_no_tool_performs(question, tool):
    assert unheard_action(question) is None
    assert foreign_verb(question, tool) is None


@pytest.mark.parametrize(("question", "verb"), [("Freeze the dashboard.", "freeze"), ("пометь датасет", "пометь")])
def test_a_request_of_one_sentence_with_a_verb_no_tool_knows_is_still_said(question, verb):
    assert unheard_action(question) == verb


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("запусти миграцию, релиз согласован с CAB", False),
        ("задеплой его и скажи, кто одобрил релиз", True),
        ("run the migration, who approved it?", True),
    ],
)
def test_a_request_that_states_its_context_asks_nothing_besides(question, asks):
    assert asks_anything(question) is asks


@pytest.mark.parametrize(
    "question",
    [
        "is the prod copy of this dataset identical to ss-dev?",
        "в проде и деве датасеты одинаковые?",
        "has prod drifted?",
    ],
)
def test_identical_and_drift_compare_two_versions(question):
    assert versions_compared(question)


def test_the_request_s_own_sentence_has_its_verb_at_its_head():
    assert read_question("Freeze lifted at 10:00. Run it.").verb == MAKE


@pytest.mark.parametrize(
    "question", ["у меня 2088", "I got 2088 in the export", "там около 500", "примерно 1200 строк у меня"]
)
def test_the_person_s_own_figure_is_no_id(question):
    assert ids_read(question) == {"any": []}


def test_a_plain_count_beside_a_figure_of_the_person_s_is_written_as_a_count():
    question = "скока строк в датасете? хочу сверить с выгрузкой в excel, у меня 2088"
    assert writes_sql(question)
    assert sql_for(question, DATASET, None) == 'SELECT COUNT(*) AS row_count FROM "main"."energy_consumption"'


DATASET = {
    "mode": "dataset",
    "source": {"table": "energy_consumption", "schema": "main"},
    "columns": [{"name": "date", "type": "DATE"}, {"name": "region", "type": "TEXT"}],
}


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        ("макс дату глянь", 'SELECT MAX("date") AS "max_date" FROM "main"."energy_consumption"'),
        ("what's the earliest date in here?", 'SELECT MIN("date") AS "min_date" FROM "main"."energy_consumption"'),
        ("выведи все строки", 'SELECT * FROM "main"."energy_consumption"'),  # the tool's row cap is said
        ("покажи первые 5 строк", 'SELECT * FROM "main"."energy_consumption" LIMIT 5'),
    ],
)
def test_the_latest_date_and_all_rows_are_written_from_the_dataset(question, sql):
    assert sql_for(question, DATASET, mentions_read(question, ENVIRONMENTS).row_limit) == sql


@pytest.mark.parametrize(
    ("question", "name"),
    [
        (
            "сделай виртуальный датасет из этого запроса, назови consumption_by_district: SELECT 1",
            "consumption_by_district",
        ),
        ("create a virtual dataset from this query and call it by_district: SELECT 1", "by_district"),
    ],
)
def test_a_new_dataset_s_name_is_read_after_назови(question, name):
    assert mentions_read(question, ENVIRONMENTS).dataset_name == name


@pytest.mark.parametrize(
    ("question", "where", "expected"),
    [
        ("в прод", "dashboard/1@ss-dev", ("deploy_dashboard", {"dashboard_id": 1, "source_env_id": "ss-dev"})),
        ("to prod", "dashboard/1@ss-dev", ("deploy_dashboard", {"dashboard_id": 1, "source_env_id": "ss-dev"})),
        ("бэкап дева", "@ss-dev", ("run_backup", {"env_id": "ss-dev"})),
        ("бэкапы прода", "@ss-dev", ("list_backups", {"env_id": "prod"})),
    ],
)
def test_terse_requests_reach_their_tool(specs, knowledge, question, where, expected):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, where))
    assert (name, {k: v for k, v in args.items() if k in expected[1]}) == expected


def test_a_bare_environment_on_a_dataset_page_is_no_deploy(specs, knowledge):  # noqa: F811
    message = step(specs, knowledge, "в прод", "dataset/1@ss-dev")
    assert "deploy_dashboard" not in [c["name"] for c in message.tool_calls]


@pytest.mark.parametrize(
    ("question", "dataset"),
    [
        ("What does the avg_price metric in energy_consumption compute exactly?", "energy_consumption"),
        ("проверяю документацию: у каких колонок в regions нет описаний?", "regions"),
    ],
)
def test_a_column_or_metric_of_a_named_table_names_that_dataset(question, dataset):
    mentions = mentions_read(question, ENVIRONMENTS)
    assert (mentions.names_kind, mentions.search_text) == ("dataset", dataset)


def test_a_name_as_written_in_superset_is_no_unheard_word():
    assert unheard_focus("What does avg_price compute?") is None


def test_the_one_dashboard_found_is_read_for_the_charts_asked(specs, knowledge):  # noqa: F811
    question = "which charts are on «Отчёт по энергопотреблению»?"
    name, args = only_call(step(specs, knowledge, question, "@prod"))
    assert name == "search_dashboards"

    found = Result(name, args, {"dashboards": [{"id": 1, "title": "Отчёт по энергопотреблению"}]}, True)
    name, args = only_call(step(specs, knowledge, question, "@prod", results=[found]))

    assert (name, args) == ("get_health_summary", {"env_id": "prod", "dashboard_id": 1})


@pytest.mark.parametrize(
    "question",
    [
        "скопируй заодно и данные energy_consumption в базу на проде, там таблица старая",  # aspects_unserved3 m07
        "copy the data of energy_consumption to prod too",
        "поставь миграцию на паузу",
    ],
)
def test_work_no_tool_does_is_said_not_run(question):
    assert request_without_tool(question)


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("запланируй эту миграцию на 3 ночи", "schedule"),
        ("schedule this migration for tonight at 2am", "schedule"),
        ("запускай её каждую ночь", "schedule"),
        ("run this every night", "schedule"),
        ("отправь уведомление в слак после миграции", "notify"),
        ("notify the team when it finishes", "notify"),
    ],
)
def test_a_run_scheduled_or_announced_is_an_aspect_no_tool_serves(question, aspect):
    assert asked_aspect(question).name == aspect


@pytest.mark.parametrize(
    "question",
    [
        "когда в последний раз запускали миграцию по расписанию?",
        "when is the nightly backup?",
        "перенеси дашборды на прод",
        "запусти миграцию",
        "какие данные в этом датасете?",
        "approve and execute",  # the person's own go-ahead
    ],
)
def test_questions_and_the_tools_own_requests_are_no_such_work(question):
    assert request_without_tool(question) is None


@pytest.mark.parametrize(
    ("question", "where", "tool"),
    [
        # a precondition said first: the request after it is read (y51 was answered with the summary)
        (
            "Перед релизом прогони валидацию этого дашборда и скажи, есть ли блокеры",
            "dashboard/1@ss-dev",
            "run_llm_validation",
        ),
        ("Перед тем как деплоить, проверь его на ошибки", "dashboard/1@ss-dev", "run_llm_validation"),
        # the request said last, after a sentence of context with «как» in it (y23 searched «пустое описание»)
        (
            "у дашборда пустое описание, в каталоге висит как недокументированный. сгенерь документацию плз",
            "dashboard/1@ss-dev",
            "run_llm_documentation",
        ),
        # a check with the SQL given runs it (y63 read the dataset; «проверь: select …» was a review run)
        (
            "после ночного падения проверь что база Energy в проде живая: select count(*) from energy_consumption",
            "dataset/1@prod",
            "superset_execute_sql",
        ),
        ("проверь: select count(*) from energy_consumption", "dataset/1@prod", "superset_execute_sql"),
    ],
)
def test_the_request_after_its_context_reaches_its_tool(specs, knowledge, question, where, tool):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, question, where))
    assert name == tool


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        ("у дашборда пустое описание", None),  # what its part is like, no title
        ("расскажи про дашборд обзор регионов", "обзор регионов"),
        ("покажи дашборд Обзор регионов", "Обзор регионов"),
    ],
)
def test_a_lower_case_word_before_a_part_of_the_object_is_no_title(question, searched):
    assert mentions_read(question, ENVIRONMENTS).search_text == searched


# --- a fresh check on a clean clone (45 questions of a new user's own) -----------------------------------------------


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        # the write said before a SELECT is part of the SQL: the read-only check refuses it in words (it was dropped)
        (
            "run this: UPDATE energy_consumption SET value = 0; SELECT 1",
            "UPDATE energy_consumption SET value = 0; SELECT 1",
        ),
        ("select current_user, version()", "select current_user, version()"),  # a SELECT opening the message
        ("create a dataset from select region from energy_consumption", "select region from energy_consumption"),
        ("как выбрать select в sql?", None),
    ],
)
def test_the_sql_said_starts_at_its_first_statement(question, sql):
    assert mentions_read(question, ENVIRONMENTS).sql == sql


PLAN_REFUSAL = (
    "I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing. A saved migration's dashboards "
    "are chosen when it is made: create a new migration on the Migrations page."
)
FILE_REFUSAL = (
    "I cannot write a file myself (“%(phrase)s”), and I changed nothing. The result of a SQL query has a “Download "
    "CSV” link: send the SELECT and I will run it (offline I do not write queries myself)."
)
SUPERSET_REFUSAL = (
    "I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing. Deleting or renaming objects, "
    "editing charts and granting rights are done in Superset itself."
)


@pytest.mark.parametrize(
    ("question", "where", "msgid"),
    [
        ("добавь в эту миграцию дашборд Обзор регионов", "migration/1@ss-dev", PLAN_REFUSAL),
        ("выгрузи мне все данные по энергопотреблению за 2025 в csv", "dataset/1@ss-dev", FILE_REFUSAL),
        (
            "сделай мне новый график потребления по месяцам в виде pie на этом дашборде",
            "dashboard/1@ss-dev",
            SUPERSET_REFUSAL,
        ),
    ],
)
def test_a_refusal_says_where_it_is_done(specs, knowledge, question, where, msgid):  # noqa: F811
    message = step(specs, knowledge, question, where)

    assert message.tool_calls == []
    where_said = text("ru", msgid, phrase="PHRASE").split("PHRASE")[1]
    assert where_said in message.content, message.content


def test_the_page_s_own_dataset_named_by_its_name_is_the_page_s():
    mentions = mentions_read("plz сравни energy_consumption в dev и prod, есть расхождения?", ENVIRONMENTS)
    page = Page(object_type="dataset", object_id=1, env_id="ss-dev", object_name="energy_consumption")
    parameters = {"properties": {"env_id": {}, "dataset_id": {}, "dashboard_id": {}, "other_env_id": {}}}

    args, missing = args_fill(tool="compare_versions", parameters=parameters, mentions=mentions, page=page)

    assert (args.get("dataset_id"), missing) == (1, [])


@pytest.mark.parametrize(
    "question",
    [
        "у кого есть доступ к этому датасету? нужно для квартального аудита",  # turns_day3 v30
        "кто имеет доступ к этому датасету на проде? онбордю новенькую аналитичку, хочу понять какую роль ей дать",
    ],
)
def test_after_a_question_the_last_sentence_is_its_context_not_a_request(specs, knowledge, question):  # noqa: F811
    """The request said last is read only where no question comes before it: «нужно», «хочу» after «?» say why."""
    name, _args = only_call(step(specs, knowledge, question, "dataset/1@prod"))
    assert name == "superset_audit_permissions"
