"""Readings fixed in the session that wrote ``tests/data/turns_day6.yaml`` and ``turns_day7.yaml`` (issue 29), each
failing before its change.

- A search for dashboards built on a named dataset with no other search words raised ``KeyError: 'query'`` inside
  the planner (the whole turn failed; found when the wholly held set's run stopped on it).
- "which tables are in the database behind this dataset?" on a dataset page named a database «behind» (then «the»)
  and showed the dataset only: the tables of the dataset's own database are read after it.
- "run select 1 in the Energy db" sent «select 1 in the Energy db» as the SQL.
"""

import pytest

from agentchat.llm.offline.arguments import Page, args_fill
from agentchat.llm.offline.mentions import Mentions, mentions_read
from agentchat.llm.offline.sql_steps import database_tables_args
from agentchat.llm.offline.state import Result
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures

ENVIRONMENTS = [("ss-dev", "dev"), ("prod", "prod")]
SEARCH_DASHBOARDS = {"properties": {"env_id": {}, "query": {}, "dataset": {}}, "required": ["env_id"]}


def test_dashboards_on_a_dataset_with_no_other_words_are_searched_by_the_dataset():
    mentions = Mentions(envs=["ss-dev"], used_dataset="energy_consumption")
    page = Page(object_type=None, object_id=None, env_id="ss-dev")

    args, missing = args_fill(tool="search_dashboards", parameters=SEARCH_DASHBOARDS, mentions=mentions, page=page)

    assert (args, missing) == ({"env_id": "ss-dev", "dataset": "energy_consumption"}, [])


@pytest.mark.parametrize(
    "question",
    [
        "which tables are in the database behind this dataset?",
        "какие ещё таблицы есть в базе этого датасета?",
        "what other tables does the database of this dataset have?",
    ],
)
def test_the_tables_of_the_dataset_s_own_database_are_read_after_the_dataset(specs, knowledge, question):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1})

    payload = {"mode": "dataset", "source": {"database_id": 3, "schema": "main", "table": "energy_consumption"}}
    read = Result(name, args, payload, True)
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[read]))

    assert (name, args) == ("superset_explore_database", {"env_id": "ss-dev", "database_id": 3, "schema": "main"})


@pytest.mark.parametrize(
    "question", ["из какой таблицы этот датасет?", "which table and database does this dataset read from?"]
)
def test_the_dataset_s_own_table_is_no_list_of_the_database_s_tables(question):
    payload = {"mode": "dataset", "source": {"database_id": 3, "schema": "main", "table": "energy_consumption"}}
    assert database_tables_args(question, payload) is None


@pytest.mark.parametrize(
    ("question", "sql", "database"),
    [
        ("run select 1 in the Energy db", "select 1", "Energy"),
        ("выполни select count(*) from regions в базе Energy", "select count(*) from regions", "Energy"),
        ("which tables are in the database behind this dataset?", None, None),
    ],
)
def test_a_database_named_after_the_sql_is_no_part_of_it(question, sql, database):
    mentions = mentions_read(question, ENVIRONMENTS)
    assert (mentions.sql, mentions.database) == (sql, database)
