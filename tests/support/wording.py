"""Expected user-facing texts built from the gettext catalogue (issue 14): a test compares what the code says with
the catalogue's message for the same msgid and parameters, so a change of wording in ``locale/ru`` needs no test
change, while a wrong msgid, wrong parameters or a wrong language still fail.
"""

from typing import Any

from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext


def text(language: str, msgid: str, /, **params: Any) -> str:
    """``gettext(msgid) % params`` in ``language`` (``ru``/``en``)."""
    with translation.override(language):
        message = gettext(msgid)
    return message % params if params else message


def ptext(language: str, context: str, msgid: str, /, **params: Any) -> str:
    """``pgettext(context, msgid) % params`` in ``language``."""
    with translation.override(language):
        message = pgettext(context, msgid)
    return message % params if params else message


def plural(language: str, singular: str, plural_: str, n: int, /, **params: Any) -> str:
    """``ngettext(singular, plural_, n) % {"count": n, **params}`` in ``language``."""
    with translation.override(language):
        message = ngettext(singular, plural_, n)
    return message % {"count": n, **params}


def plural_forms(language: str, singular: str, plural_: str, numbers: tuple[int, ...] = (1, 2, 5, 21)) -> list[str]:
    """The catalogue's (unformatted) form of the message for each of ``numbers`` in ``language``."""
    with translation.override(language):
        return [ngettext(singular, plural_, n) for n in numbers]


# Superset's refusal of a table (SQL Lab's TABLE_SECURITY_ACCESS_ERROR), as the user reads it (issue 30 item 3).
TABLE_REFUSED = (
    "Superset refuses you access to the table %(names)s in %(env)s: your Superset role does not include it.",
    "Superset refuses you access to the tables %(names)s in %(env)s: your Superset role does not include them.",
)


# A dashboard's export Superset fails while it lists the dashboard to the person (``superset.transfer.ExportRefused``).
DASHBOARD_EXPORT_REFUSED = (
    "Superset shows you dashboard %(ids)s in %(env)s but fails its export (HTTP %(status)s): it does so when some of "
    "the dashboard's charts or datasets are hidden from your account. Superset's administrator can grant you access "
    "to them.",
    "Superset shows you dashboards %(ids)s in %(env)s but fails their export (HTTP %(status)s): it does so when some "
    "of their charts or datasets are hidden from your account. Superset's administrator can grant you access to "
    "them.",
)


# What follows every refusal of Superset's: who can change it (``errors.SupersetDenied.text``).
ACCESS_FORWARD = "Access is granted in Superset by its administrator: ask them for the role you need."


def table_refused(language: str, names: str, env: str, count: int = 1) -> str:
    """«Superset запрещает вам доступ к таблице main.regions в ss-dev: … Доступ выдаёт администратор Superset: …» in
    ``language``."""
    return f"{plural(language, *TABLE_REFUSED, count, names=names, env=env)} {text(language, ACCESS_FORWARD)}"
