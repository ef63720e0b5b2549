"""Backup.kind (full | pre_change) and Backup.change: the copy saved before an overwrite outside dev (issue 28)."""

import django.core.serializers.json
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("agentchat", "0009_identity_policy_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="backup",
            name="change",
            field=models.JSONField(
                blank=True, default=dict, encoder=django.core.serializers.json.DjangoJSONEncoder, verbose_name="change"
            ),
        ),
        migrations.AddField(
            model_name="backup",
            name="kind",
            field=models.CharField(
                choices=[("full", "full backup"), ("pre_change", "copy before a change")],
                db_index=True,
                default="full",
                max_length=16,
                verbose_name="kind",
            ),
        ),
    ]
