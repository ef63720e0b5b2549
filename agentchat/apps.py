from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AgentchatConfig(AppConfig):
    name = "agentchat"
    verbose_name = "Agent chat"

    def ready(self) -> None:
        from .catalogue_sync import on_post_migrate

        post_migrate.connect(on_post_migrate, sender=self)
