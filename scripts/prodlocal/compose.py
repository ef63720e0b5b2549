"""What production runs, read from ``docker/compose.yaml`` and ``docker/Dockerfile`` themselves (issue 31 item 1).

``make prod-local`` runs the same commands with the same environment as the containers, so nothing here repeats
them: the web command is the Dockerfile's ``CMD``, its environment the Dockerfile's ``ENV`` plus the ``environment``
of compose's ``x-app`` anchor (``${VAR:-default}`` / ``${VAR:?message}`` read from the caller's environment, as
compose does), the migrate and worker commands compose's own, the static files the Dockerfile's ``collectstatic``.
What differs is only where things are (``Machine``): the machine's PostgreSQL and Redis instead of the ``postgres`` and
``redis`` services, loopback ports instead of ``0.0.0.0:8000``, a directory instead of the ``/data`` volume, the local
Superset pair instead of ``superset.internal``.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO_ROOT / "docker" / "compose.yaml"
DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"
NGINX_SITE = REPO_ROOT / "docker" / "nginx.conf"
CONTAINER_PORT = "8000"  # what the image's daphne listens on
DATA_VOLUME = "/data"  # compose's agentchat-data volume, mounted in every app container
SUPERSET_HOST = "superset.internal"  # compose's alias of the demo Superset service
_INTERPOLATION = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:-|:\?)(?P<arg>[^}]*))?\}")


class PlanError(RuntimeError):
    """compose.yaml or the Dockerfile lacks what the plan reads, or a required variable is unset."""


@dataclass(frozen=True)
class Machine:
    """Where this machine has what compose gives each container.

    Attributes:
        database_url: the machine's PostgreSQL database (for compose's ``DATABASE_URL``).
        redis_url: the machine's Redis database (for compose's ``REDIS_URL``).
        data_dir: the directory standing in for the ``/data`` volume.
        superset_host: the host of the local Superset pair (for ``superset.internal``).
        required: values for compose's ``${VAR:?…}`` variables the caller's environment lacks (generated keys).
    """

    database_url: str
    redis_url: str
    data_dir: Path
    superset_host: str = "127.0.0.1"
    required: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """The production shape as commands: what each process runs and with which environment.

    Attributes:
        environment: the app containers' environment (Dockerfile ``ENV`` + compose ``x-app`` environment), with
            the machine's database, Redis and data directory in place of the services and the volume.
        build: the image's static-files step (a shell command).
        migrate: compose's one-shot ``migrate`` command (argv).
        web: the image's ``CMD`` (argv) with ``{port}`` where the container port was, bound to 127.0.0.1.
        worker: compose's ``worker`` command (argv).
        health_path: the path the image's ``HEALTHCHECK`` asks (``/healthz?superset=0``).
    """

    environment: dict[str, str]
    build: str
    migrate: list[str]
    web: list[str]
    worker: list[str]
    health_path: str


def interpolate(value: str, source: dict[str, str], required: dict[str, str]) -> str:
    """Compose's variable interpolation of ``value``: ``${X}``, ``${X:-default}`` (unset or empty: default),
    ``${X:?message}`` (unset or empty: ``required[X]``, else an error).

    Raises:
        PlanError: a ``${X:?…}`` variable is neither in ``source`` nor in ``required``.
    """

    def one(found: re.Match[str]) -> str:
        name, op, arg = found.group("name"), found.group("op"), found.group("arg") or ""
        if source.get(name):
            return source[name]
        if op == ":-":
            return arg
        if op == ":?":
            if name in required:
                return required[name]
            raise PlanError(f"{name}: {arg or 'required'}")
        return ""

    return _INTERPOLATION.sub(one, value)


def _dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` of a Dockerfile, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        keyword, _, rest = line.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
    return instructions


def _image(text: str) -> dict[str, Any]:
    """The image's ``ENV`` pairs, ``CMD`` argv, the ``collectstatic`` step of its ``RUN`` and its health path."""
    env: dict[str, str] = {}
    cmd: list[str] = []
    build = health = ""
    for keyword, rest in _dockerfile_instructions(text):
        if keyword == "ENV":
            env.update(dict(pair.split("=", 1) for pair in shlex.split(rest)))
        elif keyword == "CMD":
            cmd = json.loads(rest)
        elif keyword == "RUN" and "collectstatic" in rest:
            build = next(step.strip() for step in rest.split("&&") if "collectstatic" in step)
        elif keyword == "HEALTHCHECK":
            found = re.search(r"https?://[^/'\"]+(/[^'\"]*)", rest)
            health = found.group(1) if found else ""
    if not cmd or not build or not health:
        raise PlanError(f"{DOCKERFILE}: no CMD, collectstatic RUN step or HEALTHCHECK URL found")
    return {"env": env, "cmd": cmd, "build": build, "health": health}


def _command(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    if isinstance(command, str):
        return shlex.split(command)
    if not command:
        raise PlanError(f"{COMPOSE_FILE}: a service has no command")
    return [str(part) for part in command]


def plan(machine: Machine, source: dict[str, str]) -> Plan:
    """Read the production shape from compose.yaml and the Dockerfile and place it on ``machine``.

    Args:
        machine: where the database, Redis, the data volume and Superset are on this machine.
        source: the caller's environment (compose's interpolation reads the shell's).

    Raises:
        PlanError: a file lacks what is read here, or a required variable is unset.
    """
    compose = yaml.safe_load(COMPOSE_FILE.read_text())
    image = _image(DOCKERFILE.read_text())
    services = compose["services"]
    app_env = {k: interpolate(str(v), source, machine.required) for k, v in compose["x-app"]["environment"].items()}
    environment = {**image["env"], **app_env}
    environment.update(DATABASE_URL=machine.database_url, REDIS_URL=machine.redis_url)
    for name, value in environment.items():
        if value == DATA_VOLUME or value.startswith(DATA_VOLUME + "/"):
            environment[name] = str(machine.data_dir) + value[len(DATA_VOLUME) :]
    web = list(image["cmd"])
    web[web.index("-b") + 1] = "127.0.0.1"
    web[web.index("-p") + 1] = "{port}"
    migrate = [part.replace(SUPERSET_HOST, machine.superset_host) for part in _command(services["migrate"])]
    return Plan(
        environment=environment,
        build=image["build"],
        migrate=migrate,
        web=web,
        worker=_command(services["worker"]),
        health_path=image["health"],
    )
