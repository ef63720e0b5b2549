"""The demo people as real Superset users in the Superset-marked tests (issue 13, build item 7): every environment of
the local pair in ``password`` mode, each person with the ``password`` identities agentchat's sign-in would store.

Signing in costs three requests per person and instance (login, ``/me/``, ``/me/roles/``) and a password hash on
Superset's side, so each person signs in once per test process (``SignIns``, a session fixture of
``tests/conftest.py``) and every test gets fresh encrypted rows of those tokens (``identities_keep``, the function
the sign-in form uses). A token pair close to the end of its access token's lifetime is signed in again, so a long
run does not start each test with a refresh. Environments that are not on the local pair (a fault proxy's) are left
as they are.
"""

import base64
import json
import time

from django.contrib.auth.models import User

from agentchat.identity.services import identities_keep
from agentchat.superset.auth import SignIn, password_sign_in
from policies.models import AuthMode, Environment
from tests.support.superset_api import URLS

PASSWORD = "demo"  # tests.support.users.make_user and the stack's demo password
FRESH_FOR_S = 120  # a cached access token with less left than this is replaced by a new sign-in


def _seconds_left(token: str) -> float:
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return float(claims["exp"]) - time.time()


class SignIns:
    """Sign-ins of the demo people to the local pair, kept for the test process: ``{(username, url): SignIn}``."""

    def __init__(self) -> None:
        self._signed: dict[tuple[str, str], SignIn] = {}

    def _sign_in(self, username: str, environment: Environment) -> SignIn:
        key = (username, environment.superset_url)
        signed = self._signed.get(key)
        if signed is None or _seconds_left(signed.access) < FRESH_FOR_S:
            fresh = password_sign_in(
                base_url=environment.superset_url,
                username=username,
                password=PASSWORD,
                provider=environment.login_provider,
                timeout_s=30,
            )
            if fresh is None:
                raise AssertionError(f"{environment.env_id} refused {username}/{PASSWORD}: run `make superset`")
            self._signed[key] = signed = fresh
        return signed

    def act_as_people(self, users: list[User]) -> None:
        """Put every active environment of the local pair in password mode and give each of ``users`` (named
        after a demo person: analyst, engineer, admin) its password identities there, as a sign-in would."""
        local = list(Environment.objects.filter(is_active=True, superset_url__in=list(URLS.values())))
        Environment.objects.filter(pk__in=[env.pk for env in local]).update(auth_mode=AuthMode.PASSWORD)
        for user in users:
            identities_keep(user=user, accepted={env.env_id: self._sign_in(user.username, env) for env in local})
