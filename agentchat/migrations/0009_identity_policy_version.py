"""Superset identities move the policy version (issue 17): a write that can change where a user may act.

``identity.services.identity_env_ids`` (the environments where a user has an active identity, read by every turn's
tool offer) is kept in the policy snapshot's memo (``policies.snapshot``) per user, so it must be read again after
any change of an identity's user, environment or state: an insert, a delete, or an update of one of those columns
bumps ``policies_version`` (the function of policies migration 0011). Updates of other columns (``last_used_at`` at
every call, a refreshed access token) leave the version alone.
"""

from django.db import migrations

TABLE = "agentchat_supersetidentity"
COLUMNS = "state, environment_id, user_id"


def create(apps, schema_editor):
    run = schema_editor.execute
    if schema_editor.connection.vendor == "postgresql":
        run(
            f"CREATE TRIGGER policies_version_bump AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF {COLUMNS} "
            f"ON {TABLE} FOR EACH STATEMENT EXECUTE FUNCTION policies_version_bump()"
        )
        return
    for op in ("INSERT", "DELETE", f"UPDATE OF {COLUMNS}"):
        name = op.split()[0].lower()
        run(
            f"CREATE TRIGGER policies_version_{TABLE}_{name} AFTER {op} ON {TABLE} "  # noqa: S608 - constants
            "BEGIN UPDATE policies_version SET n = abs(random()) WHERE id = 1; END"
        )


def drop(apps, schema_editor):
    run = schema_editor.execute
    if schema_editor.connection.vendor == "postgresql":
        run(f"DROP TRIGGER policies_version_bump ON {TABLE}")
        return
    for name in ("insert", "delete", "update"):
        run(f"DROP TRIGGER policies_version_{TABLE}_{name}")


class Migration(migrations.Migration):
    dependencies = [
        ("agentchat", "0008_migration"),
        ("policies", "0011_policy_version"),
    ]

    operations = [migrations.RunPython(create, drop)]
