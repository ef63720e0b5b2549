"""Seed the compare_versions read tool (issue 28 item 1): its row, every role's permission, the dashboard and
dataset pages' affinities (``policies.defaults.TOOLS``); the other tools' rows are left as the admins keep them."""

from django.db import migrations

from policies.seeding import seed_default_policies


def seed(apps, schema_editor):
    seed_default_policies(apps, tools=["compare_versions"])


class Migration(migrations.Migration):
    dependencies = [("policies", "0011_policy_version")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
