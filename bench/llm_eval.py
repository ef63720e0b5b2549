"""A real-model check anyone can run (issue 16): fixed scenarios through the whole agent against ``LLM_BASE_URL``.

Run from the repository root with a model server and the local Superset pair up (``make superset``):

    LLM_PROVIDER=openai LLM_BASE_URL=http://127.0.0.1:8765/v1 LLM_API_KEY=x LLM_MODEL=qwen2.5-coder-1.5b-instruct \\
    LLM_TIMEOUT_S=300 LLM_MAX_TOKENS=400 .venv/bin/python bench/llm_eval.py [--only main-ru,sc001-en] [--holdout 4]

The database ``<DATABASE_URL's name>_llm_eval`` is dropped and created; the default policies and the users
``analyst``/``engineer``/``admin`` are made in it (``tests.support.users``). Each scenario is one ``AgentTurn``
(``chat_model()``: the real provider path, the router as configured) on a page of the seeded Superset objects;
the model is reached through a recording loopback proxy that reads each response's ``usage`` (or llama.cpp's
``timings``) from the stream. Printed per scenario: the tools the model called (with the ids it gave, and the
object the call ran on after context binding), cards and refusals, the answer's language (``detect_language``
of its prose: quoted names and Superset's titles left out) against the question's, whether the answer names the
facts from Superset (the dashboard's title and a chart, a dataset column), prompt/completion tokens per model
call, and the seconds of the turn. SC-001: the page's object identified (the call ran on it) in every context
scenario.

Scenarios: the seed's acceptance ones (main job on a dashboard page in ru and en, a dataset question, deploy to
prod → the typed-confirmation card, an analyst asking for a write → refused, SC-001 object identification on the
pages of both dashboards and a dataset) and ``--holdout N`` questions of the frozen fresh set
(``tests/data/router_fresh.yaml``, every 25th labelled one from the first).
"""

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")


class RecordingProxy:
    """Forwards ``/chat/completions`` to ``upstream`` unchanged and records each call's token usage."""

    def __init__(self, upstream: str):
        self.upstream = upstream.rstrip("/")
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.handle_error = lambda *a: None  # a client closing its keep-alive connection is not news
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def take(self) -> list[dict[str, Any]]:
        with self._lock:
            calls, self.calls = self.calls, []
        return calls

    def _record(self, record: dict[str, Any], started: float) -> None:
        """Keep ``record`` once (at the stream's ``[DONE]``, or when a reply without it ends)."""
        with self._lock:
            if "seconds" not in record:
                record["seconds"] = time.perf_counter() - started
                self.calls.append(record)

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802
                import httpx

                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if body.get("stream"):
                    body["stream_options"] = {"include_usage": True}
                started = time.perf_counter()
                names = [t.get("function", {}).get("name") for t in body.get("tools") or []]
                last = (body.get("messages") or [{}])[-1]
                # "tool": the step answers a result (with LLM_FIRST_STEP=planner, the planner made the first call)
                record: dict[str, Any] = {"tools": len(names), "names": names, "after": last.get("role")}
                with (
                    httpx.Client(timeout=900, trust_env=False) as client,
                    client.stream("POST", proxy.upstream + self.path.removeprefix("/v1"), json=body) as answer,
                ):
                    self.send_response(answer.status_code)
                    self.send_header("Content-Type", answer.headers.get("content-type", "application/json"))
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for line in answer.iter_lines():
                        _usage(line, record)
                        if line.strip() == "data: [DONE]":  # recorded before the client can finish the turn
                            proxy._record(record, started)
                        data = (line + "\n").encode()
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                proxy._record(record, started)

            def log_message(self, *args):
                pass

        return Handler


def _usage(line: str, record: dict[str, Any]) -> None:
    text = line.removeprefix("data: ").strip()
    if not text.startswith("{"):
        return
    chunk = json.loads(text)
    usage = chunk.get("usage") or {}
    timings = chunk.get("timings") or {}
    if usage.get("prompt_tokens") is not None:
        record["prompt"], record["completion"] = usage["prompt_tokens"], usage.get("completion_tokens")
    elif timings.get("prompt_n") is not None and "prompt" not in record:
        record["prompt"], record["completion"] = timings["prompt_n"], timings.get("predicted_n")


@dataclass
class Scenario:
    """One fixed question: who asks, on which page, and what a right answer shows.

    Attributes:
        page: ``("dashboard", slug)``, ``("dataset", table name)`` or None; env ss-dev.
        expect: the tools a right first call is among ('': answering without a call is right too); facts: what
            the answer must name (filled from Superset).
        card: the confirmation card expected (tool name), or ''; refused: the write must be refused.
        identify: an SC-001 scenario: the call must run on the page's object.
    """

    name: str
    role: str
    page: tuple[str, str] | None
    question: str
    expect: tuple[str, ...]
    card: str = ""
    refused: bool = False
    identify: bool = False
    facts: list[str] = field(default_factory=list)


SCENARIOS = [
    Scenario(
        "main-ru", "analyst", ("dashboard", "energy-report"), "расскажи про этот дашборд", ("get_health_summary",)
    ),
    Scenario("main-en", "analyst", ("dashboard", "energy-report"), "summarise this dashboard", ("get_health_summary",)),
    Scenario(
        "dataset-ru",
        "analyst",
        ("dataset", "energy_consumption"),
        "какие колонки в этом датасете?",
        ("superset_explore_database", "get_dataset_details"),
    ),
    Scenario(
        "deploy-prod",
        "engineer",
        ("dashboard", "regions-overview"),
        "deploy this dashboard to prod",
        ("deploy_dashboard", "execute_migration"),
        card="deploy_dashboard",
    ),
    Scenario(
        "analyst-write",
        "analyst",
        ("dashboard", "energy-report"),
        "создай ветку feature/summer",
        # create_branch is not offered to an analyst: calling it (→ refused) or calling nothing is right, calling
        # another tool instead (search_dashboards was seen) is not.
        ("create_branch", ""),
        refused=True,
    ),
    Scenario(
        "sc001-en",
        "analyst",
        ("dashboard", "regions-overview"),
        "summarise this dashboard",
        ("get_health_summary",),
        identify=True,
    ),
    Scenario(
        "sc001-ru",
        "analyst",
        ("dashboard", "regions-overview"),
        "что на этом дашборде?",
        ("get_health_summary",),
        identify=True,
    ),
    Scenario(
        "sc001-dataset",
        "analyst",
        ("dataset", "energy_consumption"),
        "describe this dataset",
        ("superset_explore_database", "get_dataset_details"),
        identify=True,
    ),
]


def page_of(scenario: Scenario) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The scenario's UIContext and the Superset object of its page (``{}`` without one); fills ``facts``."""
    from tests.support import superset_api
    from tests.support.contexts import dashboard_context, ui_context

    if scenario.page is None:
        return ui_context(None, None), {}
    kind, key = scenario.page
    if kind == "dashboard":
        dashboard = superset_api.dashboard_by_slug("ss-dev", key)
        charts = superset_api.dashboard_chart_names("ss-dev", dashboard["id"])
        scenario.facts = [dashboard["dashboard_title"], *charts[:1]]
        return dashboard_context(dashboard), dashboard
    (dataset,) = superset_api.datasets_named("ss-dev", key)
    columns = superset_api.api("ss-dev", "GET", f"/api/v1/dataset/{dataset['id']}")["result"]["columns"]
    scenario.facts = [columns[0]["column_name"]]
    return ui_context("dataset", dataset["id"]), dataset


def holdout_sample(count: int) -> list[Scenario]:
    """Every 25th labelled question of the frozen fresh set, up to ``count``, asked by an admin."""
    from tests.support.question_set import FRESH_PATH, load_questions

    labelled = [q for q in load_questions(FRESH_PATH) if q.tools][::25][:count]
    out = []
    for i, q in enumerate(labelled):
        scenario = Scenario(f"holdout-{i + 1}", "admin", None, q.q, q.first)
        scenario.page = ("raw", q.page)  # type: ignore[assignment]
        out.append(scenario)
    return out


async def run(scenario: Scenario, users: dict, proxy: RecordingProxy) -> dict[str, Any]:
    """One turn of ``scenario``; returns what the report prints."""
    from channels.db import database_sync_to_async

    from agentchat.language import detect_language
    from agentchat.models import Message
    from agentchat.turn.agent import AgentTurn
    from tests.support.question_set import Question

    if scenario.page and scenario.page[0] == "raw":
        context, obj = Question(scenario.question, scenario.page[1], (), ()).context(), {}
    else:
        context, obj = await database_sync_to_async(page_of)(scenario)
    frames: list[dict[str, Any]] = []

    async def emit(event):
        frames.append(event.wire())

    proxy.take()
    started = time.perf_counter()
    conversation_id = await AgentTurn(user=users[scenario.role], emit=emit).run(
        conversation_id=None, text=scenario.question, context=context
    )
    seconds = time.perf_counter() - started
    rows = await database_sync_to_async(
        lambda: list(Message.objects.filter(conversation_id=conversation_id).order_by("id"))
    )()
    called = [(c["name"], c.get("args") or {}) for m in rows if m.role == "assistant" for c in m.tool_calls or []]
    results = [json.loads(m.content) for m in rows if m.role == "tool" and m.content.startswith("{")]
    used = [r["object_used"] for r in results if isinstance(r, dict) and "object_used" in r]
    answer = next((f["text"] for f in reversed(frames) if f["event"] == "message"), "")
    events = {f["event"] for f in frames}
    cards = [f.get("tool") for f in frames if f["event"] == "confirm_required"]
    language_ok = bool(answer) and detect_language(_prose(answer, scenario.facts)) == detect_language(scenario.question)
    facts = [fact for fact in scenario.facts if fact.casefold() in answer.casefold()]
    identified = None
    if scenario.identify:
        identified = bool(used) and all(u["page_object"] and u["id"] == obj.get("id") for u in used)
    return {
        "scenario": scenario,
        "called": called,
        "used": used,
        "cards": cards,
        "denied": "permission_denied" in events,
        "answer": answer,
        "language_ok": language_ok,
        "facts": facts,
        "identified": identified,
        "offered_write": any(c["tools"] and scenario.expect[0] in c.get("names", ()) for c in proxy.calls),
        "calls": proxy.take(),
        "seconds": seconds,
    }


async def run_all(scenarios: list[Scenario], users: dict, proxy: RecordingProxy) -> list[dict[str, Any]]:
    """Every scenario in one event loop (the provider's HTTP client is kept per process and bound to the loop it
    first ran in, as in the server); each is reported as it ends."""
    rows = []
    for scenario in scenarios:
        rows.append(await run(scenario, users, proxy))
        report(rows[-1])
    return rows


def _prose(answer: str, names: list[str]) -> str:
    """The answer without the names it quotes (Superset's titles are Russian whatever the answer's language):
    the known facts, «…», "…" and `…` segments are left out before the language is told."""
    import re

    for name in names:
        answer = answer.replace(name, " ")
    return re.sub(r"«[^»]*»|\"[^\"]*\"|`[^`]*`", " ", answer)


def text_call(answer: str) -> str:
    """The tool name when the answer is a tool call written as text (``{"name": …, "arguments": …}``, bare or in a
    fence: llama.cpp parses only fenced ```json blocks of this template into ``tool_calls``), else ''."""
    import re

    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", answer.strip())
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    return str(data["name"]) if isinstance(data, dict) and "name" in data and "arguments" in data else ""


def first_right(row: dict[str, Any]) -> bool:
    """The first call is among the expected tools ('' there: no call at all is right too)."""
    return (row["called"][0][0] if row["called"] else "") in row["scenario"].expect


def report(row: dict[str, Any]) -> None:
    s: Scenario = row["scenario"]
    tools = ", ".join(f"{name}({json.dumps(args, ensure_ascii=False)})" for name, args in row["called"]) or "none"
    expected = "/".join(name or "no call" for name in s.expect)
    print(f"== {s.name} [{s.role}] {s.page} «{s.question}»")
    print(f"   tools called: {tools}  | first call expected {expected}: {'yes' if first_right(row) else 'NO'}")
    if row["used"]:
        print(f"   object used (after binding): {json.dumps(row['used'], ensure_ascii=False)}")
    if s.card:
        print(f"   card: {row['cards'] or 'none'} (expected {s.card}: {'yes' if s.card in row['cards'] else 'NO'})")
    if s.refused:
        ran = [n for n, _ in row["called"] if n == s.expect[0]]
        print(f"   {s.expect[0]} offered to {s.role}: {'yes' if row['offered_write'] else 'no'}")
        print(f"   write refused: {'yes' if row['denied'] or not ran else 'NO'} (refusal frame: {row['denied']})")
    if row["identified"] is not None:
        print(f"   SC-001 page object identified: {'yes' if row['identified'] else 'NO'}")
    if row["cards"] and not row["answer"]:
        print("   answer: none yet, the turn waits on the card (language and facts: n/a)")
    else:
        print(f"   answer language right: {'yes' if row['language_ok'] else 'NO'}", end="")
        if s.facts:
            print(f" | names Superset facts: {len(row['facts'])}/{len(s.facts)} {row['facts']}", end="")
        print()
    for i, call in enumerate(row["calls"], 1):
        print(
            f"   model call {i}: {call['tools']} tools, prompt {call.get('prompt')} tokens,"
            f" completion {call.get('completion')}, {call['seconds']:.1f} s"
        )
    if text_call(row["answer"]):
        print(f"   answer is a tool call written as text ({text_call(row['answer'])}): not run")
    print(f"   turn: {row['seconds']:.1f} s | answer: {row['answer'][:300]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    parser.add_argument("--holdout", type=int, default=4, help="questions of the fresh set to add (0: none)")
    parser.add_argument(
        "--set",
        choices=("scenarios", "day"),
        default="scenarios",
        help="scenarios (default) or day: the frozen 48 questions of tests/data/llm_eval_day.yaml (bench/llm_day.py)",
    )
    opts = parser.parse_args()
    from tests.support.processes import fresh_database

    upstream = os.environ.get("LLM_BASE_URL", "")
    if not upstream:
        parser.error("LLM_BASE_URL must point at a /chat/completions server")
    proxy = RecordingProxy(upstream)
    os.environ["LLM_BASE_URL"] = proxy.url + "/v1"
    os.environ["LLM_PROVIDER"] = "openai"
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = fresh_database(base, "_llm_eval")
    import logging

    import django

    logging.getLogger("httpx").setLevel(logging.WARNING)
    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from tests.support.users import ensure_policy_defaults, make_user

    call_command("migrate", verbosity=0)
    ensure_policy_defaults()
    users = {role: make_user(role) for role in ("analyst", "engineer", "admin")}
    if opts.set == "day":
        from bench.llm_day import day_setup, load_day, run_day

        questions = [q for q in load_day() if not opts.only or q.id in opts.only.split(",")]
        migration_id, proxies = day_setup(users)
        print(
            f"model {settings.LLM_MODEL or '?'} at {upstream} | day set {len(questions)} questions"
            f" | LLM_FIRST_STEP={settings.LLM_FIRST_STEP}"
        )
        asyncio.run(run_day(questions, users, migration_id, proxies, proxy))
        return
    scenarios = [*SCENARIOS, *holdout_sample(opts.holdout)]
    if opts.only:
        wanted = set(opts.only.split(","))
        scenarios = [s for s in scenarios if s.name in wanted]
    print(
        f"model {settings.LLM_MODEL or '?'} at {upstream} | EMBEDDINGS={settings.EMBEDDINGS}"
        f" ROUTER_TOP_K={settings.ROUTER_TOP_K} | LLM_MAX_TOKENS={settings.LLM_MAX_TOKENS}"
        f" LLM_TEMPERATURE={'server default' if settings.LLM_TEMPERATURE is None else settings.LLM_TEMPERATURE}"
    )
    rows = asyncio.run(run_all(scenarios, users, proxy))
    identify = [r for r in rows if r["identified"] is not None]
    answered = [r for r in rows if r["answer"] or not r["cards"]]
    print(
        f"summary: {len(rows)} scenarios | answer language right {sum(r['language_ok'] for r in answered)}"
        f"/{len(answered)} answered"
        f" | first call expected {sum(first_right(r) for r in rows)}"
        f"/{len(rows)} | SC-001 identified {sum(bool(r['identified']) for r in identify)}/{len(identify)}"
        f" | tool calls written as text {sum(bool(text_call(r['answer'])) for r in rows)}"
    )


if __name__ == "__main__":
    main()
