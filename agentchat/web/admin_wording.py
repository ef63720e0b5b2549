"""Texts of the Django admin and of django-tasks' admin that our catalogue words itself (issue 30 item 2).

Django's Russian admin puts a model's name into sentences whose words must agree with it («Выберите %s для
изменения», «Добавить еще один %(verbose_name)s») — right for «пользователь», wrong for «группа», «роль» or
«привязка к типу объекта». ``locale/ru`` (``LOCALE_PATHS``, read before Django's own catalogues) gives each of
these msgids a wording that needs no declension: the name after a colon («Добавить: группа») or under a head noun
(«объект типа «роль»»); ``tests/agentchat/test_catalogue_agreement.py`` checks every such text. django-tasks ships
no Russian: its admin's names (its model's verbose names, the task states) are translated here too.

Nothing calls these: they are the msgids ``make messages`` extracts (``gettext_noop``, lazy objects never
evaluated), listed once so the tests can check them.
"""

from django.utils.translation import gettext_lazy, gettext_noop, ngettext_lazy, pgettext_lazy

# Django admin msgids that insert a model's verbose name (django/contrib/admin/locale/ru/LC_MESSAGES/django.po).
ADMIN_NAMED: tuple[str, ...] = (
    gettext_noop("Cannot delete %(name)s"),
    gettext_noop("Add another %(verbose_name)s"),
    gettext_noop("Added {name} “{object}”."),
    gettext_noop("Changed {fields} for {name} “{object}”."),
    gettext_noop("Deleted {name} “{object}”."),
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    gettext_noop("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?"),
    gettext_noop("Add %s"),
    gettext_noop("Change %s"),
    gettext_noop("View %s"),
    gettext_noop("Select all %(total_count)s %(module_name)s"),
    gettext_noop("Add %(name)s"),
    gettext_noop(
        "Deleting the %(object_name)s '%(escaped_object)s' would result in deleting related objects, but your "
        "account doesn't have permission to delete the following types of objects:"
    ),
    gettext_noop(
        "Deleting the %(object_name)s '%(escaped_object)s' would require deleting the following protected related "
        "objects:"
    ),
    gettext_noop(
        'Are you sure you want to delete the %(object_name)s "%(escaped_object)s"? All of the following related '
        "items will be deleted:"
    ),
    gettext_noop(
        "Deleting the selected %(objects_name)s would result in deleting related objects, but your account doesn't "
        "have permission to delete the following types of objects:"
    ),
    gettext_noop(
        "Deleting the selected %(objects_name)s would require deleting the following protected related objects:"
    ),
    gettext_noop(
        "Are you sure you want to delete the selected %(objects_name)s? All of the following objects and their "
        "related items will be deleted:"
    ),
    gettext_noop("Select %s"),
    gettext_noop("Select %s to change"),
    gettext_noop("Select %s to view"),
    gettext_noop("Delete selected %(verbose_name_plural)s"),
    gettext_noop("%(class_name)s %(instance)s"),
    gettext_noop(
        "Deleting %(class_name)s %(instance)s would require deleting the following protected related objects: "
        "%(related_objects)s"
    ),
    gettext_noop("Models in the %(name)s application"),
    gettext_noop("Change selected %(model)s"),
    gettext_noop("Add another %(model)s"),
    gettext_noop("Delete selected %(model)s"),
    gettext_noop("View selected %(model)s"),
)
ADMIN_NAMED_PLURAL = (
    ngettext_lazy("%(count)s %(name)s was changed successfully.", "%(count)s %(name)s were changed successfully."),
)

# django-tasks' database backend (django_tasks_db.models.DBTaskResult, django_tasks.base.TaskResultStatus).
TASKS_ADMIN = (
    gettext_lazy("Task Result"),
    gettext_lazy("Task Results"),
    gettext_lazy("status"),
    gettext_lazy("enqueued at"),
    gettext_lazy("started at"),
    gettext_lazy("finished at"),
    gettext_lazy("args kwargs"),
    gettext_lazy("priority"),
    gettext_lazy("task path"),
    gettext_lazy("worker id"),
    gettext_lazy("queue name"),
    gettext_lazy("backend name"),
    gettext_lazy("run after"),
    gettext_lazy("return value"),
    gettext_lazy("exception class path"),
    gettext_lazy("traceback"),
    pgettext_lazy("Task", "Ready"),
    pgettext_lazy("Task", "Running"),
    pgettext_lazy("Task", "Failed"),
    pgettext_lazy("Task", "Successful"),
)
