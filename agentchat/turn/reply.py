"""What the agent loop makes of a streamed LLM reply (DESIGN §5 steps 5–6, §11): the tool calls it may run, and
the user's message when the model cannot be reached.

Tool-call arguments are parsed strictly from the streamed text. LangChain repairs partial JSON while it merges
chunks (``parse_partial_json``), so a call cut off by ``max_tokens`` — ``{"name": "feat`` — would otherwise look
valid (``{"name": "feat"}``) and run with a truncated value. Here such a call is marked invalid instead: it gets
an error ToolMessage, no card and no execution, and the model can correct itself.
"""

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import openai
from django.conf import settings
from django.utils.translation import gettext
from langchain_core.messages import AIMessageChunk

from agentchat.errors import error_text
from agentchat.language import in_language
from agentchat.runtime.registry import registry

TRUNCATED = "the reply was cut off by the token limit (finish_reason=length); the arguments are incomplete"


class StreamIncomplete(Exception):
    """An OpenAI-compatible stream ended without a ``finish_reason`` (the connection closed mid-reply)."""


def stream_incomplete(reply: AIMessageChunk | None) -> bool:
    """True when an OpenAI-compatible reply stopped without ``finish_reason``: the SDK ends the stream quietly
    when the server closes the connection, so only the missing finish tells a cut-off reply from a whole one."""
    meta = reply.response_metadata if reply is not None else {}
    return meta.get("model_provider") == "openai" and not meta.get("finish_reason")


def stream_tool_calls(reply: AIMessageChunk | None) -> list[dict[str, Any]]:
    """Return the tool calls of a merged streamed reply, each ``{"id", "name", "args"}`` plus ``"invalid"``
    (the reason) for a call that must not run.

    A call is invalid when the reply ended with ``finish_reason`` ``length``, when its arguments are not strict
    JSON, or when they are not a JSON object. Schema validation happens later, per tool (``agent``).
    """
    if reply is None:
        return []
    truncated = (reply.response_metadata or {}).get("finish_reason") == "length"
    chunks = [c for c in reply.tool_call_chunks if c.get("name") or c.get("args") or c.get("id")]
    if not chunks:  # a model that reports whole calls (no chunks): trust LangChain's parse
        calls = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in reply.tool_calls]
        return calls + [
            _invalid(c, i, c.get("error") or "arguments are not valid JSON")
            for i, c in enumerate(reply.invalid_tool_calls)
        ]
    out = []
    for i, chunk in enumerate(chunks):
        if truncated:
            out.append(_invalid(chunk, i, TRUNCATED))
            continue
        raw = chunk.get("args") or ""
        try:
            args = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:  # what json.loads raises for text that is not JSON
            out.append(_invalid(chunk, i, f"arguments are not valid JSON ({exc.msg} at character {exc.pos})"))
            continue
        if not isinstance(args, dict):
            out.append(_invalid(chunk, i, "arguments must be a JSON object"))
            continue
        out.append({"id": chunk.get("id") or f"call_invalid_{i}", "name": chunk.get("name") or "?", "args": args})
    return out


# The wrappers a model puts around a call it writes as text (one, whole answer): a ```json (or bare ```) fence, and
# the Qwen/Hermes ``<tool_call>…</tool_call>`` tags its chat template would have turned into a call.
_WRAPPERS = (
    re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL | re.IGNORECASE),
    re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL),
)
# The key the arguments come under: OpenAI's ``arguments``, or ``parameters`` (the schema's word, which Llama- and
# Qwen-style prompts show the model).
_ARGUMENT_KEYS = ("arguments", "parameters")
# What an OpenAI-compatible API accepts as a function name: anything else, stored and replayed, fails every later call.
_CALL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def text_written_call(text: str) -> dict[str, Any] | None:
    """The tool call a model wrote as its whole answer's text instead of a ``tool_calls`` entry, else None.

    Small models do (the local 1.5B instruct model of issue 16: ``{"name": "create_branch", "arguments": {…}}``,
    which llama.cpp's template does not turn into a call). Such a call then takes the path of every call — the
    invocation-level policy check (a name not offered this turn is refused there, with its card and audit row),
    the guardrail's card, the executor (DESIGN §5 step 6) — instead of reaching the user as JSON.

    Counted as a call: an answer that is exactly one JSON object with exactly two keys, a string ``name`` (what an
    OpenAI API accepts: ``[A-Za-z0-9_-]{1,64}``) that is a registered tool (``runtime.registry``; one not offered
    this turn is refused by the policy check) and an object ``arguments`` or ``parameters`` (or a JSON text of
    one); bare, or as the whole content of one ```json fence (any case) or of one ``<tool_call>…</tool_call>``
    pair (whitespace around it allowed).
    Prose around it, several objects, a list, other keys or a wrapper left open leave the text an answer.

    Returns:
        ``{"id": "call_text_0", "name", "args"}`` (the id made unique in the conversation when stored), or None.
    """
    data = _whole_json_object(_unwrapped(text.strip()))
    if data is None or len(data) != 2 or "name" not in data:
        return None
    key = next((k for k in _ARGUMENT_KEYS if k in data), None)
    name, args = data["name"], data.get(key) if key else None
    if isinstance(args, str):
        args = _whole_json_object(args.strip())  # arguments as the API sends them: a JSON text
    if not isinstance(name, str) or not _CALL_NAME.fullmatch(name) or not isinstance(args, dict):
        return None
    if name not in registry():
        return None  # {"name": "energy_consumption", "parameters": {…}} is an answer about a dataset, not a call
    return {"id": "call_text_0", "name": name, "args": args}


def _unwrapped(text: str) -> str:
    """``text`` without the one wrapper around all of it (``_WRAPPERS``), else ``text`` itself."""
    for wrapper in _WRAPPERS:
        match = wrapper.fullmatch(text)
        if match:
            return match.group(1)
    return text


def _whole_json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed when all of it is one JSON object, else None (``json.loads`` refuses trailing data)."""
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _invalid(chunk: Mapping[str, Any], index: int, reason: str) -> dict[str, Any]:
    return {
        "id": chunk.get("id") or f"call_invalid_{index}",
        "name": chunk.get("name") or "?",
        "args": {},
        "invalid": reason,
    }


def _host() -> str:
    url = settings.LLM_BASE_URL or "https://api.openai.com/v1"
    return urlsplit(url).netloc or url


def llm_failure_text(exc: BaseException, language: str | None = None) -> str:
    """The ``llm_unavailable`` message for a failed model call, in ``language`` (``ru``/``en``; None: the active
    language).

    Args:
        exc: an ``openai.APIError`` (connection, timeout, HTTP status: ``llm.streams`` raises the SDK's errors
            only) or ``StreamIncomplete`` (the stream broke off).

    Returns:
        «Языковая модель недоступна: …» with the cause a user or an operator can act on.
    """
    with in_language(language):
        host = _host()
        if isinstance(exc, openai.APITimeoutError):
            timeout = f"{settings.LLM_TIMEOUT_S:g}"
            detail = gettext("%(host)s did not answer within %(timeout)s s") % {"host": host, "timeout": timeout}
        elif isinstance(exc, openai.APIConnectionError):
            detail = gettext("cannot connect to %(host)s") % {"host": host}
        elif isinstance(exc, openai.APIStatusError):
            detail = _status_detail(exc.status_code, host)
        elif isinstance(exc, StreamIncomplete):
            detail = gettext("the connection to %(host)s broke off") % {"host": host}
        else:
            detail = gettext("error %(name)s") % {"name": type(exc).__name__}
        return error_text("llm_unavailable", detail=detail) + " " + gettext("Please ask again later.")


def _status_detail(status: int, host: str) -> str:
    """What an HTTP status of the model's server means for the user, in the active language."""
    params = {"host": host, "status": status, "model": settings.LLM_MODEL or "?"}
    if status in (401, 403):
        return gettext("%(host)s rejected the API key (%(status)s)") % params
    if status == 404:
        return gettext("model %(model)s or the URL not found (%(status)s)") % params
    if status == 429:
        return gettext("%(host)s is rate limiting requests (429)") % params
    if status >= 500:
        return gettext("%(host)s answered with error %(status)s") % params
    return gettext("%(host)s refused the request (%(status)s)") % params
