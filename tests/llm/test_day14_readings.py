"""Issue 29, the tenth session: what turns_day14's read half found, read by the offline planner (the held half was
never read). Each is a class of question, checked here with other words than the row's; the SQL written runs on
SQLite holding the demo's rows (``scripts.devstack.energy_data.build_energy_db``), and its figures are compared
with sums over those rows computed here."""

import sqlite3
from collections import defaultdict

import pytest

from agentchat.llm.offline.sql_steps import sql_for
from agentchat.llm.offline.state import Result
from agentchat.toolset.aspects import asked_aspect
from agentchat.toolset.intents import rule_scores
from agentchat.toolset.reading import read_question
from agentchat.toolset.router import rank_with_rules
from scripts.devstack.energy_data import build_energy_db, energy_rows
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_periods import SQLITE

VALUES = {
    "region": ["Москва", "Республика Татарстан", "Санкт-Петербург", "Свердловская область"],
    "source": ["Атом", "Газ", "Уголь"],
}
CONSUMED_2025 = defaultdict(float)
for _date, _region, _source, _mwh, _cost in energy_rows():
    if _date.startswith("2025"):
        CONSUMED_2025[_region] += _mwh


@pytest.fixture(scope="module")
def energy(tmp_path_factory):
    path = tmp_path_factory.mktemp("energy") / "energy.db"
    build_energy_db(path)
    with sqlite3.connect(path) as conn:
        yield conn


def _rows(energy, question: str) -> list[tuple]:
    sql = sql_for(question, SQLITE, None, VALUES)
    assert sql is not None, question
    return energy.execute(sql).fetchall()


@pytest.mark.parametrize(
    "question", ["потребление по кварталам за 2025", "consumption by quarter in 2025", "поквартально потребление 2025"]
)
def test_a_breakdown_by_quarter_is_a_row_per_quarter_of_the_year(energy, question):
    """m1439: «по кварталам» was asked back as SQL («нет портируемого TO_CHAR»): the quarter is the year and the
    quarter of the month, written once and transpiled."""
    expected: dict[str, float] = defaultdict(float)
    for date, _region, _source, mwh, _cost in energy_rows():
        if date.startswith("2025"):
            expected[f"2025-Q{(int(date[5:7]) + 2) // 3}"] += mwh

    rows = _rows(energy, question)

    assert [r[0] for r in rows] == ["2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4"]
    assert [round(r[1], 1) for r in rows] == [round(expected[q], 1) for q in sorted(expected)]


def test_a_breakdown_by_quarter_and_source_of_two_years(energy):
    rows = _rows(energy, "стоимость по источникам и кварталам за 2024 и 2025")

    assert len(rows) == 40  # 8 quarters × 5 sources
    gas_q1_2024 = sum(r[4] for r in energy_rows() if r[0][:7] in ("2024-01", "2024-02", "2024-03") and r[2] == "Газ")
    assert round(next(r[2] for r in rows if r[:2] == ("2024-Q1", "Газ")), 2) == round(gas_q1_2024, 2)


@pytest.mark.parametrize(
    "question",
    [
        "скок МВт·ч ушло по Республике Татарстан за 2024 год? только цифру, без графиков",
        "сколько мегаватт-часов потребил Татарстан в 2024 году?",
        "how many MWh did Татарстан use in 2024, no charts please",
    ],
)
def test_energy_asked_by_its_unit_is_the_consumption(energy, question):
    """m1443: «скок МВт·ч ушло» was not read as a figure, and «без графиков» (the answer's form) as a negation: the
    dataset's description was shown in place of the figure."""
    expected = sum(r[3] for r in energy_rows() if r[0].startswith("2024") and r[1] == "Республика Татарстан")

    ((figure,),) = _rows(energy, question)

    assert round(figure, 1) == round(expected, 1)


def test_money_asked_as_money_is_the_cost(energy):
    expected = sum(r[4] for r in energy_rows() if r[0].startswith("2025") and r[2] == "Газ")

    ((figure,),) = _rows(energy, "сколько денег ушло на газ в 2025?")

    assert round(figure, 2) == round(expected, 2)


def test_a_price_per_mwh_is_the_price_metric_or_asked_for():
    """A dataset with no price metric got the total cost for «сколько стоил 1 МВт·ч» (found while writing these)."""
    price = {"name": "avg_price", "expression": "SUM(cost_rub) / SUM(consumption_mwh)", "label": None}
    priced = {**SQLITE, "metrics": [*SQLITE["metrics"], price]}
    question = "сколько стоил 1 МВт·ч газа в 2025?"

    assert (sql_for(question, priced, None, VALUES) or "").startswith(
        'SELECT SUM(cost_rub) / SUM(consumption_mwh) AS "avg_price"'
    )
    assert sql_for(question, SQLITE, None, VALUES) is None


def test_a_negated_value_is_still_a_condition_beside_the_answer_s_form():
    sql = sql_for("потребление в 2025 кроме газа, без графиков", SQLITE, None, VALUES) or ""
    assert "\"source\" <> 'Газ'" in sql


def test_a_figure_after_context_and_a_colon_is_the_figure(specs, knowledge):  # noqa: F811
    """m1431: «хочу сверить цифру с дашбордом: сколько всего денег … за 2024 год?» was read as a dataset to create
    (the dataset page offers it) and asked for a table."""
    question = "хочу сверить цифру с дашбордом: сколько всего денег за 2024 год?"
    assert only_call(step(specs, knowledge, question, "dataset/1@ss-dev", role="engineer"))[0] == (
        "superset_explore_database"
    )


@pytest.mark.parametrize(
    "question",
    [
        "смотрю на Москву в отчёте: сколько всего стоил газ за 2024 год?",  # the context names a value
        "нужно за 2025: сколько стоил газ?",  # and a period
    ],
)
def test_a_context_that_may_narrow_the_figure_is_read_with_it(specs, knowledge, question):  # noqa: F811
    message = step(specs, knowledge, question, "dataset/1@ss-dev", role="engineer")
    # the whole is read: its words are either written into the SQL or named when the SQL is asked for
    assert message.tool_calls or "SQL" in message.content


def test_which_schedule_is_no_one_who_may_access():
    """m1409: «по какому расписанию её грузят» audited permissions («какому» holds «кому»)."""
    assert "superset_audit_permissions" not in rule_scores("по какому расписанию её грузят", "dataset")
    assert "superset_audit_permissions" in rule_scores("кому доступен этот датасет?", "dataset")


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("во сколько эта таблица обновляется? по какому расписанию её грузят", "data_freshness"),
        ("when is this table refreshed?", "data_freshness"),
        ("can you set up nightly auto-backups of prod at 2am?", "schedule"),
        ("please configure daily backups for ss-dev", "schedule"),
    ],
)
def test_a_load_schedule_and_recurring_backups_are_what_no_tool_serves(question, aspect):
    """m1409, m1427: the load schedule was answered with a permission audit, and nightly backups with the list of
    backups, with no word that neither was served."""
    assert asked_aspect(question).name == aspect


@pytest.mark.parametrize("question", ["did the nightly backup of prod succeed?", "сделай бэкап прода"])
def test_a_backup_run_or_its_outcome_is_no_schedule(question):
    assert asked_aspect(question) is None or asked_aspect(question).name != "schedule"
    assert not read_question(question).aspect == "schedule"


NOTHING = "There is nothing to roll back in prod: the agent has made no deploy or migration there that saved a copy."


def test_nothing_to_roll_back_is_said_and_then_the_deploy_history_is_read(specs, knowledge):  # noqa: F811
    """Twelve read rows of the older sets ask to roll back the last deploy; with no copy saved before a deploy there
    the answer was the reason alone: what was deployed there is what can be shown (issue 29: cannot, but …)."""
    moot = Result("rollback_deploy", {"env_id": "prod"}, {"error": "not_applicable", "message": NOTHING}, False)
    question = "roll back the last deploy to prod"

    assert only_call(step(specs, knowledge, question, "@prod", results=[moot])) == (
        "deploy_history",
        {"target_env_id": "prod"},
    )
    history = Result("deploy_history", {"target_env_id": "prod"}, {"target_env_id": "prod", "deploys": []}, True)
    answer = step(specs, knowledge, question, "@prod", results=[moot, history]).content
    assert answer.startswith(NOTHING), answer
    assert "prod" in answer.split(NOTHING, 1)[1], answer  # the history follows the reason


def test_a_failed_rollback_is_told_as_before():
    """Only a call that found nothing to apply to is followed by a read: a failure is the answer."""
    from agentchat.llm.offline.asked import read_after_moot
    from agentchat.llm.offline.state import Turn

    failed = Result("rollback_deploy", {"env_id": "prod"}, {"error": "upstream_unavailable", "message": "503"}, False)
    turn = Turn("roll back", "en", {}, {"deploy_history": {}, "rollback_deploy": {}}, [failed])
    assert read_after_moot(turn, failed) is None


def test_the_router_keeps_the_deploy_history_beside_a_rollback():
    similarities = {"rollback_deploy": 0.9, "list_backups": 0.8, "run_backup": 0.8, "get_task_status": 0.7}
    similarities["deploy_history"] = 0.1
    ranked = rank_with_rules(question="roll back the last deploy", similarities=similarities, object_type=None)

    assert "deploy_history" in [r.name for r in ranked[:3]]


def test_the_top_regions_with_each_one_s_share_of_the_whole(energy):
    """m1445: "top 5 regions by consumption in 2025 + each one's share of the total, in %" was asked back as SQL:
    the shares are of all regions (the window is summed before the LIMIT), and «in %» is the share's unit."""
    whole = sum(CONSUMED_2025.values())
    top = sorted(CONSUMED_2025.items(), key=lambda item: -item[1])[:5]

    rows = _rows(energy, "top 5 regions by consumption in 2025 + each one's share of the total, in %")

    assert [r[0] for r in rows] == [region for region, _mwh in top]
    assert [r[2] for r in rows] == [round(100 * mwh / whole, 2) for _region, mwh in top]


def test_each_region_s_share_sums_to_the_whole(energy):
    rows = _rows(energy, "доля каждого региона в потреблении за 2025 в процентах")

    assert len(rows) == len(CONSUMED_2025)
    assert round(sum(r[2] for r in rows)) == 100


def test_the_shares_of_a_column_s_values_within_a_value_named(energy):
    """«доли источников в стоимости по Москве» was asked back; "share of each source in the cost of Москва" gave
    Moscow's share of the whole (the first value named after the share's word) — a figure of another question."""
    moscow = defaultdict(float)
    for date, region, source, _mwh, cost in energy_rows():
        if region == "Москва" and date.startswith("2024"):
            moscow[source] += cost

    for question in (
        "доли источников в стоимости по Москве за 2024",
        "share of each source in the cost of Москва in 2024",
    ):
        rows = _rows(energy, question)
        assert {r[0]: r[2] for r in rows} == {k: round(100 * v / sum(moscow.values()), 2) for k, v in moscow.items()}


def test_the_share_of_one_value_is_read_as_before(energy):
    sql = sql_for("доля Москвы в потреблении по источникам", SQLITE, None, VALUES) or ""
    assert "CASE WHEN \"region\" = 'Москва'" in sql
