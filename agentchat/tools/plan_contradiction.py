"""A call that contradicts a saved migration plan (issue 32 item 2): the refusal the model reads (which arguments to
drop) and the one the person reads (the plan and what the request added, in words)."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agentchat.errors import InvalidArguments


class PlanContradiction(InvalidArguments):
    """A call names a saved migration and also dashboards or environments that are not that plan's (issue 32
    item 2: a small model sent ``dashboard_ids: [1, 2, 3]`` beside ``migration_id: 1`` whose plan moves dashboard
    1, and got a red prod card for dashboards outside the plan).

    Attributes:
        ask_user: what the person reads, with no argument names (``turn.calls`` shows it; the message is the
            model's).
    """

    def __init__(self, message: str, ask_user: str) -> None:
        super().__init__(message)
        self.ask_user = ask_user

    @classmethod
    def of(
        cls, migration_id: int, saved: dict[str, Any], given: dict[str, Any], contradicting: list[str]
    ) -> "PlanContradiction":
        """The refusal of a call about plan ``migration_id``, in the active language.

        Args:
            saved: the plan's ``dashboard_ids`` (sorted), ``source_env_id`` and ``target_env_id``.
            given: the call's values of the same names (None: not given).
            contradicting: the names whose given value is not the plan's, in that order.
        """
        model = ngettext(
            "migration #%(id)s is a saved plan: %(args)s contradicts it (the plan has %(plan)s); "
            "call again with migration_id only.",
            "migration #%(id)s is a saved plan: %(args)s contradict it (the plan has %(plan)s); "
            "call again with migration_id only.",
            len(contradicting),
        ) % {
            "id": migration_id,
            "args": ", ".join(contradicting),
            "plan": "; ".join(f"{name}={saved[name]}" for name in contradicting),
        }

        def dashboards(value: list[int]) -> str:
            extra = [n for n in value if n not in saved["dashboard_ids"]]
            if extra:  # only those outside the plan («в запросе также: дашборды 2»)
                return _("dashboards %(ids)s") % {"ids": ", ".join(map(str, extra))}
            return _("only dashboards %(ids)s") % {"ids": ", ".join(map(str, value))}

        words = {
            "dashboard_ids": dashboards,
            "source_env_id": lambda value: _("from %(env)s") % {"env": value},
            "target_env_id": lambda value: _("to %(env)s") % {"env": value},
        }
        person = _(
            "Migration #%(id)s is a saved plan (%(source)s → %(target)s, dashboards: %(plan)s) and runs only as "
            "saved; the request also says %(given)s. To move anything else, create a new migration."
        ) % {
            "id": migration_id,
            "source": saved["source_env_id"],
            "target": saved["target_env_id"],
            "plan": ", ".join(map(str, saved["dashboard_ids"])),
            "given": "; ".join(words[name](given[name]) for name in contradicting),
        }
        return cls(model, person)
