"""The socket's first read of its session (issue 17, ``SessionCheck.prime``): one query gives the expiry for the
socket's timer and, when the row still holds what the handshake verified, the verdict for the first frame — which
then makes one query, not three. Any change since the handshake (password, deactivation, session data) leaves the
full check to the first frame, which refuses."""

import pytest
from django.contrib.auth import get_user
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.http import HttpRequest
from django.test import Client
from django.test.utils import CaptureQueriesContext

from agentchat.chat.sessions import SessionCheck, session_expiry

pytestmark = pytest.mark.django_db(transaction=True)


def _handshake(user) -> dict:
    """The scope ``AuthMiddlewareStack`` leaves: the session loaded from its row, the user resolved by Django."""
    client = Client()
    client.force_login(user)
    store = SessionStore(session_key=client.cookies["sessionid"].value)
    request = HttpRequest()
    request.session = store
    return {"session": store, "user": get_user(request)}


def test_a_primed_check_gives_the_expiry_and_the_first_frame_makes_one_query(users):
    scope = _handshake(users["analyst"])
    check = SessionCheck(scope)
    with CaptureQueriesContext(connection) as primed:
        expires = check.prime()
    with CaptureQueriesContext(connection) as first:
        assert check() is True
    assert len(primed.captured_queries) == 1
    assert len(first.captured_queries) == 1
    assert expires == session_expiry(scope)
    assert expires is not None


def test_without_a_prime_the_first_frame_makes_the_full_check(users):
    check = SessionCheck(_handshake(users["analyst"]))
    with CaptureQueriesContext(connection) as first:
        assert check() is True
    assert len(first.captured_queries) == 3  # the row, then session_is_valid's session and user


def _password_changed(user, scope) -> None:
    user.set_password("another-password")
    user.save()


def _deactivated(user, scope) -> None:
    user.is_active = False
    user.save()


def _session_changed(user, scope) -> None:
    other = SessionStore(session_key=scope["session"].session_key)
    other["_auth_user_hash"] = "forged"
    other.save()


@pytest.mark.parametrize("change", [_password_changed, _deactivated, _session_changed])
def test_a_change_since_the_handshake_is_not_primed_and_the_first_frame_refuses(users, change):
    user = users["analyst"]
    scope = _handshake(user)
    change(user, scope)
    check = SessionCheck(scope)
    assert check.prime() is not None  # the row is there: the socket's timer still gets its expiry
    with CaptureQueriesContext(connection) as first:
        assert check() is False
    assert len(first.captured_queries) >= 3  # the full check ran (a stale hash also flushes the session)


def test_a_missing_session_primes_nothing(users):
    scope = _handshake(users["analyst"])
    Session.objects.filter(session_key=scope["session"].session_key).delete()
    check = SessionCheck(scope)
    assert check.prime() is None
    assert check() is False


def test_the_timer_primes_once_then_reads_the_expiry(users):
    scope = _handshake(users["analyst"])
    check = SessionCheck(scope)
    assert check.expiry() == session_expiry(scope)
    with CaptureQueriesContext(connection) as later:
        assert check.expiry() == session_expiry(scope)
    assert len(later.captured_queries) == 2  # the timer's read and the comparison's: no row of the prime
    assert not later.captured_queries[0]["sql"].startswith("SELECT s.session_data")
