"""Seed the deploy_history read tool (issue 28 item 5): its row, every role's permission, the dashboard and
migration pages' affinities (``policies.defaults.TOOLS``); the other tools' rows are left as the admins keep them."""

from django.db import migrations

from policies.seeding import tools_seeder


class Migration(migrations.Migration):
    dependencies = [("policies", "0012_compare_versions")]

    operations = [migrations.RunPython(tools_seeder("deploy_history"), migrations.RunPython.noop)]
