"""The dataset/database/SQL tools are registered as DESIGN §8 lists them, with ru/en texts for the LLM, the
embedding router and show_capabilities, and the offline planner has an answer template for each."""

import re

import pytest

from agentchat.llm.offline.answers.base import writer_for
from agentchat.runtime.registry import registry
from policies.defaults import TOOLS

MY_TOOLS = (
    "search_datasets",
    "get_dataset_details",
    "superset_explore_database",
    "superset_audit_permissions",
    "superset_format_sql",
    "superset_execute_sql",
    "superset_create_dataset",
)
CYRILLIC = re.compile(r"[а-яё]", re.I)


@pytest.mark.parametrize("name", MY_TOOLS)
def test_tool_is_registered_with_the_category_and_env_flag_of_design_8(name):
    spec = registry()[name]
    category, env_specific, _, _ = TOOLS[name]
    assert (spec.category, spec.env_specific) == (category, env_specific)
    assert ("env_id" in spec.args_schema.model_fields) == env_specific


@pytest.mark.parametrize("name", MY_TOOLS)
def test_tool_has_ru_en_descriptions_and_three_examples_per_language(name):
    spec = registry()[name]
    assert CYRILLIC.search(spec.description_ru)
    assert not CYRILLIC.search(spec.description_en)
    assert len(spec.examples_ru) >= 3
    assert len(spec.examples_en) >= 3
    assert all(CYRILLIC.search(q) for q in spec.examples_ru)
    assert not any(CYRILLIC.search(q) for q in spec.examples_en)
    assert len(set(spec.examples_ru)) == len(spec.examples_ru)


@pytest.mark.parametrize("name", MY_TOOLS)
def test_every_argument_is_described_for_the_llm(name):
    schema = registry()[name].openai_schema()["function"]["parameters"]
    assert schema["properties"]
    assert all(prop.get("description") for prop in schema["properties"].values())


@pytest.mark.parametrize("name", MY_TOOLS)
def test_offline_planner_has_an_answer_template(name):
    assert writer_for(name) is not None


def test_only_the_write_tool_declares_an_impact_look_up():
    specs = registry()
    assert specs["superset_create_dataset"].impact is not None
    assert all(specs[name].impact is None for name in MY_TOOLS if specs[name].category == "read")
