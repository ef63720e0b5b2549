"""A loopback HTTP server answering a few Superset REST paths with fixed JSON, for turn tests that need a tool to
return something without the local Superset pair (``superset`` marker). It records every request path.

Only what a test gives is answered: ``POST /api/v1/security/login`` always (any account), ``GET`` of a path in
``routes`` with its JSON; anything else is 404 ``{"message": "Not found"}``, as Superset answers a missing object.
"""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.support.loopback import serve_in_thread, stop_serving


class FakeSuperset:
    """The server's state: ``routes`` (path → JSON body), ``paths`` (every request's method and path, in order)."""

    def __init__(self, routes: dict[str, Any]):
        self.routes = routes
        self.paths: list[str] = []
        self.lock = threading.Lock()
        self.url = ""


@contextmanager
def fake_superset(routes: dict[str, Any]) -> Iterator[FakeSuperset]:
    """Serve ``routes`` on ``127.0.0.1`` for the ``with`` block; yields the ``FakeSuperset`` (``url`` set)."""
    fake = FakeSuperset(routes)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            path = urlsplit(self.path).path
            with fake.lock:
                fake.paths.append(f"GET {path}")
            if path in fake.routes:
                self._answer(200, fake.routes[path])
            else:
                self._answer(404, {"message": "Not found"})

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            path = urlsplit(self.path).path
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with fake.lock:
                fake.paths.append(f"POST {path}")
            if path == "/api/v1/security/login":
                self._answer(200, {"access_token": "fake-access", "refresh_token": "fake-refresh"})
            else:
                self._answer(404, {"message": "Not found"})

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = serve_in_thread(server)
    try:
        yield fake
    finally:
        stop_serving(server, thread)
