"""LLM review of dashboards: metadata from Superset, validation and documentation runs as background jobs.

``review_start`` stores a ``ValidationRun`` and enqueues its job (``validation_job`` / ``documentation_job``, run by
the django-tasks ``db_worker``); the job collects the dashboard's metadata through the Superset REST API, reviews
it with the configured LLM (``LLM_PROVIDER=openai``) or the rules (offline mode, ``review_rules``/``review_docs``),
and — for documentation — writes chart descriptions back to Superset (``PUT /api/v1/chart/<id>``).
DESIGN §4, §8, §11; issue 5.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy
from django_tasks import task

from agentchat.models import TaskRecord, ValidationRun
from agentchat.review.docs import chart_description, dashboard_description
from agentchat.review.llm import ReviewLLMError, llm_documentation, llm_validation
from agentchat.review.rules import findings_summary, metadata_language, review_findings
from agentchat.runtime.background import Progress, task_start, tracked
from agentchat.runtime.jobs import job_context
from agentchat.superset.client import SupersetClient

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

JOB_DEADLINE_S = 600  # whole job, seconds: metadata reads, one LLM call, one PUT per chart
Status = ValidationRun.Status
STEP_METADATA = pgettext_lazy("review progress", "reading the metadata")
STEP_REVIEW = pgettext_lazy("review progress", "reviewing")
STEP_WRITING = pgettext_lazy("review progress", "writing the descriptions")


async def dashboard_metadata(client: SupersetClient, dashboard_id: int) -> dict[str, Any]:
    """Collect what the review needs (GET /api/v1/dashboard/<id>, /charts, /datasets, concurrently).

    Returns:
        The metadata dict documented in ``agentchat.review.rules``.
    """
    base = f"/api/v1/dashboard/{dashboard_id}"
    detail, charts, datasets = await asyncio.gather(
        client.get_json(base), client.get_json(f"{base}/charts"), client.get_json(f"{base}/datasets")
    )
    d = detail["result"]
    try:
        json_metadata = json.loads(d.get("json_metadata") or "{}")
    except json.JSONDecodeError:
        json_metadata = {}
    return {
        "dashboard": {
            "id": d["id"],
            "title": d.get("dashboard_title"),
            "slug": d.get("slug"),
            "published": d.get("published"),
            "owners": [_person(o) for o in d.get("owners") or []],
            "native_filters": [_native_filter(f) for f in json_metadata.get("native_filter_configuration") or []],
        },
        "charts": [_chart(c) for c in charts.get("result", [])],
        "datasets": [
            {
                "id": ds.get("id"),
                "name": ds.get("table_name"),
                "schema": ds.get("schema"),
                "database": (ds.get("database") or {}).get("name") or (ds.get("database") or {}).get("database_name"),
                "owners": [_person(o) for o in ds.get("owners") or []],
            }
            for ds in datasets.get("result", [])
        ],
    }


def charts_to_describe(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the charts of ``metadata`` whose description is empty."""
    return [c for c in metadata.get("charts") or [] if not (c.get("description") or "").strip()]


def description_language(metadata: dict[str, Any], fallback: str) -> str:
    """Return the language of the dashboard's names (``ru``/``en``), else ``fallback``."""
    return metadata_language(metadata) or fallback


def review_start(
    *,
    kind: str,
    env_id: str,
    dashboard_id: int,
    dashboard_title: str,
    user: User | None,
    conversation_id: int | None,
    language: str,
    params: dict[str, Any] | None = None,
) -> ValidationRun:
    """Store a queued ``ValidationRun`` of ``kind`` and enqueue its job, in one transaction.

    Args:
        kind: ``validation`` or ``documentation``.
        language: the user's language (``ru``/``en``) for the run's summary.
        params: extra job parameters (documentation: ``{"description_language": "ru"|"en"|None}``).

    Returns:
        The run, with ``task`` set to its ``TaskRecord``.
    """
    job = validation_job if kind == ValidationRun.Kind.VALIDATION else documentation_job
    with transaction.atomic():
        run = ValidationRun.objects.create(
            env_id=env_id,
            dashboard_id=dashboard_id,
            dashboard_title=(dashboard_title or "")[:500],
            kind=kind,
            language=language,
            created_by=user,
        )
        record = task_start(
            task=job,
            kind=kind,
            user=user,
            env_id=env_id,
            conversation_id=conversation_id,
            params={"run_id": run.pk, "dashboard_id": dashboard_id, **(params or {})},
        )
        run.task = record
        run.save(update_fields=["task"])
    return run


def review_latest(*, env_id: str, dashboard_id: int, kind: str = ValidationRun.Kind.VALIDATION) -> dict | None:
    """Return ``review_view`` of the newest run of ``kind`` for the dashboard, or None."""
    run = ValidationRun.objects.filter(env_id=env_id, dashboard_id=dashboard_id, kind=kind).first()
    return review_view(run) if run else None


def review_view(run: ValidationRun) -> dict[str, Any]:
    """Return a run as tools show it: ``{"run_id", "kind", "status", "engine", "summary", "findings_total",
    "by_rule": {rule: n}, "created_at", "task_id"}``."""
    by_rule: dict[str, int] = {}
    for finding in run.findings or []:
        rule = finding.get("rule") or finding.get("object_type") or "?"
        by_rule[rule] = by_rule.get(rule, 0) + 1
    return {
        "run_id": run.pk,
        "kind": run.kind,
        "status": run.status,
        "engine": run.engine,
        "summary": run.summary,
        "findings_total": len(run.findings or []),
        "by_rule": by_rule,
        "created_at": run.created_at.isoformat(),
        "task_id": run.task_id,
    }


async def validation_review(metadata: dict[str, Any], language: str) -> tuple[list[dict], str, str]:
    """Review ``metadata``; return (findings, summary in ``language``, engine ``llm``|``rules``).

    With ``LLM_PROVIDER=openai`` the configured LLM reviews; if it gives no usable answer the rules do, and the
    summary says so. Offline, the rules review. Findings are written in the language of the dashboard's names
    (``description_language``), the summary in the user's ``language``.
    """
    title = (metadata.get("dashboard") or {}).get("title")
    findings_language = description_language(metadata, language)
    note = ""
    if settings.LLM_PROVIDER == "openai":
        try:
            findings, summary = await llm_validation(metadata, language, findings_language=findings_language)
            return findings, summary or findings_summary(findings, language, title=title), "llm"
        except ReviewLLMError as exc:
            note = _fallback_note(language, exc)
    findings = review_findings(metadata, findings_language)
    return findings, note + findings_summary(findings, language, title=title), "rules"


async def documentation_texts(
    metadata: dict[str, Any], charts: list[dict], language: str
) -> tuple[dict[int, str], str, str, str]:
    """Write descriptions for ``charts``; return ({chart id: text}, dashboard text, engine, note).

    Charts the LLM leaves out get the rule-based template, so every chart in ``charts`` gets a text.
    """
    datasets = {d.get("id"): d.get("name") for d in metadata.get("datasets") or []}
    texts: dict[int, str] = {}
    dashboard_text, engine, note = "", "rules", ""
    if settings.LLM_PROVIDER == "openai" and charts:
        try:
            texts, dashboard_text = await llm_documentation(metadata, [c["id"] for c in charts], language)
            engine = "llm"
        except ReviewLLMError as exc:
            note = _fallback_note(language, exc)
    for chart in charts:
        texts.setdefault(chart["id"], chart_description(chart, datasets.get(chart.get("dataset_id")), language))
    return texts, dashboard_text or dashboard_description(metadata, language), engine, note


@task()
async def validation_job(record_id: int) -> dict[str, Any]:
    """django-tasks body of run_llm_validation: review the dashboard and store the findings on the run."""
    return await tracked(record_id, _validate)


@task()
async def documentation_job(record_id: int) -> dict[str, Any]:
    """django-tasks body of run_llm_documentation: write missing chart descriptions to Superset."""
    return await tracked(record_id, _document)


async def _validate(record: TaskRecord, progress: Progress) -> dict[str, Any]:
    async def body(run: ValidationRun, client: SupersetClient) -> dict[str, Any]:
        await progress(10, _step(run, STEP_METADATA))
        metadata = await dashboard_metadata(client, run.dashboard_id)
        await progress(40, _step(run, STEP_REVIEW))
        findings, summary, engine = await validation_review(metadata, run.language)
        await _finish(run, findings=findings, summary=summary, engine=engine, title=metadata["dashboard"]["title"])
        return {"run_id": run.pk, "findings": len(findings), "engine": engine, "summary": summary}

    return await _run_job(record, body)


async def _document(record: TaskRecord, progress: Progress) -> dict[str, Any]:
    async def body(run: ValidationRun, client: SupersetClient) -> dict[str, Any]:
        await progress(10, _step(run, STEP_METADATA))
        metadata = await dashboard_metadata(client, run.dashboard_id)
        charts = charts_to_describe(metadata)
        language = record.params.get("description_language") or description_language(metadata, run.language)
        await progress(30, _step(run, STEP_WRITING))
        texts, dashboard_text, engine, note = await documentation_texts(metadata, charts, language)
        written = []
        for i, chart in enumerate(charts, start=1):
            await client.send_json("PUT", f"/api/v1/chart/{chart['id']}", {"description": texts[chart["id"]]})
            written.append(
                {
                    "object_type": "chart",
                    "object_id": chart["id"],
                    "object_name": chart.get("name"),
                    "description": texts[chart["id"]],
                }
            )
            await progress(30 + int(65 * i / len(charts)), f"{i}/{len(charts)}")
        summary = note + _documentation_summary(run.language, len(written), metadata["dashboard"]["title"])
        await _finish(run, findings=written, summary=summary, engine=engine, title=metadata["dashboard"]["title"])
        return {
            "run_id": run.pk,
            "written": len(written),
            "engine": engine,
            "language": language,
            "dashboard_description": dashboard_text,
            "summary": summary,
        }

    return await _run_job(record, body)


async def _run_job(
    record: TaskRecord, body: Callable[[ValidationRun, SupersetClient], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    """Run ``body(run, client)`` under the job deadline, keeping the run's status in step with the job."""
    run = await ValidationRun.objects.aget(pk=record.params["run_id"])
    await ValidationRun.objects.filter(pk=run.pk).aupdate(status=Status.RUNNING)
    try:
        async with asyncio.timeout(JOB_DEADLINE_S), job_context(record) as ctx:
            return await body(run, await ctx.superset(run.env_id))
    except Exception as exc:
        text = exc.text(run.language) if hasattr(exc, "text") else f"{type(exc).__name__}: {exc}"
        await ValidationRun.objects.filter(pk=run.pk).aupdate(status=Status.FAILED, summary=text[:2000])
        raise


async def _finish(run: ValidationRun, *, findings: list, summary: str, engine: str, title: str | None) -> None:
    await ValidationRun.objects.filter(pk=run.pk).aupdate(
        status=Status.SUCCEEDED,
        findings=findings,
        summary=summary,
        engine=engine,
        dashboard_title=(title or run.dashboard_title)[:500],
    )


def _step(run: ValidationRun, step: "StrOrPromise") -> str:
    """The progress line ``step`` (one of the ``STEP_*`` msgids) in the run's language."""
    with translation.override(run.language):
        return str(step)


def _documentation_summary(language: str, written: int, title: str | None) -> str:
    with translation.override(language):
        if not written:
            return _("Every chart of “%(title)s” already has a description; nothing written.") % {"title": title}
        return ngettext(
            "Descriptions written to %(count)d chart of “%(title)s”.",
            "Descriptions written to %(count)d charts of “%(title)s”.",
            written,
        ) % {"count": written, "title": title}


def _fallback_note(language: str, exc: Exception) -> str:
    with translation.override(language):
        return _("The LLM gave no usable answer (%(error)s); rule-based review.") % {"error": exc} + " "


def _person(owner: dict[str, Any]) -> str:
    name = " ".join(p for p in (owner.get("first_name"), owner.get("last_name")) if p)
    return name or owner.get("username") or str(owner.get("id", "?"))


def _native_filter(flt: dict[str, Any]) -> dict[str, Any]:
    targets = flt.get("targets") or []
    return {
        "id": flt.get("id"),
        "name": flt.get("name"),
        "filter_type": flt.get("filterType") or flt.get("type"),
        "dataset_ids": [t["datasetId"] for t in targets if isinstance(t, dict) and t.get("datasetId") is not None],
        "columns": [(t.get("column") or {}).get("name") for t in targets if isinstance(t, dict)],
        "charts_in_scope": flt.get("chartsInScope"),
        "excluded": (flt.get("scope") or {}).get("excluded") or [],
    }


def _chart(chart: dict[str, Any]) -> dict[str, Any]:
    form = chart.get("form_data") or {}
    datasource = str(form.get("datasource") or "")
    dataset_id = int(datasource.split("__")[0]) if datasource.split("__")[0].isdigit() else None
    metrics = form.get("metrics") or ([form["metric"]] if form.get("metric") else [])
    dimensions = [form.get("x_axis")] + list(form.get("groupby") or []) + list(form.get("columns") or [])
    return {
        "id": chart.get("id"),
        "name": chart.get("slice_name"),
        "viz_type": form.get("viz_type") or chart.get("viz_type"),
        "description": chart.get("description"),
        "dataset_id": dataset_id,
        "metrics": [label for label in map(_label, metrics) if label],
        "dimensions": list(dict.fromkeys(label for label in map(_label, dimensions) if label)),
        "time_grain": form.get("time_grain_sqla"),
    }


def _label(value: Any) -> str | None:
    """Return the readable name of a metric or column as Superset stores it (a name or an adhoc dict)."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, dict):
        return None
    if value.get("label") and (value.get("hasCustomLabel") or value.get("expressionType") != "SIMPLE"):
        return value["label"]
    column = (value.get("column") or {}).get("column_name")
    if value.get("aggregate") and column:
        return f"{value['aggregate']}({column})"
    return value.get("label") or value.get("sqlExpression") or column
