"""nginx for the production shape: ``docker/nginx.conf`` itself, with this machine's ports (issue 31 item 1).

compose mounts ``docker/nginx.conf`` into the nginx image as a site; here the same file is included into a main
configuration that Debian's nginx runs from a prefix of its own (pid, logs and temporary files under the stack's
directory, no system service). Only the upstream's ``server`` lines (compose's ``web1:8000``… → one per local web
process, with the same parameters) and the ``listen`` port change.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from scripts.prodlocal.compose import NGINX_SITE

# Each chat socket holds two connections in nginx (client and upstream); the image's default of 1024 per worker
# would cap a load run at about 500 sockets per worker.
WORKER_CONNECTIONS = 16384
_TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def nginx_binary() -> str:
    """Debian's nginx (``scripts/install_nginx.sh`` installs it).

    Raises:
        FileNotFoundError: nginx is not installed.
    """
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        raise FileNotFoundError("nginx is not installed: run scripts/install_nginx.sh (make prod-local does)")
    return found


def site(*, listen: int, upstreams: list[int]) -> str:
    """``docker/nginx.conf`` listening on ``127.0.0.1:<listen>`` with one upstream server per port of ``upstreams``
    (the parameters of the file's first server line, e.g. ``max_fails=3 fail_timeout=10s``, kept on each).

    Raises:
        ValueError: the file has no upstream server line or no ``listen`` line to replace.
    """
    server = re.compile(r"^(\s*)server\s+\S+:\d+(.*);\s*$")
    listen_line = re.compile(r"^(\s*)listen\s+\d+;\s*$")
    out: list[str] = []
    servers = listens = 0
    for line in NGINX_SITE.read_text().splitlines():
        if found := server.match(line):
            if not servers:
                out += [f"{found.group(1)}server 127.0.0.1:{port}{found.group(2)};" for port in upstreams]
            servers += 1
        elif found := listen_line.match(line):
            out.append(f"{found.group(1)}listen 127.0.0.1:{listen};")
            listens += 1
        else:
            out.append(line)
    if not servers or not listens:
        raise ValueError(f"{NGINX_SITE}: no upstream server or listen line")
    return "\n".join(out) + "\n"


def main_config(*, prefix: Path, site_file: Path, log_dir: Path) -> str:
    """The main configuration that includes ``site_file``: foreground, one worker per core, pid, logs and the
    temporary files under ``prefix``/``log_dir``."""
    temp = "\n".join(f"    {name}_temp_path {prefix / name};" for name in _TEMP_DIRS)
    return f"""# Written by scripts/prodlocal (make prod-local): docker/compose.yaml's load balancer, on this machine.
daemon off;
worker_processes auto;
worker_rlimit_nofile {WORKER_CONNECTIONS * 2};
pid {prefix / "nginx.pid"};
error_log {log_dir / "nginx-error.log"} warn;

events {{
    worker_connections {WORKER_CONNECTIONS};
}}

http {{
    access_log {log_dir / "nginx-access.log"};
{temp}
    include {site_file};
}}
"""


def write(*, prefix: Path, log_dir: Path, listen: int, upstreams: list[int]) -> Path:
    """Write the site and the main configuration under ``prefix``; return the main configuration's path.

    Run as root, nginx's workers are ``nobody``: the temporary directories are given to that user.
    """
    prefix.mkdir(parents=True, exist_ok=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    for name in _TEMP_DIRS:
        (prefix / name).mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(prefix / name, user="nobody")
    site_file = prefix / "agentchat.conf"
    site_file.write_text(site(listen=listen, upstreams=upstreams))
    main = prefix / "nginx.conf"
    main.write_text(main_config(prefix=prefix, site_file=site_file, log_dir=log_dir))
    return main
