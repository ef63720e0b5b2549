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


def test_the_catalogue_schema_is_under_seventy_percent_of_the_size_it_had():
    """Bilingual descriptions and full pydantic schemas were 21,625 characters for the 22 tools (bench/router.py
    before issue 16)."""
    size = sum(
        len(json.dumps(s.openai_schema(), ensure_ascii=False, separators=(",", ":"))) for s in registry().values()
    )
    assert size < 21625 * 0.7
