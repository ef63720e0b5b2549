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

    ``openai``: langchain-openai ``ChatOpenAI`` on ``LLM_BASE_URL`` with ``LLM_API_KEY`` and ``LLM_MODEL``,
    streaming (tokens and tool-call deltas), parallel tool calls as the server sends them, no SDK retries,
    a whole-call timeout of ``LLM_TIMEOUT_S``; ``LLM_MAX_TOKENS`` > 0 caps the reply. Failures are mapped to
    ``llm_unavailable`` by the agent loop (``llm.stream``).

    Raises:
        ValueError: an unknown provider name.
    """
    provider = settings.LLM_PROVIDER
    if provider == "offline":
        from .offline import OfflinePlanner

        return OfflinePlanner()
    if provider == "openai":
        from langchain_openai import ChatOpenAI

        extra = {"max_tokens": settings.LLM_MAX_TOKENS} if settings.LLM_MAX_TOKENS > 0 else {}
        return ChatOpenAI(
            base_url=settings.LLM_BASE_URL or None,
            api_key=settings.LLM_API_KEY or "not-needed",  # local servers (Ollama, llama.cpp) take any key
            model=settings.LLM_MODEL,
            timeout=settings.LLM_TIMEOUT_S,
            max_retries=0,  # one retry layer in the project, none in SDKs (DESIGN §10)
            streaming=True,
            use_responses_api=False,  # /chat/completions: what vLLM, Ollama, llama.cpp and LM Studio speak
            **extra,
        )
    raise ValueError(f"unknown LLM_PROVIDER {provider!r}")
