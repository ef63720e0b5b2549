"""A counting reverse proxy on loopback, put in front of a local Superset to count upstream requests.

Tests point an ``Environment`` at ``proxy.url``; every request the app sends to that environment passes here
and is counted, then forwarded unchanged to the real instance (the answer is the real one).
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from tests.support.loopback import serve_in_thread, stop_serving

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host", "content-length"}


class CountingProxy:
    """Forwards HTTP requests to ``upstream`` and counts them.

    Attributes:
        url: the proxy's base URL (``http://127.0.0.1:<port>``).
        requests: ``[(method, path)]`` seen so far.
        answers: with ``keep_json``, ``[(method, path, status, JSON body or None)]`` of every request (a JSON answer
            of at most ``JSON_KEPT_BYTES``; others None), in order: what a bench reads ids from.
    """

    JSON_KEPT_BYTES = 2_000_000

    def __init__(self, upstream: str, *, keep_json: bool = False):
        self.upstream = upstream.rstrip("/")
        self.requests: list[tuple[str, str]] = []
        self.answers: list[tuple[str, str, int, object]] = []
        self.keep_json = keep_json
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread: threading.Thread | None = None

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self):
                with proxy._lock:
                    proxy.requests.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                with httpx.Client(timeout=30, trust_env=False) as client:
                    answer = client.request(self.command, proxy.upstream + self.path, headers=headers, content=body)
                if proxy.keep_json:
                    proxy.keep(self.command, self.path, answer)
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in HOP_BY_HOP | {"content-encoding"}:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward  # noqa: N815

            def log_message(self, *args):
                pass

        return Handler

    def keep(self, method: str, path: str, answer: httpx.Response) -> None:
        """Record one exchange in ``answers`` (its JSON body when small enough to read)."""
        body = None
        if "json" in answer.headers.get("content-type", "") and len(answer.content) <= self.JSON_KEPT_BYTES:
            try:
                body = answer.json()
            except ValueError:
                body = None
        with self._lock:
            self.answers.append((method, path, answer.status_code, body))

    def __enter__(self) -> "CountingProxy":
        self._thread = serve_in_thread(self._server)
        return self

    def __exit__(self, *exc) -> None:
        assert self._thread is not None
        stop_serving(self._server, self._thread)
