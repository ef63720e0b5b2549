"""Offer list_backups on dashboard and migration pages (issue 28 item 3: «покажи бэкапы prod» lists the copies made
before a deploy or migration, asked where the deploy was asked): the affinities of ``policies.defaults.TOOLS``;
existing rows are left as the admins keep them."""

from django.db import migrations

from policies.seeding import tools_seeder


class Migration(migrations.Migration):
    dependencies = [("policies", "0014_rollback_deploy")]

    operations = [migrations.RunPython(tools_seeder("list_backups"), migrations.RunPython.noop)]
