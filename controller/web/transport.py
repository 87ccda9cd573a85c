"""Connection limits of the web server: no address on the network can lock the phones out.

uvicorn alone keeps every socket until its client lets go, and its only limit
(``limit_concurrency``) answers 503 to everybody once it is reached, so a thousand idle
sockets from one machine shut out every phone at the table. Here, per server:

- at most ``Limits.per_address`` open connections from one client address (loopback too);
  one more is answered 503 and closed at once, and no other address notices;
- at most ``Limits.total`` connections in all (never more than the process's file
  descriptors allow); at that cap a newcomer takes the place of the oldest waiting
  connection of the address that holds the most, when that address holds more than the
  newcomer's (else the newcomer is refused): a phone gets in while an attacker holds the
  most, even one attacker address each;
- a connection must send a complete request (header and body) within ``header_timeout``
  seconds of opening, or of its first byte after a pause between requests (sending byte by
  byte does not extend it), and one that sits idle between requests is closed after
  ``idle_timeout``;
- at most ``streams`` event streams in all and ``streams_per_address`` per address (the
  server's ``/api/events`` asks :meth:`Connections.open_stream`).

A connection whose whole request the app has and is answering (an event stream, a control
waiting for the table) has no timer: the app bounds its own time.

:func:`protocol_class` gives uvicorn's h11 protocol with these checks, for
``uvicorn.Config(http=...)``. Everything runs on the server's event loop (no locks); the
timers are the loop's (``call_later``, on the loop's clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass
from typing import Any

_BUSY = b"too many connections: try again later\n"
#: What a connection over a cap gets before it is closed.
REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
           b"content-length: %d\r\nretry-after: 5\r\nconnection: close\r\n\r\n%s"
           % (len(_BUSY), _BUSY))


@dataclass(frozen=True)
class Limits:
    """The server's connection limits (see the module docstring); seconds for timeouts."""

    per_address: int = 32
    total: int = 1000
    streams: int = 256
    streams_per_address: int = 8
    header_timeout: float = 5.0
    idle_timeout: float = 10.0


def fd_budget(reserve: int = 100) -> int:
    """How many connections the process's open-file limit leaves room for."""
    try:
        import resource
    except ImportError:  # not a Unix: no such limit to respect
        return 1 << 30
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 30
    return max(16, soft - reserve)


class Connections:
    """The open connections and event streams of one server, by client address (used on the
    server's loop only). The counters say what the limits did."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.total = min(self.limits.total, fd_budget())
        self._by_address: dict[str, dict[Any, None]] = {}  # in the order they came
        self._streams: dict[str, int] = {}
        self.open = 0
        self.streams = 0
        self.seen = 0  # connections ever offered (admitted or refused)
        self.refused = 0  # connections over a cap, closed at once
        self.evicted = 0  # waiting connections closed for a newcomer at the total cap
        self.timed_out = 0  # closed: no complete header in time, or idle too long
        self.streams_refused = 0

    def count(self, address: str) -> int:
        """Open connections from ``address``."""
        return len(self._by_address.get(address, ()))

    def held(self, address: str) -> list[Any]:
        """The open connections (protocols) from ``address``, oldest first."""
        return list(self._by_address.get(address, ()))

    def admit(self, conn: Any, address: str) -> bool:
        """Count ``conn`` from ``address`` in; False (counted as refused) when over a cap."""
        self.seen += 1
        if self.count(address) >= self.limits.per_address or (
                self.open >= self.total and not self._evict_for(address)):
            self.refused += 1
            return False
        self._by_address.setdefault(address, {})[conn] = None
        self.open += 1
        return True

    def release(self, conn: Any) -> None:
        """``conn`` has closed (safe twice, and for a connection never admitted)."""
        address = getattr(conn, "address", None)
        held = self._by_address.get(address) if isinstance(address, str) else None
        if held is None or conn not in held:
            return
        del held[conn]
        if not held:
            del self._by_address[address]  # type: ignore[arg-type]
        self.open -= 1

    def _evict_for(self, address: str) -> bool:
        """At the total cap: close the oldest waiting connection of the address holding the
        most, if it holds more than ``address`` does; whether one was closed."""
        if not self._by_address:
            return False
        busiest = max(self._by_address, key=lambda a: len(self._by_address[a]))
        if len(self._by_address[busiest]) <= self.count(address):
            return False
        victim = next((c for c in self._by_address[busiest] if c.waiting), None)
        if victim is None:
            return False
        self.release(victim)
        victim.close_now()
        self.evicted += 1
        return True

    # ------------------------------------------------------------------ event streams
    def open_stream(self, address: str) -> bool:
        """Count one more event stream from ``address``; False when over a cap."""
        mine = self._streams.get(address, 0)
        if mine >= self.limits.streams_per_address or self.streams >= self.limits.streams:
            self.streams_refused += 1
            return False
        self._streams[address] = mine + 1
        self.streams += 1
        return True

    def close_stream(self, address: str) -> None:
        """An event stream from ``address`` has ended."""
        mine = self._streams.get(address, 0)
        if mine <= 0:
            return
        if mine == 1:
            del self._streams[address]
        else:
            self._streams[address] = mine - 1
        self.streams -= 1


def client_address(scope: Any) -> str:
    """The client's address of an ASGI scope ('' when it has none)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def no_delay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on the connection. asyncio sets it only on sockets created with
    ``proto=IPPROTO_TCP``, and a socket bound by hand has proto 0: without it, a response's
    header and body writes meet the client's delayed ACK, 40 ms a request on a kept-alive
    connection."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def protocol_class(connections: Connections) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol under ``connections``' limits: ``uvicorn.Config(http=...)``."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    limits = connections.limits

    class GuardedH11Protocol(H11Protocol):
        """H11Protocol counted per address, with a header timer and an idle timer."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.address = ""
            self.admitted = False
            # header: a request (its header, then its body) is due; idle: between requests;
            # app: the whole request is in and the app answers it (no timer)
            self._phase = "header"
            self._timer: asyncio.TimerHandle | None = None

        @property
        def waiting(self) -> bool:
            """Whether no request of this connection is being answered."""
            return self._phase != "app"

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            no_delay(transport)
            self.address = self.client[0] if self.client else ""
            if not connections.admit(self, self.address):
                transport.write(REFUSED)
                transport.close()
                return
            self.admitted = True
            self._arm(limits.header_timeout)

        def data_received(self, data: bytes) -> None:
            if not self.admitted or self.transport.is_closing():
                return
            if self._phase == "idle":  # the first byte of the next request
                self._phase = "header"
                self._arm(limits.header_timeout)
            super().data_received(data)
            self._update()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._update()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            connections.release(self)
            super().connection_lost(exc)

        def close_now(self) -> None:
            """Close at once (a newcomer takes this connection's place)."""
            self._disarm()
            if not self.transport.is_closing():
                self.transport.close()

        def _update(self) -> None:
            if self.transport.is_closing():
                self._disarm()
            elif self.cycle is not None and not self.cycle.response_complete:
                if self.conn.their_state is h11.SEND_BODY:  # the body is still coming:
                    if self._phase == "app":  # (a pipelined request) the request's deadline
                        self._phase = "header"
                        self._arm(limits.header_timeout)
                    return
                self._phase = "app"  # the whole request is in: the app bounds its own time
                self._disarm()
            elif self._phase == "app":  # an answer went out: wait for the next request
                pending = (self.conn.their_state is not h11.IDLE
                           or bool(self.conn.trailing_data[0]))
                self._phase = "header" if pending else "idle"
                self._arm(limits.header_timeout if pending else limits.idle_timeout)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._timer = self.loop.call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expire(self) -> None:
            self._timer = None
            if self._phase != "app" and not self.transport.is_closing():
                connections.timed_out += 1
                self.transport.close()

    return GuardedH11Protocol
