"""A fault-injecting HTTP proxy: a real aiohttp server on loopback between the app and a real local Superset.

Faults are injected per request pattern (method + path regex) and everything that arrives is recorded with a
monotonic timestamp, so tests and benches can count upstream requests exactly (DESIGN §10, issue 4)::

    with FaultProxy("http://127.0.0.1:8088") as proxy:
        proxy.inject("GET", r"^/api/v1/dashboard/$", Fault.STATUS, status=503, times=1)
        ...                                   # point an Environment at proxy.url
        assert proxy.count("GET", r"^/api/v1/dashboard/$") == 2

Faults:
    STATUS              answer ``status`` (502, 503, 401, 429 with ``Retry-After`` …) without forwarding.
    RESET               reset the TCP connection (RST, SO_LINGER 0) without answering.
    HANG                never answer (until the proxy stops or ``hang_s`` pass); nothing is forwarded.
    COMMIT_THEN_HANG    forward the request to Superset (it is applied there), then never answer.
    COMMIT_THEN_STATUS  forward the request (applied), then answer ``status`` (502 by default) instead.

A request that matches no active rule is forwarded unchanged. Rules are tried in the order they were added;
``times`` limits a rule to its first N matches, ``probability`` makes it fire at random (seeded).
"""

import asyncio
import random
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum

import aiohttp
from aiohttp import web

CALL_HEADER = "X-Agentchat-Call"
#: The dev ``Environment`` the tests point at a fault proxy in front of ss-dev (fixture ``faulty_env``).
FAULTY_ENV = "faulty"
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)


class Fault(StrEnum):
    STATUS = "status"
    RESET = "reset"
    HANG = "hang"
    COMMIT_THEN_HANG = "commit_then_hang"
    COMMIT_THEN_STATUS = "commit_then_status"


@dataclass
class Rule:
    """One injected fault: requests whose method and path match get ``fault``.

    Attributes:
        method: HTTP method, or ``*`` for any.
        path: regex searched in the request path (without the query string).
        fault: what happens.
        status: HTTP status of STATUS / COMMIT_THEN_STATUS.
        times: fire for the first N matching requests only (None: always).
        probability: chance of firing per matching request (1.0: always).
        retry_after: ``Retry-After`` header value of the answer, if any.
        hang_s: longest hang in seconds (the proxy's stop ends it sooner).
        fired: how often it fired.
    """

    method: str
    path: re.Pattern
    fault: Fault
    status: int = 503
    times: int | None = None
    probability: float = 1.0
    retry_after: str | None = None
    hang_s: float = 300.0
    fired: int = 0

    def matches(self, method: str, path: str) -> bool:
        return (self.method in ("*", method)) and self.path.search(path) is not None


@dataclass(frozen=True)
class Hit:
    """One request the proxy received: ``at`` is ``time.monotonic()``; ``fault`` is ``forward`` when none fired."""

    at: float
    method: str
    path: str
    fault: str
    call: str | None


@dataclass
class FaultProxy:
    """The proxy; ``start()`` serves on ``127.0.0.1`` (random port) from a thread with its own event loop.

    Args:
        upstream: base URL of the real Superset, e.g. ``http://127.0.0.1:8088``.
        seed: seed of the random generator behind ``probability``.
    """

    upstream: str
    seed: int = 0
    port: int = 0
    _rules: list[Rule] = field(default_factory=list)
    _hits: list[Hit] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self):
        self.upstream = self.upstream.rstrip("/")
        self._random = random.Random(self.seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> "FaultProxy":
        """Start serving; returns self once the port is bound."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faultproxy", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        """Stop serving: hung requests are released, the thread ends."""
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        self._loop = None

    def __enter__(self) -> "FaultProxy":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Base URL to give the app instead of Superset's."""
        return f"http://127.0.0.1:{self.port}"

    # --- rules and records -----------------------------------------------------------------------------------
    def inject(
        self,
        method: str,
        path: str,
        fault: Fault,
        *,
        status: int | None = None,
        times: int | None = None,
        probability: float = 1.0,
        retry_after: str | None = None,
        hang_s: float = 300.0,
    ) -> Rule:
        """Add a fault for requests matching ``method`` (or ``*``) and the ``path`` regex; return the rule."""
        default_status = 502 if fault is Fault.COMMIT_THEN_STATUS else 503
        rule = Rule(
            method=method.upper(),
            path=re.compile(path),
            fault=fault,
            status=status or default_status,
            times=times,
            probability=probability,
            retry_after=retry_after,
            hang_s=hang_s,
        )
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        """Remove every rule (hung requests stay hung); recorded hits are kept."""
        with self._lock:
            self._rules.clear()

    def hits(self, method: str = "*", path: str = "") -> list[Hit]:
        """Return the recorded requests matching ``method`` (``*``: any) and the ``path`` regex, oldest first."""
        pattern = re.compile(path)
        with self._lock:
            return [h for h in self._hits if method.upper() in ("*", h.method) and pattern.search(h.path) is not None]

    def count(self, method: str = "*", path: str = "") -> int:
        """Return how many requests matching ``method`` and ``path`` arrived."""
        return len(self.hits(method, path))

    def _pick(self, method: str, path: str) -> Rule | None:
        with self._lock:
            for rule in self._rules:
                if not rule.matches(method, path) or (rule.times is not None and rule.fired >= rule.times):
                    continue
                if rule.probability < 1.0 and self._random.random() >= rule.probability:
                    continue
                rule.fired += 1
                return rule
        return None

    def _record(self, request: web.Request, fault: str) -> None:
        hit = Hit(time.monotonic(), request.method, request.path, fault, request.headers.get(CALL_HEADER))
        with self._lock:
            self._hits.append(hit)

    # --- server ----------------------------------------------------------------------------------------------
    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        self._session = aiohttp.ClientSession(auto_decompress=False, timeout=aiohttp.ClientTimeout(total=120))
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        self._stopping.set()
        await self._runner.cleanup()
        await self._session.close()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        rule = self._pick(request.method, request.path)
        self._record(request, rule.fault.value if rule else "forward")
        if rule is None:
            return await self._forward(request)
        if rule.fault is Fault.STATUS:
            return self._status(rule)
        if rule.fault is Fault.RESET:
            return self._reset(request)
        if rule.fault is Fault.HANG:
            return await self._hang(rule)
        await self._forward(request)  # committed upstream; the answer is lost
        if rule.fault is Fault.COMMIT_THEN_HANG:
            return await self._hang(rule)
        return self._status(rule)

    async def _forward(self, request: web.Request) -> web.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        body = await request.read()
        async with self._session.request(
            request.method, self.upstream + request.path_qs, headers=headers, data=body, allow_redirects=False
        ) as upstream:
            payload = await upstream.read()
            out = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_BY_HOP}
            return web.Response(status=upstream.status, body=payload, headers=out)

    @staticmethod
    def _status(rule: Rule) -> web.Response:
        headers = {"Retry-After": rule.retry_after} if rule.retry_after is not None else {}
        body = {"message": f"fault proxy: injected HTTP {rule.status}"}
        return web.json_response(body, status=rule.status, headers=headers)

    @staticmethod
    def _reset(request: web.Request) -> web.Response:
        sock = request.transport.get_extra_info("socket") if request.transport else None
        if sock is not None:
            # SO_LINGER with a zero timeout turns close() into a TCP RST.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=599)  # never sent: the transport is gone

    async def _hang(self, rule: Rule) -> web.Response:
        try:
            await asyncio.wait_for(self._stopping.wait(), timeout=rule.hang_s)
        except TimeoutError:
            pass
        return web.json_response({"message": "fault proxy: hang ended"}, status=504)
