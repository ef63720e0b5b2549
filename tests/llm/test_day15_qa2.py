"""Issue 29, the eleventh session: what a second fresh check found (122 questions as a new admin, analyst and
engineer on ss-dev pages). Each class is checked with other words than the ones that found it; the SQL runs on SQLite
holding the demo's rows (``scripts.devstack.energy_data``)."""

import pytest

from agentchat.llm.offline.replies import unserved_part
from agentchat.llm.offline.state import Result, Turn
from scripts.devstack.energy_data import energy_rows
from tests.llm.test_day14_readings import _rows, energy  # noqa: F401 - a fixture
from tests.llm.test_offline_planner import knowledge, only_call, page, specs, step  # noqa: F401 - fixtures

# --- figures -------------------------------------------------------------------------------------------------------


def test_a_ranking_across_all_values_of_a_column_is_not_grouped_by_it(energy):  # noqa: F811
    """ "which source had the biggest consumption in 2025 across all regions?" was grouped by region and source."""
    rows = _rows(energy, "какой источник дороже всего обошёлся в 2024 по всем регионам?")
    cost = {}
    for r in energy_rows():
        if r[0].startswith("2024"):
            cost[r[2]] = cost.get(r[2], 0) + r[4]
    assert rows[0][0] == max(cost, key=cost.get)
    assert len(rows[0]) == 2


def test_two_values_compared_by_period_are_a_row_each(energy):  # noqa: F811
    """ "consumption of Москва vs Санкт-Петербург in 2025 by quarter" summed both cities per quarter."""
    rows = _rows(energy, "затраты Москвы против Татарстана по кварталам 2024")
    assert len(rows) == 8
    assert {r[1] for r in rows} == {"Москва", "Республика Татарстан"}
    together = _rows(energy, "затраты Москвы и Татарстана вместе по кварталам 2024")
    assert len(together) == 4


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("total_cost for Q3 2024?", lambda r: r[0].startswith("2024-0") and r[0][5:7] in ("07", "08", "09")),
        ("what is total_consumption in Москва in 2025", lambda r: r[0].startswith("2025") and r[1] == "Москва"),
    ],
)
def test_a_metric_asked_by_its_own_name_is_its_figure(energy, question, expected):  # noqa: F811
    """ "what's total_cost for Q1 2025?" and "avg_price for Республика Татарстан in 2025?" were asked back."""
    ((figure,),) = _rows(energy, question)
    column = 4 if "cost" in question else 3
    assert figure == pytest.approx(sum(r[column] for r in energy_rows() if expected(r)))


# --- requests ------------------------------------------------------------------------------------------------------


def test_the_same_object_elsewhere_is_the_page_s_object_compared(specs, knowledge):  # noqa: F811
    """ "does prod have the same dataset, and are the columns identical?" asked «which dataset?» on its page."""
    name, args = only_call(step(specs, knowledge, "is the same dashboard on prod identical?", "dashboard/1@ss-dev"))
    assert (name, args["dashboard_id"], args["other_env_id"]) == ("compare_versions", 1, "prod")


def test_a_column_added_to_a_dataset_is_said_to_be_impossible(specs, knowledge):  # noqa: F811
    """ "add a gdp column to this dataset" asked «For which table?» (a new dataset's)."""
    message = step(specs, knowledge, "please add a region_code column to this dataset", "dataset/1@ss-dev")
    assert message.tool_calls == []
    assert "Superset" in message.content, message.content


# --- «вы также спросили» only for what was not answered --------------------------------------------------------------


def _summary_turn(question: str, read: str = "get_health_summary") -> Turn:
    context = page("dashboard/2@ss-dev")
    summary = Result(read, {"env_id": "ss-dev", "dashboard_id": 2}, {"dashboard": {"id": 2}}, True)
    tools = {"get_health_summary": {}, "search_dashboards": {}, "deploy_dashboard": {}}
    return Turn(question, "en" if question.isascii() else "ru", context, tools, [summary])


@pytest.mark.parametrize(
    "question",
    [
        "which charts does it have and what chart types are they",  # the summary lists each chart with its type
        "кто владелец? а незакоммиченные изменения есть?",  # the summary holds the git state (DESIGN §8)
        "who owns it? need it for the quarterly access review",  # why it is asked, no request
    ],
)
def test_a_part_the_answer_served_is_not_sent_back(question):
    assert unserved_part(_summary_turn(question)) == ""


def test_a_part_another_tool_serves_is_still_named():
    assert unserved_part(_summary_turn("кто владелец? и задеплой его в прод")) != ""


def test_the_dashboards_on_a_dataset_found_are_the_answer_not_the_one_s_summary(specs, knowledge):  # noqa: F811
    """«какие ещё дашборды используют датасет regions?» found one dashboard and showed its summary."""
    question = "на каких ещё дашбордах используется датасет energy_consumption?"
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev"))
    assert (name, args["dataset"]) == ("search_dashboards", "energy_consumption")
    found = Result(name, args, {"dashboards": [{"id": 1, "dashboard_title": "Отчёт"}], "count": 1}, True)

    assert step(specs, knowledge, question, "dashboard/1@ss-dev", results=[found]).tool_calls == []


def test_a_metric_and_a_year_asked_read_the_dataset_first(specs, knowledge):  # noqa: F811
    """ "avg_price for Республика Татарстан in 2025?" was answered with no call at all."""
    name, _args = only_call(step(specs, knowledge, "total_consumption for Москва in 2024?", "dataset/1@ss-dev"))
    assert name == "superset_explore_database"


def test_an_alert_that_came_is_why_the_dashboard_is_checked(specs, knowledge):  # noqa: F811
    """«пришёл алерт что дашборд не грузится… проверь его состояние» led with «не могу: рассылки и оповещения»."""
    message = step(
        specs, knowledge, "got an alert that this dashboard is broken, check its state", "dashboard/1@ss-dev"
    )
    name, _args = only_call(message)
    assert name == "get_health_summary"


def test_a_notification_after_a_run_does_not_cancel_the_run(specs, knowledge):  # noqa: F811
    """ "start a backup and email me when it finishes" refused everything once the e-mail was read: the backup is
    still asked for (its card), the e-mail is said to be impossible."""
    assert only_call(step(specs, knowledge, "сделай бэкап прода и напиши мне на почту, когда закончится", "@prod"))[
        0
    ] == ("run_backup")


def test_a_request_after_a_greeting_and_its_context_is_read(specs, knowledge):  # noqa: F811
    """ "hi! before the standup: who owns this dashboard …?" was not understood: the whole rest was read as a clause
    of what is to happen before."""
    message = step(specs, knowledge, "привет! перед планеркой: кто владелец этого дашборда?", "dashboard/1@ss-dev")
    assert only_call(message)[0] == "get_health_summary"


def test_a_new_virtual_dataset_is_named_by_its_noun_not_by_a_literal_of_its_sql(specs, knowledge):  # noqa: F811
    """«создай датасет energy_2025 на основе запроса select … where date >= '2025-01-01'» searched dashboards on
    that dataset, then named the new dataset «2025-01-01»."""
    question = "создай датасет gas_only на основе запроса select * from energy_consumption where source = 'Газ'"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert (name, args["table_name"]) == ("superset_create_dataset", "gas_only")
