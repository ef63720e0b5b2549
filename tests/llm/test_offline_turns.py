"""Whole turns with the offline planner on the real local Superset (DESIGN §11; issue 8 item 5 and the reported
behaviours): the same agent loop, policies and executor as with a real LLM."""

import re

import pytest
from channels.db import database_sync_to_async

from agentchat.models import PendingConfirmation
from agentchat.runtime.registry import registry
from agentchat.runtime.titles import tool_title
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from tests.support.contexts import ui_context
from tests.support.superset_api import dashboard_chart_names, datasets_named
from tests.support.wording import ptext, text

pytestmark = pytest.mark.django_db(transaction=True)


def tool_names_in(text: str) -> list[str]:
    """Internal tool names a user must never be answered with."""
    return [name for name in registry() if name in text]


@pytest.fixture(autouse=True)
def _offline(settings):
    settings.LLM_PROVIDER = "offline"


class Frames:
    def __init__(self):
        self.frames: list[dict] = []

    async def __call__(self, event) -> None:
        self.frames.append(event.wire())

    def of(self, event: str) -> list[dict]:
        return [f for f in self.frames if f["event"] == event]

    @property
    def answer(self) -> str:
        return self.of("message")[-1]["text"]

    @property
    def tools(self) -> list[str]:
        return [f["tool"] for f in self.of("tool_started")]


def page(object_type: str | None, object_id: int | None, env_id: str | None = "ss-dev") -> dict:
    return ui_context(object_type, object_id, env_id=env_id)


async def ask(user, text: str, context: dict | None) -> Frames:
    frames = Frames()
    await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=text, context=context)
    return frames


@pytest.fixture
def energy_dataset(superset_stack) -> dict:
    (dataset,) = datasets_named("ss-dev", "energy_consumption")
    return dataset


@pytest.mark.parametrize("question", ["расскажи про этот датасет", "какие колонки в этом датасете?"])
async def test_dataset_page_question_reads_the_dataset_of_the_page(users, energy_dataset, question):
    """From a dataset page the planner uses the offered dataset tool with the page's id, and the answer names the
    dataset and its real columns — not a dashboard summary, not a tool name."""
    frames = await ask(users["analyst"], question, page("dataset", energy_dataset["id"]))

    assert frames.tools == ["superset_explore_database"]
    assert "energy_consumption" in frames.answer
    assert "consumption_mwh" in frames.answer
    assert tool_names_in(frames.answer) == []


async def test_english_dataset_question_gets_an_english_answer(users, energy_dataset):
    frames = await ask(users["analyst"], "what's the underlying table of this dataset?", page("dataset", 1))
    assert frames.tools == ["superset_explore_database"]
    assert frames.answer.startswith("Dataset [“energy_consumption”](/datasets/1/?env_id=ss-dev) reads ")
    assert "Columns (5):" in frames.answer


async def test_delete_request_is_refused_without_calling_anything(users, energy_dashboard):
    frames = await ask(users["engineer"], "удали этот дашборд", page("dashboard", energy_dashboard["id"]))

    assert frames.tools == []
    refusal = text(
        "ru",
        "I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing. Deleting or renaming "
        "objects, editing charts and granting rights are done in Superset itself.",
        phrase="удали",
    )
    assert frames.answer.startswith(refusal + "\n\n")
    assert tool_names_in(frames.answer) == []


async def test_deploy_request_goes_to_deploy_or_says_it_is_not_built(users, energy_dashboard):
    """«задеплой этот дашборд в prod»: never a health summary. With deploy_dashboard registered, its card asks
    to confirm a deploy to prod (the test declines it); before that tool exists, the answer says so honestly."""
    frames = await ask(users["engineer"], "задеплой этот дашборд в prod", page("dashboard", energy_dashboard["id"]))

    assert "get_health_summary" not in frames.tools
    if "deploy_dashboard" in registry():
        (card,) = frames.of("confirm_required")
        assert card["tool"] == "deploy_dashboard"
        row = await database_sync_to_async(PendingConfirmation.objects.get)(pk=card["confirmation_id"])
        assert row.args["target_env_id"] == "prod"
        assert row.args["source_env_id"] == "ss-dev"
        await AgentTurn(user=users["engineer"], emit=Frames()).decide(
            confirmation_id=card["confirmation_id"], approve=False
        )
    else:
        assert frames.tools == []
        title = tool_title("deploy_dashboard", "ru")
        assert frames.answer == text("ru", "I cannot do that yet (%(title)s).", title=title)


async def test_unavailable_on_this_page_blames_the_page_not_the_role(users, energy_dataset):
    """An engineer may create branches, but not from a dataset page: the answer says so."""
    frames = await ask(users["engineer"], "создай ветку feature/from-dataset", page("dataset", energy_dataset["id"]))

    assert frames.tools == []
    here = ptext("ru", "the page of one", "dataset")
    pages = ptext("ru", "the pages of", "dashboard")
    expected = text(
        "ru",
        "That is not available from a %(here)s page (%(title)s): ask it without the page's context with the "
        "button below, or open the agent from a %(pages)s page.",
        here=here,
        title=tool_title("create_branch", "ru"),
        pages=pages,
    )
    assert frames.answer == expected  # the page, not the role, is why
    assert frames.of("message")[-1]["ask_without_page"] == "создай ветку feature/from-dataset"  # issue 29 item 2


async def test_action_the_role_lacks_gets_the_denied_card_then_names_the_role(users, energy_dashboard):
    """DESIGN §9: the analyst asking for a write sees the «Недостаточно прав» card (audited), then the reason."""
    frames = await ask(users["analyst"], "создай ветку feature/analyst", page("dashboard", energy_dashboard["id"]))

    assert frames.tools == []  # nothing ran
    [card] = frames.of("permission_denied")
    assert card["tool"] == "create_branch"
    assert sorted(card["required_roles"]) == ["admin", "engineer"]
    assert 'data-action="approve"' not in card["html"]
    roles = ptext("ru", "between alternative roles", " or ").join(sorted(card["required_roles"]))
    assert (
        text(
            "ru",
            "That (%(title)s) needs the role %(roles)s, which your account does not have. Ask an administrator.",
            title=tool_title("create_branch", "ru"),
            roles=roles,
        )
        in frames.answer
    )
    denied = await AuditEvent.objects.filter(
        actor=users["analyst"], event_type=AuditEvent.EventType.PERMISSION_DENIED, tool="create_branch"
    ).acount()
    assert denied == 1


async def test_question_about_a_tool_the_role_lacks_is_answered_without_a_card(users, energy_dashboard):
    frames = await ask(users["analyst"], "какие бэкапы есть в prod?", page(None, None, env_id="prod"))

    assert frames.of("permission_denied") == []  # a question, not an action: explained, nothing refused


async def test_dashboard_named_in_quotes_is_searched_then_summarised(users, superset_stack):
    regions = superset_stack.dashboard_by_slug("ss-dev", "regions-overview")

    frames = await ask(users["analyst"], "Как поживает дашборд «Обзор регионов»?", page(None, None))

    assert frames.tools == ["search_dashboards", "get_health_summary"]
    assert "Обзор регионов" in frames.answer
    for chart in dashboard_chart_names("ss-dev", regions["id"]):
        assert chart in frames.answer


async def test_missing_dataset_is_asked_for(users):
    frames = await ask(users["analyst"], "Какие колонки у датасета?", page(None, None))
    assert frames.tools == []
    assert frames.answer == text(
        "ru",
        "Which dataset do you mean? Give its id or its name in quotes — or open the agent from the dataset's page.",
    )


async def test_count_rows_of_the_page_dataset_runs_a_count_query(users, energy_dataset):
    frames = await ask(users["analyst"], "сколько всего строк в этом датасете?", page("dataset", energy_dataset["id"]))

    assert frames.tools == ["superset_explore_database", "superset_execute_sql"]
    assert all(f["ok"] for f in frames.of("tool_finished"))
    count = re.search(r"row_count = (\d+)\.", frames.answer)  # the value itself, not «1 row»
    assert count, frames.answer
    assert int(count.group(1)) > 1


async def test_capabilities_list_tools_by_title_and_say_the_planner_is_offline(users):
    frames = await ask(users["analyst"], "что ты умеешь?", None)
    assert frames.tools == ["show_capabilities"]
    title = tool_title("list_environments", "ru")
    assert f"- {title[:1].upper()}{title[1:]}: " in frames.answer
    assert frames.answer.endswith(
        "\n\n"
        + text(
            "ru",
            "I am running offline, without a language model: I understand requests for these tools and answer "
            "from templates.",
        )
    )
    assert tool_names_in(frames.answer) == []


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "расскажи про этот дашборд",
            "Дашборд #99999 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),
        (
            "tell me about this dashboard",
            "Dashboard #99999 was not found in ss-dev, or Superset does not show it to your account.",
        ),
    ],
)
async def test_a_dashboard_missing_in_superset_is_named_not_found(users, superset_stack, question, expected):
    frames = await ask(users["analyst"], question, page("dashboard", 99999))

    assert frames.answer == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # 20 digits: beyond the database's 64-bit keys; the page's dashboard must not be summarised instead
        (
            "покажи дашборд 99999999999999999999",
            "Дашборд #99999999999999999999 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),
        (
            "show dashboard 9223372036854775808",
            "Dashboard #9223372036854775808 was not found in ss-dev, or Superset does not show it to your account.",
        ),
        (
            "покажи дашборд 0",
            "Дашборд #0 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),  # no key is 0 either (was a validator's text)
        # a deploy names no env_id: its source environment is the one said (was «… не найден в ?.»)
        (
            "задеплой дашборд 99999999999999999999 в prod",
            "Дашборд #99999999999999999999 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),
    ],
)
async def test_an_id_beyond_the_id_range_is_not_found_not_the_page_s_object(users, superset_stack, question, expected):
    frames = await ask(users["engineer"], question, page("dashboard", 1))

    assert frames.answer.endswith(expected)
    assert frames.of("confirm_required") == []  # answered without a request: Superset has no such key


async def test_a_deploy_of_a_dashboard_the_source_lacks_gets_no_card(users, superset_stack):
    frames = await ask(users["engineer"], "задеплой дашборд 987654 в prod", page("dashboard", 1))

    assert frames.of("confirm_required") == []
    assert await database_sync_to_async(PendingConfirmation.objects.count)() == 0
    assert "В окружении ss-dev нет дашбордов с id 987654." in frames.answer
    assert frames.of("error") == []


async def test_a_branch_for_a_task_is_a_branch_not_the_task_s_status(users, superset_stack):
    """A fresh user's «открой ветку под задачу 123» from the settings page read task 123's status («Задача 123 не
    найдена»); it asks for a branch, which needs an environment (issue 29 item 4)."""
    frames = await ask(users["engineer"], "открой ветку под задачу 123", None)

    assert frames.tools == []
    assert frames.of("confirm_required") == []
    assert "создание git-ветки" in frames.answer
    assert "окружение" in frames.answer

    on_page = await ask(users["engineer"], "открой ветку под задачу 123", page("dashboard", 1))

    [card] = on_page.of("confirm_required")
    assert card["tool"] == "create_branch"
    assert "feature/123" in card["html"]


async def test_sql_to_tidy_asked_on_a_dashboard_page_is_not_a_dashboard_review(users, superset_stack):
    frames = await ask(users["engineer"], "приведи SQL к нормальному виду", page("dashboard", 1))

    assert frames.of("confirm_required") == []
    assert frames.answer.startswith("Со страницы дашборда это недоступно (форматирование SQL)")
    assert frames.of("message")[-1]["ask_without_page"] == "приведи SQL к нормальному виду"


@pytest.mark.parametrize(
    ("question", "language"),
    [("есть ли незакоммиченные изменения?", "ru"), ("is this dashboard committed to git?", "en")],
)
async def test_the_git_state_asked_on_a_dashboard_page_comes_first(users, superset_stack, question, language):
    """The dashboard page offers the summary in place of the git status: its git line answers the question and
    leads (a fresh user read the whole summary with the answer in its last lines; issue 29 item 1)."""
    frames = await ask(users["engineer"], question, page("dashboard", 1))

    assert frames.tools == ["get_health_summary"]
    first, rest = frames.answer.split("\n\n", 1)
    assert first.startswith("Git: ")
    assert first not in rest  # said once, first (a fresh check read it twice: first and again in the summary)
    assert "Графики" in rest or "Charts" in rest  # the summary follows
    plain = await ask(users["engineer"], "расскажи про этот дашборд", page("dashboard", 1))
    assert not plain.answer.startswith("Git: ")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "покажи датасет 987654",
            "Датасет #987654 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),
        (
            "покажи датасет 99999999999999999999",
            "Датасет #99999999999999999999 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),
    ],
)
async def test_a_dataset_named_by_id_on_another_dataset_s_page_is_that_one(users, superset_stack, question, expected):
    """A fresh user's «покажи датасет 987654» on dataset 1's page was answered with dataset 1 (SC-001: the page's
    object in place of the one named)."""
    frames = await ask(users["engineer"], question, page("dataset", 1))

    assert frames.answer == expected
