"""The policy version (issue 17): one row whose number changes with every write to a policy table, by trigger.

``policies.snapshot`` caches the policy tables per process under this number, so a turn reads one row instead of
the tables, and any change — the admin, a management command, a queryset ``update()``, raw SQL — is seen by every
process at its next unit of work. PostgreSQL takes the number from a sequence and SQLite from ``random()``: a
rolled-back change never hands out a number again that a cache may hold.
"""

from django.db import migrations

TABLES = (
    "policies_tool",
    "policies_toolpermission",
    "policies_contexttoolaffinity",
    "policies_environment",
    "policies_riskrule",
    "auth_group",
    "auth_user_groups",  # a user's roles
)


def create(apps, schema_editor):
    run = schema_editor.execute
    if schema_editor.connection.vendor == "postgresql":
        run("CREATE SEQUENCE policies_version_seq")
        run("CREATE TABLE policies_version (id smallint PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)")
        run("INSERT INTO policies_version VALUES (1, nextval('policies_version_seq'))")
        run(
            "CREATE FUNCTION policies_version_bump() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN UPDATE policies_version SET n = nextval('policies_version_seq') WHERE id = 1; RETURN NULL; END $$"
        )
        for table in TABLES:
            run(
                f"CREATE TRIGGER policies_version_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION policies_version_bump()"
            )
        return
    run("CREATE TABLE policies_version (id integer PRIMARY KEY CHECK (id = 1), n integer NOT NULL)")
    run("INSERT INTO policies_version VALUES (1, abs(random()))")
    for table in TABLES:
        for op in ("INSERT", "UPDATE", "DELETE"):
            run(
                f"CREATE TRIGGER policies_version_{table}_{op.lower()} AFTER {op} ON {table} "  # noqa: S608 - constants
                "BEGIN UPDATE policies_version SET n = abs(random()) WHERE id = 1; END"
            )


def drop(apps, schema_editor):
    run = schema_editor.execute
    if schema_editor.connection.vendor == "postgresql":
        for table in TABLES:
            run(f"DROP TRIGGER policies_version_bump ON {table}")
        run("DROP FUNCTION policies_version_bump()")
        run("DROP TABLE policies_version")
        run("DROP SEQUENCE policies_version_seq")
        return
    for table in TABLES:
        for op in ("insert", "update", "delete"):
            run(f"DROP TRIGGER policies_version_{table}_{op}")
    run("DROP TABLE policies_version")


class Migration(migrations.Migration):
    dependencies = [
        ("policies", "0010_forbidden_reference"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create, drop)]
