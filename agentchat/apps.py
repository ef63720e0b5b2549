"""The agentchat app: fills the tool registry at start-up and keeps the ``policies.Tool`` rows in step with it;
connects the receivers that end a session's sockets (``chat.sessions``); registers the settings checks
(``agentchat.web.checks``)."""

import importlib
import pkgutil

from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class AgentchatConfig(AppConfig):
    name = "agentchat"
    verbose_name = _("Agent chat")

    def ready(self) -> None:
        """Import every module of ``agentchat.tools`` (their ``@assistant_tool`` decorators register the tools, as
        Django's admin ``autodiscover()`` does), sync the catalogue after each ``migrate``, connect the session
        receivers (logout, password change, deactivation close the sockets: ``chat.sessions``) and register the
        system checks of the settings (``agentchat.web.checks``)."""
        # Imported here, not at module level: these modules import models, which needs the app registry ready.
        from agentchat import tools  # noqa: PLC0415 - see the comment above
        from agentchat.chat.sessions import connect_signals  # noqa: PLC0415 - see the comment above
        from agentchat.runtime.catalogue import on_post_migrate  # noqa: PLC0415 - see the comment above
        from agentchat.web.checks import register_checks  # noqa: PLC0415 - see the comment above

        for module in pkgutil.iter_modules(tools.__path__):
            importlib.import_module(f"{tools.__name__}.{module.name}")
        post_migrate.connect(on_post_migrate, sender=self)
        connect_signals()
        register_checks()
