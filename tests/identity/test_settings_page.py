"""``/settings/`` lists the user's Superset identities without their secrets, adds a personal API key once Superset
accepts it (shown masked), and removes one of the user's own identities only (DESIGN §15)."""

import pytest

from agentchat.identity.crypto import secret_open
from agentchat.models import SupersetIdentity
from policies.models import Environment
from tests.support.api_keys import api_key_create, api_key_revoke
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


def test_signed_in_identities_are_listed_without_secrets(client, analyst):
    client.force_login(analyst)

    html = client.get("/settings/").content.decode()

    identities = list(SupersetIdentity.objects.filter(user=analyst))
    active = set(Environment.objects.filter(is_active=True).values_list("env_id", flat=True))
    assert {i.environment.env_id for i in identities} == active >= {"ss-dev", "prod"}
    assert html.count('data-kind="password"') == len(active)
    for identity in identities:
        secret = secret_open(identity.secret)
        assert secret["access"] not in html
        assert secret["refresh"] not in html
        assert identity.secret not in html


def test_api_key_is_checked_saved_masked_and_removable(client, password_mode, superset_stack):
    user = password_mode["engineer"]
    client.force_login(user)
    key, key_uuid = api_key_create("ss-dev", "engineer")
    try:
        refused = client.post(
            "/settings/identities/", {"env_id": "ss-dev", "api_key": "sst_not-a-real-key-0000"}, follow=True
        )
        added = client.post("/settings/identities/", {"env_id": "ss-dev", "api_key": key}, follow=True)
    finally:
        api_key_revoke("ss-dev", "engineer", key_uuid)

    assert text("ru", "Superset %(env)s did not accept this API key.", env="ss-dev") in refused.content.decode()
    html = added.content.decode()
    identity = SupersetIdentity.objects.get(user=user, kind="api_key")
    added_line = text(
        "ru", "API key of %(env)s added: the agent acts there as %(username)s.", env="ss-dev", username="engineer"
    )
    assert added_line in html
    assert f"{key[:4]}…{key[-4:]}" in html
    assert key not in html
    assert (identity.superset_username, identity.environment.env_id) == ("engineer", "ss-dev")

    other = password_mode["analyst"]
    client.force_login(other)
    client.post(f"/settings/identities/{identity.pk}/delete/")
    assert SupersetIdentity.objects.filter(pk=identity.pk).exists()  # not the analyst's to remove
    client.force_login(user)
    client.post(f"/settings/identities/{identity.pk}/delete/")
    assert not SupersetIdentity.objects.filter(pk=identity.pk).exists()


@pytest.mark.parametrize("pasted", ["sst_Ключ", "sst_abcdef\u202e", "sst_tab\tinside"])
def test_a_key_that_cannot_be_one_is_refused_before_superset_and_never_echoed(client, analyst, pasted):
    """Superset's keys are printable ASCII: anything else is the «paste the key» message, not an HTTP 500 whose
    error page would carry the pasted text (it cannot go into an HTTP header)."""
    client.force_login(analyst)

    response = client.post("/settings/identities/", {"env_id": "ss-dev", "api_key": pasted}, follow=True)

    assert response.status_code == 200
    html = response.content.decode()
    assert text("ru", "Paste the API key Superset showed when it was created.") in html
    assert pasted not in html
    assert not SupersetIdentity.objects.filter(user=analyst, kind="api_key").exists()


def test_a_malformed_key_is_not_accepted_rather_than_superset_unavailable(client, password_mode, superset_stack):
    """Superset answers 422 to a bearer that is no token at all: the user reads that the key was not accepted."""
    client.force_login(password_mode["analyst"])

    response = client.post("/settings/identities/", {"env_id": "ss-dev", "api_key": "garbage"}, follow=True)

    assert text("ru", "Superset %(env)s did not accept this API key.", env="ss-dev") in response.content.decode()
