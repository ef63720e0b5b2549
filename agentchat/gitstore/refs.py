"""Branch names checked by git's own rules (``git check-ref-format --branch``), with reasons users can read.

Source: git-check-ref-format(1) rules 1–10 for ``refs/heads/<name>``, plus what ``git branch`` refuses on top of
them (a leading ``-`` and the name ``HEAD``) and our own length limit. DESIGN §8, issue 5.
"""

import re

MAX_BRANCH_BYTES = 200  # ours, not git's: keeps every component well under the 255-byte file-name limit
FORBIDDEN_CHARS = frozenset(" ~^:?*[\\")

# rule key: (ru, en)
PROBLEMS: dict[str, tuple[str, str]] = {
    "empty": ("имя ветки пустое", "the branch name is empty"),
    "too_long": (
        f"имя ветки длиннее {MAX_BRANCH_BYTES} байт",
        f"the branch name is longer than {MAX_BRANCH_BYTES} bytes",
    ),
    "encoding": ("имя ветки не является корректным текстом UTF-8", "the branch name is not valid UTF-8 text"),
    "leading_dash": ("имя ветки не может начинаться с «-»", "a branch name cannot start with “-”"),
    "reserved": ("«HEAD» и «@» — зарезервированные имена", "“HEAD” and “@” are reserved names"),
    "control_char": ("в имени ветки есть управляющие символы", "the branch name contains control characters"),
    "forbidden_char": (
        "в имени ветки нельзя использовать пробел и символы ~ ^ : ? * [ \\",
        "a branch name cannot contain a space or any of ~ ^ : ? * [ \\",
    ),
    "double_dot": ("в имени ветки нельзя использовать «..»", "a branch name cannot contain “..”"),
    "at_brace": ("в имени ветки нельзя использовать «@{»", "a branch name cannot contain “@{”"),
    "slash": (
        "имя ветки не может начинаться или заканчиваться «/» и содержать «//»",
        "a branch name cannot start or end with “/” or contain “//”",
    ),
    "trailing_dot": ("имя ветки не может заканчиваться точкой", "a branch name cannot end with a dot"),
    "component_dot": (
        "части имени между «/» не могут начинаться с точки",
        "the parts of a branch name between “/” cannot start with a dot",
    ),
    "lock_suffix": (
        "части имени между «/» не могут заканчиваться на «.lock»",
        "the parts of a branch name between “/” cannot end with “.lock”",
    ),
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


def branch_name_message(problem: str, language: str = "ru") -> str:
    """Return the user-facing text of a ``branch_name_problem`` key in ``language`` (``ru``/``en``)."""
    ru, en = PROBLEMS[problem]
    return en if language == "en" else ru
