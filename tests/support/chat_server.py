"""A scripted OpenAI-compatible chat-completions server on loopback (DESIGN §11; issue 8 item 2).

The agent talks to it through the real langchain-openai ``ChatOpenAI`` client, so everything between the agent
and the wire is exercised: streamed SSE chunks, tool-call deltas split across chunks, parallel calls, a reply cut
off by ``max_tokens`` (``finish_reason: "length"``), 5xx answers, a hang (client timeout) and a stream that breaks
off mid-way. Each request is answered by the next scripted ``Reply`` (or a callable that builds one from the
request) and recorded, so tests assert what the model was sent: the tools offered, the page-context block of the
system prompt, and whether the history is structurally valid (``history_problems``).
"""

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agentchat.context.uicontext import parse_prompt_block
from tests.support.loopback import serve_in_thread, stop_serving


@dataclass
class Call:
    """One tool call of a scripted reply.

    Attributes:
        name: the tool name.
        args: the arguments (serialised as JSON) unless ``raw_args`` is given.
        raw_args: the exact ``arguments`` text to send (e.g. truncated JSON).
        id: the call id; ``call_<n>`` by position when empty.
    """

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    raw_args: str | None = None
    id: str = ""

    def arguments(self) -> str:
        return self.raw_args if self.raw_args is not None else json.dumps(self.args, ensure_ascii=False)


@dataclass
class Reply:
    """One scripted answer to one chat-completions request.

    Attributes:
        text: assistant text, streamed in ``chunk_chars`` pieces.
        calls: tool calls; their ``arguments`` are streamed in ``chunk_chars`` pieces after a first delta with
            the id and name (as OpenAI does).
        finish_reason: default ``tool_calls`` when there are calls, else ``stop``.
        status: HTTP status; anything but 200 answers an OpenAI-style error body instead of a stream.
        delay_s: wait this long before answering (a hang, for client timeouts).
        break_after: close the connection after this many content chunks, without ``finish_reason`` or
            ``[DONE]`` (a stream that breaks off mid-way).
        short_body: with ``break_after``, the stream announced a longer body (``Content-Length``) than it sent, so
            the client's HTTP layer fails mid-answer (as with a chunked stream cut off) instead of seeing its end;
            with an error ``status``, the error body is cut short the same way.
        chunk_chars: size of the content and argument pieces.
        chunk_delay_s: pause between chunks (so the agent's token coalescing sends several frames).
        interleave: send the argument pieces of parallel calls alternately instead of one call after the other.
    """

    text: str = ""
    calls: list[Call] = field(default_factory=list)
    finish_reason: str | None = None
    status: int = 200
    delay_s: float = 0.0
    break_after: int | None = None
    short_body: bool = False
    chunk_chars: int = 7
    chunk_delay_s: float = 0.0
    interleave: bool = False


Step = Reply | Callable[["Recorded"], Reply]


@dataclass
class Recorded:
    """One request the server received.

    Attributes:
        body: the decoded JSON body.
        messages: ``body["messages"]`` (OpenAI wire form).
        tools: names of the offered tools, in order.
        tool_schemas: the offered tool definitions as sent.
        system: the system prompt text ('' when none).
        context: the page-context data parsed from the system prompt's delimited block (None when absent).
    """

    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages") or []

    @property
    def tools(self) -> list[str]:
        return [t["function"]["name"] for t in self.body.get("tools") or []]

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        return list(self.body.get("tools") or [])

    @property
    def system(self) -> str:
        first = self.messages[0] if self.messages else {}
        return str(first.get("content") or "") if first.get("role") == "system" else ""

    @property
    def context(self) -> dict[str, Any] | None:
        return parse_prompt_block(self.system)

    @property
    def last(self) -> dict[str, Any]:
        return self.messages[-1] if self.messages else {}

    def last_user_text(self) -> str:
        return next((str(m.get("content") or "") for m in reversed(self.messages) if m.get("role") == "user"), "")

    def tool_results(self) -> list[dict[str, Any]]:
        """The tool messages after the last assistant turn that called tools, content decoded when JSON."""
        out = []
        for message in reversed(self.messages):
            if message.get("role") != "tool":
                break
            try:
                content = json.loads(message.get("content") or "")
            except ValueError:
                content = message.get("content")
            out.append({"tool_call_id": message.get("tool_call_id"), "content": content})
        return list(reversed(out))


def history_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Check a chat-completions ``messages`` list strictly; return the problems found (empty = valid).

    Rules: a system message may only come first; every ``tool_call`` id of an assistant message has exactly one
    tool message, and those tool messages come right after that assistant message, before any other message;
    a tool message only follows its own assistant message; call ids are unique; an assistant message has text
    or tool calls.
    """
    problems: list[str] = []
    open_ids: set[str] = set()
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_ids:
                problems.append(f"#{i}: tool message {call_id!r} answers no open call of the preceding assistant")
            open_ids.discard(call_id)
            continue
        if open_ids:
            problems.append(f"#{i}: {role} message before the tool answers of {sorted(open_ids)}")
            open_ids = set()
        if role == "system" and i != 0:
            problems.append(f"#{i}: system message not first")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not calls and not message.get("content"):
                problems.append(f"#{i}: empty assistant message")
            for call in calls:
                if call["id"] in seen_ids:
                    problems.append(f"#{i}: duplicate call id {call['id']!r}")
                seen_ids.add(call["id"])
                open_ids.add(call["id"])
    if open_ids:
        problems.append(f"end: calls {sorted(open_ids)} have no tool message")
    return problems


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class ChatServer:
    """The scripted server; use as a context manager.

    Args:
        steps: answers in request order; a callable step receives the ``Recorded`` request. When the script is
            exhausted the server answers with ``default`` (a callable), else 500 ``script exhausted`` (so a test
            sees the extra request).
        model: the model name put in the chunks.
        keep_alive: HTTP/1.1 with keep-alive (each stream sent whole with its Content-Length), so the client reuses
            its connections; default HTTP/1.0, one connection per request.

    Attributes:
        url: base URL to put in ``LLM_BASE_URL`` (``http://127.0.0.1:<port>/v1``).
        requests: every ``Recorded`` request, in arrival order.
    """

    def __init__(
        self,
        *steps: Step,
        model: str = "scripted-model",
        default: Callable[[Recorded], Reply] | None = None,
        keep_alive: bool = False,
    ):
        self.steps = list(steps)
        self.keep_alive = keep_alive
        self.model = model
        self.default = default
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "ChatServer":
        self._thread = serve_in_thread(self._server)
        return self

    def __exit__(self, *exc) -> None:
        assert self._thread is not None
        stop_serving(self._server, self._thread)

    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if self.steps:
                step = self.steps.pop(0)
            else:
                step = self.default or Reply(status=500, text="script exhausted")
        return step(recorded) if callable(step) else step

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            # HTTP/1.0: the stream ends when the connection closes. Kept alive (HTTP/1.1), a stream is sent whole
            # with its Content-Length and the connection stays open for the client's pool, as real servers do.
            protocol_version = "HTTP/1.1" if server.keep_alive else "HTTP/1.0"

            def do_POST(self):  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.endswith("/chat/completions"):
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                reply = server._next(Recorded(body))
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    error = {"message": reply.text or "scripted failure", "type": "server_error", "code": None}
                    self._json(reply.status, {"error": error}, short=reply.short_body)
                elif body.get("stream"):
                    self._stream(reply, body)
                else:
                    self._json(200, server.completion(reply))

            def _json(self, status: int, payload: dict, short: bool = False) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) + (10**6 if short else 0)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: Reply, body: dict) -> None:
                if server.keep_alive:
                    lines = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in server.chunks(reply, body)]
                    data = "".join([*lines, "data: [DONE]\n\n"]).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if reply.short_body:
                    self.send_header("Content-Length", str(10**6))
                self.end_headers()
                try:
                    for n, chunk in enumerate(server.chunks(reply, body)):
                        if reply.break_after is not None and n >= reply.break_after:
                            return  # the connection closes without finish_reason or [DONE]
                        self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
                        self.wfile.flush()
                        if reply.chunk_delay_s:
                            time.sleep(reply.chunk_delay_s)
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args):
                pass

        return Handler

    def _base(self) -> dict[str, Any]:
        return {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": self.model}

    def chunks(self, reply: Reply, body: dict) -> list[dict[str, Any]]:
        """The SSE chunk payloads of ``reply``: role, content pieces, tool-call deltas, finish, usage."""

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {**self._base(), "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        out = [chunk({"role": "assistant", "content": ""})]
        if reply.text:
            out += [chunk({"content": piece}) for piece in _pieces(reply.text, reply.chunk_chars)]
        per_call = []
        for index, call in enumerate(reply.calls):
            head = {
                "index": index,
                "id": call.id or f"call_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            tail = [
                {"index": index, "function": {"arguments": piece}}
                for piece in _pieces(call.arguments(), reply.chunk_chars)
            ]
            per_call.append([head, *tail])
        if reply.interleave:
            longest = max((len(c) for c in per_call), default=0)
            ordered = [c[i] for i in range(longest) for c in per_call if i < len(c)]
        else:
            ordered = [delta for deltas in per_call for delta in deltas]
        out += [chunk({"tool_calls": [delta]}) for delta in ordered]
        finish = reply.finish_reason or ("tool_calls" if reply.calls else "stop")
        out.append(chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            out.append({**self._base(), "choices": [], "usage": usage})
        return out

    def completion(self, reply: Reply) -> dict[str, Any]:
        """A non-streamed ``chat.completion`` body for ``reply``."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            message["tool_calls"] = [
                {
                    "id": call.id or f"call_{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments()},
                }
                for i, call in enumerate(reply.calls)
            ]
        finish = reply.finish_reason or ("tool_calls" if reply.calls else "stop")
        return {
            **self._base(),
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }


def call_then_answer(call: Call, answer: str, told: list[dict]) -> Callable[[Recorded], Reply]:
    """A scripted model that makes ``call`` after a user message and, after the tool result, appends the
    ToolMessages' contents to ``told`` (what the model was sent) and answers ``answer``."""

    def model(request: Recorded) -> Reply:
        if request.last.get("role") != "tool":
            return Reply(calls=[call])
        told.extend(r["content"] for r in request.tool_results())
        return Reply(text=answer)

    return model


def dashboard_summary_model(request: Recorded) -> Reply:
    """A scripted "model" for the walking-skeleton question about the page's dashboard (any number of turns).

    After a user message it calls ``get_health_summary`` for the dashboard of the page context it was sent;
    after the tool result it answers from that result — its labelled facts as sent, or the title, charts and
    datasets of a structured result — in the language of the question. Nothing is invented: every name in the
    answer comes from the ToolMessage the agent sent.
    """
    if request.last.get("role") != "tool":
        context = request.context or {}
        args = {"env_id": context.get("envId"), "dashboard_id": int(context.get("objectId") or 0)}
        return Reply(calls=[Call("get_health_summary", args, id=f"call_{len(request.messages)}")])
    result = request.tool_results()[-1]["content"]
    if "facts" in result:  # issue 32 item 5: a model reads the result as labelled facts in the question's language
        return Reply(text=str(result["facts"]))
    dashboard = result.get("dashboard") or {}
    charts = result.get("charts") or []
    charts = charts.get("items", []) if isinstance(charts, dict) else charts
    datasets = result.get("datasets") or []
    datasets = datasets.get("items", []) if isinstance(datasets, dict) else datasets
    chart_lines = "\n".join(f"- {c.get('name')} ({c.get('viz_type')})" for c in charts)
    dataset_names = ", ".join(str(d.get("name")) for d in datasets)
    if re.search(r"[а-яё]", request.last_user_text(), re.I):
        text = (
            f"Дашборд «{dashboard.get('title')}» (id {dashboard.get('id')}, окружение {result.get('env_id')}).\n"
            f"Графики ({len(charts)}):\n{chart_lines}\nДатасеты: {dataset_names}"
        )
    else:
        text = (
            f"Dashboard “{dashboard.get('title')}” (id {dashboard.get('id')}, environment {result.get('env_id')}).\n"
            f"Charts ({len(charts)}):\n{chart_lines}\nDatasets: {dataset_names}"
        )
    return Reply(text=text, chunk_chars=12)
