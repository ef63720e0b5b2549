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
