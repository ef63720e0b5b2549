"""Seed the rollback_deploy dangerous tool (issue 28 item 4): its row, the writers' permissions, the dashboard and
migration pages' affinities (``policies.defaults.TOOLS``); the other tools' rows are left as the admins keep them."""

from django.db import migrations

from policies.seeding import tools_seeder


class Migration(migrations.Migration):
    dependencies = [("policies", "0013_deploy_history")]

    operations = [migrations.RunPython(tools_seeder("rollback_deploy"), migrations.RunPython.noop)]
