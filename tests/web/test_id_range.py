"""Ids beyond a 64-bit key (issue 31 item 5): ≥ 2^63 in a URL is a 404, in a frame or a page context a validation
error, in a tool's arguments ``invalid_args`` — never a query, and never «Superset недоступен» (Superset on SQLite
answered HTTP 500 for such an id, which the client reported as an outage after its retry)."""

import json

import pytest
from channels.db import database_sync_to_async
from pydantic import ValidationError

from agentchat.context.ids import MAX_ID, IdConverter
from agentchat.errors import not_found_text
from agentchat.runtime.registry import registry
from policies.models import Environment
from tests.support.contexts import ui_context
from tests.support.faultproxy import FaultProxy
from tests.support.tool_runs import run_tool
from tests.support.websocket import frames_until, ws_connect
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)

BEYOND = MAX_ID + 1  # 9223372036854775808
ID_PATHS = [
    "/dashboards/{id}/?env_id=ss-dev",
    "/datasets/{id}/?env_id=ss-dev",
    "/migrations/{id}/",
    "/api/agent/conversations/{id}/",
    "/api/agent/tasks/{id}/",
]


@pytest.mark.parametrize("path", ID_PATHS)
@pytest.mark.parametrize("number", [BEYOND, 10**19 - 1, 10**25])
def test_an_id_beyond_a_64_bit_key_in_a_url_is_not_found(client, users, path, number):
    client.force_login(users["engineer"])

    response = client.get(path.format(id=number))

    assert response.status_code == 404


def test_the_converter_takes_the_largest_id_and_refuses_the_next():
    converter = IdConverter()

    assert converter.to_python(str(MAX_ID)) == MAX_ID
    with pytest.raises(ValueError, match=str(BEYOND)):
        converter.to_python(str(BEYOND))


def test_the_largest_id_still_reaches_the_view(client, users):
    """2^63 − 1 is a valid key: the conversation view runs and finds none (its own 404, JSON)."""
    client.force_login(users["engineer"])

    response = client.get(f"/api/agent/conversations/{MAX_ID}/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_a_page_context_with_such_an_object_id_is_refused(client, users):
    client.force_login(users["engineer"])
    context = ui_context("dashboard", str(BEYOND), env_id="ss-dev")

    response = client.post("/api/agent/context/", json.dumps(context), content_type="application/json")

    assert response.status_code == 422
    assert response.json()["errors"] == {"objectId": [f"Input should be less than or equal to {MAX_ID}"]}


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        ({"type": "resume", "conversation_id": BEYOND}, "conversation_id"),
        ({"type": "confirm", "confirmation_id": BEYOND, "decision": "approve"}, "confirmation_id"),
        ({"type": "user_message", "conversation_id": BEYOND, "text": "привет", "context": None}, "conversation_id"),
    ],
)
async def test_such_an_id_in_a_frame_is_a_bad_frame_in_the_users_language(users, frame, field):
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_json_to(frame)
    reply = await communicator.receive_json_from(timeout=10)
    await communicator.disconnect()

    assert reply["event"] == "error"
    assert reply["code"] == "bad_frame"
    detail = f"{field}: " + text("ru", "Input should be less than or equal to %(limit)s", limit=MAX_ID)
    assert reply["message"] == text("ru", "Malformed frame: %(detail)s", detail=detail)


async def test_such_an_object_id_in_a_frames_context_is_an_invalid_context(users):
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    context = ui_context("dashboard", str(BEYOND), env_id="ss-dev")
    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": None, "text": "что это?", "context": context}
    )
    frames = await frames_until(communicator, "error", wait_s=30)
    await communicator.disconnect()

    assert frames[-1]["code"] == "invalid_context"
    assert frames[-1]["errors"] == {"objectId": [f"Input should be less than or equal to {MAX_ID}"]}


def id_arguments() -> list[tuple[str, str]]:
    """Every (tool, argument) whose argument is an object id (its name ends in ``_id`` and it takes integers)."""
    found = []
    for name, spec in sorted(registry().items()):
        for arg, field in spec.args_schema.model_json_schema().get("properties", {}).items():
            kinds = [field.get("type")] + [k.get("type") for k in field.get("anyOf", [])]
            if arg.endswith("_id") and "integer" in kinds:
                found.append((name, arg))
    return found


def test_every_id_argument_of_every_tool_refuses_such_an_id():
    pairs = id_arguments()
    assert len(pairs) >= 15

    for tool, arg in pairs:
        schema = registry()[tool].args_schema
        with pytest.raises(ValidationError, match="less than or equal to 9223372036854775807"):
            schema.model_validate({"env_id": "ss-dev", arg: BEYOND}, strict=False)


def test_the_tools_json_schema_sent_to_the_model_has_no_maximum():
    """The bound costs no characters in the prompt: no model writes such a number by choice."""
    for tool, arg in id_arguments():
        field = registry()[tool].args_schema.model_json_schema()["properties"][arg]
        assert "maximum" not in json.dumps(field), (tool, arg)


def superset_url_set(env_id: str, url: str | None) -> str:
    """Point ``env_id`` at ``url`` (None: leave it); return the URL it had."""
    environment = Environment.objects.get(env_id=env_id)
    before = environment.superset_url
    if url is not None:
        environment.superset_url = url
        environment.save(update_fields=["superset_url"])
    return before


@pytest.mark.superset
@pytest.mark.parametrize(
    ("tool", "arg"), [("get_health_summary", "dashboard_id"), ("get_dataset_details", "dataset_id")]
)
async def test_such_an_id_from_the_model_never_reaches_superset(users, superset_stack, tool, arg):
    """Before: Superset (SQLite) answered 500 «Fatal error» for the id, the read was retried once, the user read
    «Superset недоступен». Now the call gets the answer Superset gives for a missing object (404, «… не найден в
    ss-dev»: no object has such a key) and a counting proxy in front of ss-dev sees no request for it."""
    upstream = await database_sync_to_async(superset_url_set)("ss-dev", None)
    with FaultProxy(upstream) as proxy:
        await database_sync_to_async(superset_url_set)("ss-dev", proxy.url)
        outcome = await run_tool(tool, users["engineer"], env_id="ss-dev", **{arg: BEYOND})
        asked = [hit.path for hit in proxy.hits() if str(BEYOND) in hit.path]
    await database_sync_to_async(superset_url_set)("ss-dev", upstream)  # (also closes the executor thread's link)

    assert asked == []
    assert (outcome.error_code, outcome.upstream_status) == ("upstream_error", 404)
    kind = arg.removesuffix("_id")
    assert outcome.error_message == not_found_text(kind, BEYOND, "ss-dev", "ru")
