"""Readings a third user-side day set found wrong (issue 29: ``tests/data/turns_day3.yaml``, written by a helper who
had not read the planner; a development set, all rows read). Each row fails before the change it pins.

- «прогони валидацию и если всё ок то закомить» showed the commit card first: the conditional step was read as the
  request.
- «заведи ветку под релиз 2.4» asked for a name.
- "who pushed … to prod last", «чо последнее деплоили в прод и хто» read the summary or asked for dashboards.
- «в проде этот датсет такой же как в деве?» read the dataset instead of comparing it.
- «ну что там с бэкапом, который я запускал час назад, доехал?» refused a backup list for the page.
- "Hi! Could you please create a virtual dataset called X from: select …, in the same database as this one? Much
  appreciated." ran the SQL (a polite "Hi!" hid the request; the prose after the SQL was sent as SQL; the database
  was called "as", the dataset "called").
- "who can query energy_consumption?" was said to ask for the query history before the permissions were shown.
"""

import pytest

from agentchat.llm.offline.answers.git import git_line
from agentchat.llm.offline.mentions import mentions_read
from agentchat.toolset.aspects import asked_aspect
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures

DASHBOARD = "dashboard/1@ss-dev"


def test_a_step_on_a_condition_waits_for_the_first(specs, knowledge):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, "прогони валидацию и если всё ок то закомить", DASHBOARD))
    assert name == "run_llm_validation"


@pytest.mark.parametrize(
    ("question", "branch"),
    [("заведи ветку под релиз 2.4", "release/2.4"), ("create a branch for hotfix 1.2.1", "hotfix/1.2.1")],
)
def test_a_release_names_its_branch(specs, knowledge, question, branch):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, DASHBOARD, role="engineer"))
    assert (name, args.get("name")) == ("create_branch", branch)


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("who pushed Обзор регионов to prod last, and did it go through?", "dashboard/2@prod"),
        ("чо последнее деплоили в прод и хто", "@prod"),
        ("что и когда выкатывали в прод за последнее время? нужна история", ""),  # «и когда» is no condition
    ],
)
def test_who_deployed_lately_is_the_deploy_history(specs, knowledge, question, where):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, question, where))
    assert name == "deploy_history"


def test_the_same_as_in_another_environment_is_a_comparison(specs, knowledge):  # noqa: F811
    question = "в проде этот датсет такой же как в деве? sql, колонки, метрики"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@prod"))
    assert (name, args.get("dataset_id"), args.get("other_env_id")) == ("compare_versions", 1, "ss-dev")


def test_whether_one_s_own_run_got_through_is_its_task(specs, knowledge):  # noqa: F811
    question = "ну что там с бэкапом, который я запускал час назад, доехал?"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", role="engineer"))
    assert (name, args.get("kind")) == ("get_task_status", "backup")


def test_a_polite_request_for_a_virtual_dataset_creates_it_from_the_sql_alone(specs, knowledge):  # noqa: F811
    question = (
        "Hi! Could you please create a virtual dataset called population_by_district from: select federal_district, "
        "sum(population) as population from regions group by federal_district, in the same database as this one? "
        "Much appreciated."
    )
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", role="engineer"))

    assert name == "superset_create_dataset"
    assert args["sql"] == (
        "select federal_district, sum(population) as population from regions group by federal_district"
    )
    assert (args["table_name"], args.get("dataset_id"), args.get("database_name")) == (
        "population_by_district",
        1,  # the page's dataset says in which database
        None,
    )


def test_who_can_query_is_a_permission_not_the_query_history():
    assert asked_aspect("audit access on prod: who can query energy_consumption?") is None
    assert asked_aspect("who queries this dataset the most?").name == "query_usage"


# --- a fresh user's check of this session's changes (helper qa7, 59 questions of its own) ----------------------


def test_upgrading_superset_is_said_not_done_with_no_card(specs, knowledge):  # noqa: F811
    message = step(specs, knowledge, "обнови ss-dev до последней версии суперсета", "")
    assert message.tool_calls == []  # before: a backup card nobody asked for
    assert asked_aspect("обнови ss-dev до последней версии суперсета").name == "upgrade"
    assert asked_aspect("please add this dashboard to my favourites").name == "favourite_action"


@pytest.mark.parametrize(
    "question",
    [
        "validate this dashboard and then deploy it to prod if it passes",  # before: the prod deploy card
        "сначала прогони валидацию, потом закоммить если без ошибок",  # before: the commit card
    ],
)
def test_a_next_step_waits_for_the_first(specs, knowledge, question):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, question, DASHBOARD, role="engineer"))
    assert name == "run_llm_validation"


@pytest.mark.parametrize(
    ("question", "where", "search", "query"),
    [
        ("чем отличается Обзор регионов в ss-dev и в prod?", "@ss-dev", "search_dashboards", "Обзор регионов"),
        ("who can see the regions table?", "@prod", "search_datasets", "regions"),
    ],
)
def test_an_object_named_without_its_noun_is_looked_up(specs, knowledge, question, where, search, query):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, where))
    assert (name, args.get("query")) == (search, query)


def test_a_run_one_made_is_asked_about_by_its_task(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "бэкап, который я делал утром, готов?", "@ss-dev", role="engineer"))
    assert (name, args.get("kind")) == ("get_task_status", "backup")


def test_a_git_error_ends_the_line_once():
    assert git_line({"error": "Superset is unavailable (prod: HTTP 500), try again later."}, "en") == (
        "could not check: Superset is unavailable (prod: HTTP 500), try again later"
    )


@pytest.mark.parametrize(
    ("text", "sql"),
    [
        ("select count(*) from regions — скока на проде?", "select count(*) from regions"),  # day set d24
        (
            "run SELECT region FROM energy_consumption WHERE source = 'a — b'",
            "SELECT region FROM energy_consumption WHERE source = 'a — b'",
        ),
    ],
)
def test_words_after_the_sql_are_not_sent_as_sql(text, sql):
    assert mentions_read(text, [("ss-dev", "dev"), ("prod", "prod")]).sql == sql
