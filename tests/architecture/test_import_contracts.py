"""The import contracts of ``.importlinter`` (DESIGN §2) hold, and breaking one makes ``lint-imports`` fail."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.processes  # every test runs lint-imports in a subprocess


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    """A copy of the two root packages and the contracts, to break without touching the checkout."""
    for package in ("agentchat", "policies"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_contracts_hold_on_the_tree():
    """The checkout keeps every contract."""
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_policies_importing_agentchat_breaks_a_contract(tree_copy: Path):
    """``policies`` importing ``agentchat`` fails the check, naming the contract."""
    models = tree_copy / "policies" / "models.py"
    models.write_text(models.read_text() + "\nimport agentchat.runtime.registry  # noqa\n")
    result = _lint_imports(tree_copy)
    assert result.returncode != 0
    assert "policies never imports agentchat" in result.stdout
    assert "BROKEN" in result.stdout


def test_runtime_importing_a_tool_breaks_the_layers(tree_copy: Path):
    """The runtime importing a tool module (a lower layer importing a higher one) fails the check."""
    executor = tree_copy / "agentchat" / "runtime" / "executor.py"
    executor.write_text(executor.read_text() + "\nimport agentchat.tools.meta  # noqa\n")
    result = _lint_imports(tree_copy)
    assert result.returncode != 0
    assert "agentchat.runtime.executor -> agentchat.tools.meta" in result.stdout


RUFF = Path(sys.executable).with_name("ruff")


def _ruff_local_imports(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RUFF), "check", "--config", str(ROOT / "pyproject.toml"), "--select", "PLC0415", "--no-cache", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_import_inside_a_function_needs_a_reason(tmp_path: Path):
    """``make lint`` (ruff PLC0415) fails on a function-level import unless its ``noqa`` gives the reason."""
    module = tmp_path / "module.py"
    module.write_text('def load() -> str:\n    import json\n\n    return json.dumps("x")\n')
    refused = _ruff_local_imports(module)
    assert refused.returncode != 0
    assert "PLC0415" in refused.stdout

    explained = "    import json  # noqa: PLC0415 - loaded on first use\n"
    module.write_text(f'def load() -> str:\n{explained}\n    return json.dumps("x")\n')
    assert _ruff_local_imports(module).returncode == 0


def test_the_product_has_no_unexplained_local_import():
    """Every function-level import in the product packages carries its reason (issue 12)."""
    result = _ruff_local_imports(ROOT)
    assert result.returncode == 0, result.stdout
