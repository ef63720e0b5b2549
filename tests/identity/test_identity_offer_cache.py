"""Where a user can act, kept in the policy snapshot (issue 17, ``identity_env_ids``), on PostgreSQL.

A turn's offer reads no identity while nothing changed; any change of an identity's state, user or environment
— through a queryset, a delete or a new row, whoever writes it — is seen at the next read (the trigger of
agentchat migration 0009), and writes of other columns (``last_used_at`` at every call) keep the snapshot.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agentchat.identity.services import identity_env_ids
from agentchat.models import SupersetIdentity
from policies.models import Environment
from policies.snapshot import policy_snapshot

pytestmark = pytest.mark.django_db(transaction=True)


def _identity(user, env_id: str) -> SupersetIdentity:
    environment = Environment.objects.get(env_id=env_id)
    return SupersetIdentity.objects.create(
        user=user, environment=environment, kind=SupersetIdentity.Kind.API_KEY, secret="sealed elsewhere"
    )


def test_identity_changes_are_seen_at_the_next_read_and_nothing_is_read_in_between(password_mode):
    analyst = password_mode["analyst"]
    env_id = Environment.objects.filter(is_active=True).order_by("env_id").first().env_id
    assert env_id not in identity_env_ids(user=analyst)
    identity = _identity(analyst, env_id)
    assert env_id in identity_env_ids(user=analyst)

    with CaptureQueriesContext(connection) as queries:
        assert env_id in identity_env_ids(user=analyst)
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT n FROM policies_version WHERE id = 1"]

    version = policy_snapshot().version
    SupersetIdentity.objects.filter(pk=identity.pk).update(last_used_at=timezone.now())
    assert policy_snapshot().version == version  # a call's bookkeeping keeps the snapshot

    SupersetIdentity.objects.filter(pk=identity.pk).update(state=SupersetIdentity.State.EXPIRED)
    assert env_id not in identity_env_ids(user=analyst)
    SupersetIdentity.objects.filter(pk=identity.pk).update(state=SupersetIdentity.State.ACTIVE)
    assert env_id in identity_env_ids(user=analyst)
    SupersetIdentity.objects.filter(pk=identity.pk).update(user=password_mode["engineer"])
    assert env_id not in identity_env_ids(user=analyst)
    assert env_id in identity_env_ids(user=password_mode["engineer"])
    SupersetIdentity.objects.filter(pk=identity.pk).delete()
    assert env_id not in identity_env_ids(user=password_mode["engineer"])
