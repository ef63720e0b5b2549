"""Demo users and the default policy rows the tests stand on (DESIGN §8)."""

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from agentchat.runtime.catalogue import sync_tool_catalogue
from policies.models import AuthMode, Environment
from policies.seeding import seed_default_policies, seed_risk_rules


def ensure_policy_defaults(*, auth_mode: str = AuthMode.SERVICE) -> None:
    """Put the default policies, risk rules and the tool catalogue back (transactional tests flush the tables
    the data migration filled), with every environment in ``auth_mode``.

    Tests without Superset run in ``service`` mode, explicitly (the local stack's service account); the ``users``
    fixture then puts the local pair in ``password`` mode with the demo people's identities for tests that reach it
    (``tests.support.people``), and the identity tests pass ``AuthMode.PASSWORD`` (DESIGN §15).
    One transaction: in a transactional test each of the ~150 small writes would otherwise commit on its own.
    """
    with transaction.atomic():
        seed_default_policies(apps)
        seed_risk_rules(apps)
        sync_tool_catalogue()
        Environment.objects.exclude(auth_mode=auth_mode).update(auth_mode=auth_mode)


def make_user(role: str, username: str | None = None):
    """Return user ``username`` (default: the role's name), password ``demo``, in the group ``role`` only."""
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username=username or role)
    user.set_password("demo")
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    return user
