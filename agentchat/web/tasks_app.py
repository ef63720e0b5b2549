"""django-tasks' database backend under a name people read in the admin («Фоновые задачи»; its own is the
untranslated "Tasks Database Backend"; issue 30 item 2)."""

from django.utils.translation import gettext_lazy as _
from django_tasks_db.apps import TasksAppConfig


class BackgroundTasksConfig(TasksAppConfig):
    """``INSTALLED_APPS`` names this class instead of the package ``django_tasks_db``: its label, models and
    migrations stay django-tasks' own; only the name the admin shows changes."""

    # A lazy translation, as Django's docs do it; django-tasks annotates its own plain string as ``str``.
    verbose_name = _("Background tasks")  # type: ignore[assignment]
