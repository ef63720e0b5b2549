"""Seed the default policy rows exactly as DESIGN §8 (tools, roles, permissions, affinities) and the environments."""

from django.db import migrations

from policies.seeding import seed_default_policies


def seed(apps, schema_editor):
    seed_default_policies(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("policies", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
