"""WebSocket URL routes (DESIGN §6)."""

from typing import Any

from django.urls import path

from agentchat.chat.consumer import AgentConsumer

# Channels routes consumers with Django's ``path()``, which django-stubs types for HTTP views only; the list holds
# ASGI routes for ``URLRouter`` (asgi.py).
websocket_urlpatterns: list[Any] = [path("ws/agent/", AgentConsumer.as_asgi())]  # type: ignore[arg-type]
