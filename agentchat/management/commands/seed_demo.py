"""``manage.py seed_demo``: roles and demo users for the local demo (refuses to run with DEBUG off)."""

import os
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from policies import services as policy
from policies.defaults import ROLES


class Command(BaseCommand):
    help = (
        "Create groups analyst/engineer/admin and demo users of the same names (password DEMO_PASSWORD or 'demo'); "
        "switch off an environment that shares another one's Superset instance."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--force", action="store_true", help="Run even with DEBUG off.")

    def handle(self, *args: Any, force: bool = False, **options: Any) -> None:
        if not settings.DEBUG and not force:
            raise CommandError("seed_demo creates users with a known password: run it with DEBUG on, or --force.")
        password = os.environ.get("DEMO_PASSWORD") or "demo"
        user_model = get_user_model()
        for role in ROLES:
            group, _ = Group.objects.get_or_create(name=role)
            user, created = user_model.objects.get_or_create(username=role)
            user.set_password(password)
            user.is_staff = user.is_superuser = role == "admin"
            user.save()
            user.groups.set([group])
            self.stdout.write(f"{'created' if created else 'updated'} user {role} (role {role})")
        # An honest demo (issue 15): an environment on another one's Superset (the local staging on ss-dev's
        # instance) is switched off, so nothing pretends to move objects between two instances that are one.
        for environment, twin in policy.environments_sharing_instance():
            environment.is_active = False
            environment.save(update_fields=["is_active"])
            self.stdout.write(
                f"environment {environment.env_id}: inactive — the same Superset as {twin.env_id} "
                f"({twin.superset_url}); give it its own instance with set_environment --url … --active"
            )
