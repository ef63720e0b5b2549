"""The shape of the tree (issue 12): no module over 400 lines except data and migrations, and at most 10 modules
at the top of ``agentchat/`` (the project package; the rest lives in its subpackages, README "Layout")."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 400
MAX_TOP_MODULES = 10
# The code of the product and its tests; bench/ scripts are outside this check.
CHECKED = ("agentchat", "policies", "scripts", "tests")


def _modules() -> list[Path]:
    return [
        path
        for folder in CHECKED
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    ]


def test_no_module_is_over_400_lines():
    too_long = {}
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            too_long[str(path.relative_to(ROOT))] = lines
    assert too_long == {}, f"split these modules (at most {MAX_LINES} lines each): {too_long}"


def test_agentchat_keeps_at_most_10_modules_at_its_top():
    top = sorted(p.name for p in (ROOT / "agentchat").glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
