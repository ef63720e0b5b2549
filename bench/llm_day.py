"""A BI engineer's day against a real model (issue 32 item 6): the frozen set ``tests/data/llm_eval_day.yaml``.

48 questions written from the user's side (the seed's stories, a working day; by someone who had not read the
planner, the prompts or the other sets; frozen by sha256 in ``tests/llm/test_llm_day_set.py``), each one chat turn
through the whole agent (``AgentTurn``, the configured provider, the router as configured) as its role, on its page
of the local pair. Both Superset instances sit behind counting proxies that keep the JSON answers, so the bench
counts upstream requests whose object id nobody gave (not the page's, not in the question, not in an earlier
answer of that turn: ``invented``). Printed per question and summed:

- first tool right (any of ``expect``; ``""``: no call is right), the card expected, a refusal by role;
- turns ending in an ``error`` frame;
- upstream requests with an invented id (must be 0);
- facts named: for questions asking for them, the dashboard's title, its first chart, its dataset, an owner, a column
  (resolved from Superset), by language;
- unsupported claims: names the answer quotes that no tool result, page or question holds, and «problems found»
  with no finding in any result (printed for a person to judge).

Run with ``bench/llm_eval.py --set day`` (the model's environment variables as there).
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SET_PATH = Path(__file__).resolve().parents[1] / "tests" / "data" / "llm_eval_day.yaml"
OBJECT_PATH = re.compile(r"^/api/v1/(dashboard|chart|dataset|database)/(\d+)(?:[/?]|$)")
EXPORT_IDS = re.compile(r"/export/\?q=(?:!|%21)(?:\(|%28)([\d,%C]+)")
QUOTED = re.compile(r"«([^»]{3,120})»|“([^”]{3,120})”|\*\*([^*]{3,120})\*\*")
PROBLEMS = re.compile(
    r"(есть|обнаружен\w*|найден\w*)\s+(\w+\s+)?проблем"
    r"|problems? (were |was )?(found|detected)|there are (some )?(issues|problems)",
    re.I,
)


@dataclass
class DayQuestion:
    """One row of the set (see its header for the fields)."""

    id: str
    q: str
    role: str
    page: str
    expect: list[str]
    facts: list[str] = field(default_factory=list)
    card: str = ""
    refused: bool = False
    note: str = ""

    @property
    def language(self) -> str:
        return "ru" if re.search(r"[а-яё]", self.q, re.I) else "en"


def load_day() -> list[DayQuestion]:
    """The frozen set."""
    rows = yaml.safe_load(SET_PATH.read_text(encoding="utf-8"))
    return [DayQuestion(**{k: v for k, v in row.items() if k in DayQuestion.__dataclass_fields__}) for row in rows]


def page_of(question: DayQuestion, migration_id: int) -> tuple[dict[str, Any], dict[str, str], set[int]]:
    """The UIContext of the question's page, its facts (placeholder → text) and the ids the page gives."""
    from tests.support import superset_api
    from tests.support.contexts import dashboard_context, ui_context

    where, _, env = question.page.partition("@")
    kind, _, key = where.partition(":")
    if kind == "none":
        return ui_context(None, None, env_id=env or None), {}, set()
    if kind == "migration":
        return ui_context("migration", migration_id, env_id=env), {}, {migration_id}
    if kind == "dashboard":
        dashboard = superset_api.dashboard_by_slug(env, key)
        charts = superset_api.dashboard_chart_names(env, dashboard["id"])
        datasets = superset_api.api(env, "GET", f"/api/v1/dashboard/{dashboard['id']}/datasets")["result"]
        owners = dashboard.get("owners") or []
        facts = {
            "dashboard_title": dashboard["dashboard_title"],
            "first_chart": charts[0] if charts else "",
            "dataset_name": datasets[0]["table_name"] if datasets else "",
            "owner": " ".join(p for p in (owners[0].get("first_name"), owners[0].get("last_name")) if p)
            if owners
            else "",
        }
        return dashboard_context(dashboard, env_id=env), facts, {dashboard["id"]}
    (dataset,) = superset_api.datasets_named(env, key)
    detail = superset_api.api(env, "GET", f"/api/v1/dataset/{dataset['id']}")["result"]
    facts = {"dataset_name": key, **{f"column:{c['column_name']}": c["column_name"] for c in detail["columns"]}}
    # The dashboard a dataset page's question names is one built on the dataset (Superset's related objects): the
    # seeded report when it is one of them. Before, the placeholder stayed unresolved and could never be named.
    related = superset_api.api(env, "GET", f"/api/v1/dataset/{dataset['id']}/related_objects")["dashboards"]["result"]
    titles = [d.get("title") or d.get("dashboard_title") for d in related]
    report = superset_api.dashboard_by_slug(env, "energy-report")["dashboard_title"]
    facts["dashboard_title"] = report if report in titles else (titles[0] if titles else "")
    return ui_context("dataset", dataset["id"], env_id=env), facts, {dataset["id"]}


def ids_in(value: Any) -> set[int]:
    """Every integer under an ``id``/``ids``/``*_id`` key of a JSON value (what an answer tells the app)."""
    found: set[int] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if (key == "id" or key.endswith("_id")) and isinstance(item, int):
                found.add(item)
            elif key == "ids" and isinstance(item, list):
                found |= {i for i in item if isinstance(i, int)}
            else:
                found |= ids_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= ids_in(item)
    return found


def invented_requests(answers: list[tuple[str, str, int, Any]], known: set[int]) -> list[str]:
    """The requests (in order) that name an object id neither ``known`` nor in an earlier answer of the list."""
    seen, invented = set(known), []
    for method, path, _status, body in answers:
        named = [int(m.group(2))] if (m := OBJECT_PATH.match(path)) else []
        if m2 := EXPORT_IDS.search(path):
            named += [int(i) for i in re.split(r",|%2C", m2.group(1)) if i.isdigit()]
        invented += [f"{method} {path}" for i in named if i not in seen]
        seen |= ids_in(body)
    return invented


REFUSING = re.compile(
    r"не могу|не удалось|недоступ|нет доступа|нельзя|нет инструмента|не выполн|cannot|can't|could not|not available"
    r"|no tool|not run|refus|отказ|запрещ",
    re.I,
)


def unsupported(answer: str, sources: str, any_result: bool = True) -> list[str]:
    """Names the answer quotes that ``sources`` (results, page, question) do not hold; «problems» with none found;
    a statement (no question, no refusal) in a turn where no call succeeded."""
    from agentchat.turn.truth import ASKS  # a question, or a request without a question mark («Пришлите запрос.»)

    out = []
    if not any_result and answer and not ASKS.search(answer) and not REFUSING.search(answer):
        out.append("a statement with no successful result in the turn")
    for match in QUOTED.finditer(answer):
        name = next(g for g in match.groups() if g)
        if name.casefold() not in sources.casefold():
            out.append(name)
    findings = re.search(r'"(findings_total|problems|findings)"\s*:\s*(\[[^\]]|[1-9])', sources)
    if PROBLEMS.search(answer) and not findings:
        out.append("«problems» claimed, none in any result")
    return out


def summary_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The set's totals (see the module docstring)."""
    n = len(rows)
    first = sum(r["first_right"] for r in rows)
    ended = sum(r["ended_in_error"] for r in rows)
    invented = sum(len(r["invented"]) for r in rows)
    claims = sum(bool(r["unsupported"]) for r in rows)
    by_planner = [r for r in rows if r.get("first_by") == "planner"]
    lines = [
        f"day set ({n} questions, frozen): first tool right {first}/{n} = {first / n:.2f}",
        f"  first step taken by the planner {len(by_planner)}/{n} (right {sum(r['first_right'] for r in by_planner)}),"
        f" by the model {n - len(by_planner)}/{n} (right {first - sum(r['first_right'] for r in by_planner)})",
        f"  turns ending in an error frame {ended}/{n} = {ended / n:.1%}",
        f"  upstream requests with an invented id {invented}",
        f"  answers with a claim no result holds {claims}/{n}",
    ]
    for language in ("ru", "en"):
        asked = [r for r in rows if r["facts_asked"] and r["language"] == language]
        named = sum(len(r["facts_named"]) for r in asked)
        total = sum(len(r["facts_asked"]) for r in asked)
        if total:
            lines.append(
                f"  facts named ({language}): {named}/{total} = {named / total:.2f} over {len(asked)} questions"
            )
    cards = [r for r in rows if r["question"].card]
    lines.append(f"  cards expected shown {sum(r['question'].card in r['cards'] for r in cards)}/{len(cards)}")
    refused = [r for r in rows if r["question"].refused]
    lines.append(f"  refusals by role {sum(r['refused_ok'] for r in refused)}/{len(refused)}")
    return lines


def row_report(row: dict[str, Any]) -> str:
    q: DayQuestion = row["question"]
    called = ", ".join(f"{name}({json.dumps(args, ensure_ascii=False)})" for name, args in row["called"]) or "none"
    parts = [
        f"== {q.id} [{q.role}] {q.page} «{q.q}»",
        f"   called: {called} | first right ({'/'.join(e or 'no call' for e in q.expect)}): "
        f"{'yes' if row['first_right'] else 'NO'}" + (" | ENDED IN ERROR" if row["ended_in_error"] else ""),
    ]
    if q.card:
        parts.append(f"   card {q.card}: {'yes' if q.card in row['cards'] else 'NO'}")
    if q.refused:
        parts.append(f"   refused by role: {'yes' if row['refused_ok'] else 'NO'}")
    if row["facts_asked"]:
        parts.append(f"   facts named {len(row['facts_named'])}/{len(row['facts_asked'])}: {row['facts_named']}")
    if row["invented"]:
        parts.append(f"   INVENTED upstream: {row['invented']}")
    if row["unsupported"]:
        parts.append(f"   claims no result holds: {row['unsupported']}")
    by = f"first step: {row.get('first_by', '?')}, model requests {row.get('model_requests', '?')}"
    parts.append(f"   {row['seconds']:.1f} s | {by} | answer: {row['answer'][:240]!r}")
    return "\n".join(parts)


async def run_day(
    questions: list[DayQuestion], users: dict, migration_id: int, proxies: list[Any], model_proxy: Any
) -> list[dict]:
    """Every question as one turn in one event loop, reported as it ends, then the totals. ``model_proxy``: the
    recording proxy in front of the model (``llm_eval.RecordingProxy``), read for who took each turn's first step."""
    rows = []
    for question in questions:
        model_proxy.take()
        rows.append(await _turn(question, users[question.role], migration_id, proxies))
        requests = model_proxy.take()
        rows[-1]["model_requests"] = len(requests)
        # the model chose (its first request ends in the user's message), or the planner did (LLM_FIRST_STEP=planner)
        rows[-1]["first_by"] = "model" if requests and requests[0].get("after") == "user" else "planner"
        print(row_report(rows[-1]), flush=True)
    for line in summary_lines(rows):
        print(line)
    return rows


async def _turn(question: DayQuestion, user: Any, migration_id: int, proxies: list[Any]) -> dict[str, Any]:
    import time

    from channels.db import database_sync_to_async

    from agentchat.models import Message
    from agentchat.turn.agent import AgentTurn

    context, facts, known = await database_sync_to_async(page_of)(question, migration_id)
    known |= {int(n) for n in re.findall(r"\d+", question.q)}
    for proxy in proxies:
        proxy.answers.clear()
    frames: list[dict[str, Any]] = []

    async def emit(event: Any) -> None:
        frames.append(event.wire())

    started = time.perf_counter()
    conversation_id = await AgentTurn(user=user, emit=emit).run(conversation_id=None, text=question.q, context=context)
    seconds = time.perf_counter() - started
    messages = await database_sync_to_async(
        lambda: list(Message.objects.filter(conversation_id=conversation_id).order_by("id"))
    )()
    called = [(c["name"], c.get("args") or {}) for m in messages if m.role == "assistant" for c in m.tool_calls or []]
    results = " ".join(m.content for m in messages if m.role == "tool")
    answer = next((f["text"] for f in reversed(frames) if f["event"] == "message"), "")
    shown = [f for f in frames if f["event"] != "token"]
    events = {f["event"] for f in frames}
    asked = [facts.get(p, p.split(":", 1)[-1]) for p in question.facts]
    sources = " ".join([results, question.q, json.dumps(context, ensure_ascii=False), *facts.values()])
    return {
        "question": question,
        "language": question.language,
        "called": called,
        "first_right": (called[0][0] if called else "") in question.expect,
        "ended_in_error": bool(shown) and shown[-1]["event"] == "error",
        "cards": [f.get("tool") for f in frames if f["event"] == "confirm_required"],
        "refused_ok": "permission_denied" in events or not any(name == question.card for name, _ in called),
        "facts_asked": asked,
        "facts_named": [f for f in asked if f and f.casefold() in answer.casefold()],
        "invented": [r for proxy in proxies for r in invented_requests(list(proxy.answers), known)],
        "unsupported": unsupported(answer, sources, any(m.role == "tool" and m.status != "error" for m in messages)),
        "answer": answer,
        "seconds": seconds,
    }


def day_setup(users: dict) -> tuple[int, list[Any]]:
    """The eval database as the demo has it (staging off), ss-dev and prod behind id-watching proxies, and a saved
    migration of «Отчёт по энергопотреблению» ss-dev → prod (the set's ``migration:latest``). Returns its id and
    the proxies (started; they live as long as the process)."""
    from agentchat.runtime import plans
    from policies.models import Environment
    from tests.support import superset_api
    from tests.support.loopback_proxy import CountingProxy

    proxies = []
    for env_id, url in superset_api.URLS.items():
        proxy = CountingProxy(url, keep_json=True).__enter__()
        Environment.objects.filter(env_id=env_id).update(superset_url=proxy.url)
        proxies.append(proxy)
    Environment.objects.filter(env_id="staging").update(is_active=False)
    dashboard = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    uuid = superset_api.dashboard_uuid("ss-dev", "energy-report")
    migration = plans.migration_create(
        user=users["admin"],
        name="Энергетика в прод (bench)",
        source_env_id="ss-dev",
        target_env_id="prod",
        dashboards=[{"id": dashboard["id"], "uuid": uuid, "title": dashboard["dashboard_title"]}],
    )
    return migration.pk, proxies
