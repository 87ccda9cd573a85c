"""``dvonn-board broadcast``: the club's tables from a real Mosquitto on one server
(controller.web.broadcast, controller.web.club): joining and leaving, untrusted messages,
standings and records, and hostile requests over real sockets."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from controller.remote.link import MqttLink
from controller.remote.publisher import StatePublisher
from controller.remote.url import parse_url
from controller.web.broadcast import BroadcastServer
from controller.web.club import MAX_STATE, Club
from controller.web.transport import Limits
from engine.game import Game
from engine.records import parse_record
from tests.remote.broker import Broker
from tests.remote.test_publish import random_game, state_of

WAIT = 20.0


def payload(data: Any) -> bytes:
    return json.dumps(data).encode()


def until(check: Any, what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"never: {what}")


# ---------------------------------------------------------------------------- the club model
def test_a_table_s_state_joins_and_presence_and_clearing_make_it_leave() -> None:
    club = Club("club")
    game = random_game(1, plies=30)
    assert club.apply("club/t1/state", payload(state_of(game))) == ("t1", False)
    assert club.apply("club/t1/state", payload(state_of(game))) == (None, False)  # the same
    entry = club.entry("t1")
    assert entry is not None and entry["status"] == "online" and entry["state"]["ply"] == 30
    assert club.apply("club/t1/presence", b"offline") == ("t1", False)
    assert club.entry("t1")["status"] == "left"  # type: ignore[index]
    club.apply("club/t1/presence", b"online")
    assert club.entry("t1")["status"] == "online"  # type: ignore[index]
    assert club.apply("club/t1/state", b"") == ("t1", False)  # cleared: left, no state
    assert club.entry("t1") == {"name": "t1", "online": False, "status": "left",
                                "seq": club.seq, "state": None}


def hostile_messages() -> Iterator[tuple[str, bytes, str]]:
    good = state_of(random_game(2, plies=20))
    yield "club/t1/state", b"{not json", "not UTF-8 JSON"
    yield "club/t1/state", b"\xff\xfe", "not UTF-8 JSON"
    yield "club/t1/state", b"[1, 2]", "not a JSON object"
    yield "club/t1/state", b"[" * 100_000 + b"]" * 100_000, "larger than"
    yield "club/t1/state", payload(dict(good, message="x" * (MAX_STATE + 1))), "larger than"
    yield "club/t1/state", payload(dict(good, format="other")), "not a dvonn-board"
    yield "club/t1/state", payload(dict(good, actions=good["actions"] + ["PASS"])), "legal game"
    yield "club/t1/state", payload(dict(good, actions="C3")), "actions are not"
    yield "club/t1/state", payload(dict(good, actions=["C3"] * 5000)), "actions are not"
    yield "club/t1/state", payload(dict(good, stacks={"C3": "<script>"})), "stacks"
    yield "club/t1/state", payload(dict(good, score={"white": 99, "black": 0})), "score"
    yield "club/t1/state", payload(dict(good, phase="over")), "phase"
    yield "club/t1/state", payload(dict(good, message=["list"])), "message is not a text"
    yield "club/t1/state", payload(dict(good, players={"white": "x" * 1000})), "players.white"
    yield "club/t1/state", payload(dict(good, roles={"Z9": "movable"})), "roles"
    yield "club/t1/state", payload(dict(good, version="2")), "version"
    yield "club/bad name/state", payload(good), "the table's name"
    yield "club/../state", payload(good), "the table's name"
    yield "other/t1/state", payload(good), "not a topic of this club"
    yield "club/t1/whatever", payload(good), "not a state, presence or result"
    yield "club/t1/presence", b"maybe", "presence is online or offline"
    yield "club/t1/result/k1", payload({"format": "dvonn-board/result", "players": {},
                                        "actions": ["C3"]}), "not over"
    yield "club/t1/result/bad key", b"{}", "a result's key"


@pytest.mark.parametrize("topic, data, why", list(hostile_messages()))
def test_a_bad_message_is_ignored_with_a_log_line(caplog: pytest.LogCaptureFixture,
                                                  topic: str, data: bytes, why: str) -> None:
    club = Club("club")
    good = state_of(random_game(2, plies=20))
    club.apply("club/t1/state", payload(good))
    before = club.entries()
    with caplog.at_level(logging.WARNING, logger="dvonn.broadcast"):
        assert club.apply(topic, data) == (None, False)
    assert club.entries() == before and club.ignored == 1 and not club.results
    assert len(caplog.records) == 1 and why in caplog.records[0].getMessage()
    assert len(caplog.records[0].getMessage()) < 600  # never the whole payload


def test_a_flood_of_bad_messages_is_counted_not_logged_line_by_line(
        caplog: pytest.LogCaptureFixture) -> None:
    club = Club("club")
    with caplog.at_level(logging.WARNING, logger="dvonn.broadcast"):
        for _ in range(1000):
            club.apply("club/t1/state", b"junk")
    assert club.ignored == 1000 and len(caplog.records) <= 20


def finished(seed: int) -> Game:
    game = random_game(seed)
    assert game.is_over()
    return game


def result_of(game: Game, white: str, black: str) -> bytes:
    return payload({"format": "dvonn-board/result", "version": 1, "game_id": None,
                    "players": {"white": white, "black": black},
                    "actions": [str(m) for m in game.move_stack],
                    "score": {"white": 0, "black": 0}, "winner": "ignored"})


def test_standings_win_1_tie_half_pieces_break_ties_and_records_read_back() -> None:
    club = Club("club")
    games = [finished(s) for s in range(40)]
    decided = [g for g in games if g.winner() in ("w", "b")]
    tie = next((finished(s) for s in range(2000) if finished(s).winner() == "tie"), None)
    g1, g2 = decided[:2]
    assert club.apply("club/t1/result/r1", result_of(g1, "Ann", "Bob")) == (None, True)
    assert club.apply("club/t1/result/r1", result_of(g1, "Ann", "Bob")) == (None, False)
    club.apply("club/t2/result/r2", result_of(g2, "Cid", "Dee"))
    rows = {r["player"]: r for r in club.standings()}
    ann_won = g1.winner() == "w"
    assert rows["Ann"]["points"] == (1.0 if ann_won else 0.0)
    assert rows["Bob"]["points"] == (0.0 if ann_won else 1.0)
    assert rows["Ann"]["pieces"] == g1.score()[0]  # the engine's score, not the message's
    order = [r["player"] for r in club.standings()]
    winners = sorted((r for r in rows.values() if r["points"] == 1.0),
                     key=lambda r: -r["pieces"])
    assert order[:2] == [r["player"] for r in winners]  # equal points: more pieces first
    if tie is not None:
        club.apply("club/t3/result/r3", result_of(tie, "Eve", "Fay"))
        rows = {r["player"]: r for r in club.standings()}
        assert rows["Eve"]["points"] == rows["Fay"]["points"] == 0.5
    record = club.record("t1", "r1")
    assert record is not None and "White [Ann]" in record
    assert parse_record(record).game().move_stack == g1.move_stack
    assert club.apply("club/t1/result/r1", b"") == (None, True)  # taken back
    assert "Ann" not in {r["player"] for r in club.standings()}
    assert club.record("t1", "r1") is None and club.record("nobody") is None


# ---------------------------------------------------------------------------- the server
class Client:
    """Plain HTTP requests to the broadcast server (Host and headers as given)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def get(self, path: str, *, method: str = "GET", headers: dict[str, str] | None = None,
            body: bytes | None = None) -> tuple[int, bytes, dict[str, str]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, resp.read(), {k.lower(): v for k, v in resp.getheaders()}
        finally:
            conn.close()

    def tables(self) -> dict[str, dict[str, Any]]:
        status, body, _ = self.get("/api/tables")
        assert status == 200
        return {e["name"]: e for e in json.loads(body)}


@pytest.fixture
def server(broker: Broker) -> Iterator[BroadcastServer]:
    srv = BroadcastServer(parse_url(broker.url("club"), levels=(1, 1)), host="127.0.0.1",
                          port=0, limits=Limits(streams_per_address=3))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def test_tables_join_and_leave_without_a_restart(broker: Broker,
                                                 server: BroadcastServer) -> None:
    web = Client(server.port)
    assert web.tables() == {}
    one = StatePublisher(parse_url(broker.url("club/t1")))
    two = StatePublisher(parse_url(broker.url("club/t2")))
    try:
        one.publish_state(state_of(random_game(1, plies=10)))
        two.publish_state(state_of(random_game(2, plies=12)))
        until(lambda: {n: e["status"] for n, e in web.tables().items()} ==
              {"t1": "online", "t2": "online"}, "both tables online")
        assert web.tables()["t2"]["state"]["ply"] == 12
        one.close()  # t1 goes home: it shows as left, with its last state
        until(lambda: web.tables()["t1"]["status"] == "left", "t1 left")
        assert web.tables()["t1"]["state"]["ply"] == 10
        with MqttLink(parse_url(broker.url("club")), name="test-clear") as link:
            until(lambda: link.connected, "the link connected")
            link.publish("club/t2/state", b"")  # its state cleared: left, no state
            until(lambda: web.tables()["t2"]["state"] is None, "t2's state cleared")
            assert web.tables()["t2"]["status"] == "left"
        three = StatePublisher(parse_url(broker.url("club/t1")))  # t1 comes back
        try:
            three.publish_state(state_of(random_game(3, plies=4)))
            until(lambda: web.tables()["t1"]["status"] == "online"
                  and web.tables()["t1"]["state"]["ply"] == 4, "t1 back")
        finally:
            three.close()
    finally:
        one.close()
        two.close()


def test_malformed_messages_from_a_rogue_client_leave_the_page_working(
        broker: Broker, server: BroadcastServer) -> None:
    web = Client(server.port)
    pub = StatePublisher(parse_url(broker.url("club/t1")))
    try:
        pub.publish_state(state_of(random_game(4, plies=8)))
        until(lambda: "t1" in web.tables(), "t1 joined")
        with MqttLink(parse_url(broker.url("club")), name="rogue") as rogue:
            until(lambda: rogue.connected, "the rogue connected")
            for topic, data, _why in hostile_messages():
                rogue.publish(topic, data, retain=False)
            rogue.publish("club/t1/state", b"x" * (1 << 20), retain=False)
            until(lambda: server.club.ignored >= 20, "the rogue's messages ignored")
        assert set(web.tables()) == {"t1"} and web.tables()["t1"]["state"]["ply"] == 8
        status, body, _ = web.get("/")
        assert status == 200 and b"broadcast.js" in body
        pub.publish_state(state_of(random_game(4, plies=9)))  # and it goes on
        until(lambda: web.tables()["t1"]["state"]["ply"] == 9, "t1 goes on")
    finally:
        pub.close()


def read_events(sock: socket.socket, want: str, buffer: bytearray) -> list[tuple[str, Any]]:
    """SSE events from ``sock`` until one of kind ``want`` has come."""
    events: list[tuple[str, Any]] = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        while b"\n\n" in buffer:
            block, _, rest = bytes(buffer).partition(b"\n\n")
            buffer[:] = rest
            fields = dict(line.split(": ", 1) for line in block.decode().splitlines()
                          if ": " in line and not line.startswith(":"))
            if "event" in fields:
                events.append((fields["event"], json.loads(fields["data"])))
                if fields["event"] == want:
                    return events
        chunk = sock.recv(65536)
        assert chunk, "the stream ended"
        buffer += chunk
    raise AssertionError(f"no {want} event: {events}")


def open_stream(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return sock


def test_the_event_stream_and_a_broker_restart(broker: Broker, server: BroadcastServer) -> None:
    pub = StatePublisher(parse_url(broker.url("club/t1")), min_interval=0.0)
    sock = open_stream(server.port)
    buffer = bytearray()
    try:
        head = until(lambda: sock.recv(4096), "the stream's header")
        assert b"200 OK" in head and b"text/event-stream" in head
        buffer += head.partition(b"\r\n\r\n")[2]
        kind, club = read_events(sock, "club", buffer)[-1]
        assert club["club"] == "club" and club["tables"] == []
        pub.publish_state(state_of(random_game(5, plies=6)))
        entry = read_events(sock, "table", buffer)[-1][1]
        assert entry["name"] == "t1" and entry["state"]["ply"] == 6
        broker.stop()
        for kept in broker.folder.glob("*.db"):
            kept.unlink()  # nothing kept: the table republishes its state itself
        read_events(sock, "broker", buffer)
        broker.start()
        assert read_events(sock, "broker", buffer)[-1][1] == {"connected": True}
        pub.publish_state(state_of(random_game(5, plies=7)))
        while read_events(sock, "table", buffer)[-1][1]["state"]["ply"] != 7:
            pass
        assert Client(server.port).tables()["t1"]["state"]["ply"] == 7
    finally:
        sock.close()
        pub.close()


def test_hostile_requests(server: BroadcastServer) -> None:
    web = Client(server.port)
    assert web.get("/api/tables", headers={"Host": "evil.example"})[0] == 421
    assert web.get("/api/tables", method="POST", body=b"{}")[0] == 403  # not from the page
    assert web.get("/api/tables", method="POST", body=b"{}",
                   headers={"X-Dvonn-Request": "1"})[0] == 405  # read-only
    assert web.get("/api/tables", method="PUT", body=b"x" * 100_000,
                   headers={"X-Dvonn-Request": "1"})[0] == 413
    assert web.get("/api/tables", headers={"X-Junk": "x" * 9000})[0] == 431
    for path in ("/api/record/..%2F..%2Fetc", "/api/record/nobody", "/api/record/t1/x%20y",
                 "/static/../broadcast.py", "/api/i18n/xx"):
        assert web.get(path)[0] == 404, path
    status, _body, headers = web.get("/")
    assert status == 200 and "frame-ancestors 'none'" in headers["content-security-policy"]
    assert web.get("/api/events", method="HEAD")[0] == 200
    streams = [open_stream(server.port) for _ in range(3)]  # streams_per_address=3
    try:
        for s in streams:
            assert b"200 OK" in until(lambda s=s: s.recv(4096), "a stream")
        status, _body, headers = web.get("/api/events")
        assert status == 503 and headers.get("retry-after") == "5"
    finally:
        for s in streams:
            s.close()
    until(lambda: server.connections.streams == 0, "the streams closed")


# ---------------------------------------------------------------------------- the command
@pytest.mark.parametrize("argv, words", [
    (["--broker", "mqtt://127.0.0.1/club/table"], "level"),
    (["--broker", "mqtt://me:pw@127.0.0.1/club"], "no user name or password"),
    (["--broker", "mqtt://127.0.0.1/club", "--web-host-name", "a:80"], "--web-host-name"),
])
def test_a_bad_broadcast_command_line_is_one_line(capsys: pytest.CaptureFixture[str],
                                                  argv: list[str], words: str) -> None:
    from controller.cli import main

    assert main(["broadcast", "127.0.0.1:0", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err


def test_the_broadcast_command_serves_the_club(broker: Broker, tmp_path: Any) -> None:
    import os
    import signal
    import subprocess
    import sys

    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "broadcast", "127.0.0.1:0",
                             "--broker", broker.url("club")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    pub = StatePublisher(parse_url(broker.url("club/t1")))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("broadcast of club club from mqtt://127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        pub.publish_state(state_of(random_game(6, plies=3)))
        until(lambda: "t1" in Client(port).tables(), "t1 on the command's page")
    finally:
        pub.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(WAIT)
    assert proc.returncode == 0
