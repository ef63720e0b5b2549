"""``/settings/`` lists the user's Superset identities without their secrets, adds a personal API key once Superset
accepts it (shown masked), and removes one of the user's own identities only (DESIGN §15)."""

import pytest

from agentchat.identity.crypto import secret_open
from agentchat.models import SupersetIdentity
from policies.models import Environment
from tests.identity.conftest import sign_in
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


def test_settings_say_which_identity_acts_and_removing_one_asks_first_and_says_what_went(
    client, password_mode, superset_stack
):
    """Issue 30 item 5: a sign-in and an API key in ss-dev both «действует» — the page says the agent acts through
    the sign-in (``acting_resolve``'s order) and that the key is spare; «Удалить…» asks first, and what it removes
    is agentchat's link to the Superset account, said so."""
    user = sign_in("engineer")  # a sign-in's password identity in every environment
    assert user == password_mode["engineer"]
    client.force_login(user)
    key, key_uuid = api_key_create("ss-dev", "engineer")
    try:
        client.post("/settings/identities/", {"env_id": "ss-dev", "api_key": key})
    finally:
        api_key_revoke("ss-dev", "engineer", key_uuid)
    signed_in = SupersetIdentity.objects.get(user=user, kind="password", environment__env_id="ss-dev")
    api_key = SupersetIdentity.objects.get(user=user, kind="api_key")

    html = client.get("/settings/").content.decode()
    ask = client.get(f"/settings/identities/{signed_in.pk}/delete/")
    still_there = SupersetIdentity.objects.filter(pk=signed_in.pk).exists()
    removed = client.post(f"/settings/identities/{signed_in.pk}/delete/", follow=True).content.decode()

    row = html.split('data-env="ss-dev" data-kind="password"', 1)[1].split("</tr>", 1)[0]
    spare = html.split('data-env="ss-dev" data-kind="api_key"', 1)[1].split("</tr>", 1)[0]
    assert text("ru", "the agent uses this one") in row
    assert text("ru", "spare: the agent uses the other one") in spare
    assert ask.status_code == 200
    assert still_there
    assert text("ru", "In %(env)s the agent will then act through your other identity there.", env="ss-dev") in (
        ask.content.decode()
    )
    gone = text(
        "ru",
        "The link to the Superset account “%(username)s” in %(env)s was removed; the account itself did not change "
        "in Superset.",
        username="engineer",
        env="ss-dev",
    )
    assert gone in removed
    assert not SupersetIdentity.objects.filter(pk=signed_in.pk).exists()
    assert text("ru", "the agent uses this one") in removed.split('data-kind="api_key"', 1)[1].split("</tr>", 1)[0]
    assert SupersetIdentity.objects.filter(pk=api_key.pk).exists()
