"""The CSV download of a chat's SQL result (issue 30 item 4): the whole result, run again as the user on the local
pair (more rows than the chat's row cap), only for the conversation's owner, Superset's refusal as the chat says it."""

import csv
import io

import pytest
from django.test import Client

from agentchat.models import Conversation, Message
from tests.support.superset_api import api
from tests.support.wording import table_refused

pytestmark = pytest.mark.django_db(transaction=True)
SQL = "SELECT region, consumption_mwh FROM energy_consumption ORDER BY date, region, source"


def _conversation(user, sql: str) -> tuple[int, str]:
    conversation = Conversation.objects.create(user=user, title="sql")
    call = {
        "id": "call_csv1",
        "name": "superset_execute_sql",
        "args": {"env_id": "ss-dev", "database_id": 1, "sql": sql},
    }
    Message.objects.create(conversation=conversation, role="assistant", content="", tool_calls=[call])
    return conversation.pk, call["id"]


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_csv_holds_the_whole_result_not_the_chat_s_rows(users, superset_stack):
    conversation_id, call_id = _conversation(users["engineer"], SQL)
    query = {"database_id": 1, "sql": SQL, "schema": "main", "runAsync": False, "queryLimit": 100000}
    expected = api("ss-dev", "POST", "/api/v1/sqllab/execute/", json=query)["data"]

    response = _client(users["engineer"]).get(f"/agent/results/{conversation_id}/{call_id}.csv")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="query-{conversation_id}-{call_id}.csv"'
    body = response.content.decode("utf-8")
    assert body.startswith("\ufeffregion,consumption_mwh\r\n")
    rows = list(csv.reader(io.StringIO(body.removeprefix("\ufeff"))))[1:]
    assert len(rows) == len(expected) > 100  # the chat's call was capped at 100 rows; the download is not
    assert rows[0] == [str(expected[0]["region"]), str(expected[0]["consumption_mwh"])]


def test_another_person_s_call_is_not_found(users, superset_stack):
    conversation_id, call_id = _conversation(users["engineer"], SQL)

    response = _client(users["analyst"]).get(f"/agent/results/{conversation_id}/{call_id}.csv")

    assert response.status_code == 404


def test_superset_s_refusal_is_said_as_in_the_chat(users, superset_stack):
    conversation_id, call_id = _conversation(users["analyst"], "SELECT * FROM regions")

    response = _client(users["analyst"]).get(f"/agent/results/{conversation_id}/{call_id}.csv")

    assert response.status_code == 502
    assert response.content.decode() == table_refused("ru", "main.regions", "ss-dev")
