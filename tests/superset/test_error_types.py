"""Superset's errors become a sentence in the user's language naming the object, with Superset's own text kept for
the detail (issue 30 item 3). The bodies are the ones the local Superset 6.1 sent (recorded 2026-12-06: SQL Lab's
``execute`` as engineer and as analyst)."""

import httpx
import pytest
from django.utils import translation

from agentchat.errors import SupersetDenied
from agentchat.superset.error_types import superset_error
from tests.support.wording import plural, text

COLUMN = {
    "errors": [
        {
            "message": 'We can\'t seem to resolve the column "nope"',
            "error_type": "COLUMN_DOES_NOT_EXIST_ERROR",
            "level": "error",
            "extra": {"engine_name": "SQLite", "issue_codes": [{"code": 1003, "message": "Issue 1003 - …"}]},
        }
    ]
}
TABLE_ACCESS = {
    "errors": [
        {
            "error_type": "TABLE_SECURITY_ACCESS_ERROR",
            "extra": {"link": "", "tables": ["main.regions"]},
            "message": "You need access to the following tables: `main.regions`,\n            `all_database_access` or "
            "`all_datasource_access` permission",
        }
    ]
}
NO_TABLE = {
    "errors": [
        {"message": "sqlite error: no such table: no_table", "error_type": "GENERIC_DB_ENGINE_ERROR", "extra": {}}
    ]
}
SYNTAX = {
    "errors": [
        {
            "message": "Error parsing near '1' at line 1:7",
            "error_type": "INVALID_SQL_ERROR",
            "extra": {"sql": "SELEC 1", "engine": "sqlite", "line": 1, "column": 7},
        }
    ]
}


def _said(status: int, body, language: str) -> tuple[str, str, bool]:
    response = httpx.Response(status, json=body)
    info = superset_error(response)
    with translation.override(language):
        return info.message % {"env": "ss-dev", "status": status, **info.params}, info.upstream, info.denied


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_missing_column_is_named_in_a_sentence_and_superset_s_words_are_kept(language):
    said, upstream, denied = _said(500, COLUMN, language)

    msgid = "The query names a column that the table does not have: “%(column)s” (%(env)s)."
    assert said == text(language, msgid, column="nope", env="ss-dev")
    assert upstream == 'We can\'t seem to resolve the column "nope"'
    assert not denied
    assert "COLUMN_DOES_NOT_EXIST_ERROR" not in said


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_refused_table_names_the_table_and_says_superset_refused(language):
    said, upstream, denied = _said(500, TABLE_ACCESS, language)

    msgid = (
        "Superset refuses you access to the table %(names)s in %(env)s: your Superset role does not include it.",
        "Superset refuses you access to the tables %(names)s in %(env)s: your Superset role does not include them.",
    )
    assert said == plural(language, *msgid, 1, names="main.regions", env="ss-dev")
    assert denied
    assert upstream.startswith("You need access to the following tables: `main.regions`, `all_database_access`")
    assert "You need access" not in said


def test_an_engine_message_that_names_a_missing_table_is_read_and_a_syntax_error_gives_its_place():
    table, _raw, _denied = _said(500, NO_TABLE, "ru")
    syntax, _raw, _denied = _said(422, SYNTAX, "ru")
    unknown, raw, _denied = _said(400, {"message": "Bad things"}, "en")

    assert table == "В запросе есть таблица, которой нет в ss-dev: «no_table»."
    assert syntax == "В SQL-запросе синтаксическая ошибка: строка 1, позиция 7 (ss-dev)."
    assert unknown == "Superset answered with an error, HTTP 400 (ss-dev)."
    assert raw == "Bad things"


def test_a_plain_403_is_superset_s_refusal():
    said, upstream, denied = _said(403, {"message": "Forbidden"}, "ru")

    assert denied
    assert said == text("ru", "Superset refuses this request in %(env)s (HTTP %(status)s).", env="ss-dev", status=403)
    assert upstream == "Forbidden"


def test_a_dataset_refused_for_a_missing_table_names_the_table():
    """POST /api/v1/dataset/ of a table the database lacks: HTTP 422 with a field's validation text."""
    body = {"message": {"table": ["Table [main.no_such_table] could not be found, please double check your database"]}}

    said, upstream, denied = _said(422, body, "ru")

    assert said == "В базе данных в ss-dev нет таблицы «main.no_such_table»."
    assert upstream == "table: Table [main.no_such_table] could not be found, please double check your database"
    assert not denied


def test_a_5xx_saying_the_user_lacks_the_permission_is_superset_s_refusal():
    """An import over another person's object (issue 28 review): Superset answers 500 with that sentence."""
    body = {"message": "Error importing dashboard: user doesn't have permissions to overwrite it"}

    said, upstream, denied = _said(500, body, "ru")

    assert denied
    assert said == text("ru", "Superset refuses: you do not have the permission for this in %(env)s.", env="ss-dev")
    assert upstream == body["message"]


@pytest.mark.parametrize(
    ("language", "forward"),
    [
        ("ru", "Доступ выдаёт администратор Superset: попросите у него нужную роль."),
        ("en", "Access is granted in Superset by its administrator: ask them for the role you need."),
    ],
)
def test_superset_s_refusal_names_the_way_forward(language, forward):
    """A refusal says who refused (Superset) and why, then who can change it: the agent has no other account to try
    (DESIGN §15); the fresh check's 403 of an audit named no way forward."""
    refused = SupersetDenied("ss-dev: HTTP 403", env="ss-dev", reason="Forbidden")

    said = refused.text(language)

    assert said.endswith(" " + forward), said
    assert said.startswith(text(language, "Superset refuses: %(reason)s", reason="Forbidden")), said
