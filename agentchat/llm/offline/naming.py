"""Which object kind a question names by its title or slug (issue 16 review): «задеплой дашборд energy-report в
prod» names a dashboard itself, so on another dashboard's page the planner searches for it instead of using the page's.
"""

import re

_NOUNS = (("dashboard", r"дашборд\w*|дашик\w*|dashboard"), ("dataset", r"датасет\w*|dataset"))


def named_kind(plain: str, text: str | None) -> str | None:
    """The object kind whose noun stands right before the searched ``text`` («дашборд energy-report», "dataset
    «regions»"): the question names an object of that kind itself (issue 16 review), else None."""
    if not text:
        return None
    for kind, noun in _NOUNS:
        if re.search(rf"(?:{noun})\s+[«\"“']?{re.escape(text[:3])}", plain, re.I):
            return kind
    return None
