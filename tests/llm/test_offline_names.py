"""Names given without quotes (issue 16 review): what the offline planner searches for, and how the answer of a
search for a query counts its matches. Uses the planner tests' fixtures and helpers (the real router)."""

import pytest

from agentchat.llm.offline.answers import answer_from_result
from agentchat.llm.offline.mentions import mentions_read
from policies.defaults import ENVIRONMENTS
from tests.llm import test_offline_planner as planner_tests
from tests.llm.test_offline_planner import only_call, step
from tests.support.wording import plural, text

specs = planner_tests.specs  # the planner tests' fixtures: the tool schemas and the real router
knowledge = planner_tests.knowledge


@pytest.mark.parametrize(
    ("question", "tool", "query"),
    [
        ("which dashboards mention churn", "search_dashboards", "churn"),
        ("find dashboards about churn", "search_dashboards", "churn"),
        ("Найди дашборды про энергию", "search_dashboards", "энерг"),
        ("найди датасет regions", "search_datasets", "region"),
        ("find the dataset regions on staging", "search_datasets", "region"),
        ("найди датасет weather_daily на проде", "search_datasets", "weather_daily"),
        ("найди дашборд с названием Продажи", "search_dashboards", "Продаж"),
        ("is there a dashboard called Sales Overview?", "search_dashboards", "Sales Overview"),
        ("Найди дашборд «Обзор регионов»", "search_dashboards", "Обзор регионов"),
        ('find the dashboard "Regions overview"', "search_dashboards", "Regions overview"),
    ],
)
def test_a_name_without_quotes_is_the_search_query(specs, knowledge, question, tool, query):
    """The words after the object noun or a naming word ("about", «про», «с названием») are what is searched for,
    without environment words and function words; a single word is a topic, searched by its stem."""
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert name == tool
    assert args.get("query") == query


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("покажи все дашборды", "search_dashboards"),
        ("list dashboards on prod", "search_dashboards"),
        ("Какие дашборды есть в prod?", "search_dashboards"),
        ("какие датасеты есть на проде?", "search_datasets"),
        ("Show the datasets admin owns", "search_datasets"),
    ],
)
def test_a_question_naming_no_term_searches_without_a_query(specs, knowledge, question, tool):
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert name == tool
    assert "query" not in args


@pytest.mark.parametrize(
    "question",
    [
        "расскажи про дашборд Обзор регионов",
        "какой статус git у дашборда Обзор регионов?",
        "deploy Обзор регионов to prod",
        "what is the git status of dashboard Обзор регионов?",
    ],
)
def test_a_dashboard_named_without_quotes_is_searched_before_asking(specs, knowledge, question):
    """No page object, a title without quotes: it is looked up (in the environment picked) instead of «О каком
    дашборде речь?»."""
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert (name, args) == ("search_dashboards", {"env_id": "ss-dev", "query": "Обзор регионов"})


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_search_answer_for_a_query_claims_only_its_matches(language):
    """The answer of a search for a query names the query and counts what Superset returned for it; with no
    match it says that nothing contains the query, not that nothing exists (issue 16 review)."""
    found = {"env_id": "ss-dev", "query": "churn", "count": 1, "dashboards": [{"id": 4, "title": "Churn"}]}
    none = {"env_id": "ss-dev", "query": "churn", "count": 0, "dashboards": []}
    everything = {"env_id": "ss-dev", "query": None, "count": 2, "dashboards": [{"id": 1}, {"id": 2}]}
    singular = "Found %(count)d dashboard in %(env)s whose title or slug contains “%(query)s”."
    plural_ = "Found %(count)d dashboards in %(env)s whose title or slug contains “%(query)s”."
    head = plural(language, singular, plural_, 1, env="ss-dev", query="churn")
    assert answer_from_result("search_dashboards", found, language).splitlines()[0] == head
    assert answer_from_result("search_dashboards", none, language) == text(
        language,
        "No dashboard you can see in %(env)s has “%(query)s” in its title or slug (Superset lists only those your "
        "account may open).",
        env="ss-dev",
        query="churn",
    )
    listed = plural(
        language, "Found %(count)d dashboard in %(env)s.", "Found %(count)d dashboards in %(env)s.", 2, env="ss-dev"
    )
    assert answer_from_result("search_dashboards", everything, language).splitlines()[0] == listed


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("tell me about the regions overview dashboard", "regions overview"),
        ("дашборд Video Game Sales — кто владелец?", "Video Game Sales"),
        ("где найти дашборд с показателями потребления?", "показател"),
        ("поищи датасеты со словом energy", "energy"),
        ("Этот дашборд сохранён в git?", None),
        ("which datasets feed this dashboard?", None),
        ("Расскажи про датасет номер 2", None),
        ("what changed in dashboard 2 since the last commit?", None),
        ("can Gamma users see it?", None),
        ("помощь нужна, с чего начать?", None),
        ("give me a list of dev dashboards with their owners", None),
    ],
)
def test_what_follows_a_noun_is_a_name_only_when_it_is_one(question, query):
    """A plural noun, a pointed-at noun, an id, a verb or a pronoun after the marker is no name (issue 16 review);
    a lower-case topic keeps its first word, a title is taken as written."""
    environments = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
    assert mentions_read(question, environments).search_text == query


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("задеплой дашборд energy-report в prod", "energy-report"),
        ("deploy dashboard «Отчёт по энергопотреблению» to prod", "Отчёт по энергопотреблению"),
        ("расскажи про дашборд «Отчёт по энергопотреблению»", "Отчёт по энергопотреблению"),
    ],
)
def test_a_dashboard_named_on_another_dashboard_s_page_is_searched_not_the_page_s(specs, knowledge, question, query):
    """On the page of dashboard 2 a question naming another dashboard by its title or slug searches for it first:
    the page's id is not used (issue 16 review: the prod deploy card proposed the page's «Обзор регионов»)."""
    name, args = only_call(step(specs, knowledge, question, "dashboard/2@ss-dev"))
    assert name == "search_dashboards"
    assert args.get("query") == query


@pytest.mark.parametrize("question", ["задеплой этот дашборд в prod", "deploy this dashboard to prod"])
def test_this_dashboard_on_its_page_is_the_page_s(specs, knowledge, question):
    name, args = only_call(step(specs, knowledge, question, "dashboard/2@ss-dev"))
    assert name == "deploy_dashboard"
    assert args["dashboard_id"] == 2
