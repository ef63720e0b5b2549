"""Issue 29, the tenth session: what two fresh checks found (200 and 105 questions asked as analysts and a new user,
every figure checked against the demo data): each class is read here with other words than theirs, and the SQL
written runs on SQLite holding the demo's rows (``scripts.devstack.energy_data.build_energy_db``)."""

from collections import defaultdict

import pytest

from agentchat.llm.offline.sql_steps import sql_for
from agentchat.toolset.aspects import asked_aspect
from agentchat.toolset.intents import rule_scores
from agentchat.toolset.reading import read_question
from scripts.devstack.energy_data import energy_rows
from tests.llm.test_day14_readings import VALUES, _rows, energy  # noqa: F401 - a fixture
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_periods import SQLITE

# --- a fresh check's findings (200 questions, every figure checked against the data) ---------------------------


def _priced() -> dict:
    price = {"name": "avg_price", "expression": "SUM(cost_rub) / SUM(consumption_mwh)", "label": None}
    return {**SQLITE, "metrics": [*SQLITE["metrics"], price]}


def _share(energy, question: str) -> float:  # noqa: F811
    ((figure,),) = _rows(energy, question)
    return figure


def test_a_share_of_two_values_is_one_share_of_both(energy):  # noqa: F811
    """«доля газа и угля в потреблении в 2025» filtered on coal and gave gas's share in it: 0."""
    rows = [r for r in energy_rows() if r[0].startswith("2025")]
    both = sum(r[3] for r in rows if r[2] in ("Газ", "Уголь")) / sum(r[3] for r in rows)

    assert _share(energy, "доля газа и угля в потреблении в 2025") == round(100 * both, 2)


def test_a_share_falls_to_what_follows_prikhoditsya_na(energy):  # noqa: F811
    """«какая доля стоимости Татарстана приходится на газ?» gave Tatarstan's share of gas's cost."""
    rows = [r for r in energy_rows() if r[1] == "Республика Татарстан"]
    gas = sum(r[4] for r in rows if r[2] == "Газ") / sum(r[4] for r in rows)

    assert _share(energy, "какая доля стоимости Татарстана приходится на газ?") == round(100 * gas, 2)


def test_a_share_of_a_value_named_with_its_column_is_that_value_s(energy):  # noqa: F811
    """«доля региона Москва в потреблении» gave 100 (a share of each region, filtered to Moscow)."""
    moscow = sum(r[3] for r in energy_rows() if r[1] == "Москва") / sum(r[3] for r in energy_rows())

    assert _share(energy, "доля региона Москва в потреблении") == round(100 * moscow, 2)


def test_the_top_rows_of_a_ranking_and_their_share(energy):  # noqa: F811
    """«топ-2 региона по потреблению угля и доля каждого» gave coal's share of everything, one number."""
    coal: dict[str, float] = defaultdict(float)
    for _date, region, source, mwh, _cost in energy_rows():
        if source == "Уголь":
            coal[region] += mwh
    top = sorted(coal.items(), key=lambda item: -item[1])[:2]

    rows = _rows(energy, "топ-2 региона по потреблению угля и доля каждого")

    assert [(r[0], r[2]) for r in rows] == [(k, round(100 * v / sum(coal.values()), 2)) for k, v in top]


@pytest.mark.parametrize(
    "question",
    [
        "доля каждого региона в потреблении по кварталам за 2025",  # a share per quarter was one set, silently
        "доля каждого региона в стоимости за 2025 кроме Москвы",  # of which whole: asked
        "потребление газа в 2025 в Москве, но не в декабре",  # was December only
        "стоимость за 2025 кроме января",
    ],
)
def test_what_the_shapes_cannot_say_for_sure_is_asked_for(question):
    assert sql_for(question, SQLITE, None, VALUES) is None


@pytest.mark.parametrize(
    "question",
    [
        "сколько стоил МВт·ч газа в 2025?",
        "стоимость МВт·ч газа в 2025",
        "цена за мегаватт-час газа в 2025",
        "какая цена газа в 2025?",
    ],
)
def test_the_price_of_a_unit_is_the_price_never_the_total(energy, question):  # noqa: F811
    """«сколько стоил МВт·ч газа в Москве в 2025?» gave the total cost (225 bn) for a price of 3,287 a MWh."""
    rows = [r for r in energy_rows() if r[0].startswith("2025") and r[2] == "Газ"]
    ((price,),) = energy.execute(sql_for(question, _priced(), None, VALUES) or "").fetchall()

    assert round(price, 2) == round(sum(r[4] for r in rows) / sum(r[3] for r in rows), 2)


def test_energy_and_money_asked_together_are_both_written(energy):  # noqa: F811
    """«сколько МВт·ч и сколько денег в 2025?» gave the cost alone."""
    rows = [r for r in energy_rows() if r[0].startswith("2025")]

    ((mwh, cost),) = _rows(energy, "сколько МВт·ч и сколько денег в 2025?")

    assert (round(mwh, 1), round(cost, 2)) == (round(sum(r[3] for r in rows), 1), round(sum(r[4] for r in rows), 2))


def test_money_in_words_no_figure_reads_is_never_the_first_rows():
    assert sql_for("дорогой ли газ?", SQLITE, None, VALUES) is None


def test_a_breakdown_s_adverb_is_no_action_nobody_serves():
    """ "quarterly consumption in 2025" said «I cannot do “quarterly”» above the right table."""
    assert read_question("quarterly consumption in 2025").unheard_action == ""
    assert read_question("yearly cost of coal").unheard_action == ""


def test_the_least_rows_of_a_ranking_and_their_share_are_the_smallest(energy):  # noqa: F811  # noqa: F811
    rows = _rows(energy, "топ-2 региона с наименьшим потреблением и их доля")
    consumed: dict[str, float] = defaultdict(float)
    for _date, region, _source, mwh, _cost in energy_rows():
        consumed[region] += mwh

    assert [r[0] for r in rows] == [k for k, _v in sorted(consumed.items(), key=lambda item: item[1])[:2]]


@pytest.mark.parametrize(
    "question", ["сколько потребили в 2025, без разбивки по источникам", "потребление за 2025 без разбивки по регионам"]
)
def test_no_breakdown_by_a_column_is_one_total(energy, question):  # noqa: F811
    """Found in the review: «без разбивки по источникам» was grouped by source (the opposite of what was asked)."""
    expected = sum(r[3] for r in energy_rows() if r[0].startswith("2025"))

    ((figure,),) = _rows(energy, question)

    assert round(figure, 1) == round(expected, 1)


# --- a second fresh check (105 turns as a new user) -----------------------------------------------------------


@pytest.mark.parametrize(
    "question", ["сколько в среднем стоил МВт·ч газа в 2025?", "average price per MWh of Газ in 2025"]
)
def test_an_average_price_of_a_unit_is_the_price_metric(energy, question):  # noqa: F811
    """«сколько в среднем стоил МВт·ч газа в 2025?» was AVG(cost_rub) per row: 2,454,264,257 for 3,287 a MWh."""
    rows = [r for r in energy_rows() if r[0].startswith("2025") and r[2] == "Газ"]

    ((price,),) = energy.execute(sql_for(question, _priced(), None, VALUES) or "").fetchall()

    assert round(price, 2) == round(sum(r[4] for r in rows) / sum(r[3] for r in rows), 2)


def test_a_figure_after_a_short_heading_of_its_form_is_never_the_first_rows(energy):  # noqa: F811
    """«Коротко, одной цифрой: стоимость угля в Новосибирской области за 4 квартал 2024» was written as the first 10
    rows (a measure named where no figure was read)."""
    values = {**VALUES, "region": [*VALUES["region"], "Новосибирская область"]}
    q4 = ("2024-10", "2024-11", "2024-12")
    expected = sum(
        r[4] for r in energy_rows() if r[0][:7] in q4 and r[1] == "Новосибирская область" and r[2] == "Уголь"
    )
    question = "Коротко, одной цифрой: стоимость угля в Новосибирской области за 4 квартал 2024"

    ((figure,),) = energy.execute(sql_for(question, SQLITE, None, values) or "").fetchall()

    assert round(figure, 2) == round(expected, 2)


def test_a_measure_named_where_no_figure_is_read_is_never_the_first_rows():
    assert sql_for("а по стоимости угля что?", SQLITE, None, VALUES) is None
    assert "LIMIT 5" in (sql_for("покажи первые 5 строк", SQLITE, 5, VALUES) or "")


@pytest.mark.parametrize("question", ["делай бэкап prod каждое воскресенье", "make a backup of prod every sunday"])
def test_a_backup_every_week_is_a_schedule_no_tool_makes(question):
    """A one-time run_backup card stood in for a weekly backup."""
    assert asked_aspect(question).name == "schedule"


@pytest.mark.parametrize("question", ["откати", "откати этот дашборд", "откати его к прошлой версии"])
def test_roll_back_said_of_the_page_s_dashboard_is_the_rollback(question):
    """«откати этот дашборд» on a prod dashboard's page said «Этого я сделать не могу («откати»)» above a list that
    named the rollback."""
    scores = rule_scores(question, "dashboard")
    assert max(scores, key=lambda name: scores[name]) == "rollback_deploy"


def test_roll_back_this_dashboard_to_its_last_version_is_the_rollback(specs, knowledge):  # noqa: F811
    """«откати этот дашборд на прошлую версию» was refused as a request no tool serves; since issue 28 the copy saved
    before the last deploy is what the rollback restores (with nothing saved, it says so and shows the history)."""
    name, args = only_call(step(specs, knowledge, "откати этот дашборд на прошлую версию", "dashboard/1@prod"))
    assert (name, args) == ("rollback_deploy", {"env_id": "prod"})
