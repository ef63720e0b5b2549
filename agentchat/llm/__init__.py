"""LLM providers (DESIGN §11): the offline planner (default) and any OpenAI-compatible endpoint."""

from django.conf import settings
from langchain_core.language_models import BaseChatModel

PROVIDER_LABELS = {"offline": "Офлайн-планировщик (без сети) / offline planner", "openai": "OpenAI-compatible"}


def provider_label() -> str:
    """Return the name of the answering provider shown on the page (model name for OpenAI-compatible)."""
    if settings.LLM_PROVIDER == "openai":
        return f"{settings.LLM_MODEL or 'model'} @ {settings.LLM_BASE_URL or 'OpenAI'}"
    return PROVIDER_LABELS["offline"]


def chat_model() -> BaseChatModel:
    """Return the configured chat model (``LLM_PROVIDER``: ``offline`` or ``openai``).

    Raises:
        ValueError: an unknown provider name.
    """
    provider = settings.LLM_PROVIDER
    if provider == "offline":
        from .offline import OfflinePlanner

        return OfflinePlanner()
    if provider == "openai":
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            base_url=settings.LLM_BASE_URL or None,
            api_key=settings.LLM_API_KEY or "not-needed",
            model=settings.LLM_MODEL,
            timeout=settings.LLM_TIMEOUT_S,
            max_retries=0,
            streaming=True,
            use_responses_api=False,
        )
    raise ValueError(f"unknown LLM_PROVIDER {provider!r}")
