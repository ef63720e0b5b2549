"""Seed the default ``RiskRule`` rows exactly as DESIGN §9."""

from django.db import migrations

from policies.seeding import seed_risk_rules


def seed(apps, schema_editor):
    seed_risk_rules(apps)


class Migration(migrations.Migration):
    dependencies = [("policies", "0003_riskrule")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
