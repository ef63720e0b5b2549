"""``manage.py set_environment``: point an ``Environment`` at its Superset from a deployment script (DESIGN §4).

The data migration creates ``ss-dev``, ``staging`` and ``prod`` on the local demo URLs; a deployment (e.g.
``docker/compose.yaml``) sets the real URLs without opening the admin::

    manage.py set_environment prod --url https://superset.example.com --tier prod --credentials-env SUPERSET_PROD
    manage.py set_environment staging --inactive
    manage.py set_environment prod --auth-mode service   # every user acts as SUPERSET_PROD_USERNAME (DESIGN §15)
"""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from policies.models import AuthMode, Environment, LoginProvider, Tier


class Command(BaseCommand):
    help = "Create or update an Environment (Superset URL, tier, credentials prefix, auth mode, active flag)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("env_id", help="environment id, e.g. prod")
        parser.add_argument("--url", help="Superset base URL")
        parser.add_argument("--name", help="display name")
        parser.add_argument("--tier", choices=Tier.values)
        parser.add_argument("--credentials-env", help="prefix of <PREFIX>_USERNAME / <PREFIX>_PASSWORD")
        parser.add_argument(
            "--auth-mode", choices=AuthMode.values, help="password: as each user (default); service: the shared account"
        )
        parser.add_argument("--login-provider", choices=LoginProvider.values, help="Superset sign-in provider")
        state = parser.add_mutually_exclusive_group()
        state.add_argument("--active", action="store_true", help="offer it again")
        state.add_argument("--inactive", action="store_true", help="stop offering it")

    def handle(self, *args: Any, **options: Any) -> None:
        environment = Environment.objects.filter(env_id=options["env_id"]).first()
        if environment is None:
            missing = [flag for flag in ("url", "tier", "credentials_env") if not options[flag]]
            if missing:
                raise CommandError(f"a new environment needs --{', --'.join(m.replace('_', '-') for m in missing)}")
            environment = Environment(env_id=options["env_id"], name=options["name"] or options["env_id"])
        for field in ("url", "name", "tier", "credentials_env", "auth_mode", "login_provider"):
            if options[field]:
                setattr(environment, "superset_url" if field == "url" else field, options[field])
        if options["active"] or options["inactive"]:
            environment.is_active = options["active"]
        try:
            environment.full_clean()
        except ValidationError as exc:
            raise CommandError(f"invalid environment: {exc.message_dict}") from None
        environment.save()
        state = "active" if environment.is_active else "inactive"
        self.stdout.write(f"{environment.env_id}: {environment.superset_url} ({environment.tier}, {state})")
