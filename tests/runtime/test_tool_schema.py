"""The tool schemas the LLM reads (issue 16): as small as they can be without losing meaning."""

import json

import pytest

from agentchat.runtime.registry import registry


@pytest.mark.parametrize("name", sorted(registry()))
def test_schema_keeps_names_types_and_required_but_no_titles_limits_or_null_unions(name):
    spec = registry()[name]
    function = spec.openai_schema()["function"]
    full = spec.args_schema.model_json_schema()
    text = json.dumps(function, ensure_ascii=False)

    assert function["description"] == spec.description_en
    assert set(function["parameters"].get("properties", {})) == set(full.get("properties", {}))
    assert function["parameters"].get("required", []) == full.get("required", [])
    for keyword in ('"title"', '"maxLength"', '"minimum"', '{"type": "null"}', '"default": null'):
        assert keyword not in text
    for prop in function["parameters"].get("properties", {}).values():
        assert prop.get("type") or prop.get("enum") or prop.get("anyOf"), prop
        assert prop.get("description"), prop


# Tools added after issue 16 measured the 22 tools of DESIGN §8 (issue 28's version tools).
LATER_TOOLS = {"compare_versions", "deploy_history", "rollback_deploy"}


def test_the_catalogue_schema_is_under_seventy_percent_of_the_size_it_had():
    """Bilingual descriptions and full pydantic schemas were 21,625 characters for the 22 tools of DESIGN §8
    (bench/router.py before issue 16); the same 22 are measured."""
    size = sum(
        len(json.dumps(s.openai_schema(), ensure_ascii=False, separators=(",", ":")))
        for name, s in registry().items()
        if name not in LATER_TOOLS
    )
    assert len(registry()) - len(LATER_TOOLS) == 22
    assert size < 21625 * 0.7


def test_page_bound_arguments_change_only_that_call_s_schema():
    """issue 17: schemas are copied on write; a page's default must not leak into the cached schema or another
    page's call (issue 16 Build 3: the page's id is the default and leaves ``required``)."""
    spec = registry()["get_health_summary"]
    plain = json.dumps(spec.openai_schema(), sort_keys=True)

    three = spec.openai_schema({"dashboard_id": 3, "env_id": "ss-dev"})["function"]["parameters"]
    seven = spec.openai_schema({"dashboard_id": 7})["function"]["parameters"]

    assert three["properties"]["dashboard_id"] == {"type": "integer", "default": 3}
    assert three["properties"]["env_id"] == {"type": "string", "default": "ss-dev"}
    assert "required" not in three
    assert seven["properties"]["dashboard_id"] == {"type": "integer", "default": 7}
    assert "default" not in json.dumps(seven["properties"]["env_id"])
    assert seven.get("required") == ["env_id"]
    assert json.dumps(spec.openai_schema(), sort_keys=True) == plain
