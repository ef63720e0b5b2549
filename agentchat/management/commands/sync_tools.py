from typing import Any

from django.core.management.base import BaseCommand

from agentchat.runtime.catalogue import sync_tool_catalogue


class Command(BaseCommand):
    help = "Sync policies.Tool rows from the @assistant_tool registry (category, env flag, descriptions)."

    def handle(self, *args: Any, **options: Any) -> None:
        result = sync_tool_catalogue()
        self.stdout.write(f"tools created: {result['created']}, updated: {result['updated']}")
        if result["not_registered"]:
            names = ", ".join(result["not_registered"])
            self.stdout.write(f"catalogue rows not registered in code (never offered): {names}")
