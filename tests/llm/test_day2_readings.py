"""Readings a second user-side day set found wrong (issue 29: ``tests/data/turns_day2.yaml`` and
``tests/data/aspects_unserved2.yaml``, written by helpers who had not read the planner; only their shown rows were
read). Each row here fails before the change it pins.

- A request whose verb no tool was ever asked to do («пометь датасет как сертифицированный», "upgrade ss-dev") got
  the page's summary with no word that nothing was done.
- «на 23:00» was read as dashboards 23 and 0 and reached the user as a validator's text.
- Two environments named with no page's one («чем отличается X в ss-dev и в prod») asked to pick an environment.
- "anything deployed to prod since yesterday?" asked which dashboards instead of reading the deploy history.
- A table's identifier without a noun ("who has access to energy_consumption?") asked whose permissions.
- "diff the regions dataset between ss-dev and prod" searched for a dataset called "between".
- «что в гите не закоммичено?» was not understood.
"""

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agentchat.llm.offline.asked import GENERAL_READS
from agentchat.llm.offline.model import turn_read
from agentchat.llm.offline.numbers import ids_read
from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.sql_steps import only_database, sql_for
from agentchat.llm.offline.state import HAND_OVER, Result
from agentchat.toolset.aspects import UNHEARD_ACTION, unheard_action, unheard_action_aspect
from agentchat.toolset.versions import DEPLOY_HISTORY
from agentchat.toolset.weights import first_step
from agentchat.turn.preparation import tools_context
from agentchat.turn.prompt import system_prompt
from tests.llm.test_offline_planner import knowledge, offered, only_call, page, specs, step  # noqa: F401 - fixtures
from tests.support.contexts import ui_context

ENVIRONMENTS = [("ss-dev", "dev"), ("prod", "prod")]


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("пометь датасет как сертифицированный, сертифицировал отдел BI", "пометь"),
        ("ну плиз запланируй эту миграцию на вечер", "запланируй"),
        ("upgrade ss-dev to superset 6.2 pls", "upgrade"),
        ("please embed this dashboard on our site", "embed"),
        # verbs some tool is asked for, questions, noun phrases, SQL: none
        ("покажи датасеты", None),
        ("расскажи про этот дашборд", None),
        ("deploy this to prod", None),
        ("show me the charts", None),
        ("revenue by region last month", None),
        ("what changed?", None),
        ("выполни select count(*) from regions", None),
    ],
)
def test_a_request_s_verb_no_tool_was_asked_to_do_is_read(question, verb):
    assert unheard_action(question) == verb


def test_an_operation_no_tool_performs_is_said_before_the_nearest_answer(specs, knowledge):  # noqa: F811
    question = "please whitelist ss-dev for the new team"
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert name in GENERAL_READS  # the nearest read only: no operation's card in place of the one asked for

    answer = step(specs, knowledge, question, "@ss-dev", results=[Result(name, args, {"total": 0}, True)])

    assert answer.tool_calls == []
    assert answer.content.startswith("I cannot do “whitelist”: none of my tools does that, and I changed nothing.")
    assert unheard_action_aspect("whitelist").name == UNHEARD_ACTION


def test_a_known_operation_with_an_unheard_verb_is_still_that_operation(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "скопируй этот дашборд в prod", "dashboard/1@ss-dev"))
    assert (name, args.get("target_env_id")) == ("deploy_dashboard", "prod")


@pytest.mark.parametrize(
    ("question", "ids"),
    [
        ("запланируй эту миграцию на сегодня на 23:00", {"any": []}),
        ("дашборд 2 в 10:30", {"any": [2], "dashboard": [2]}),
        ("запусти в 3 ночи миграцию 2", {"any": [2], "migration": [2]}),
    ],
)
def test_a_time_of_day_is_no_object_id(question, ids):
    assert ids_read(question) == ids


def test_the_environment_a_comparison_starts_from_offers_its_tools():
    context = tools_context(None, "чем отличается Отчёт по энергопотреблению в ss-dev и в prod", ENVIRONMENTS)
    assert context["envId"] == "ss-dev"
    assert tools_context({"envId": "prod"}, "чем отличается X в ss-dev и в prod", ENVIRONMENTS)["envId"] == "prod"


@pytest.mark.parametrize(
    ("question", "search", "query"),
    [
        (
            "чем отличается «Отчёт по энергопотреблению» в ss-dev и в prod",
            "search_dashboards",
            "Отчёт по энергопотреблению",
        ),
        ("diff the regions dataset between ss-dev and prod", "search_datasets", "regions"),
    ],
)
def test_an_object_compared_by_its_name_is_looked_up_first(specs, knowledge, question, search, query):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert (name, args.get("query")) == (search, query)
    assert first_step(question, "compare_versions") == search


@pytest.mark.parametrize(
    "question",
    ["morning. anything deployed to prod since yesterday?", "что выкатывали в прод вчера?", "деплои за сегодня"],
)
def test_what_reached_an_environment_lately_is_the_deploy_history(specs, knowledge, question):  # noqa: F811
    assert DEPLOY_HISTORY.search(question)
    name, _args = only_call(step(specs, knowledge, question, "@prod"))
    assert name == "deploy_history"


def test_a_table_s_identifier_alone_names_a_dataset(specs, knowledge):  # noqa: F811
    question = "who has access to energy_consumption on prod?"
    name, args = only_call(step(specs, knowledge, question, "@prod"))

    assert (name, args.get("query")) == ("search_datasets", "energy_consumption")
    assert first_step(question, "superset_audit_permissions") == "search_datasets"
    on_dashboard = step(specs, knowledge, "how many rows does energy_consumption have?", "dashboard/1@ss-dev")
    assert on_dashboard.tool_calls == []  # no dashboard search for a table's name
    assert on_dashboard.content == "why:search_datasets"  # why the page has no dataset tool (then the one-click)


def test_what_git_has_not_got_is_the_git_status(specs, knowledge):  # noqa: F811
    name, _args = only_call(step(specs, knowledge, "что в гите не закоммичено?", "@ss-dev"))
    assert name == "get_git_status"


SOURCE = {"kind": "physical", "schema": "main", "table": "energy_consumption", "sql": None}
COLUMNS = [{"name": "region", "type": "TEXT"}, {"name": "source", "type": "TEXT"}]


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        (
            "какие значения есть в колонке source",
            'SELECT DISTINCT "source" FROM "main"."energy_consumption" ORDER BY 1 LIMIT 50',
        ),
        (
            "distinct values of region please",
            'SELECT DISTINCT "region" FROM "main"."energy_consumption" ORDER BY 1 LIMIT 50',
        ),
    ],
)
def test_a_column_s_values_are_read_from_the_page_s_table(specs, knowledge, question, sql):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1})

    explored = Result(name, args, {"mode": "dataset", "source": SOURCE, "columns": COLUMNS}, True)
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[explored]))
    assert (name, args["sql"], args["dataset_id"]) == ("superset_execute_sql", sql, 1)


def test_values_of_a_column_the_dataset_lacks_are_not_made_up():
    payload = {"mode": "dataset", "source": SOURCE, "columns": COLUMNS}
    assert sql_for("какие значения в колонке colour", payload, None) is None
    assert sql_for("сколько строк", payload, None) == 'SELECT COUNT(*) AS row_count FROM "main"."energy_consumption"'


def test_sql_with_no_database_named_runs_on_the_environment_s_only_one(specs, knowledge):  # noqa: F811
    question = "выполни: select count(*) from energy_consumption where region = 'Москва'"
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev"})
    assert first_step(question, "superset_execute_sql") == "superset_explore_database"

    one = Result(name, args, {"mode": "databases", "count": 1, "databases": [{"id": 7, "name": "Energy"}]}, True)
    name, args = only_call(step(specs, knowledge, question, "@ss-dev", results=[one]))
    assert (name, args["database_id"], args["sql"]) == ("superset_execute_sql", 7, question.split(": ", 1)[1])

    two = {"mode": "databases", "count": 2, "databases": [{"id": 7, "name": "Energy"}, {"id": 8, "name": "Sales"}]}
    answer = step(
        specs,
        knowledge,
        question,
        "@ss-dev",
        results=[Result("superset_explore_database", {"env_id": "ss-dev"}, two, True)],
    )
    assert only_database(two) is None
    assert answer.tool_calls == []  # several: the person picks one from the list


def test_a_failed_nearest_read_does_not_stand_in_for_the_aspect_asked(specs, knowledge):  # noqa: F811
    question = "сколько по времени займёт эта миграция и будет ли прод недоступен пока она идёт?"
    name, args = only_call(step(specs, knowledge, question, "migration/5@ss-dev"))
    failed = Result(name, args, {"error": "upstream", "message": "Superset answered 500"}, False)

    answer = step(specs, knowledge, question, "migration/5@ss-dev", results=[failed])

    assert answer.content.startswith("На это я ответить не могу"), answer.content
    assert "500" in answer.content  # the failure is still said, after the sentence


@pytest.mark.parametrize("earlier", [None, "выполни select count(*) from regions"])
def test_a_query_from_above_is_asked_for_when_the_conversation_has_none(specs, knowledge, earlier):  # noqa: F811
    """Day set d23: "run the query from above against prod" with no query before was handed to the model, which
    ran ``SELECT * FROM your_table``. With SQL earlier in the conversation the model is still handed the turn."""
    system = SystemMessage(
        content=system_prompt(ui_context(None, None, env_id="prod"), unavailable=False, language="en")
    )
    history = [HumanMessage(content=earlier), AIMessage(content="6 rows.")] if earlier else []
    turn = turn_read([system, *history, HumanMessage(content="run the query from above against prod")], tools=None)
    turn.tools = offered(specs, page("@prod"), "analyst")

    message = plan_step(turn, knowledge)

    assert message.tool_calls == []
    if earlier:
        assert message.response_metadata.get(HAND_OVER)
    else:
        assert (
            message.content
            == "I see no query earlier in this conversation: send the SQL (SELECT …), in backticks if you like."
        )
        assert not message.response_metadata.get(HAND_OVER)
