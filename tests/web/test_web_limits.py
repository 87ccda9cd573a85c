"""Connection limits (issue 24, item 1): one address on the network cannot lock the phones
out. Real sockets on loopback; a second client address is 127.0.0.2 (Linux routes all of
127/8 to lo). Short timeouts configured for the test, every wait bounded."""

from __future__ import annotations

import contextlib
import resource
import socket
import time
from collections.abc import Callable, Iterator
from http.client import HTTPConnection
from typing import Any

import pytest
from web_helpers import virtual_server

from controller.web.transport import Connections, Limits

ATTACKER, PLAYER, OTHER = "127.0.0.1", "127.0.0.2", "127.0.0.3"
WAIT = 20.0  # the longest any condition is waited for (s)
TOKEN = "limits-test-token"  # the scripts' X-Dvonn-Token


def _until(cond: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.005)


def _connect(port: int, source: str, timeout: float = WAIT) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                    source_address=(source, 0))


def _closed_by_server(sock: socket.socket, timeout: float = WAIT) -> bool:
    """Whether the server closes ``sock`` within ``timeout`` s (whatever it wrote first)."""
    sock.settimeout(timeout)
    try:
        while sock.recv(4096):
            pass
    except (TimeoutError, BlockingIOError):
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True
    return True


def _request(port: int, method: str, path: str, source: str,
             token: str | None = None) -> tuple[int, bytes]:
    conn = HTTPConnection("127.0.0.1", port, timeout=WAIT, source_address=(source, 0))
    try:
        conn.request(method, path, headers={"X-Dvonn-Token": token} if token else {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


@contextlib.contextmanager
def _sockets(count: int, port: int, source: str) -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            socks.append(_connect(port, source))
        yield socks
    finally:
        for s in socks:
            s.close()


def _fd_room(wanted: int) -> int:
    """How many sockets this test may open (the soft fd limit raised toward the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted + 400:
        target = wanted + 400 if hard == resource.RLIM_INFINITY else min(hard, wanted + 400)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    room = wanted if soft == resource.RLIM_INFINITY else min(wanted, soft - 300)
    assert room >= 100, f"the fd limit ({soft}) leaves too little room for the test"
    return room


def _conns(server: Any) -> Connections:
    return server.web.server.connections  # type: ignore[no-any-return]


def test_a_thousand_idle_sockets_from_one_address_do_not_lock_out_a_player() -> None:
    count = _fd_room(1000)
    limits = Limits(per_address=32, header_timeout=60, idle_timeout=60)  # only the cap acts
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        with _sockets(count, port, ATTACKER) as attack:
            _until(lambda: conns.count(ATTACKER) + conns.refused >= count,
                   "the server has seen every attacking socket")
            assert conns.count(ATTACKER) == 32 and conns.refused == count - 32
            # the player, from another address, is served as if nothing happened
            status, body = _request(port, "GET", "/api/state", PLAYER)
            assert status == 200 and b'"actions":[]' in body
            status, body = _request(port, "POST", "/api/control/click/C3", PLAYER,
                                    TOKEN)
            assert status == 200, body
            assert _request(port, "GET", "/api/state", PLAYER)[1].count(b'"C3"') >= 1
            # the refused sockets were closed at once, the 32 kept ones are still open
            assert sum(_closed_by_server(s, 0.0 if i < 32 else WAIT)
                       for i, s in enumerate(attack)) == count - 32
            assert conns.count(ATTACKER) == 32
            # the attacker's own address is the one at its cap
            refused = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            assert _closed_by_server(refused)
            refused.close()
        _until(lambda: conns.count(ATTACKER) == 0, "the attacker's sockets released")
        assert _request(port, "GET", "/api/state", ATTACKER)[0] == 200


def test_sockets_without_a_whole_header_in_time_are_closed() -> None:
    limits = Limits(header_timeout=0.3, idle_timeout=60)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        silent = _connect(port, ATTACKER)
        half = _connect(port, ATTACKER)
        half.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        trickle = _connect(port, ATTACKER)
        # a header sent byte by byte never ends: the deadline is not pushed back by bytes
        deadline = time.monotonic() + WAIT
        closed = False
        while not closed and time.monotonic() < deadline:
            try:
                trickle.sendall(b"X")
                trickle.settimeout(0.05)
                closed = trickle.recv(1) == b""
            except TimeoutError:
                continue
            except OSError:  # reset or broken pipe: closed too
                closed = True
        assert closed, "the trickling socket was never closed"
        for sock in (silent, half):
            assert _closed_by_server(sock)
            sock.close()
        trickle.close()
        _until(lambda: conns.open == 0, "the closed sockets released")
        assert conns.timed_out == 3
        assert _request(port, "GET", "/api/state", ATTACKER)[0] == 200


def test_idle_keep_alive_sockets_are_closed_and_event_streams_are_not() -> None:
    limits = Limits(header_timeout=1.0, idle_timeout=0.3)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        stream = _connect(port, PLAYER)
        stream.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        events = stream.makefile("rb")
        assert events.readline().startswith(b"HTTP/1.1 200")
        silent = _connect(port, OTHER)  # opened after the stream: its header timer fires later
        assert _closed_by_server(silent)
        silent.close()
        keep = HTTPConnection("127.0.0.1", port, timeout=WAIT, source_address=(ATTACKER, 0))
        keep.request("GET", "/api/state")
        response = keep.getresponse()
        assert response.status == 200 and response.getheader("connection") != "close"
        response.read()
        assert keep.sock is not None and _closed_by_server(keep.sock)
        keep.close()
        _until(lambda: conns.count(ATTACKER) == 0, "the idle socket released")
        assert conns.timed_out == 2
        # the stream, opened before both, is still open and still delivers
        assert _request(port, "POST", "/api/control/click/C3", ATTACKER,
                        TOKEN)[0] == 200
        deadline = time.monotonic() + WAIT
        while b'"actions":["C3"]' not in events.readline():
            assert time.monotonic() < deadline, "the stream stopped delivering"
        stream.close()


def test_event_streams_are_capped_in_all_and_per_address() -> None:
    limits = Limits(streams=3, streams_per_address=2, header_timeout=60, idle_timeout=60)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)

        def stream(source: str) -> tuple[int, socket.socket]:
            sock = _connect(port, source)
            sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                         .encode())
            status = sock.makefile("rb").readline()
            return int(status.split()[1]), sock

        first, second = stream(ATTACKER), stream(ATTACKER)
        assert (first[0], second[0]) == (200, 200)
        third = stream(ATTACKER)
        assert third[0] == 503  # the attacker's own cap
        player = stream(PLAYER)
        assert player[0] == 200
        other = stream(OTHER)
        assert other[0] == 503  # the total cap
        assert conns.streams == 3 and conns.streams_refused == 2
        first[1].close()
        _until(lambda: conns.streams == 2, "the closed stream released")
        again = stream(OTHER)
        assert again[0] == 200
        for _, sock in (second, third, player, other, again):
            sock.close()


def test_at_the_total_cap_a_newcomer_takes_the_place_of_the_busiest_address() -> None:
    limits = Limits(per_address=8, total=10, header_timeout=60, idle_timeout=60)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        with _sockets(8, port, ATTACKER) as attack, _sockets(2, port, OTHER):
            _until(lambda: conns.open == 10, "ten connections held")
            status, _ = _request(port, "GET", "/api/state", PLAYER)
            assert status == 200
            assert conns.evicted == 1 and conns.refused == 0
            assert _closed_by_server(attack[0])  # the oldest waiting one
            assert not any(_closed_by_server(s, 0.0) for s in attack[1:])
            _until(lambda: conns.open == 9, "the player's connection released")
            with _sockets(1, port, PLAYER):
                _until(lambda: conns.open == 10, "ten connections held again")
                greedy = _connect(port, ATTACKER)  # the busiest address itself: refused
                assert _closed_by_server(greedy)
                greedy.close()
                assert conns.refused == 1 and conns.evicted == 1
                late = _connect(port, OTHER)  # OTHER holds 2, the busiest 7: it evicts
                _until(lambda: conns.evicted == 2, "a second eviction")
                assert conns.count(OTHER) == 3 and conns.count(ATTACKER) == 6
                late.close()


def test_at_the_total_cap_a_newcomer_gets_in_even_when_each_address_holds_one() -> None:
    limits = Limits(per_address=8, total=3, header_timeout=60, idle_timeout=60)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        with _sockets(1, port, ATTACKER), _sockets(1, port, OTHER), \
                _sockets(1, port, "127.0.0.4"):
            _until(lambda: conns.open == 3, "three connections held")
            assert _request(port, "GET", "/api/state", PLAYER)[0] == 200
            assert conns.evicted == 1 and conns.count(ATTACKER) == 0  # the oldest went


@pytest.mark.parametrize("bad", [Limits(per_address=0), Limits(total=0)])
def test_a_zero_cap_refuses_every_connection(bad: Limits) -> None:
    with virtual_server(limits=bad) as server:
        sock = _connect(server.web.server.port, PLAYER)
        assert _closed_by_server(sock)
        sock.close()
        assert _conns(server).refused >= 1


def test_a_websocket_upgrade_stays_under_the_caps_and_timers() -> None:
    limits = Limits(header_timeout=WAIT, idle_timeout=0.3)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        sock = _connect(port, ATTACKER)
        sock.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: "
                     "Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode())
        assert sock.makefile("rb").readline().startswith(b"HTTP/1.1 200")  # plain HTTP
        assert _closed_by_server(sock)  # then idle: closed like any other
        sock.close()
        _until(lambda: conns.open == 0, "the socket released")
        assert conns.timed_out == 1


def test_a_request_body_that_never_ends_is_closed_like_a_header() -> None:
    limits = Limits(header_timeout=0.3, idle_timeout=60)
    with virtual_server(limits=limits, token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        for path in ("/api/pair", "/api/control/share"):  # the app reads the body / does not
            sock = _connect(port, ATTACKER)
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Dvonn-Token: "
                         f"{TOKEN}\r\nX-Dvonn-Request: 1\r\nContent-Type: application/json\r\n"
                         "Content-Length: 100\r\n\r\n{\"code\":".encode())
            sock.settimeout(WAIT)
            answer = b""
            try:
                while chunk := sock.recv(4096):
                    answer += chunk
            except ConnectionResetError:
                pass
            sock.close()
            if path == "/api/pair":
                assert answer == b"", answer  # closed while the app waited for the body
            else:
                assert answer.startswith(b"HTTP/1.1 200"), answer  # answered, then closed
        _until(lambda: conns.open == 0, "the sockets released")
        assert conns.timed_out == 2


def test_responses_are_not_held_back_for_the_clients_ack() -> None:
    with virtual_server(limits=Limits(), token=TOKEN) as server:
        port, conns = server.web.server.port, _conns(server)
        conn = HTTPConnection("127.0.0.1", port, timeout=WAIT, source_address=(PLAYER, 0))
        conn.request("GET", "/api/state")
        conn.getresponse().read()
        (held,) = conns.held(PLAYER)
        sock = held.transport.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        conn.close()
