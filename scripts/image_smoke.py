"""Build the agentchat image and run its smoke check (issue 31 item 7): ``python -m scripts.image_smoke``.

Needs a Docker daemon (Debian's ``docker.io``: ``/usr/bin/docker``, ``dockerd`` running) and root for
``debootstrap``. Images cannot be pulled on this machine kind (no registry but the package ones answers), so the
Dockerfile's pinned base (``python:3.11.11-slim-bookworm``) is replaced by one of the same kind built from Debian's
own packages: ``debootstrap --variant=minbase bookworm`` with Debian's Python 3.11 in a virtualenv at
``/opt/python`` first on ``PATH``, imported as ``agentchat-base:bookworm-py<version>`` (``BASE`` build argument).
The smoke check then, with host networking against this machine's PostgreSQL, Redis and the local Superset pair:
runs ``migrate`` and ``seed_demo`` in the image, starts the image's own web command on ``IMAGE_SMOKE_PORT`` (8330)
with the image's health check on that port, waits for Docker to report the container healthy, checks ``/healthz``,
signs ``engineer`` in and asks one chat question about the dashboard of the page (offline planner, real Superset),
and checks that the process runs as the image's non-root user and that no key file was baked into a layer. Not part
of CI (no daemon there); README says what was verified and when.

Settable: ``IMAGE_SMOKE_PORT``, ``IMAGE_SMOKE_DATABASE_URL`` (default ``…/agentchat_image_smoke``, dropped and
created), ``IMAGE_SMOKE_REDIS_URL`` (default Redis db 13), ``DOCKER`` (default ``/usr/bin/docker``).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCKER = os.environ.get("DOCKER") or "/usr/bin/docker"
IMAGE = "agentchat:smoke"
CONTAINER = "agentchat-image-smoke"
WORK = REPO_ROOT / "var" / "image-smoke"


def tool(name: str) -> str:
    """The absolute path of a host program (``debootstrap``, ``chroot``, ``tar``).

    Raises:
        SystemExit: it is not installed.
    """
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if found is None:
        raise SystemExit(f"image-smoke: {name} is not installed (Debian package {name})")
    return found


def log(message: str) -> None:
    print(f"image-smoke: {message}", flush=True)


def docker(*args: str, check: bool = True, capture: bool = True, stdin: bytes | None = None) -> str:
    """Run ``docker <args>``; its stdout. Raises ``subprocess.CalledProcessError`` on failure (with ``check``)."""
    done = subprocess.run(
        [DOCKER, *args], capture_output=capture, input=stdin, check=False, cwd=REPO_ROOT, timeout=1800
    )
    if check and done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, [DOCKER, *args], done.stdout, done.stderr)
    return (done.stdout or b"").decode(errors="replace")


def base_image() -> str:
    """The local base (built once): Debian 12 from its own packages with Python 3.11 in ``/opt/python``."""
    found = docker("images", "--format", "{{.Repository}}:{{.Tag}}", "agentchat-base").split()
    if found:
        log(f"base image {found[0]} (built earlier)")
        return found[0]
    rootfs = WORK / "rootfs"
    shutil.rmtree(rootfs, ignore_errors=True)
    rootfs.parent.mkdir(parents=True, exist_ok=True)
    log("debootstrap bookworm (Debian's packages, a few minutes)")
    subprocess.run(
        [
            tool("debootstrap"),
            "--variant=minbase",
            "--include=python3,python3-venv,ca-certificates,libgomp1,passwd",
            "bookworm",
            str(rootfs),
            "http://deb.debian.org/debian",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run([tool("chroot"), str(rootfs), "python3", "-m", "venv", "/opt/python"], check=True)
    version = subprocess.run(
        [
            tool("chroot"),
            str(rootfs),
            "/opt/python/bin/python",
            "-c",
            "import platform; print(platform.python_version())",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # This machine's trust store (it reaches PyPI through it); the image built on it uses the same.
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", rootfs / "etc/ssl/certs/ca-certificates.crt")
    for path in ("var/cache/apt/archives", "var/lib/apt/lists"):
        shutil.rmtree(rootfs / path, ignore_errors=True)
        (rootfs / path).mkdir(parents=True, exist_ok=True)
    tag = f"agentchat-base:bookworm-py{version}"
    tar = subprocess.Popen([tool("tar"), "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
    subprocess.run(
        [
            DOCKER,
            "import",
            "--change",
            "ENV PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "--change",
            "ENV LANG=C.UTF-8",
            "-",
            tag,
        ],
        stdin=tar.stdout,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    tar.wait()
    shutil.rmtree(rootfs, ignore_errors=True)
    log(f"base image {tag} imported")
    return tag


def build(base: str) -> None:
    log(f"docker build -f docker/Dockerfile --build-arg BASE={base} (host network: apt and PyPI)")
    began = time.monotonic()
    done = subprocess.run(
        [
            DOCKER,
            "build",
            "--network",
            "host",
            "--build-arg",
            f"BASE={base}",
            "-f",
            "docker/Dockerfile",
            "-t",
            IMAGE,
            ".",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    (WORK / "build.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"image-smoke: build failed, {WORK / 'build.log'}:\n{(done.stdout + done.stderr)[-3000:]}")
    log(f"built {IMAGE} in {time.monotonic() - began:.0f} s")


def fresh_database(url: str) -> None:
    import psycopg  # noqa: PLC0415 - the project's dependency, needed here only

    parts = re.match(r"(.*/)([^/]+)$", url)
    if parts is None:
        raise SystemExit(f"image-smoke: not a database URL: {url}")
    with psycopg.connect(parts.group(1) + "postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.group(2)}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{parts.group(2)}"')


def web_command(port: int) -> list[str]:
    """The image's own web command (``Config.Cmd``) on 127.0.0.1:``port``."""
    cmd = json.loads(docker("image", "inspect", "--format", "{{json .Config.Cmd}}", IMAGE))
    cmd[cmd.index("-b") + 1] = "127.0.0.1"
    cmd[cmd.index("-p") + 1] = str(port)
    return cmd


def image_checks() -> dict[str, object]:
    config = json.loads(docker("image", "inspect", "--format", "{{json .Config}}", IMAGE))
    return {"user": config.get("User"), "healthcheck": (config.get("Healthcheck") or {}).get("Test")}


async def chat_turn(base: str) -> str:
    """Sign ``engineer`` in through the container and ask about dashboard 1 of ss-dev; the final answer."""
    from websockets.asyncio.client import connect  # noqa: PLC0415 - the project's dependency, needed here only

    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=60) as http:
        page = await http.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        form = {
            "username": "engineer",
            "password": os.environ.get("DEMO_PASSWORD", "demo"),
            "csrfmiddlewaretoken": token,
        }
        await http.post("/accounts/login/", data=form, headers={"Referer": base + "/accounts/login/"})
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
    host = base.split("//", 1)[1]
    context = {
        "contextVersion": 1,
        "objectType": "dashboard",
        "objectId": "1",
        "objectName": None,
        "envId": "ss-dev",
        "route": "/dashboards/1/",
    }
    async with connect(f"ws://{host}/ws/agent/", origin=base, additional_headers={"Cookie": cookie}) as ws:
        frame = {
            "type": "user_message",
            "conversation_id": None,
            "text": "расскажи про этот дашборд",
            "context": context,
        }
        await ws.send(json.dumps(frame, ensure_ascii=False))
        async with asyncio.timeout(120):
            async for raw in ws:
                got = json.loads(raw)
                if got["event"] in ("message", "error"):
                    return got.get("text") or got.get("message", "")
    return ""


def smoke() -> None:
    port = int(os.environ.get("IMAGE_SMOKE_PORT") or 8330)
    database = os.environ.get("IMAGE_SMOKE_DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/agentchat_image_smoke"
    redis = os.environ.get("IMAGE_SMOKE_REDIS_URL") or "redis://127.0.0.1:6379/13"
    from cryptography.fernet import Fernet  # noqa: PLC0415 - the project's dependency, needed here only

    fresh_database(database)
    env = {
        "DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "AGENTCHAT_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database,
        "REDIS_URL": redis,
        "CHANNELS_PREFIX": f"image-smoke-{secrets.token_hex(4)}",
        "EMBEDDINGS": "off",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".env", delete=False) as handle:
        handle.write("".join(f"{k}={v}\n" for k, v in env.items()))
        env_file = handle.name
    os.chmod(env_file, 0o600)
    run = ["run", "--rm", "--network", "host", "--env-file", env_file, IMAGE]
    try:
        log("migrate + seed_demo in the image")
        docker(*run, "python", "manage.py", "migrate", "--noinput")
        docker(*run, "python", "manage.py", "seed_demo", "--force")
        docker("rm", "-f", CONTAINER, check=False)
        url = f"http://127.0.0.1:{port}/healthz?superset=0"  # the image's HEALTHCHECK, on the smoke port
        probe = f"import sys, urllib.request; sys.exit(urllib.request.urlopen('{url}', timeout=4).status != 200)"
        docker(
            "run", "-d", "--name", CONTAINER, "--network", "host", "--env-file", env_file,
            "--health-cmd", f'python -c "{probe}"', "--health-interval", "2s", "--health-start-period", "5s",
            IMAGE, *web_command(port),
        )  # fmt: skip
        deadline = time.monotonic() + 120
        status = ""
        while time.monotonic() < deadline and status != "healthy":
            time.sleep(1)
            status = docker("inspect", "--format", "{{.State.Health.Status}}", CONTAINER).strip()
        health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10, trust_env=False)
        answer = asyncio.run(chat_turn(f"http://127.0.0.1:{port}"))
        uid = docker("exec", CONTAINER, "id", "-u").strip()
        baked = docker("run", "--rm", "--network", "none", IMAGE, "ls", "/app/var").split()  # no key in a layer
        checks = image_checks()
        ok = (
            status == "healthy"
            and health.status_code == 200
            and "Отчёт по энергопотреблению" in answer
            and uid != "0"
            and not {"encryption_key", "django_secret_key"} & set(baked)
            and checks["user"] == "10001:10001"
            and "/healthz?superset=0" in " ".join(checks["healthcheck"] or [])
        )
        log(f"container health: {status}; GET /healthz {health.status_code} {health.json().get('status')}")
        log(f"chat turn: {answer[:120]!r}")
        log(f"process uid {uid}; image User {checks['user']}; HEALTHCHECK {checks['healthcheck']}")
        log(f"/app/var in the image: {baked} (no key file)")
        log(f"web command: {' '.join(web_command(port))}")
        if not ok:
            tail = docker("logs", "--tail", "50", CONTAINER, check=False)
            raise SystemExit(f"image-smoke: FAILED\n{tail}")
        log("OK")
    finally:
        docker("rm", "-f", CONTAINER, check=False)
        os.unlink(env_file)


def main() -> int:
    if not Path(DOCKER).exists() or subprocess.run([DOCKER, "info"], capture_output=True).returncode != 0:
        print(f"image-smoke: no Docker daemon answers ({DOCKER} info failed): start dockerd first", file=sys.stderr)
        return 1
    WORK.mkdir(parents=True, exist_ok=True)
    build(base_image())
    smoke()
    return 0


if __name__ == "__main__":
    sys.exit(main())
