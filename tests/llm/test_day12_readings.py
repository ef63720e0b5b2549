"""Issue 29, the eighth session: what turns_day12's read half found, read by the offline planner (the held half was
never read). Each is a class of question, checked here with other words than the row's too."""

import pytest

from agentchat.llm.offline.sql_aggregate import listed_columns
from agentchat.llm.offline.sql_steps import sql_for, sql_instead
from agentchat.toolset.aspects import asked_aspect
from agentchat.toolset.listing import VALUES_LISTED
from agentchat.toolset.reading import MAKE, read_question
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.weights import writes_sql
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_values import READ


@pytest.mark.parametrize("question", ["запускай миграцию, preview я уже смотрел", "я уже смотрел превью, запускай"])
def test_a_preview_said_seen_in_either_language_is_not_shown_again(specs, knowledge, question):  # noqa: F811
    """h1203: «preview я уже смотрел» showed the preview again (the English noun and «я» were not read)."""
    name, args = only_call(step(specs, knowledge, question, "migration/1@ss-dev", role="admin"))
    assert (name, args) == ("execute_migration", {"migration_id": 1})


@pytest.mark.parametrize(
    "question",
    [
        "Is everything on this dashboard committed to git? I renamed a chart yesterday and I'm not sure it got saved",
        "я вчера удалил график, он сохранился в гите?",
        "we dropped a column last week, is the dataset still fine?",
        "закоммить текущее состояние, commit message: «charts: fix source pie labels»",
        "найди дашборд «Удалить после релиза»",
    ],
)
def test_what_was_done_or_is_quoted_is_no_request(question):
    """h1263 was refused «rename» for a sentence about yesterday; h1257 «fix» of its quoted commit message."""
    assert request_without_tool(question) is None


@pytest.mark.parametrize(
    ("question", "phrase"),
    [("удали этот дашборд", "удали"), ("удалите дашборд", "удалите"), ("rename this chart to Sales", "rename")],
)
def test_a_request_to_delete_or_rename_is_still_refused(question, phrase):
    assert request_without_tool(question) == phrase


def test_a_quoted_commit_message_is_the_commit_s_message(specs, knowledge):  # noqa: F811
    question = "закоммить текущее состояние, commit message: «charts: fix source pie labels»"
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer"))
    assert name == "commit_changes"
    assert args["message"] == "charts: fix source pie labels"


@pytest.mark.parametrize("question", ["бэкап прода перед релизом, сейчас", "бэкап прода срочно", "backup of prod now"])
def test_a_terse_backup_said_with_when_is_a_request_for_one(specs, knowledge, question):  # noqa: F811
    """h1243: «бэкап прода перед релизом, сейчас» listed the backups."""
    assert only_call(step(specs, knowledge, question, "@prod", role="engineer")) == ("run_backup", {"env_id": "prod"})


@pytest.mark.parametrize(
    "question",
    [
        "а можно этот дашборд сразу в PowerPoint выгрузить? каждую неделю перерисовываю слайды руками",
        "export this dashboard to pptx for the board meeting",
        "сохрани дашборд в презентацию",
    ],
)
def test_a_presentation_is_an_export_no_tool_makes(question):
    """h1221: the summary was shown with no word that the export was not done."""
    aspect = asked_aspect(question)
    assert aspect is not None
    assert aspect.name == "export_file"


@pytest.mark.parametrize(
    ("question", "columns"),
    [
        ("какие регионы вообще есть в данных? и источники тоже перечисли", ["region", "source"]),
        ("which sources are in the data?", ["source"]),
    ],
)
def test_the_values_of_columns_named_by_their_label_are_listed(question, columns):
    """h1211 was shown the dataset's description: its columns, not their values."""
    sql = sql_for(question, READ, None) or ""
    assert [c for c in ("region", "source") if f'SELECT DISTINCT "{c}"' in sql] == columns, sql


@pytest.mark.parametrize(
    "question",
    ["какие колонки есть в датасете?", "какие дашборды есть в этом датасете?", "which charts are in this dataset?"],
)
def test_the_columns_or_the_objects_of_a_dataset_are_no_values(question):
    assert VALUES_LISTED.search(question) is None


@pytest.mark.parametrize(
    ("question", "columns"),
    [("какие источники энергии есть?", ["source"]), ("список регионов", ["region"]), ("list the regions", ["region"])],
)
def test_a_column_s_values_are_listed_by_its_label_alone(question, columns):
    """A QA check: «какие источники энергии есть?» was shown the dataset's columns."""
    assert listed_columns(question, READ) == columns


@pytest.mark.parametrize(
    "question",
    ["какой регион потребил больше всего?", "какие колонки есть?", "which region has the most rows?"],
)
def test_a_figure_or_the_schema_lists_no_values(question):
    assert listed_columns(question, READ) == []


@pytest.mark.parametrize(
    ("question", "instead"),
    [
        ("количество записей по газу", True),
        ("по Татарстану по источникам", True),
        ("какие колонки есть?", False),
        ("опиши датасет", False),
    ],
)
def test_a_figure_asked_where_the_dataset_was_described_goes_on_to_sql(question, instead):
    """A QA check: «количество записей по газу» was answered with the dataset's description."""
    explore = "superset_explore_database"
    assert sql_instead(explore, explore, question) is instead


def test_an_action_negated_after_its_verb_is_not_asked(specs, knowledge):  # noqa: F811
    """A QA check: «откатывать не надо, просто скажи кто это был» was refused «откатывать»."""
    question = "мы вчера задеплоили в прод, откатывать не надо, просто скажи кто это был"
    assert request_without_tool(question) is None
    name, _args = only_call(step(specs, knowledge, question, "dashboard/1@prod", role="admin"))
    assert name == "deploy_history"


@pytest.mark.parametrize("question", ["запускай, превью я видел", "go ahead, I already saw the preview"])
def test_a_bare_go_ahead_on_a_plan_s_page_runs_it(specs, knowledge, question):  # noqa: F811
    """A QA check: "go ahead…" was refused «go»; «запускай…» was not understood."""
    name, args = only_call(step(specs, knowledge, question, "migration/1@ss-dev", role="admin"))
    assert (name, args) == ("execute_migration", {"migration_id": 1})


def test_a_what_question_about_a_metric_is_no_listing_of_values():
    """turns_day6 y06 ran ``SELECT * … LIMIT 10`` for "What does the avg_price metric … compute?" once any «what …»
    was read as a listing: only the dataset's columns decide a listing, after it is read."""
    question = "What does the avg_price metric in energy_consumption compute exactly? Want to put it in the glossary."
    assert writes_sql(question) is False
    assert listed_columns(question, READ) == []


def test_a_terse_backup_is_a_request_to_make_one_whoever_asks():
    """A QA check: «бэкап прода сейчас» listed the backups for an analyst (no run allowed) and on a dashboard page
    (no run offered there) instead of saying so: read as a request, the role or the page refuses it."""
    assert read_question("бэкап прода сейчас").verb == MAKE
    assert read_question("бэкап прода есть?").verb != MAKE


@pytest.mark.parametrize(
    ("question", "role", "tool"),
    [
        ("Can you generate the chart docs for this dashboard?", "engineer", "run_llm_documentation"),
        ("Could you run the LLM review on this dashboard? I think the charts are off.", "admin", "run_llm_validation"),
    ],
)
def test_a_title_the_planner_guessed_keeps_its_words_read(specs, knowledge, question, role, tool):  # noqa: F811
    """A held row of turns_day12 (diagnosed by a helper in general terms): the planner quotes a guessed title
    ("the … dashboard") for the router, and reading the request without quoted text lost the request's own words;
    only what the person quoted is left out (a commit message), in the person's own text."""
    name, _args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role=role))
    assert name == tool
