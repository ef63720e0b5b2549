"""RoleMapping (Superset role → agentchat role) is applied at each password sign-in; groups no mapping names stay as
an admin set them (DESIGN §15)."""

import pytest
from django.contrib.auth.models import Group

from policies.models import RoleMapping
from tests.identity.conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_mapped_groups_follow_superset_roles_and_unmapped_ones_stay(password_mode, superset_stack):
    analyst = password_mode["analyst"]
    hand_set = Group.objects.create(name="hand-set")
    analyst.groups.add(hand_set, Group.objects.get(name="engineer"))
    RoleMapping.objects.create(superset_role="Gamma", group=Group.objects.get(name="analyst"))
    RoleMapping.objects.create(superset_role="Alpha", group=Group.objects.get(name="engineer"))

    signed = sign_in("analyst")

    # Superset says analyst is Gamma (not Alpha): analyst kept, engineer taken away, the unmapped group untouched
    assert signed == analyst
    assert sorted(analyst.groups.values_list("name", flat=True)) == ["analyst", "hand-set"]


def test_without_mappings_groups_are_left_as_they_are(password_mode, superset_stack):
    analyst = password_mode["analyst"]
    analyst.groups.add(Group.objects.get(name="engineer"))

    sign_in("analyst")

    assert sorted(analyst.groups.values_list("name", flat=True)) == ["analyst", "engineer"]
