"""Saved migrations (issue 15 items 1–2) on the real local Superset: the «Новая миграция» form stores the
dashboards with their Superset uuids; on a migration page the agent previews and starts that plan with no
further question (offline planner and an OpenAI-compatible model); the card names the plan and goes to the
plan's target tier; a running plan is not started twice."""

import io
import json

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.test import Client

from agentchat.models import Migration, PendingConfirmation, TaskRecord
from agentchat.runtime import plans
from agentchat.superset.transfer import SameInstance
from agentchat.turn.agent import AgentTurn
from tests.llm.test_offline_turns import Frames, ask, page
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Recorded, Reply
from tests.support.superset_api import dashboard_uuid
from tests.support.tool_runs import call_tool, tool_impact
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)

ENERGY = "Отчёт по энергопотреблению"


@pytest.fixture(autouse=True)
def _offline(settings):
    settings.LLM_PROVIDER = "offline"


@pytest.fixture
def energy_plan(users, energy_dashboard) -> Migration:
    return plans.migration_create(
        user=users["admin"],
        name="Энергетика в прод",
        source_env_id="ss-dev",
        target_env_id="prod",
        dashboards=[{"id": energy_dashboard["id"], "uuid": "?", "title": ENERGY}],
    )


def migration_page(migration: Migration) -> dict:
    return page("migration", migration.pk, env_id=migration.source_env_id)


def test_new_migration_form_stores_the_dashboards_with_their_superset_uuids(users, energy_dashboard):
    client = Client()
    client.force_login(users["admin"])
    form = client.get("/migrations/?source_env_id=ss-dev").content.decode()
    assert f'value="{energy_dashboard["id"]}"' in form
    assert ENERGY in form

    response = client.post(
        "/migrations/",
        {
            "source_env_id": "ss-dev",
            "name": "Энергетика в прод",
            "target_env_id": "prod",
            "dashboard_ids": [energy_dashboard["id"]],
            "database_mapping": "Energy = Energy",
        },
    )

    migration = Migration.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/migrations/{migration.pk}/"
    assert migration.dashboards == [
        {"id": energy_dashboard["id"], "uuid": dashboard_uuid("ss-dev", energy_dashboard["slug"]), "title": ENERGY}
    ]
    assert (migration.source_env_id, migration.target_env_id, migration.status) == ("ss-dev", "prod", "draft")
    assert migration.database_mapping == {"Energy": "Energy"}
    assert migration.created_by == users["admin"]
    detail = client.get(f"/migrations/{migration.pk}/").content.decode()
    assert f"/agent?objectType=migration&amp;objectId={migration.pk}" in detail
    listed = client.get("/migrations/?env_id=prod&status=draft").content.decode()
    assert f'data-migration-id="{migration.pk}"' in listed
    assert f'data-migration-id="{migration.pk}"' not in client.get("/migrations/?status=done").content.decode()


def test_a_migration_onto_its_own_environment_is_refused_by_the_form(users, energy_dashboard):
    client = Client()
    client.force_login(users["admin"])
    data = {"source_env_id": "ss-dev", "name": "x", "target_env_id": "ss-dev", "dashboard_ids": [1]}

    response = client.post("/migrations/", data)

    assert response.status_code == 200
    assert not Migration.objects.exists()
    assert "ss-dev" not in response.context["form"].fields["target_env_id"].choices[0]


def test_analyst_sees_migrations_but_gets_no_form(users, energy_plan):
    client = Client()
    client.force_login(users["analyst"])

    body = client.get("/migrations/").content.decode()

    assert energy_plan.name in body
    assert 'data-testid="migration-form"' not in body
    assert client.post(f"/migrations/{energy_plan.pk}/", {"database_mapping": "a = b"}).status_code == 403


@pytest.mark.parametrize("question", ["что изменится при этой миграции?", "какие дашборды перезапишутся?"])
async def test_migration_page_preview_questions_need_no_further_question(users, energy_plan, question):
    frames = await ask(users["engineer"], question, migration_page(energy_plan))

    assert frames.tools == ["preview_migration"]
    answer = frames.answer
    assert f"#{energy_plan.pk}" in answer
    assert energy_plan.name in answer
    assert f"«{ENERGY}»" in answer
    assert "prod" in answer
    saved = await database_sync_to_async(Migration.objects.get)(pk=energy_plan.pk)
    assert saved.status == "previewed"
    assert saved.preview["dashboards"] == [ENERGY]
    assert {o["action"] for o in saved.preview["objects"]} <= {"create", "overwrite", "conflict", "keep"}


async def test_run_the_migration_shows_a_typed_prod_card_naming_the_plan(users, energy_plan):
    frames = await ask(users["admin"], "запусти миграцию", migration_page(energy_plan))

    assert frames.tools == ["preview_migration"]
    (card,) = frames.of("confirm_required")
    assert card["tool"] == "execute_migration"
    assert card["decision"]["tier"] == "prod"
    assert card["decision"]["typed_confirmation"] is True
    assert f"#{energy_plan.pk} «{energy_plan.name}»" in card["html"]
    assert 'data-testid="card-plan"' in card["html"]
    row = await database_sync_to_async(PendingConfirmation.objects.get)(pk=card["confirmation_id"])
    assert row.args["migration_id"] == energy_plan.pk
    assert row.args["target_env_id"] == "prod"


async def test_a_running_migration_is_not_started_twice(users, energy_plan):
    """A second «запусти миграцию» gets no card: it is told which task runs the plan and where to follow it."""

    def running() -> TaskRecord:
        record = TaskRecord.objects.create(kind="migration", user=users["admin"], env_id="prod")
        plans.migration_take(migration_id=energy_plan.pk)
        plans.migration_run_added(migration_id=energy_plan.pk, record=record)
        return record

    record = await database_sync_to_async(running)()

    frames = await ask(users["admin"], "запусти миграцию", migration_page(energy_plan))

    assert frames.of("confirm_required") == []
    assert f"#{record.pk}" in frames.answer
    assert f"/migrations/{energy_plan.pk}/" in frames.answer
    with pytest.raises(plans.MigrationAlreadyRunning):
        await database_sync_to_async(plans.migration_take)(migration_id=energy_plan.pk)


async def test_an_openai_compatible_model_previews_the_page_plan_without_arguments(
    users,
    energy_plan,
    openai_provider,  # noqa: F811
):
    """The model calls preview_migration with no arguments from a migration page: the server takes the plan."""

    def model(request: Recorded) -> Reply:
        if request.last.get("role") == "tool":
            return Reply(text="Готово.")
        return Reply(calls=[Call("preview_migration", {}, id="call_preview")])

    server = openai_provider(default=model)
    frames = Frames()

    await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None, text="what will this migration change?", context=migration_page(energy_plan)
    )

    assert [f["ok"] for f in frames.of("tool_finished")] == [True]
    (result,) = (r["content"] for r in server.requests[-1].tool_results())
    assert f"#{energy_plan.pk}" in result["facts"]  # the saved plan's preview, as labelled facts (issue 32)
    assert "ss-dev → prod" in result["facts"]


@pytest.mark.parametrize(
    ("tool", "extra", "named"),
    [
        ("preview_migration", {"dashboard_ids": [1, 2, 3]}, "dashboard_ids"),
        ("execute_migration", {"dashboard_ids": [1, 2, 3], "target_env_id": "prod"}, "dashboard_ids"),
        ("execute_migration", {"target_env_id": "staging"}, "target_env_id"),
    ],
)
async def test_arguments_that_contradict_the_saved_plan_are_refused_to_the_model(
    users,
    energy_plan,
    openai_provider,  # noqa: F811
    tool,
    extra,
    named,
):
    """Issue 32 item 2: the saved plan wins. A model that sends dashboards or an environment beside the page's
    ``migration_id`` gets a tool message naming the contradicting argument and the plan's value; no card is
    offered for objects outside the plan; the model's next call, with the plan alone, previews the plan."""
    calls = iter(
        [
            Reply(calls=[Call(tool, {"migration_id": energy_plan.pk, **extra}, id="call_bad")]),
            Reply(calls=[Call("preview_migration", {"migration_id": energy_plan.pk}, id="call_good")]),
            Reply(text="Готово."),
        ]
    )
    server = openai_provider(default=lambda request: next(calls))
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="что изменится при этой миграции?", context=migration_page(energy_plan)
    )

    assert frames.of("confirm_required") == []
    (refused,) = (r["content"] for r in server.requests[1].tool_results())
    refusal = json.dumps(refused, ensure_ascii=False)
    assert f"#{energy_plan.pk}" in refusal
    assert named in refusal
    assert f"{named}={energy_plan.dashboard_ids if named == 'dashboard_ids' else energy_plan.target_env_id}" in (
        refusal.replace('\\"', "")
    )
    (previewed,) = (r["content"] for r in server.requests[2].tool_results())
    assert f"#{energy_plan.pk}" in previewed["facts"]
    assert ENERGY in previewed["facts"]


def test_admin_lists_and_edits_migrations(users, energy_plan):
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.test", "pw"))

    listed = client.get("/admin/agentchat/migration/?status__exact=draft")
    page_ = client.get(f"/admin/agentchat/migration/{energy_plan.pk}/change/")

    assert listed.status_code == 200
    assert energy_plan.name in listed.content.decode()
    assert page_.status_code == 200
    assert 'name="database_mapping"' in page_.content.decode()


# --- an honest demo (issue 15 item 6) ---------------------------------------------------------------------------


def test_staging_on_the_same_superset_as_ss_dev_is_found_and_switched_off_by_seed_demo(policy_defaults, settings):
    from django.core.management import call_command

    from policies import services as policy
    from policies.models import Environment

    assert [(e.env_id, t.env_id) for e, t in policy.environments_sharing_instance()] == [("staging", "ss-dev")]
    settings.DEBUG = True

    call_command("seed_demo", stdout=io.StringIO())

    assert not Environment.objects.get(env_id="staging").is_active
    assert Environment.objects.get(env_id="ss-dev").is_active
    assert Environment.objects.get(env_id="prod").is_active
    assert policy.environments_sharing_instance() == []


def test_a_deploy_onto_the_same_superset_instance_is_refused_with_its_reason(users, energy_dashboard):
    """ss-dev → staging (both http://127.0.0.1:8088): no card, no import; the reason names both and the URL."""
    args = {"dashboard_ids": [energy_dashboard["id"]], "source_env_id": "ss-dev", "target_env_id": "staging"}

    with pytest.raises(SameInstance) as refused:
        tool_impact("execute_migration", args, users["admin"], language="en")
    outcome = call_tool("preview_migration", args, users["engineer"], language="en")

    expected = (
        "ss-dev and staging are the same Superset instance (http://127.0.0.1:8088): a deploy onto itself is refused"
    )
    assert refused.value.code == "invalid_args"  # the card's look-up then offers no card (guard.decision)
    assert refused.value.text("en").startswith(expected)
    assert not outcome.ok
    assert outcome.error_code == "invalid_args"
    assert outcome.error_message.startswith(expected)


async def test_asking_for_a_deploy_onto_the_same_instance_gets_no_card(users, energy_dashboard):
    frames = await ask(users["engineer"], "задеплой этот дашборд в staging", page("dashboard", energy_dashboard["id"]))

    assert frames.of("confirm_required") == []
    same = (
        text(
            "ru",
            "%(source)s and %(target)s are the same Superset instance (%(url)s): a deploy onto itself is refused — "
            "it would change nothing, and its import would overwrite the source's own objects.",
            source="\0",
            target="\0",
            url="\0",
        )
        .split("\0")[2]
        .strip(" —(")
    )
    assert same in frames.answer or any(same in f["message"] for f in frames.of("error"))
