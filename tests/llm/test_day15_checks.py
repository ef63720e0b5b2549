"""Issue 29, the eleventh session: what was found asking as a user this session. Each class is checked here with
other words than the ones that found it; figures are written as SQL on the demo's data (``tests.llm.test_sql_periods``
``SQLITE`` and the values of ``scripts.devstack.energy_data``)."""

import dataclasses

import pytest

from agentchat.llm.offline.state import Result
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_values import READ, _values_payload

# --- a language asked for in so many words ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "And in English please: сколько всего потреблено в 2024?",
        "на английском, пожалуйста: сколько всего потреблено в 2024?",
    ],
)
def test_a_language_asked_before_a_figure_is_no_part_of_the_figure(specs, knowledge, question):  # noqa: F811
    """ "And in English please: сколько …?" was asked back: «english» was no column, so no SQL was written."""
    explore = Result("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1}, READ, True)

    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[explore], role="analyst"))

    assert name == "superset_execute_sql"
    assert "SUM(consumption_mwh)" in args["sql"]
    assert "'2024-01-01'" in args["sql"]
    assert "'2025-01-01'" in args["sql"]


# --- a word that names no value: the values there are, to say it with ---------------------------------------------


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("how much gas was consumed in 2024?", "gas"),
        ("сколько потребила масква в 2025?", "масква"),
    ],
)
def test_a_word_no_value_names_is_asked_back_with_the_values(specs, knowledge, question, unread):  # noqa: F811
    """ "how much gas was consumed in 2024?" was told only «send the query»: the person could not know the data says
    «Газ». The question back names the word and lists each text column's values."""
    explore = Result("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1}, READ, True)
    values = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[explore], role="analyst"))[1]
    read = Result("superset_execute_sql", values, _values_payload(), True)

    message = step(specs, knowledge, question, "dataset/1@ss-dev", results=[explore, read], role="analyst")

    assert message.tool_calls == []
    assert unread in message.content, message.content
    assert "source: Атом, ВИЭ, Газ, Гидро, Уголь" in message.content, message.content
    assert "region: Краснодарский край, Москва" in message.content, message.content


# --- where a named dataset is used, from another object's page ---------------------------------------------------


@pytest.mark.parametrize(
    ("where", "question", "dataset"),
    [
        ("dashboard/1@ss-dev", "where else is the regions dataset used?", "regions"),
        ("dashboard/2@prod", "where is energy_consumption used?", "energy_consumption"),
        ("dataset/1@ss-dev", "где ещё используется датасет regions?", "regions"),
        ("dashboard/1@ss-dev", "which dashboards use the regions dataset?", "regions"),
    ],
)
def test_where_a_named_dataset_is_used_is_the_dashboard_search_by_it(specs, knowledge, where, question, dataset):  # noqa: F811
    """ "where else is the regions dataset used?" on a dashboard page was «недоступно со страницы дашборда» (the
    dataset search), and "the regions dataset used" searched for a dataset named «used»: the dashboards built on
    the dataset are searched (seed Story 1 AC 3)."""
    name, args = only_call(step(specs, knowledge, question, where))

    assert (name, args.get("dataset")) == ("search_dashboards", dataset)


# --- rollbacks asked for and asked about --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("релиз сломал графики, верни дашборд на проде к прежней версии", "rollback_deploy"),
        ("верни его к прошлой версии", "rollback_deploy"),
        ("have there been any rollbacks on prod this week?", "deploy_history"),
        ("его уже откатывали? когда?", "deploy_history"),
        ("был ли откат после последнего релиза?", "deploy_history"),
        ("roll back the last deploy", "rollback_deploy"),
    ],
)
def test_a_rollback_asked_for_is_one_and_asked_about_is_the_history(specs, knowledge, question, tool):  # noqa: F811
    """«верни этот дашборд на проде к прежней версии» got the summary; "Were there any rollbacks of this dashboard
    in prod?" was refused as a rollback no tool does: past rollbacks are in the deploy history."""
    assert only_call(step(specs, knowledge, question, "dashboard/1@prod"))[0] == tool


# --- a noun is no request, a quoted message no title, a column no dataset's name ----------------------------------


def test_the_grants_on_a_dataset_are_its_permissions_not_a_grant(specs, knowledge):  # noqa: F811
    """ "list all permission grants on this dataset" was refused: «granting rights are done in Superset»."""
    name, args = only_call(step(specs, knowledge, "list every permission grant on this dataset", "dataset/1@ss-dev"))
    assert (name, args["object_type"], args["object_id"]) == ("superset_audit_permissions", "dataset", 1)
    assert step(specs, knowledge, "grant the analyst access to this dataset", "dataset/1@ss-dev").tool_calls == []


@pytest.mark.parametrize("question", ["закоммить с сообщением «ревизия Q4»", "commit it with message 'nightly'"])
def test_a_commit_s_message_is_no_title_to_search_for(specs, knowledge, question):  # noqa: F811
    """«закоммитьте с сообщением «аудит Q3»» with no page searched dashboards for «аудит Q3», then for «сообщени»:
    the dashboard is asked for; on its page the commit carries the message."""
    assert step(specs, knowledge, question, "@prod").tool_calls == []
    name, args = only_call(step(specs, knowledge, question, "dashboard/2@ss-dev"))
    assert name == "commit_changes"
    assert args["dashboard_id"] == 2
    assert args["message"] in question


def test_a_dataset_named_after_its_noun_is_searched_not_a_column_named_later(specs, knowledge):  # noqa: F811
    """«что за датасет regions на деве? … federal_district там просто строка?» searched for «federal_district»."""
    question = "что за датасет regions? какие колонки и population там число или строка? а federal_district?"
    assert only_call(step(specs, knowledge, question, "@ss-dev")) == (
        "search_datasets",
        {"env_id": "ss-dev", "query": "regions"},
    )


# --- a figure of the data asked on a dashboard's page ---------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "итог по деньгам за 2025 на графике какой-то странный, посчитай сумму cost_rub за 2025 по данным",
        "сколько МВт·ч потребила Москва в 2024?",
        "top 3 regions by cost in 2025?",
    ],
)
def test_a_figure_of_the_data_on_a_dashboard_page_is_offered_without_the_page(specs, knowledge, question):  # noqa: F811
    """«посчитайте сумму cost_rub за 2024 прямо по данным» on a dashboard's page got its summary under «ни один мой
    инструмент этого не делает»: the SQL tool does it, from a dataset's page, so it is said to be unavailable here
    with the one-click to ask without the page (issue 29 item 2)."""
    page_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "page")  # DESIGN §8 defaults
    message = step(specs, page_only, question, "dashboard/1@prod", role="analyst")
    assert message.tool_calls == []
    assert message.content == "why:superset_execute_sql"
    assert message.response_metadata.get("ask_without_page") is True


def test_a_count_of_the_dashboard_s_own_parts_is_still_its_summary(specs, knowledge):  # noqa: F811
    assert only_call(step(specs, knowledge, "сколько графиков на этом дашборде?", "dashboard/1@prod"))[0] == (
        "get_health_summary"
    )
