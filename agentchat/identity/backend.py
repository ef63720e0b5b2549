"""Sign-in through Superset (DESIGN §15): a Django authentication backend ahead of ``ModelBackend``.

With the username and password of the login form it signs in to every active password-mode environment. When at
least one accepts them, the Django user of that username is created if missing (no password of its own: it signs
in through Superset) and each accepted environment's tokens are stored encrypted as a ``password`` identity —
the password itself is never stored. When none accepts them the backend returns None and ``ModelBackend`` checks
Django's own accounts (the demo users, administrators), which then simply have no Superset identity.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import BaseBackend
from django.contrib.auth.models import User
from django.http import HttpRequest

from agentchat.identity.services import identities_keep, identities_sign_in


class SupersetBackend(BaseBackend):
    """Authenticate against Superset's ``/api/v1/security/login`` (provider per environment: db or ldap)."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        """Return the user when at least one environment accepts ``username``/``password``, else None.

        A deactivated Django user is never returned (``user_can_authenticate``), and no identity is stored for it.
        """
        if not username or not password:
            return None
        accepted, _unreachable = identities_sign_in(username=username, password=password)
        if not accepted:
            return None
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        if not user.is_active:
            return None
        identities_keep(user=user, accepted=accepted)
        return user

    def get_user(self, user_id: int) -> User | None:
        """Return the active user ``user_id`` (the session's), or None."""
        user = get_user_model().objects.filter(pk=user_id).first()
        return user if user is not None and user.is_active else None
