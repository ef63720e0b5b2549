"""Results a small model cannot misread (issue 32 item 5): what an OpenAI-compatible model reads of a tool result.

Behind the local 1.5B model the raw summary of «Отчёт по энергопотреблению» (one dataset) became «использует четыре
датасета: energy_consumption, energy, energy_consumption_1 и metadata» — the git export's file names — and raw
``null``/``true`` values reached the user. Here a scripted model asks for the summary on the dashboard's page of the
local pair; the test reads what the model was sent: labelled facts with counts in the question's language, no nulls,
no booleans as JSON, no file names or paths, the object the call ran on; the stored ToolMessage keeps the structure.
"""

import json

import pytest
from channels.db import database_sync_to_async

from agentchat.models import Message
from agentchat.turn.agent import AgentTurn
from agentchat.turn.facts import plain, result_view
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Reply
from tests.support.contexts import dashboard_context, ui_context
from tests.support.frames import Frames


def test_plain_drops_nulls_and_internals_and_words_booleans_and_names_lists():
    value = {
        "published": True,
        "slug": None,
        "sha256": "ab" * 32,
        "files": ["dashboard-1/charts/x_1.yaml"],
        "charts": [{"id": 3, "name": "Итого", "viz_type": "table"}, {"id": 4, "name": "Доля"}],
        "owners": [],
        "nested": {"path": "/srv/x.zip", "ok": False},
    }
    assert plain(value) == {
        "published": "yes",
        "charts (2)": ["Итого (id 3, table)", "Доля (id 4)"],
        "nested": {"ok": "no"},
    }


def test_a_result_without_a_writer_is_plain_and_one_with_a_writer_is_its_text():
    assert json.loads(result_view("no_such_tool", json.dumps({"a": None, "b": True}), "en")) == {
        "b": "yes",
        "answer_in": "English",
    }
    facts = json.loads(result_view("list_environments", json.dumps({"environments": []}), "ru"))
    assert list(facts) == ["facts", "answer_in"]
    assert facts["answer_in"] == "Russian"
    assert "not JSON" == result_view("get_health_summary", "not JSON", "ru")


@pytest.mark.django_db(transaction=True)
async def test_the_model_reads_the_summary_as_labelled_facts_in_the_question_s_language(
    users,
    openai_provider,  # noqa: F811
    superset_stack,
):
    dashboard = superset_stack.dashboard_by_slug("ss-dev", "energy-report")
    charts = superset_stack.dashboard_chart_names("ss-dev", dashboard["id"])
    server = openai_provider(
        Reply(calls=[Call("get_health_summary", {"env_id": "ss-dev", "dashboard_id": dashboard["id"]}, id="c1")]),
        Reply(text="ok"),
    )

    conversation_id = await AgentTurn(user=users["analyst"], emit=Frames()).run(
        conversation_id=None, text="расскажи про этот дашборд", context=dashboard_context(dashboard)
    )

    sent = server.requests[1].tool_results()[-1]["content"]
    assert list(sent) == ["object_used", "facts", "answer_in"]
    facts = sent["facts"]
    assert dashboard["dashboard_title"] in facts
    assert all(name in facts for name in charts)
    assert "Датасеты (1): energy_consumption" in facts
    assert "Владельцы:" in facts
    for raw in ("null", "true", "false", ".yaml", "None"):
        assert raw not in facts, raw
    stored = await database_sync_to_async(
        lambda: Message.objects.filter(conversation_id=conversation_id, role="tool").get().content
    )()
    assert json.loads(stored)["dashboard"]["id"] == dashboard["id"]  # the structure stays in the history


@pytest.mark.django_db(transaction=True)
async def test_problems_claimed_that_no_result_names_are_replaced_by_what_the_tool_returned(
    users,
    openai_provider,  # noqa: F811
    superset_stack,
):
    """Issue 32 item 4: «есть ли проблемы с этим датасетом?» → a permissions audit, answer «Да, есть проблемы» with
    none named. The user reads what the audit returned instead, under a sentence that no problem was named."""
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")
    args = {"env_id": "ss-dev", "object_type": "dataset", "object_id": dataset["id"]}
    openai_provider(
        Reply(calls=[Call("superset_audit_permissions", args, id="c1")]),
        Reply(text="Да, есть проблемы с этим датасетом."),
    )
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="есть ли проблемы с этим датасетом?", context=ui_context("dataset", dataset["id"])
    )

    answer = frames.of("message")[-1]["text"]
    assert answer.startswith("Инструменты не назвали ни одной проблемы; вот что они вернули:"), answer
    assert "energy_consumption" in answer
    assert "есть проблемы" not in answer


def test_an_answer_that_says_none_were_found_is_kept():
    from agentchat.turn.truth import problems_checked

    assert problems_checked("Проблем не найдено.", [{}], "x") == "Проблем не найдено."
    assert problems_checked("No problems were found.", [{}], "x") == "No problems were found."
    assert problems_checked("Found issues? There are problems.", [{"findings_total": 2}], "x").startswith("Found")
    for none in (
        "Не обнаружено никаких проблем.",
        "I found no problems.",
        "We found zero issues.",
        "There are no problems.",
        "Ошибок: 0.",
        "Дашборд содержит 3 графика и 1 датасет.",
        "Dashboard 12 has 3 charts.",
    ):
        assert problems_checked(none, [{}], "x") == none


@pytest.mark.parametrize(
    "claim",
    [
        "Обнаружено 5 критических проблем с датасетом.",
        "Найдены серьёзные проблемы.",
        "I found 3 critical issues.",
        # a third fresh check: paraphrases that passed
        "Нашёл две серьёзные уязвимости в правах доступа.",
        "There are several security risks here: too many people can edit it.",
        "У дашборда 4 ошибки в графиках и сломанный фильтр.",
        "The dashboard has 2 broken charts.",
    ],
)
def test_problems_claimed_with_words_between_are_replaced_when_no_result_names_one(claim):
    """A fresh check: a prompt-injected «Обнаружено 5 критических проблем…» passed, the pattern allowed one word
    between the verb and «проблем»."""
    from agentchat.turn.truth import problems_checked

    assert problems_checked(claim, [{}], "facts", "en").startswith("The tools named no problem")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("call", "question", "asked"),
    [
        (
            Call("get_git_status", {"env_id": "ss-dev", "dashboard_id": 123}, id="c1"),
            "are this dashboard's changes committed?",
            "Which dashboard do you mean? Give its title or id, or open its page.",
        ),
        (
            Call("list_backups", {"env_id": "ss-prod"}, id="c1"),
            "which backups are there for prod?",
            "There is no environment “ss-prod”. Which one do you mean: ",
        ),
        (
            Call("superset_format_sql", {"sql": "SELECT * FROM my_table"}, id="c1"),
            "tidy up the SQL",
            "Send me your SQL query (in backticks is best): I do not write one myself.",
        ),
        (
            Call("superset_execute_sql", {"env_id": "prod", "sql": "SELECT COUNT(*) FROM regions"}, id="c1"),
            "select count(*) from regions — скока на проде?",
            "В какой базе данных? Назовите её",
        ),
    ],
    ids=["invented-id", "unknown-environment", "invented-sql", "missing-database"],
)
async def test_a_statement_after_calls_all_refused_for_their_arguments_becomes_the_question_to_ask(
    users,
    openai_provider,  # noqa: F811
    call,
    question,
    asked,
):
    """Issue 32: «are this dashboard's changes committed?» with no dashboard on the page, the 1.5B model called
    get_git_status with an id nobody named (refused: invented_argument), then stated «The dashboard's changes are
    not committed.» — a fact no result held. The user is asked what the refusal is about: which dashboard, which of
    their environments, their SQL (a generic «which object» answered an unknown environment in the day set)."""
    openai_provider(Reply(calls=[call]), Reply(text="The dashboard's changes are not committed."))
    frames = Frames()

    await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None, text=question, context=ui_context(None, None)
    )

    answer = frames.of("message")[-1]["text"]
    assert answer.startswith(asked), answer
    assert "not committed" not in answer


def test_an_answer_that_asks_or_follows_a_result_is_kept():
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from agentchat.turn.truth import unfounded_checked

    refused = json.dumps({"error": "invented_argument", "message": "…"})
    asked = json.dumps({"error": "invalid_args", "message": "Какая база?", "ask_user": "В какой базе данных?"})
    turn = [HumanMessage("x"), AIMessage("", tool_calls=[{"id": "a", "name": "t", "args": {}}])]
    assert unfounded_checked("Which one?", [*turn, ToolMessage(refused, tool_call_id="a", status="error")]) == (
        "Which one?"
    )
    assert (
        unfounded_checked("Готово.", [*turn, ToolMessage(asked, tool_call_id="a", status="error")])
        == "В какой базе данных?"
    )
    assert unfounded_checked("It is fine.", [*turn, ToolMessage("{}", tool_call_id="a")]) == "It is fine."
    # a request without a question mark asks too; a statement does not
    for request in ("Извините, уточните имя ветки.", "Пришлите запрос.", "Please provide the SQL."):
        assert unfounded_checked(request, [*turn, ToolMessage(refused, tool_call_id="a", status="error")]) == request
    stated = unfounded_checked(
        "The changes are not committed.", [*turn, ToolMessage(refused, tool_call_id="a", status="error")], "en"
    )
    assert stated.startswith("Which object do you mean?")
    # a fresh check: «Готово.» after a call of a tool not offered and one with an invented id, nothing having run
    not_offered = ToolMessage(json.dumps({"error": "not_offered", "message": "…"}), tool_call_id="b", status="error")
    both = [*turn, not_offered, ToolMessage(asked, tool_call_id="a", status="error")]
    assert unfounded_checked("Готово.", both) == "В какой базе данных?"
    assert unfounded_checked("Готово.", [*turn, not_offered]) == "Готово."  # its own refusal says why


@pytest.mark.parametrize(
    ("answer", "committed", "kept"),
    [
        ("Да, изменения закоммичены.", [False], False),  # a fresh check: said over a status that differed
        ("Да, изменения закоммичены.", [True], True),
        ("Нет, изменения не закоммичены.", [False], True),
        ("Нет, изменения не закоммичены.", [True], False),
        ("Нет незакоммиченных изменений.", [True, False], False),
        ("Yes, all changes are committed.", [False], False),
        ("No, there are uncommitted changes.", [True, False], True),
        ("Дашборд «Отчёт» описан.", [False], True),  # says neither
        ("Изменения закоммичены.", [], True),  # no git result judges nothing
        # the facts' own words (an e2e run: the facts repeated verbatim were read as a claim of a commit)
        ("Git: the dashboard's export has never been committed on main.", [False], True),
        ("Git: выгрузка дашборда ещё не сохранялась в ветке main.", [False], True),
        ("Git: the current export is committed on main.", [True], True),
        ("Git: текущая выгрузка сохранена в ветке main.", [True], True),
        ("Git: текущая выгрузка сохранена в ветке main.", [False], False),
        ("Изменения ещё не закоммичены.", [False], True),
    ],
)
def test_an_answer_contradicting_the_git_status_is_replaced_by_what_it_returned(answer, committed, kept):
    from agentchat.turn.truth import committed_checked

    results = [{"dashboards": [{"dashboard_id": n, "committed": flag} for n, flag in enumerate(committed)]}]
    checked = committed_checked(answer, results, "Коммит: нет", "en")
    assert (checked == answer) is kept, checked
    if not kept:
        assert checked.startswith("That answer did not match what the tools returned")
        assert "Коммит: нет" in checked


def test_after_a_failure_a_count_of_errors_is_the_answer_s_own():
    """«1 ошибка» after a failed call may be that failure: the problems check judges only turns where nothing
    failed (the failure's own line says what failed)."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from agentchat.turn.facts import model_inputs

    call = AIMessage("", tool_calls=[{"id": "a", "name": "get_health_summary", "args": {}}])
    failed = ToolMessage(json.dumps({"error": "upstream_error", "message": "503"}), tool_call_id="a", status="error")
    ok = ToolMessage(json.dumps({"dashboard": {"id": 1, "title": "A"}}), tool_call_id="a")
    answer = "При запросе произошла 1 ошибка."
    _view, failures, checked = model_inputs([HumanMessage("что с дашбордом?"), call, failed], "ru", truthful=False)
    assert failures
    assert checked(answer) == answer
    _view, _failures, checked = model_inputs([HumanMessage("что с дашбордом?"), call, ok], "ru", truthful=False)
    assert checked(answer) != answer
