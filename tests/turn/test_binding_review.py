"""Context binding, second review (issue 16): a call with argument names its tool lacks is refused, not run on the
page's object; an id the model learnt from this turn's own tool results, or named together with the slug of the
same dashboard, is not replaced by the page's. Scripted models play the calls; nothing here needs Superset."""

import json

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage, ToolMessage
from pydantic import BaseModel

from agentchat.runtime.binding import bind_call, unknown_arguments
from agentchat.runtime.registry import assistant_tool, registry
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from tests.support.contexts import ui_context
from tests.support.scripted_llm import scripted
from tests.support.wording import plural, text

pytestmark = pytest.mark.django_db(transaction=True)


class Frames(list):
    async def __call__(self, event):
        self.append(event.wire())


@pytest.fixture(autouse=True)
def _no_router(settings):
    settings.EMBEDDINGS = "off"


def call(name: str, args: dict, call_id: str = "call_0") -> AIMessage:
    return AIMessage(content="", tool_calls=[{"id": call_id, "name": name, "args": args}])


def tool_results(model) -> list[dict]:
    return [json.loads(m.content) for m in model.seen[-1] if isinstance(m, ToolMessage)]


def audited_args(conversation_id: int) -> list[dict]:
    rows = AuditEvent.objects.filter(conversation_id=conversation_id, event_type__in=["tool_call", "tool_error"])
    return [row.args for row in rows.order_by("pk")]


@pytest.mark.parametrize("language", ["ru", "en"])
async def test_an_argument_the_tool_lacks_is_refused_and_the_page_id_is_not_filled(users, language):
    """``get_health_summary {"slug": "energy-report"}`` on the page of dashboard 2 ran against dashboard 2 (the
    argument model ignored ``slug``, then the page's id was filled). It is refused as invalid arguments, and the
    model reads the unknown name and the names the tool takes, in the turn's language."""
    model = scripted(call("get_health_summary", {"slug": "energy-report"}), "ok")
    frames = Frames()
    question = "расскажи про дашборд energy-report" if language == "ru" else "tell me about dashboard energy-report"

    conversation_id = await AgentTurn(user=users["analyst"], emit=frames, model=model).run(
        conversation_id=None, text=question, context=ui_context("dashboard", 2)
    )

    (told,) = tool_results(model)
    assert told["error"] == "invalid_args"
    unknown = plural(language, "unknown argument: %(names)s", "unknown arguments: %(names)s", 1, names="slug")
    takes = text(language, "%(tool)s takes only: %(names)s", tool="get_health_summary", names="env_id, dashboard_id")
    assert told["message"] == text(language, "Invalid tool arguments: %(detail)s", detail=f"{unknown}; {takes}")
    assert language == "en" or "неизвестный аргумент" in told["message"]  # said in the turn's language
    assert not [f for f in frames if f["event"] == "tool_started"]
    (args,) = await database_sync_to_async(audited_args)(conversation_id)
    assert args == {"slug": "energy-report"}  # the model's call as it was: no page id filled in


def test_unknown_argument_names_are_those_neither_field_nor_alias():
    """An alias (``schema``) and its field name (``schema_name``, ``populate_by_name``) are both the tool's."""
    sql = registry()["superset_execute_sql"]

    assert unknown_arguments(sql, {"sql": "select 1", "schema": "main", "database_name": "examples"}) == []
    assert unknown_arguments(sql, {"sql": "select 1", "schema_name": "main", "database_id": 1}) == []
    assert unknown_arguments(sql, {"sql": "select 1", "table": "t", "db": "x"}) == ["db", "table"]
    assert unknown_arguments(registry()["show_capabilities"], {}) == []


def test_every_tool_s_argument_model_forbids_unknown_names():
    """The executor validates every call (an approved card's, a page's) with the tool's model: an unknown name is
    an error there too, never dropped."""
    lax = [name for name, spec in registry().items() if spec.args_schema.model_config.get("extra") != "forbid"]

    assert lax == []


def test_a_tool_whose_model_lets_unknown_names_through_is_not_registered():
    class Lax(BaseModel):
        env_id: str

    register = assistant_tool(
        name="lax_tool",
        category="read",
        env_specific=True,
        args=Lax,
        description_ru="т",
        description_en="t",
        examples_ru=["т"],
        examples_en=["t"],
    )

    with pytest.raises(ValueError, match="forbid unknown names"):
        register(lambda ctx, args: None)  # type: ignore[arg-type,return-value]
    assert "lax_tool" not in registry()


def test_an_id_named_with_a_slug_on_a_this_question_is_kept_for_the_tool_to_check():
    """«задеплой этот дашборд в прод» on the page of dashboard 2, the model calls with ``dashboard_id: 5`` and the
    slug of dashboard 5: the id was replaced by 2 first, then the tool refused 2 and the slug as two dashboards.
    The model named the object itself twice: its own pair goes to the tool, whose check (id and slug naming two
    dashboards → invalid arguments, tests/turn/test_context_binding.py) judges it."""
    spec = registry()["deploy_dashboard"]
    page = ui_context("dashboard", 2)
    args = {"dashboard": "energy-report", "dashboard_id": 5, "target_env_id": "prod"}

    assert bind_call(spec, args, page, points_at_page=lambda given: True) == ({**args, "source_env_id": "ss-dev"}, None)


def test_a_database_beside_a_wrong_dataset_id_does_not_keep_it():
    """A database is another object than the dataset, and the SQL tool runs on the dataset's database whatever
    database is named (``tools.sql._target``): a wrong ``dataset_id`` beside one is still the page's on "this"."""
    spec = registry()["superset_execute_sql"]
    page = ui_context("dataset", 4)
    args = {"sql": "select 1", "dataset_id": 7, "database_name": "examples"}

    bound, replaced = bind_call(spec, args, page, points_at_page=lambda given: True)

    assert bound["dataset_id"] == 4
    assert replaced == {"argument": "dataset_id", "given": 7, "used": 4}
