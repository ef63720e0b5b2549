"""Reading a question as verb + object (issue 16): the mechanism the router's rules and the planner's
read-vs-write guard share, checked on phrasings no keyword rule was written for."""

import pytest

from agentchat.toolset.intents import action_requested, rule_scores
from agentchat.toolset.reading import CHECK, MAKE, SHOW, asks_to_see, intent_scores, read_question, reading_tool


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("сохрани резервную копию ss-dev", MAKE),
        ("нужна резервная копия", MAKE),
        ("please validate it", CHECK),  # a check verb: a review run
        ("когда последний раз делали бэкап?", SHOW),  # a past «делали» is not an imperative
        ("что будет если перенести дашборд 1 на прод?", SHOW),  # nor is an infinitive
        ("проверь этот дашборд", CHECK),
        ("проверь, что сломается при переносе", SHOW),  # a check followed by a clause asks to see
        ("check whether dashboard 2 is in git", SHOW),
        ("the backup of prod", ""),  # an English noun, not a verb
    ],
)
def test_the_verb_says_make_show_or_check(question, verb):
    assert read_question(question).verb == verb


@pytest.mark.parametrize(
    ("question", "page", "tool"),
    [
        ("сохрани резервную копию", None, "run_backup"),
        ("кто делал последний бекап", None, "list_backups"),
        ("покажи список сред", None, "list_environments"),
        ("какие ещё отчёты есть в этом окружении?", "dataset", "search_dashboards"),  # «в окружении» is a place
        ("which datasets live in the main schema?", None, "search_datasets"),  # the first object named
        ("какие таблицы ещё без датасета", None, "superset_explore_database"),
        ("какие датасеты под этим дашбордом", "dashboard", "get_health_summary"),  # the page's object
        ("ищу отчет по энергии", None, "search_dashboards"),
        ("health of dashboard 1 in prod", None, "get_health_summary"),
        ("в ветке feature/x дашборд 1 актуален?", None, "get_git_status"),
        ("valdiate this dashbaord", "dashboard", "run_llm_validation"),  # typos read as the words meant
        ("total cost for 2024?", "dataset", "superset_execute_sql"),
        ("can u do anything with migrations?", "migration", "show_capabilities"),
    ],
)
def test_verb_and_object_name_the_tool(question, page, tool):
    assert reading_tool(read_question(question), page) == tool


def test_the_verb_moves_weight_between_the_tools_of_one_object():
    make = intent_scores("сохрани резервную копию", None)
    show = intent_scores("покажи резервные копии", None)

    assert make["run_backup"] > 0 > make["list_backups"]
    assert show["list_backups"] > 0 > show["run_backup"]
    # A migration is previewed first: the reading of «мигрируй» does not hold the preview back.
    assert intent_scores("мигрируй дашборды 1 и 2 в прод", None)["preview_migration"] > 0


def test_a_question_about_state_is_never_an_action_request():
    assert asks_to_see("прошёл ли он валидацию?")
    assert not action_requested("проверь, что сломается при переносе дашбордов 1 и 2 в staging")
    assert action_requested("забекапь всё")  # an imperative no keyword rule lists
    assert action_requested("any problems with this dashboard?")  # problems asked about: a review run


def test_the_reading_adds_to_the_keyword_rules():
    assert rule_scores("нужна резервная копия", None)["run_backup"] > rule_scores("нужна резервная копия", None).get(
        "list_backups", 0.0
    )
    assert intent_scores("привет", None) == {}
