"""A tiny TCP proxy between one table and the broker, that a test can cut and restore (a
Wi-Fi cut, seen from the table: its connection drops and reconnecting fails until restored)."""

from __future__ import annotations

import socket
import threading


class Proxy:
    """Listens on 127.0.0.1:``port`` and forwards to 127.0.0.1:``target``. :meth:`cut` drops
    every connection and refuses new ones (accepted and closed at once, counted in
    ``refused``) until :meth:`restore`."""

    def __init__(self, target: int) -> None:
        self.target = target
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._up = True
        self._closed = False
        self.refused = 0
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True, name="proxy").start()

    def url(self, path: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}/{path}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return  # closed
            with self._lock:
                up = self._up and not self._closed
                if not up:
                    self.refused += 1
            if not up:
                conn.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                conn.close()
                continue
            upstream.settimeout(None)
            for s in (conn, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._open += [conn, upstream]
                self.accepted += 1
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        """Drop every connection; refuse new ones until :meth:`restore`."""
        with self._lock:
            self._up = False
            conns, self._open = self._open, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self) -> None:
        with self._lock:
            self._up = True

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._server.close()
        self.cut()
