"""Issue 29, the eleventh session: what a fresh check found asking 112 questions as a new admin on ss-dev pages.
Each class is checked with other words than the ones that found it; the SQL runs on SQLite holding the demo's rows
(``scripts.devstack.energy_data``)."""

import dataclasses

import pytest

from agentchat.llm.offline.replies import unserved_part
from agentchat.llm.offline.sql_steps import sql_for
from agentchat.llm.offline.state import Result, Turn
from scripts.devstack.energy_data import REGIONS, energy_rows
from tests.llm.test_day14_readings import VALUES, _rows, energy  # noqa: F401 - a fixture
from tests.llm.test_offline_planner import knowledge, offered, only_call, page, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_periods import SQLITE

# --- a migration's page: nothing but a run asked for runs it ---------------------------------------------------------


def test_another_page_s_tool_named_on_a_migration_page_is_no_run(specs, knowledge):  # noqa: F811
    """«отформатируй sql: …» on a migration page showed the migration's card: an imperative with no object was read
    as the page's run. Another tool's strong rule names it: unavailable here, with the one-click without the page."""
    page_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "page")
    message = step(specs, page_only, "приведи в порядок этот sql: select region from t where x=1", "migration/1@prod")
    assert message.tool_calls == []
    assert message.content == "why:superset_format_sql"


@pytest.mark.parametrize(
    "question",
    ["just preview it, do not run anything yet", "покажи, что будет, пока не запускай", "сделай пробный прогон"],
)
def test_a_preview_asked_alone_is_not_followed_by_the_run(specs, knowledge, question):  # noqa: F811
    """ "do a dry run first, don't actually migrate anything" showed the preview, then the migration's card."""
    name, args = only_call(step(specs, knowledge, question, "migration/1@prod"))
    assert name == "preview_migration"
    preview = Result(name, args, {"migration_id": 1, "actions": []}, True)

    assert step(specs, knowledge, question, "migration/1@prod", results=[preview]).tool_calls == []


def test_whether_a_migration_can_be_undone_is_its_preview_not_a_refusal(specs, knowledge):  # noqa: F811
    """«если что-то пойдёт не так, миграцию можно откатить?» was «нет такого инструмента» above a list naming it."""
    for question in ("а откатить потом получится, если что?", "could we undo this migration later?"):
        assert only_call(step(specs, knowledge, question, "migration/1@ss-dev"))[0] == "preview_migration", question


def test_the_target_of_a_mapping_is_the_other_environment_named(specs, knowledge):  # noqa: F811
    """«energy на деве куда мапится на проде?» took «на деве» as the target: the plan refused «в ss-dev»."""
    name, args = only_call(step(specs, knowledge, "база на деве во что мапится на проде?", "migration/1@ss-dev"))
    assert (name, args.get("target_env_id")) == ("preview_migration", "prod")


def test_who_ran_a_migration_is_the_deploy_history(specs, knowledge):  # noqa: F811
    """«история запусков этой миграции — кто и когда запускал?» got the plan's preview."""
    question = "миграцию эту кто-нибудь уже запускал? когда?"
    assert only_call(step(specs, knowledge, question, "migration/1@ss-dev"))[0] == "deploy_history"


# --- requests read through what is said around them ----------------------------------------------------------------


def test_a_branch_for_this_dashboard_is_made_not_refused_as_a_new_dashboard(specs, knowledge):  # noqa: F811
    """«создай ветку feature/new-colors под этот дашборд» was «нет такого инструмента» (a new dashboard)."""
    name, args = only_call(
        step(specs, knowledge, "заведи ветку fix/axis-labels для этого дашборда", "dashboard/1@ss-dev")
    )
    assert (name, args["name"]) == ("create_branch", "fix/axis-labels")


def test_a_chart_to_draw_is_said_to_be_impossible(specs, knowledge):  # noqa: F811
    """«построй мне график потребления по месяцам» was asked back for «построй» as a value of the data."""
    for question in ("постройте диаграмму затрат по регионам", "plot me a graph of consumption by month"):
        message = step(specs, knowledge, question, "dataset/1@ss-dev")
        assert message.tool_calls == [], question
        assert "Superset" in message.content, message.content


def test_what_was_done_before_a_request_is_no_request(specs, knowledge):  # noqa: F811
    """«всё проверили, задеплой его на прод плз» was not understood: «проверили» was read as a check."""
    name, args = only_call(
        step(specs, knowledge, "мы всё протестировали и проверили, выкати его в прод", "dashboard/1@ss-dev")
    )
    assert (name, args["target_env_id"]) == ("deploy_dashboard", "prod")


@pytest.mark.parametrize("question", ["show me its state on prod, not on dev", "сводку с прода, а не с дева"])
def test_an_environment_set_aside_is_not_the_one_read(specs, knowledge, question):  # noqa: F811
    """ "check the health of this dash on the prod env, not dev" answered for ss-dev."""
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev"))
    assert (name, args["env_id"]) == ("get_health_summary", "prod")


def test_a_title_in_capitals_with_no_page_is_searched_before_the_deploy(specs, knowledge):  # noqa: F811
    """«задеплой Обзор регионов на прод» with no page asked «О каком дашборде речь?»: the router left the search
    out because the planner's first step did not keep it (``weights.first_step``)."""
    from agentchat.toolset.weights import first_step

    assert first_step("выкати Отчёт по энергопотреблению на прод", "deploy_dashboard") == "search_dashboards"


def test_a_question_whether_it_exists_there_is_answered_by_its_summary_there():
    """«а на проде такой дашборд вообще есть? когда его там обновляли?» got the prod summary and «Вы также
    спросили: «а на проде такой дашборд вообще есть?»… отправьте отдельным сообщением»."""
    context = page("dashboard/1@ss-dev")
    summary = Result("get_health_summary", {"env_id": "prod", "dashboard_id": 1}, {"dashboard": {"id": 1}}, True)
    turn = Turn("на проде он вообще есть? кто его там менял последним?", "ru", context, {}, [summary])

    assert unserved_part(turn) == ""


# --- figures asked with words around them --------------------------------------------------------------------------


def test_a_breakdown_sorted_as_asked(energy):  # noqa: F811
    """ "total cost in rubles by source for 2025, sorted desc" was asked back for «sorted, desc»."""
    rows = _rows(energy, "затраты по регионам за 2025, отсортируй по возрастанию")
    assert [r[1] for r in rows] == sorted(r[1] for r in rows)
    assert len(_rows(energy, "cost by source in 2024 sorted descending")) == 5


def test_a_share_of_the_whole_in_percent_is_one_share(energy):  # noqa: F811
    """«доля атома в общем потреблении, в процентах» was asked back for «общем»."""
    rows = list(energy_rows())
    nuclear = sum(r[3] for r in rows if r[2] == "Атом") / sum(r[3] for r in rows)
    ((share,),) = _rows(
        energy, "какая доля ВИЭ в общем потреблении за весь период, в процентах?".replace("ВИЭ", "атома")
    )
    assert share == round(100 * nuclear, 2)


def test_a_dashboard_named_by_its_breakdown_is_no_figure(specs, knowledge):  # noqa: F811
    """«мой дашборд по регионам туда попадает?» on a migration page is about the plan, not a figure of the data."""
    question = "а дашборд по источникам в эту миграцию входит?"
    assert only_call(step(specs, knowledge, question, "migration/1@ss-dev", role="analyst"))[0] == "preview_migration"


def test_the_greatest_single_record_is_the_row_itself(energy):  # noqa: F811
    """«максимальное потребление газа за одну декаду — в каком регионе и когда?» asked for the SQL."""
    (row,) = _rows(energy, "самое большое потребление угля за одну декаду — какой регион, какая дата?")
    coal = max((r for r in energy_rows() if r[2] == "Уголь"), key=lambda r: r[3])
    assert (row[0], row[1], row[3]) == (coal[0], coal[1], coal[3])


def test_a_breakdown_by_two_columns_is_a_row_per_pair(energy):  # noqa: F811
    """«потребление по регионам и источникам за 2025» was grouped by region alone: the sources were dropped."""
    rows = _rows(energy, "затраты по источникам и регионам за 2024")
    assert len(rows) == len({(r[1], r[2]) for r in energy_rows() if r[0].startswith("2024")})
    expected = sum(r[4] for r in energy_rows() if r[0].startswith("2024") and r[1] == "Москва" and r[2] == "Газ")
    assert any(set(r[:2]) == {"Москва", "Газ"} and r[2] == pytest.approx(expected) for r in rows)


def test_a_second_column_named_beside_a_breakdown_is_shown(energy):  # noqa: F811
    """«покажи население и федеральный округ по регионам» (regions) gave the population without the district."""
    regions = {
        **SQLITE,
        "source": {"table": "regions", "backend": "sqlite"},
        "columns": [
            {"name": "region", "type": "TEXT", "label": "Регион"},
            {"name": "federal_district", "type": "TEXT", "label": "Федеральный округ"},
            {"name": "population", "type": "INTEGER", "label": "Население, чел."},
        ],
        "metrics": [{"name": "total_population", "expression": "SUM(population)", "label": None}],
    }
    sql = sql_for("выведи федеральный округ и население по регионам", regions, None, None)
    rows = energy.execute(sql).fetchall()
    assert sorted(rows) == sorted(REGIONS)


def test_a_change_between_two_years_is_each_year_and_the_change_in_percent(energy):  # noqa: F811
    """«на сколько процентов выросли затраты на атомную энергию в 2025 году против 2024-го» (turns_day13 m1309,
    read) was asked back for SQL; «сравни затраты на атом в 2024 и 2025» too."""
    cost = {y: sum(r[4] for r in energy_rows() if r[0].startswith(y) and r[2] == "Атом") for y in ("2024", "2025")}

    rows = _rows(energy, "на сколько процентов выросли затраты на атом в 2025 по сравнению с 2024 годом?")

    assert [r[0] for r in rows] == ["2024", "2025"]
    assert rows[0][2] is None
    assert rows[1][2] == round(100 * (cost["2025"] - cost["2024"]) / cost["2024"], 2)


def test_a_change_per_region_is_taken_within_each_region(energy):  # noqa: F811
    rows = _rows(energy, "рост потребления по регионам: 2025 относительно 2024")
    moscow = {y: sum(r[3] for r in energy_rows() if r[0].startswith(y) and r[1] == "Москва") for y in ("2024", "2025")}
    (row,) = [r for r in rows if r[0] == "2025" and r[1] == "Москва"]
    assert row[3] == round(100 * (moscow["2025"] - moscow["2024"]) / moscow["2024"], 2)


def test_a_change_in_per_cent_is_no_share():
    """«на сколько процентов выросли затраты на газ в 2025 против 2024?» was asked back (a change is no share)."""
    sql = sql_for("на сколько процентов выросли затраты на газ в 2025 против 2024?", SQLITE, None, VALUES)
    assert sql is not None
    assert '"change_percent"' in sql
    assert "share_percent" not in sql


@pytest.mark.parametrize("question", ["на сколько выросли затраты в Москве?", "how much did the cost grow?"])
def test_a_change_with_no_two_periods_is_never_one_total(question):
    """A change asked with one period or none is asked for, not answered with the total."""
    assert sql_for(question, SQLITE, None, VALUES) is None
