"""Seed the deploy_history read tool (issue 28 item 5): its row, every role's permission, the dashboard and
migration pages' affinities (``policies.defaults.TOOLS``); the other tools' rows are left as the admins keep them."""

from django.db import migrations

from policies.seeding import seed_default_policies


def seed(apps, schema_editor):
    seed_default_policies(apps, tools=["deploy_history"])


class Migration(migrations.Migration):
    dependencies = [("policies", "0012_compare_versions")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
