"""Seed the compare_versions read tool (issue 28 item 1): its row, every role's permission, the dashboard and
dataset pages' affinities (``policies.defaults.TOOLS``); the other tools' rows are left as the admins keep them."""

from django.db import migrations

from policies.seeding import tools_seeder


class Migration(migrations.Migration):
    dependencies = [("policies", "0011_policy_version")]

    operations = [migrations.RunPython(tools_seeder("compare_versions"), migrations.RunPython.noop)]
