"""Loopback HTTP servers run in a thread for the duration of a test (stand-in LLM servers, counting proxies).

``socketserver``'s ``serve_forever`` checks for a shutdown request every ``poll_interval`` seconds (0.5 by
default), so a plain ``shutdown()`` costs up to half a second per server; these helpers poll every 20 ms.
"""

import threading
from socketserver import BaseServer

POLL_INTERVAL_S = 0.02


def serve_in_thread(server: BaseServer) -> threading.Thread:
    """Start ``server.serve_forever`` in a daemon thread and return the thread (stop it with ``stop_serving``)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True)
    thread.start()
    return thread


def stop_serving(server: BaseServer, thread: threading.Thread) -> None:
    """Shut ``server`` down (within ``POLL_INTERVAL_S``), close its socket and join its thread (≤ 5 s)."""
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
