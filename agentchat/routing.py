"""WebSocket URL routes (DESIGN §6)."""

from django.urls import path

from agentchat.chat.consumer import AgentConsumer

websocket_urlpatterns = [path("ws/agent/", AgentConsumer.as_asgi())]
