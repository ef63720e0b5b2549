"""Superset read tools: dashboard search and the dashboard health summary (Superset REST API /api/v1/)."""

import re
from typing import Any

from asgiref.sync import sync_to_async
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.errors import ToolError
from agentchat.review.runs import review_latest
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.superset.dashboard_export import dashboard_export_status
from agentchat.tools.dataset_facts import dataset_dependents
from agentchat.toolset.tokens import tokens_of

ENV_ID_FIELD = Field(description="Environment id (ss-dev, prod…).")


class SearchDashboardsArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    query: str | None = Field(None, max_length=200, description="Part of the title.")
    owner: str | None = Field(None, max_length=100, description="Owner's name or username.")
    published: bool | None = Field(None, description="Published (true) or draft (false).")
    dataset: str | None = Field(None, max_length=250, description="A dataset's name or id: dashboards using it.")
    limit: int = Field(25, ge=1, le=100, description="Most dashboards returned.")


class DashboardArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    dashboard_id: ObjectId = Field(description="Numeric Superset id of the dashboard.")


def _person(owner: dict[str, Any]) -> str:
    name = " ".join(p for p in (owner.get("first_name"), owner.get("last_name")) if p)
    return name or owner.get("username") or str(owner.get("id", "?"))


def _dashboard_row(row: dict[str, Any], base_url: str) -> dict[str, Any]:
    return {
        "id": row["id"],
        "title": row.get("dashboard_title"),
        "slug": row.get("slug"),
        "published": row.get("published"),
        "status": row.get("status"),
        "owners": [_person(o) for o in row.get("owners") or []],
        "changed_on": row.get("changed_on_utc") or row.get("changed_on"),
        "url": base_url + (row.get("url") or f"/superset/dashboard/{row['id']}/"),
    }


def title_stems(text: str) -> list[str]:
    """The words of a typed title as parts to find in a dashboard's title: its words (``toolset.tokens.tokens_of``:
    case-folded, «ё» as «е») of four letters or more, a Russian word without its last two letters and an English
    one without a plural «s» («Отчёта по энергопотреблению» → ``["отче", "энергопотреблен"]``), so that a title
    typed in another grammatical case («перенеси Отчёта…», «в Обзоре регионов») still finds the dashboard.

    Returns:
        The stems in the order typed; empty when no word is long enough.
    """
    stems = []
    for word in tokens_of(text):
        if len(word) < 4:
            continue
        if re.search(r"[а-я]", word):
            stems.append(word[:-2] if len(word) > 4 else word[:-1])
        else:
            stems.append(word[:-1] if word.endswith("s") and len(word) > 4 else word)
    return stems


async def _titles_with_stems(client: SupersetClient, q: dict[str, Any], stems: list[str]) -> list[dict[str, Any]]:
    """The dashboards among the 100 latest (``q``: the search without its title filter) whose title or slug (its
    hyphens as spaces: "energy report" finds ``energy-report``) holds every stem: Superset matches a title as typed
    (and its SQLite metadata lower-cases Latin letters only), so a title in another case («Отчёта по …») is looked
    for here."""
    body = await client.get_json("/api/v1/dashboard/", q=q)
    folded = [
        (r, " ".join(tokens_of(f"{r.get('dashboard_title') or ''} {(r.get('slug') or '').replace('-', ' ')}")))
        for r in body.get("result", [])
    ]
    return [_dashboard_row(r, client.base_url) for r, title in folded if all(s in title for s in stems)]


@assistant_tool(
    name="search_dashboards",
    category="read",
    env_specific=True,
    args=SearchDashboardsArgs,
    description_ru=(
        "Ищет дашборды в окружении Superset по части названия, владельцу, статусу публикации или датасету, "
        "на котором построены их графики."
    ),
    description_en="Finds dashboards by title fragment, owner, published state or a dataset they use; returns ids.",
    examples_ru=[
        "Найди дашборды про энергопотребление",
        "Какие дашборды есть в prod?",
        "Покажи опубликованные дашборды",
        "Какие отчёты принадлежат admin?",
    ],
    examples_en=[
        "Find dashboards about energy consumption",
        "Which dashboards exist in prod?",
        "List the published dashboards",
        "What reports does admin own?",
    ],
)
async def search_dashboards(ctx: ToolContext, args: SearchDashboardsArgs) -> dict[str, Any]:
    """Search dashboards (GET /api/v1/dashboard/ with Rison filters); by ``dataset``, those whose charts use it.

    Returns:
        ``{"env_id", "query", "count", "dashboards": [{"id", "title", "slug", "published", "owners", "changed_on",
        "url"}]}``; ``query`` is the title fragment searched for (None: all), ``count`` Superset's total for the
        filters, ``dashboards`` at most ``limit`` rows; by dataset, ``dashboards_using``'s dict. A ``query`` that
        Superset finds in no title is looked for once more by its words' stems (``title_stems``) among the 100
        latest dashboards; ``title_words`` (the stems) then says so.
    """
    client = await ctx.superset(args.env_id)
    if args.dataset:
        return await dashboards_using(client, env_id=args.env_id, dataset=args.dataset, query=args.query)
    filters: list[dict[str, Any]] = []
    if args.query:
        # Superset's DashboardTitleOrSlugFilter: the title or the slug holds the query ("energy" finds
        # «Отчёт по энергопотреблению», slug energy-report; a QA check's English words found nothing)
        filters.append({"col": "dashboard_title", "opr": "title_or_slug", "value": args.query})
    if args.published is not None:
        filters.append({"col": "published", "opr": "eq", "value": args.published})
    q = {"filters": filters, "page_size": 100, "order_column": "changed_on_delta_humanized", "order_direction": "desc"}
    body = await client.get_json("/api/v1/dashboard/", q=q)
    rows = [_dashboard_row(r, client.base_url) for r in body.get("result", [])]
    count = body.get("count", len(rows))
    words: dict[str, Any] = {}
    stems = title_stems(args.query or "")
    if not rows and stems:
        rows = await _titles_with_stems(client, {**q, "filters": filters[1:]}, stems)
        count = len(rows)
        words = {"title_words": stems} if rows else {}
    if args.owner:
        # Superset's owner filter takes user ids; users ask by name, so owners are matched here.
        needle = args.owner.casefold()
        rows = [r for r in rows if any(needle in o.casefold() for o in r["owners"])]
        count = len(rows)
    return {"env_id": args.env_id, "query": args.query, "count": count, "dashboards": rows[: args.limit], **words}


async def dashboards_using(client: SupersetClient, *, env_id: str, dataset: str, query: str | None) -> dict[str, Any]:
    """The dashboards (and charts) built on a dataset named by its table name or id (issue 29 item 2: asked from a
    dashboard page, «какие дашборды используют датасет energy_consumption?»; seed Story 1 AC 3), from Superset's
    ``/api/v1/dataset/<id>/related_objects`` of every dataset of that name (one per database or schema).

    Returns:
        ``{"env_id", "dataset": {"name", "ids"}, "query", "count", "dashboards": [{"id", "title", "slug", "url"}],
        "charts": [{"id", "name", "viz_type", "url", "dataset_id"}]}``; ``dataset.ids`` empty when no dataset has
        that name; dashboards whose title lacks ``query`` (when given) are left out.
    """
    if dataset.isdigit():
        ids = [int(dataset)]
    else:
        q = {"filters": [{"col": "table_name", "opr": "eq", "value": dataset}], "columns": ["id"], "page_size": 20}
        ids = [int(r["id"]) for r in (await client.get_json("/api/v1/dataset/", q=q)).get("result") or []]
    related = await gather_requests(*(dataset_dependents(client, dataset_id) for dataset_id in ids))
    dashboards: dict[int, dict[str, Any]] = {}
    charts: list[dict[str, Any]] = []
    for dataset_id, dependents in zip(ids, related, strict=True):
        charts += [{**chart, "dataset_id": dataset_id} for chart in dependents["charts"]]
        dashboards.update({d["id"]: d for d in dependents["dashboards"]})
    rows = [d for d in dashboards.values() if not query or query.casefold() in str(d.get("title")).casefold()]
    return {
        "env_id": env_id,
        "dataset": {"name": dataset, "ids": ids},
        "query": query,
        "count": len(rows),
        "dashboards": rows,
        "charts": charts,
    }


@assistant_tool(
    name="get_health_summary",
    category="read",
    env_specific=True,
    args=DashboardArgs,
    description_ru=(
        "Сводка о состоянии дашборда: название, статус публикации, графики, датасеты, владельцы, "
        "дата и автор последнего изменения, сохранена ли его выгрузка в git и итог последней проверки."
    ),
    description_en=(
        "Reads one dashboard: title, published state, charts, datasets, owners, last change, git and validation "
        "state. Use it to describe, summarise or check a dashboard."
    ),
    examples_ru=[
        "Расскажи про этот дашборд",
        "Какой статус у этого дашборда?",
        "Какие графики на дашборде?",
        "Кто владелец дашборда и когда его меняли?",
    ],
    examples_en=[
        "Tell me about this dashboard",
        "What is the status of this dashboard?",
        "Which charts are on this dashboard?",
        "Who owns this dashboard and when was it changed?",
    ],
)
async def get_health_summary(ctx: ToolContext, args: DashboardArgs) -> dict[str, Any]:
    """Summarise one dashboard (GET /api/v1/dashboard/<id>, /charts, /datasets, its export; concurrently).

    Returns:
        ``{"env_id", "dashboard": {"id", "title", "slug", "published", "owners", "changed_on", "changed_by",
        "url"}, "charts": [{"id", "name", "viz_type", "description", "url"}], "datasets": [{"id", "name", "schema",
        "database"}], "git": {"branch", "tracked", "committed", "changes": {"added", "modified", "removed"},
        "last_commit"} | {"error"}, "validation": {"run_id", "status", "summary", "findings_total", "by_rule",
        "created_at", …} | None}`` (DESIGN §8: health = metadata, charts, datasets, git status, latest validation).
    """
    client = await ctx.superset(args.env_id)
    base = f"/api/v1/dashboard/{args.dashboard_id}"
    detail, charts, datasets, git, validation = await gather_requests(
        client.get_json(base),
        client.get_json(f"{base}/charts"),
        client.get_json(f"{base}/datasets"),
        _git_part(ctx, client, args),
        sync_to_async(review_latest)(env_id=args.env_id, dashboard_id=args.dashboard_id),
    )
    d = detail["result"]
    changed_by = d.get("changed_by") or {}
    return {
        "env_id": args.env_id,
        "dashboard": {
            "id": d["id"],
            "title": d.get("dashboard_title"),
            "slug": d.get("slug"),
            "published": d.get("published"),
            "owners": [_person(o) for o in d.get("owners") or []],
            "changed_on": d.get("changed_on"),
            "changed_on_humanized": d.get("changed_on_delta_humanized"),
            "changed_by": _person(changed_by) if changed_by else None,
            "url": client.base_url + (d.get("url") or f"/superset/dashboard/{d['id']}/"),
        },
        "charts": [
            {
                "id": c.get("id"),
                "name": c.get("slice_name"),
                "viz_type": c.get("viz_type") or (c.get("form_data") or {}).get("viz_type"),
                "description": c.get("description"),
                "url": f"{client.base_url}/explore/?slice_id={c.get('id')}",
            }
            for c in charts.get("result", [])
        ],
        "datasets": [
            {
                "id": ds.get("id"),
                "name": ds.get("table_name"),
                "schema": ds.get("schema"),
                "database": (ds.get("database") or {}).get("name") or (ds.get("database") or {}).get("database_name"),
            }
            for ds in datasets.get("result", [])
        ],
        "git": git,
        "validation": validation,
    }


async def _git_part(ctx: ToolContext, client: SupersetClient, args: DashboardArgs) -> dict[str, Any]:
    """The git status of the dashboard's export on ``main``; a failure there does not sink the summary."""
    try:
        status = await dashboard_export_status(client, env_id=args.env_id, dashboard_id=args.dashboard_id)
    except ToolError as exc:  # ExportRefused too: the analyst on «Обзор регионов» (superset.transfer)
        return {"error": exc.text(ctx.language)}
    except OSError as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    keys = ("branch", "head", "tracked", "committed", "changes", "last_commit", "files")
    return {key: status[key] for key in keys}
