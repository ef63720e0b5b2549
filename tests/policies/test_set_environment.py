"""``manage.py set_environment`` (deployments point environments at their Superset without the admin)."""

import io

import pytest
from django.core.management import CommandError, call_command

from policies.models import Environment

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("set_environment", *args, stdout=out)
    return out.getvalue()


def test_existing_environment_gets_a_new_url_and_keeps_the_rest(policy_defaults):
    before = Environment.objects.get(env_id="prod")

    assert (
        run("prod", "--url", "http://superset.internal:8089") == "prod: http://superset.internal:8089 (prod, active)\n"
    )

    after = Environment.objects.get(env_id="prod")
    assert after.superset_url == "http://superset.internal:8089"
    assert (after.tier, after.credentials_env, after.name) == (before.tier, before.credentials_env, before.name)


def test_new_environment_needs_url_tier_and_credentials(policy_defaults):
    with pytest.raises(CommandError, match="--url, --tier, --credentials-env"):
        run("qa")
    run("qa", "--url", "https://qa.example.com", "--tier", "staging", "--credentials-env", "SUPERSET_QA")
    assert Environment.objects.get(env_id="qa").tier == "staging"


def test_deactivate_and_refuse_invalid_values(policy_defaults):
    run("staging", "--inactive")
    assert not Environment.objects.get(env_id="staging").is_active
    with pytest.raises(CommandError, match="credentials_env"):
        run("staging", "--credentials-env", "lower-case")
    with pytest.raises(CommandError, match="superset_url"):
        run("staging", "--url", "not a url")
    assert Environment.objects.get(env_id="staging").credentials_env == "SUPERSET_STAGING"
