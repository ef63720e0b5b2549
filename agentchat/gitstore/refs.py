"""Branch names checked by git's own rules (``git check-ref-format --branch``), with reasons users can read.

Source: git-check-ref-format(1) rules 1–10 for ``refs/heads/<name>``, plus what ``git branch`` refuses on top of
them (a leading ``-`` and the name ``HEAD``) and our own length limit. DESIGN §8, issue 5.
"""

import re
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy, ngettext_lazy

from agentchat.language import in_language

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

MAX_BRANCH_BYTES = 200  # ours, not git's: keeps every component well under the 255-byte file-name limit
FORBIDDEN_CHARS = frozenset(" ~^:?*[\\")

# rule key: the reason as users read it (a lazy msgid; ``too_long`` takes the limit as ``max``)
PROBLEMS: dict[str, "StrOrPromise"] = {
    "empty": gettext_lazy("the branch name is empty"),
    "too_long": ngettext_lazy(
        "the branch name is longer than %(max)d byte", "the branch name is longer than %(max)d bytes", "max"
    ),
    "encoding": gettext_lazy("the branch name is not valid UTF-8 text"),
    "leading_dash": gettext_lazy("a branch name cannot start with “-”"),
    "reserved": gettext_lazy("“HEAD” and “@” are reserved names"),
    "control_char": gettext_lazy("the branch name contains control characters"),
    "forbidden_char": gettext_lazy("a branch name cannot contain a space or any of ~ ^ : ? * [ \\"),
    "double_dot": gettext_lazy("a branch name cannot contain “..”"),
    "at_brace": gettext_lazy("a branch name cannot contain “@{”"),
    "slash": gettext_lazy("a branch name cannot start or end with “/” or contain “//”"),
    "trailing_dot": gettext_lazy("a branch name cannot end with a dot"),
    "component_dot": gettext_lazy("the parts of a branch name between “/” cannot start with a dot"),
    "lock_suffix": gettext_lazy("the parts of a branch name between “/” cannot end with “.lock”"),
}

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def branch_name_problem(name: str) -> str | None:
    """Return the key of the first rule ``name`` breaks (a key of ``PROBLEMS``), or None for a valid branch name.

    Args:
        name: the short branch name as the user typed it (``feature/x``, not ``refs/heads/feature/x``).
    """
    if not name:
        return "empty"
    try:
        encoded = name.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: no file name can hold the ref
        return "encoding"
    if len(encoded) > MAX_BRANCH_BYTES:
        return "too_long"
    if name.startswith("-"):
        return "leading_dash"
    if name in ("HEAD", "@"):
        return "reserved"
    if _CONTROL.search(name):
        return "control_char"
    if any(ch in FORBIDDEN_CHARS for ch in name):
        return "forbidden_char"
    if ".." in name:
        return "double_dot"
    if "@{" in name:
        return "at_brace"
    if name.startswith("/") or name.endswith("/") or "//" in name:
        return "slash"
    if name.endswith("."):
        return "trailing_dot"
    for component in name.split("/"):
        if component.startswith("."):
            return "component_dot"
        if component.endswith(".lock"):
            return "lock_suffix"
    return None


def branch_name_message(problem: str, language: str | None = None) -> str:
    """Return the user-facing text of a ``branch_name_problem`` key in ``language`` (``ru``/``en``; the active
    language when None)."""
    with in_language(language):
        return str(PROBLEMS[problem] % {"max": MAX_BRANCH_BYTES})
