"""Identities expire when Superset refuses them and come back at the next sign-in; their secrets are never stored or
shown in plaintext (DESIGN §15, issue 13). Against the local Superset pair."""

import asyncio
import json
import logging

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import Client

from agentchat.identity.crypto import secret_open, secret_seal
from agentchat.models import SupersetIdentity
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent, Environment
from tests.identity.conftest import expired_copy, sign_in, superset_secret_key
from tests.support.api_keys import api_key_create, api_key_revoke
from tests.support.contexts import ui_context
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.tool_runs import run_tool
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)

SQL_TOOL = "superset_execute_sql"
COUNT_SQL = "SELECT COUNT(*) AS n FROM energy_consumption"


def _raw_secrets(user_id: int) -> list[str]:
    """The ``secret`` column as the database holds it (raw SQL, not the ORM)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT secret FROM {SupersetIdentity._meta.db_table} WHERE user_id = %s", [user_id])
        return [row[0] for row in cursor.fetchall()]


def _replace_secret(user, env_id: str, **changes: str) -> None:
    identity = SupersetIdentity.objects.get(user=user, environment__env_id=env_id, kind="password")
    identity.secret = secret_seal({**secret_open(identity.secret), **changes})
    identity.save(update_fields=["secret"])


async def test_rejected_access_token_is_refreshed_once_and_the_call_succeeds(analyst):
    """An access token Superset refuses (expired) is refreshed with the refresh token, once; the new one is kept."""
    identity = await SupersetIdentity.objects.aget(user=analyst, environment__env_id="ss-dev")
    access = secret_open(identity.secret)["access"]
    stale = expired_copy(access, key=superset_secret_key("ss-dev"))
    await sync_to_async(_replace_secret)(analyst, "ss-dev", access=stale)

    outcome = await run_tool(SQL_TOOL, analyst, env_id="ss-dev", database_id=1, sql=COUNT_SQL)

    assert outcome.ok, outcome.error_message
    assert outcome.logins == 1  # one refresh
    kept = secret_open((await SupersetIdentity.objects.aget(pk=identity.pk)).secret)["access"]
    assert kept not in (stale, "")


async def test_refused_refresh_expires_the_identity_and_signing_in_again_restores_it(analyst):
    """Both tokens expired → «сессия истекла» naming the environment, the identity is expired, the next call says
    there is no access and sends nothing; signing in again works without a restart."""
    identity = await SupersetIdentity.objects.aget(user=analyst, environment__env_id="prod")
    secret = secret_open(identity.secret)
    key = superset_secret_key("prod")
    await sync_to_async(_replace_secret)(
        analyst,
        "prod",
        access=expired_copy(secret["access"], key=key),
        refresh=expired_copy(secret["refresh"], key=key),
    )

    expired = await run_tool(SQL_TOOL, analyst, env_id="prod", database_id=1, sql=COUNT_SQL)
    state_after = (await SupersetIdentity.objects.aget(pk=identity.pk)).state
    after = await run_tool(SQL_TOOL, analyst, env_id="prod", database_id=1, sql=COUNT_SQL)
    await sync_to_async(sign_in)("analyst")
    again = await run_tool(SQL_TOOL, analyst, env_id="prod", database_id=1, sql=COUNT_SQL)

    assert expired.error_code == "session_expired"
    assert expired.error_message == (
        "Сессия Superset в prod истекла: войдите заново или добавьте новый API-ключ в настройках."
    )
    assert state_after == "expired"
    assert after.error_code == "no_identity"
    assert after.requests == 0
    assert again.ok, again.error_message
    assert (await SupersetIdentity.objects.aget(pk=identity.pk)).state == "active"


async def test_revoked_api_key_expires_its_identity(password_mode, superset_stack):
    """An API key made through Superset's API works as the user; once revoked in Superset the next call is
    «сессия истекла» for that environment and the identity is expired."""
    from agentchat.identity.services import identity_add_api_key

    user = password_mode["engineer"]
    key, key_uuid = await asyncio.to_thread(api_key_create, "ss-dev", "engineer")
    try:
        identity = await sync_to_async(identity_add_api_key)(user=user, env_id="ss-dev", key=key)
        working = await run_tool(SQL_TOOL, user, env_id="ss-dev", database_id=1, sql=COUNT_SQL)
    finally:
        revoked = await asyncio.to_thread(api_key_revoke, "ss-dev", "engineer", key_uuid)
    refused = await run_tool(SQL_TOOL, user, env_id="ss-dev", database_id=1, sql=COUNT_SQL)

    assert identity.superset_username == "engineer"
    assert identity.hint == f"{key[:4]}…{key[-4:]}"
    assert working.ok, working.error_message
    assert working.acting == {"ss-dev": {"kind": "api_key", "superset_username": "engineer"}}
    assert revoked == 200
    assert refused.error_code == "session_expired"
    assert "ss-dev" in refused.error_message
    assert (await SupersetIdentity.objects.aget(pk=identity.pk)).state == "expired"


async def test_no_secret_in_the_database_logs_or_audit(analyst, caplog):
    """The raw column holds Fernet tokens only: neither the password nor a token appears in it, in the log or in
    an audit row (the call's outcome and its audit carry whom it acted as, not how)."""
    caplog.set_level(logging.DEBUG)
    identity = await SupersetIdentity.objects.aget(user=analyst, environment__env_id="ss-dev")
    secret = secret_open(identity.secret)
    outcome = await run_tool(SQL_TOOL, analyst, env_id="ss-dev", database_id=1, sql=COUNT_SQL)

    raw = await sync_to_async(_raw_secrets)(analyst.pk)
    audit = [repr(row) async for row in AuditEvent.objects.values()]
    assert outcome.ok, outcome.error_message
    active = await Environment.objects.filter(is_active=True).acount()
    assert len(raw) == active >= 2  # one per active environment (ss-dev, prod; staging when active)
    for column in raw:
        assert column.startswith("gAAAAA")  # a Fernet token
        for plain in (secret["access"], secret["refresh"], "demo", secret["access"][:40]):
            assert plain not in column
    for plain in (secret["access"], secret["refresh"]):
        assert plain not in caplog.text
        assert plain not in repr(outcome)
        assert all(plain not in row for row in audit)


class _Frames(list):
    async def __call__(self, event):
        self.append(event.wire())

    def of(self, event: str) -> list[dict]:
        return [f for f in self if f.get("event") == event]


async def _sql_turn(user, env_id: str) -> _Frames:
    """One chat turn whose model asks for a COUNT(*) in ``env_id`` (offline planner answers after the call)."""
    call = (SQL_TOOL, {"env_id": env_id, "database_id": 1, "sql": COUNT_SQL})
    frames = _Frames()
    context = ui_context("dataset", 1, env_id=env_id, route="/datasets/1")
    await AgentTurn(user=user, emit=frames, model=scripted(tool_calls_message([call]), "Готово.")).run(
        conversation_id=None, text=f"выполни {COUNT_SQL}", context=context
    )
    return frames


async def test_expired_session_in_a_turn_names_the_environment_and_the_login_form_restores_it(analyst):
    """What the user reads in the chat: the ``error`` frame ``session_expired`` says «сессия … в prod истекла» and
    what to do, the audit row is ``session_expired``; signing in again through the real login form (POST
    /accounts/login/) makes the next turn work — same processes, nothing restarted."""
    identity = await SupersetIdentity.objects.aget(user=analyst, environment__env_id="prod")
    secret = secret_open(identity.secret)
    key = superset_secret_key("prod")
    stale = {name: expired_copy(secret[name], key=key) for name in ("access", "refresh")}
    await sync_to_async(_replace_secret)(analyst, "prod", **stale)

    expired = await _sql_turn(analyst, "prod")
    response = await sync_to_async(Client().post)("/accounts/login/", {"username": "analyst", "password": "demo"})
    again = await _sql_turn(analyst, "prod")

    [error] = expired.of("error")
    assert error["code"] == "session_expired"
    assert error["message"] == text(
        "ru", "Superset session for %(env)s has expired: sign in again or add a new API key in settings.", env="prod"
    )
    assert "истекла" in error["message"]
    assert expired.of("tool_finished")[0]["ok"] is False
    audited = [row async for row in AuditEvent.objects.filter(tool=SQL_TOOL).values("event_type", "extra_data")]
    assert [row["event_type"] for row in audited if row["event_type"] == "session_expired"] == ["session_expired"]
    assert response.status_code == 302  # signed in: redirected away from the form
    assert (await SupersetIdentity.objects.aget(pk=identity.pk)).state == "active"
    assert again.of("error") == []
    assert again.of("tool_finished")[0]["ok"] is True
    renewed = secret_open((await SupersetIdentity.objects.aget(pk=identity.pk)).secret)
    sent = json.dumps([*expired, *again], ensure_ascii=False)  # every frame the user's page received
    for token in (*secret.values(), *stale.values(), *renewed.values()):
        assert token not in sent
