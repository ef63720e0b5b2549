"""No Russian text names a tool or an object where a word must agree with it (issue 30 item 2): our catalogue's
texts with a tool title or an object type, and every Django admin text that inserts a model's name (as our
catalogue words it, read through Django's own translation machinery, so an override that stopped applying fails
too). The rule is ``tests.support.agreement``."""

import re
from pathlib import Path

import django
import pytest
from django.utils import translation
from django.utils.translation import gettext, ngettext

from agentchat.web.admin_wording import ADMIN_NAMED, ADMIN_NAMED_PLURAL
from tests.support.agreement import agreement_problems
from tests.support.catalogue import RU_PO, po_messages

# Placeholders of our own texts that receive a noun in the nominative: a tool's title, an object type's name.
OUR_NOMINALS = ("tool_title", "object_type")
# Placeholders of Django's admin texts that receive a model's or an application's name.
ADMIN_NOMINALS = ("name", "verbose_name", "verbose_name_plural", "module_name", "object_name", "objects_name",
                  "model", "class_name")  # fmt: skip
ADMIN_PO = Path(django.__file__).parent / "contrib" / "admin" / "locale" / "ru" / "LC_MESSAGES" / "django.po"
PLURAL_SINGULAR = "%(count)s %(name)s was changed successfully."
_NAMED = re.compile(r"\{name\}|%\((?:" + "|".join(ADMIN_NOMINALS) + r")\)s|^(?:Add|Change|View|Select) %s")


def _nominals(msgid: str, names: tuple[str, ...]) -> list[str]:
    found = [n for n in names if f"%({n})s" in msgid or f"{{{n}}}" in msgid]
    return found + (["%s"] if re.match(r"^(?:Add|Change|View|Select) %s", msgid) else [])


@pytest.mark.parametrize(
    "wrong",
    [
        'Агент попытался вызвать <b title="%(tool)s">%(tool_title)s</b>, недоступный вашей роли.',
        "Добавить еще один %(verbose_name)s",
        "Выберите %s для изменения",
        "%(name)s “%(obj)s“ был успешно удален.",
        "Операция %(tool_title)s выключена администратором.",
        "Вызвать «%(tool_title)s»?",
    ],
)
def test_the_check_refuses_a_name_that_a_word_must_agree_with(wrong):
    names = ["tool_title", "verbose_name", "name", "%s"]

    assert agreement_problems(wrong, names)


@pytest.mark.parametrize(
    "right",
    [
        'Инструмент «<b title="%(tool)s">%(tool_title)s</b>» недоступен для вашей роли.',
        "Добавить ещё: %(verbose_name)s",
        "Выберите объект для изменения: %s",
        "Удалено: %(name)s «%(obj)s».",
        "Не найден объект типа «%(name)s» с ID «%(key)s».",
        "%(tool_title)s — не выполнено: %(reason)s.",
        "Результат (%(tool_title)s):",
        "Не найдено в %(env)s: %(object_type)s #%(id)s.",
    ],
)
def test_the_check_accepts_a_cited_name_and_a_name_as_a_label(right):
    assert agreement_problems(right, ["tool_title", "verbose_name", "name", "object_type", "%s"]) == []


def test_our_texts_name_tools_and_object_types_only_where_nothing_must_agree():
    checked, problems = 0, []
    for entry in po_messages(RU_PO):
        names = _nominals(entry.msgid, OUR_NOMINALS)
        if names:
            checked += 1
            problems += [p for form in entry.msgstr for p in agreement_problems(form, names)]

    assert checked >= 10  # the tool titles of cards, refusals and answers, the object types of answers
    assert problems == []


def test_every_django_admin_text_that_names_a_model_is_worded_by_our_catalogue():
    """A Django upgrade that adds such a text fails here until ``agentchat.web.admin_wording`` words it."""
    django_named = {e.msgid for e in po_messages(ADMIN_PO) if _NAMED.search(e.msgid)}
    ours = set(ADMIN_NAMED) | {PLURAL_SINGULAR}

    assert django_named - ours == set()


@pytest.mark.parametrize("msgid", ADMIN_NAMED)
def test_django_admin_texts_read_without_agreement_in_russian(msgid):
    with translation.override("ru"):
        shown = gettext(msgid)

    assert shown != msgid
    assert agreement_problems(shown, _nominals(msgid, ADMIN_NOMINALS)) == []


def test_the_admin_count_of_changed_objects_reads_without_agreement():
    assert len(ADMIN_NAMED_PLURAL) == 1  # the one plural text of ADMIN_NAMED_PLURAL is checked here
    with translation.override("ru"):
        forms = [ngettext(PLURAL_SINGULAR, "%(count)s %(name)s were changed successfully.", n) for n in (1, 2, 5)]

    assert [agreement_problems(form, ["name"]) for form in forms] == [[], [], []]
