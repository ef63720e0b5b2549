"""A Redis server of one test's own (issue 31: the Redis of the machine is shared, so a test that restarts Redis
starts, kills and starts again one it owns): Debian's ``redis-server`` on a free loopback port, no persistence."""

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.support.processes import free_port


class RedisServer:
    """``redis-server`` on ``127.0.0.1:<port>`` (a free one), its log in ``log``; ``restart`` keeps the port.

    Raises (``start``):
        RuntimeError: no ``redis-server`` binary, or it did not answer within 10 s.
    """

    def __init__(self, log: Path):
        self.log = log
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> "RedisServer":
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server not installed (Debian package redis-server)")
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(argv, cwd=self.log.parent, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on :{self.port} did not answer: {self.log.read_text()[-1000:]}")

    def kill(self) -> None:
        """SIGKILL (a crash: everything it held is gone) and reap."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def restart(self, down_s: float = 0.0) -> None:
        """Kill it, stay down ``down_s`` seconds, start an empty one on the same port."""
        self.kill()
        time.sleep(down_s)
        self.start()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
