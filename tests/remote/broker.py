"""A real Mosquitto broker for the tests: its own config file, a free loopback port, a folder
for its persistence file. ``python3 dev.py test`` installs Debian's mosquitto; without it the
tests that need a broker skip with the reason (and fail when CI is set)."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def mosquitto_binary() -> str | None:
    """The mosquitto program, or None."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((p for p in MOSQUITTO if Path(p).exists()), None)


def require_mosquitto() -> str:
    """The mosquitto program; skip (fail in CI) when it is not installed."""
    binary = mosquitto_binary()
    if binary is None:
        reason = "Debian's mosquitto is not installed (python3 dev.py test installs it)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """A Mosquitto process on 127.0.0.1:``port``; ``stop()`` and ``start()`` restart it on the
    same port with the same persistence file (a broker restart)."""

    def __init__(self, folder: Path, binary: str | None = None) -> None:
        self.binary = binary or require_mosquitto()
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.conf = folder / "mosquitto.conf"
        self.log = folder / "mosquitto.log"
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous true",
                 "persistence true", f"persistence_location {folder}/",
                 "autosave_interval 1", f"log_dest file {self.log}",
                 "log_type error", "log_type warning", "log_type notice",
                 "set_tcp_nodelay true"]  # (else small packets wait ~40 ms for ACKs)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            lines.append(f"user {getpass.getuser()}")  # else it drops to user 'mosquitto'
        self.conf.write_text("\n".join(lines) + "\n")
        self.start()

    def url(self, path: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}/{path}"

    def start(self, timeout: float = 15.0) -> None:
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                log = self.log.read_text(errors="replace") if self.log.exists() else ""
                raise RuntimeError(f"mosquitto exited {self.proc.returncode}: {err} {log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.02)  # waiting for a process to listen, not timing a test
        raise RuntimeError(f"mosquitto did not listen on port {self.port} in {timeout} s")

    def stop(self) -> None:
        """SIGTERM: mosquitto saves its persistence file and exits."""
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        if self.proc.stderr:
            self.proc.stderr.close()
        self.proc = None

    close = stop
