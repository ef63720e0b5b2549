"""LLM providers (DESIGN §11): the offline planner (default) and any OpenAI-compatible endpoint."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.translation import gettext
from langchain_core.language_models import BaseChatModel

from agentchat.llm.offline.model import OfflinePlanner, knowledge_for
from agentchat.toolset.selection import ToolChoice

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI


def provider_label() -> str:
    """Return the name of the answering provider shown on the page, in the active language: «Офлайн-планировщик
    (без сети)», or ``<model> @ <base URL>`` for an OpenAI-compatible one."""
    if settings.LLM_PROVIDER == "openai":
        return f"{settings.LLM_MODEL or 'model'} @ {settings.LLM_BASE_URL or 'OpenAI'}"
    return gettext("Offline planner (no network)")


def chat_model() -> BaseChatModel:
    """Return the configured chat model (``LLM_PROVIDER``: ``offline`` or ``openai``).

    ``openai``: langchain-openai ``ChatOpenAI`` on ``LLM_BASE_URL`` with ``LLM_API_KEY`` and ``LLM_MODEL``,
    streaming (tokens and tool-call deltas), parallel tool calls as the server sends them, no SDK retries,
    a whole-call timeout of ``LLM_TIMEOUT_S``; ``LLM_MAX_TOKENS`` > 0 caps the reply; ``LLM_TEMPERATURE``, when
    set, is sent with every call. Failures are mapped to
    ``llm_unavailable`` by the agent loop (``turn.reply``, ``turn.streaming``).

    Raises:
        ValueError: an unknown provider name.
    """
    provider = settings.LLM_PROVIDER
    if provider == "offline":
        return OfflinePlanner()
    if provider == "openai":
        return _openai_model(
            settings.LLM_BASE_URL,
            settings.LLM_API_KEY,
            settings.LLM_MODEL,
            settings.LLM_TIMEOUT_S,
            settings.LLM_MAX_TOKENS,
            settings.LLM_TEMPERATURE,
        )
    raise ValueError(f"unknown LLM_PROVIDER {provider!r}")


def model_for_turn(
    model: BaseChatModel, *, choices: Sequence[ToolChoice], environments: list[tuple[str, str]]
) -> BaseChatModel:
    """Return ``model`` prepared for one turn: the offline planner gets the turn's policy facts (``choices``: every
    tool's verdict, ``environments``: ``[(env_id, tier)]`` active); any other model is returned as it is."""
    if isinstance(model, OfflinePlanner):
        return model.model_copy(update={"knowledge": knowledge_for(choices=choices, environments=environments)})
    return model


# The kept models: (event loop or None, configuration) → (ChatOpenAI, its loop's closer: ``_close_with_loop``, held
# as long as the model — a closer collected early would close it). Entries of closed loops are dropped.
_MODELS: dict[tuple[asyncio.AbstractEventLoop | None, tuple[Any, ...]], tuple[BaseChatModel, Any]] = {}


def _openai_model(*config: Any) -> BaseChatModel:
    """One ``ChatOpenAI`` per configuration and event loop, shared by every turn of that loop: building it (and its
    SDK clients) for each turn cost milliseconds of CPU (bench/load.py); it keeps no per-call state.

    Per loop, because its SDK client keeps connections alive in a pool bound to the loop that opened them: daphne
    runs one loop, but each background job of ``db_worker`` (an LLM review) runs in a loop of its own, and a
    connection of a closed loop handed to the next one fails with «Event loop is closed»
    (tests/llm/test_provider_event_loops.py). ``config`` is ``_openai_build``'s arguments.
    """
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None  # a synchronous caller: the sync client, which no loop owns
    for key in [k for k in _MODELS if k[0] is not None and k[0].is_closed()]:
        del _MODELS[key]
    key = (loop, config)
    if key not in _MODELS:
        model = _openai_build(*config)
        _MODELS[key] = model, _close_with_loop(model.http_async_client) if loop is not None else None
    return _MODELS[key][0]


def _close_with_loop(client: Any) -> AsyncIterator[None]:
    """Close ``client`` (an SDK HTTP client, its aiohttp session) in the running loop when that loop shuts down.

    An aiohttp session belongs to the loop it was opened in and must be closed in it; a background job's loop
    ends with ``asyncio.run``, which finalises the loop's asynchronous generators first (``shutdown_asyncgens``)
    — so a suspended generator whose ``finally`` closes the client does it there. Started here, in the loop, so the
    loop knows it; daphne's loop never ends. Returns the generator, which the caller keeps as long as the client.
    """

    async def open_until_shutdown() -> AsyncIterator[None]:
        try:
            yield
        finally:
            await client.aclose()

    closer = open_until_shutdown()
    asyncio.ensure_future(anext(closer))  # runs to its ``yield`` and waits there until the loop shuts down
    return closer


def _openai_build(
    base_url: str, api_key: str, model: str, timeout_s: float, max_tokens: int, temperature: float | None = None
) -> "ChatOpenAI":
    """A new ``ChatOpenAI`` for one configuration (see ``chat_model``)."""
    # Imported on first use: importing langchain_openai takes about 2 s, which the offline default should not pay.
    from langchain_openai import ChatOpenAI  # noqa: PLC0415 - see the comment above

    from agentchat.llm.transport import AioHttpClient  # noqa: PLC0415 - it imports openai (see above)

    extra: dict[str, Any] = {"max_tokens": max_tokens} if max_tokens > 0 else {}
    if temperature is not None:  # unset: the request carries none and the server's default applies
        extra["temperature"] = temperature
    return ChatOpenAI(
        base_url=base_url or None,
        api_key=api_key or "not-needed",  # local servers (Ollama, llama.cpp) take any key
        model=model,
        timeout=timeout_s,
        max_retries=0,  # one retry layer in the project, none in SDKs (DESIGN §10)
        streaming=True,
        use_responses_api=False,  # /chat/completions: what vLLM, Ollama, llama.cpp and LM Studio speak
        # No per-chunk asyncio.wait_for (a task per streamed chunk): the HTTP read timeout (``timeout``) already
        # ends a stalled stream, and the per-chunk wrapper cost milliseconds of CPU per turn (bench/load.py).
        stream_chunk_timeout=None,
        # Its own connection pool: langchain-openai otherwise shares one async HTTP client per base URL across the
        # process, whose kept-alive connections belong to the event loop that opened them (``_openai_model``). The
        # SDK's aiohttp transport (``openai[aiohttp]``): the same client and errors, about 0.8 ms less event-loop
        # CPU per streamed request than its default (httpcore + h11) transport (issue 17); its connection errors
        # named as httpx2 names them (``llm.transport``: a refused connection is no timeout).
        http_async_client=AioHttpClient(timeout=timeout_s),
        **extra,
    )
