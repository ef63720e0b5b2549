"""Screenshots the browser tests keep with the test results (issue 30 Must show): the main pages, cards, the SQL
table and the admin lists, in Russian and English, at 1366×900, under ``$TEST_RESULTS_DIR/screenshots`` (default
``var/test-results/screenshots``; ``var/`` is not committed, CI keeps it as an artifact)."""

import os
from pathlib import Path

from tests.support.processes import ROOT

VIEWPORT = {"width": 1366, "height": 900}


def results_dir() -> Path:
    """The directory the screenshots go to (created)."""
    base = Path(os.environ.get("TEST_RESULTS_DIR") or ROOT / "var" / "test-results")
    path = base / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def keep(page, name: str, *, element=None) -> Path:
    """Save ``page`` (the whole page) or one ``element`` of it as ``<name>.png``; return the file."""
    path = results_dir() / f"{name}.png"
    if element is not None:
        element.screenshot(path=path)
    else:
        page.screenshot(path=path, full_page=True)
    return path
