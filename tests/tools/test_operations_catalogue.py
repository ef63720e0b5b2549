"""The operations tools are registered as the DESIGN §8 table says, in both languages."""

from agentchat.runtime.registry import registry
from policies.defaults import TOOLS

OPERATIONS = ("deploy_dashboard", "preview_migration", "execute_migration", "run_backup", "list_backups")
OPERATIONS += ("get_task_status",)


def test_operations_tools_match_the_design_table_in_both_languages():
    specs = registry()
    for name in OPERATIONS:
        spec = specs[name]
        category, env_specific, _, _ = TOOLS[name]
        assert (spec.category, spec.env_specific) == (category, env_specific), name
        assert spec.description_en, name
        assert min(len(spec.examples_ru), len(spec.examples_en)) >= 3, name
        assert any("а" <= ch <= "я" for ch in spec.description_ru.lower()), name
        fields = spec.args_schema.model_json_schema()["properties"]
        assert all(f.get("description") for f in fields.values()), name
    assert all(specs[n].impact is not None for n in ("deploy_dashboard", "execute_migration", "run_backup"))
    assert specs["deploy_dashboard"].target_env_arg == "target_env_id"
