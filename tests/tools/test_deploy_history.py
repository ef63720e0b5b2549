"""deploy_history (issue 28 item 5): who deployed what, from where, when, with which result and copy, from our audit.

A real deploy ss-dev → prod approved on its card (a scripted model asks for it), then deployed again (prod is
overwritten: a copy is saved first), then «когда этот дашборд последний раз деплоили в prod и кто?» asked offline
from the ss-dev dashboard's page, and from the prod dashboard's page in English.
"""

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from langchain_core.messages import AIMessage

from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.scripted_llm import scripted
from tests.tools.test_deploy import _impact

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


async def _approved_deploy(user, dev: dict) -> None:
    args = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    model = scripted(AIMessage(content="", tool_calls=[{"id": "c0", "name": "deploy_dashboard", "args": args}]), "ok")
    frames = Frames()
    await AgentTurn(user=user, emit=frames, model=model).run(
        conversation_id=None, text="задеплой этот дашборд в prod", context=ui_context("dashboard", dev["id"])
    )
    card = frames.of("confirm_required")[0]
    await AgentTurn(user=user, emit=Frames(), model=model).decide(
        confirmation_id=card["confirmation_id"], approve=True, typed_env="prod"
    )


async def test_the_deploys_of_a_dashboard_are_told_with_who_when_where_and_the_copy(users, scratch):
    engineer = users["engineer"]
    dev = scratch.dashboard("ss-dev", "История", slug="history")
    await _approved_deploy(engineer, dev)
    await _approved_deploy(engineer, dev)
    rows = AuditEvent.objects.filter(tool="deploy_dashboard", event_type=AuditEvent.EventType.TOOL_RESULT)
    last = await rows.order_by("-id").afirst()
    assert last.extra_data["deploy"]["target_env_id"] == "prod"
    assert last.extra_data["deploy"]["source_dashboard_ids"] == [dev["id"]]
    backup_id = last.extra_data["backup_id"]
    prod_id = last.extra_data["deploy"]["target_dashboard_ids"][0]

    frames = Frames()
    conversation_id = await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None,
        text="когда этот дашборд последний раз деплоили в prod и кто?",
        context=ui_context("dashboard", dev["id"], name=dev["dashboard_title"]),
    )

    assert [f["tool"] for f in frames.of("tool_started")] == ["deploy_history"]
    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert f"Деплои дашборда «{dev['dashboard_title']}» (#{dev['id']}) в prod" in answer, answer  # its title, not #id
    lines = [line for line in answer.splitlines() if line.startswith("- ")]
    assert len(lines) == 2
    assert f"«{dev['dashboard_title']}» ss-dev → prod, выполнено, перед этим сохранена копия №{backup_id}" in lines[0]
    assert engineer.get_username() in lines[0]

    english = Frames()
    conversation_id = await AgentTurn(user=users["analyst"], emit=english).run(
        conversation_id=None,
        text="who deployed this dashboard, and when?",
        context=ui_context("dashboard", prod_id, env_id="prod", name=dev["dashboard_title"]),
    )
    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert f"“{dev['dashboard_title']}” ss-dev → prod, done, copy #{backup_id} saved before" in answer, answer

    # and the dashboard's page lists both deploys, the newest with its copy
    page = await database_sync_to_async(_dashboard_page)(engineer, dev["id"])
    table = page.split('data-testid="deploy-history"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 3  # the head and two deploys
    assert f"#{backup_id}" in table
    assert "ss-dev → prod" in table
    assert engineer.get_username() in table


async def test_an_attempt_our_policy_refused_is_said_to_have_deployed_nothing(users, scratch):
    """A fresh check behind the 1.5B model: the history line «… ss-dev → prod, не выполнено: denied» of an analyst's
    refused attempt was retold as "was deployed to prod by analyst". The line says nothing was deployed."""
    analyst = users["analyst"]
    dev = scratch.dashboard("ss-dev", "Попытка", slug="attempt")
    page = ui_context("dashboard", dev["id"], name=dev["dashboard_title"])
    refused = Frames()
    await AgentTurn(user=analyst, emit=refused).run(
        conversation_id=None, text="задеплой этот дашборд в prod", context=page
    )
    assert [f["tool"] for f in refused.of("permission_denied")] == ["deploy_dashboard"]

    conversation_id = await AgentTurn(user=analyst, emit=Frames()).run(
        conversation_id=None, text="когда этот дашборд последний раз деплоили в prod и кто?", context=page
    )

    answer = await database_sync_to_async(stored_answer)(conversation_id)
    (line,) = [line for line in answer.splitlines() if line.startswith("- ")]
    assert line.endswith("ss-dev → prod, запрещено нашей политикой, ничего не развёрнуто"), line


def _dashboard_page(user, dashboard_id: int) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(f"/dashboards/{dashboard_id}/?env_id=ss-dev", HTTP_ACCEPT_LANGUAGE="ru")
    assert response.status_code == 200
    return response.content.decode()


async def test_a_prod_edit_after_the_last_deploy_is_named_on_the_next_card(users, scratch):
    engineer = users["engineer"]
    dev = scratch.dashboard("ss-dev", "Дрейф", slug="drift")
    await _approved_deploy(engineer, dev)
    args = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    untouched = await _impact("deploy_dashboard", args, engineer)
    assert untouched["drift"] == []

    # given prod's copy renamed in Superset after the deploy (by the account the scratch helper signs in as)
    prod = superset_api.dashboard_by_slug("prod", dev["slug"])
    scratch.rename("prod", "dashboard", prod["id"], "dashboard_title", f"Дрейф правка {scratch.tag}")
    editor = superset_api.api("prod", "GET", f"/api/v1/dashboard/{prod['id']}")["result"]["changed_by"]
    name = " ".join(p for p in (editor.get("first_name"), editor.get("last_name")) if p)

    impact = await _impact("deploy_dashboard", args, engineer)

    (line,) = impact["drift"]
    assert line.startswith(f"prod изменён после последнего деплоя: «Дрейф правка {scratch.tag}»"), line
    assert line.endswith(f", {name} — эти правки будут потеряны"), line
    assert line in impact["summary"]
    english = await _impact("deploy_dashboard", args, engineer, language="en")
    assert "prod was changed after the last deploy" in english["drift"][0]
