"""Which language the user writes in: the UI is Russian first, English second."""

import re

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")


def detect_language(text: str) -> str:
    """Return ``"en"`` when ``text`` has more Latin than Cyrillic letters, else ``"ru"`` (the default)."""
    latin = len(_LATIN.findall(text or ""))
    cyrillic = len(_CYRILLIC.findall(text or ""))
    return "en" if latin > cyrillic else "ru"
