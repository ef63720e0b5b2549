"""Fixtures of the identity tests: the environments in password mode and people signed in through Superset."""

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import authenticate

from agentchat.models import SupersetIdentity
from policies.models import AuthMode, Environment
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse: the executor's thread
from tests.support.listeners import listening_pid, process_environment
from tests.support.superset_api import URLS, superset


@pytest.fixture
def password_mode(users):
    """Every environment acts as the requesting user (DESIGN §15), committed (the tests are transactional); nobody
    has an identity yet (these tests are about obtaining them: ``users`` may have copied the people's)."""
    Environment.objects.update(auth_mode=AuthMode.PASSWORD)
    SupersetIdentity.objects.all().delete()
    return users


def sign_in(username: str, password: str = "demo"):
    """Sign in through agentchat's authentication backends, as the login form does; return the user or None."""
    return authenticate(None, username=username, password=password)


@pytest.fixture
def analyst(password_mode, superset_stack):
    """``analyst`` signed in through Superset: a password identity in every active environment."""
    user = sign_in("analyst")
    assert user == password_mode["analyst"]
    return user


@pytest.fixture
def engineer(password_mode, superset_stack):
    """``engineer`` signed in through Superset."""
    user = sign_in("engineer")
    assert user == password_mode["engineer"]
    return user


@pytest.fixture
def admin(password_mode, superset_stack):
    """The demo ``admin`` signed in through Superset with the demo password: Superset's ``admin`` is a person of
    role Admin in both instances (``scripts/devstack/users.py``), not the stack's service account."""
    user = sign_in("admin")
    assert user == password_mode["admin"]
    return user


def superset_secret_key(env_id: str) -> str:
    """The SECRET_KEY the running local instance signs its JWTs with, read from the process that listens on its
    port (``scripts/devstack`` starts it with ``SUPERSET_SECRET_KEY``; issue 31: a checkout whose own
    ``var/superset`` is not the running pair's read a key that did not sign the tokens).

    Fails the test with the reason when the process cannot be found or read (another user's process)."""
    port = urlsplit(URLS[env_id]).port
    pid = listening_pid(port)
    if pid is None:
        pytest.fail(f"no readable process listens on :{port} ({env_id}): cannot read its signing key", pytrace=False)
    try:
        environment = process_environment(pid)
    except PermissionError:
        pytest.fail(f"the {env_id} Superset (pid {pid}) is another user's: its key is not readable", pytrace=False)
    key = environment.get("SUPERSET_SECRET_KEY") or ""
    if not key and environment.get("SUPERSET_HOME"):  # started otherwise: its home still holds the key file
        key = (Path(environment["SUPERSET_HOME"]) / "secret_key").read_text().strip()
    if not key:
        pytest.fail(f"the {env_id} Superset (pid {pid}) was not started with a known key", pytrace=False)
    return key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def expired_copy(token: str, *, key: str) -> str:
    """Return ``token`` (a JWT of Superset) with its times moved an hour into the past, signed again (HS256) with
    the instance's key: a real token Superset itself refuses as expired."""
    header, payload, _signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    now = int(time.time())
    claims.update(iat=now - 7200, nbf=now - 7200, exp=now - 3600)
    signing_input = f"{header}.{_b64(json.dumps(claims, separators=(',', ':')).encode())}"
    signature = hmac.new(key.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


def queries_by_marker(env_id: str, marker: str) -> list[dict]:
    """Superset's own query history (``GET /api/v1/query/``, read as admin) of the SQL containing ``marker``."""
    import prison

    q = prison.dumps({"filters": [{"col": "sql", "opr": "ct", "value": marker}], "page_size": 100})
    with superset(env_id) as client:
        response = client.get("/api/v1/query/", params={"q": q})
        response.raise_for_status()
        return response.json()["result"]
