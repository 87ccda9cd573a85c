"""A remote player (issue 27): ``play --black remote`` makes a one-time invitation for Black;
whoever uses it gets a session that offers Black's actions only (checked by the engine), lit
on the table as ``suggest``; every other route treats it as a spectator. Hostile requests
(wrong, reused or renewed codes, the other side's action, another site's page) change nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TEST_TOKEN, pair, send

from controller.players.opponent import Opponent
from controller.players.seats import WebSeat
from controller.runner import Runner
from controller.sim.hands import DirectTable
from controller.table.debounce import Timing
from controller.table.session import TableController
from controller.web.app import WebView
from engine.game import Game
from engine.geometry import parse_cell
from engine.move import Move
from hardware.clock import FakeClock
from hardware.events import SnapshotEvent

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- the seat
def test_a_web_seat_takes_only_its_sides_legal_action_for_the_position_shown() -> None:
    seat = WebSeat("b")
    assert seat.offer(0, Move.parse("C3")) == "the table has not started yet"
    game = Game()
    seat.tell(game)
    assert "White" in seat.offer(0, Move.parse("C3"))  # White's turn: not Black's to play
    game.push(Move.parse("C3"))
    seat.tell(game)
    assert seat.status()["moves"] and "C3" not in seat.status()["moves"]
    assert "legal" in seat.offer(1, Move.parse("C3"))  # occupied
    assert "changed" in seat.offer(0, Move.parse("D3"))  # a stale view of the table
    assert seat.poll(game) is None
    assert seat.offer(1, Move.parse("D3")) == ""
    assert seat.pump() and not seat.pump()
    assert "already" in seat.offer(1, Move.parse("E3"))  # one action a position
    assert seat.poll(game) == Move.parse("D3")
    assert seat.status()["offered"] == "D3" and seat.status()["moves"] == []
    other = Game.from_moves(["E3"])  # another position at the same ply: not for it
    assert seat.poll(other) is None
    game.push(Move.parse("D3"))  # carried out: the offer is spent
    seat.tell(game)
    game.pop()
    seat.tell(game)  # taken back: Black chooses again
    assert seat.poll(game) is None and seat.status()["offered"] is None


def test_an_invitation_code_works_once_and_a_new_one_voids_it() -> None:
    seat = WebSeat("w")
    code = seat.code
    assert code and len(code) >= 12 and not seat.joined
    assert not seat.take(code + "x") and not seat.take("")
    assert seat.take(code) and seat.joined and seat.code is None
    assert not seat.take(code)
    new = seat.renew()
    assert new != code and not seat.joined and not seat.take(code) and seat.take(new)


# ---------------------------------------------------------------------------- the server
class RemoteTable:
    """A simulated table (DirectTable, FakeClock) with Black played remotely, its loop
    stepped by the test, served on loopback."""

    def __init__(self, white: str = "human", black: str = "remote") -> None:
        self.clock = FakeClock()
        self.table = DirectTable()
        self.ctl = TableController(timing=Timing())
        self.opponent = Opponent(white, black)
        self.opponent.attach(self.ctl)  # before the web view, as play does
        self.web = WebView("127.0.0.1:0", token=TEST_TOKEN)
        assert self.web.invite(self.opponent) == 1
        self.runner = Runner(self.ctl, sources=[self.web.attach(self.ctl, self.clock),
                                                self.opponent], clock=self.clock,
                             frame_interval=None)
        self.web.start()
        self.settle()

    @property
    def port(self) -> int:
        return int(self.web.server.port)

    @property
    def seat(self) -> WebSeat:
        seat = self.opponent.players["b"] or self.opponent.players["w"]
        assert isinstance(seat, WebSeat)
        return seat

    def settle(self) -> None:
        """Read the table and let the reading become stable (fake clock)."""
        self.runner.feed([SnapshotEvent(self.clock.now(), self.table.cells())])
        self.clock.advance(0.6)
        self.runner.feed([SnapshotEvent(self.clock.now(), self.table.cells())])
        self.runner.step(0.0)

    def place(self, cell: str) -> None:
        game = self.ctl.game
        piece = game.piece_to_place()
        assert piece is not None
        self.table.put(parse_cell(cell), piece)
        self.settle()


@contextmanager
def remote_table(**kw: Any) -> Iterator[RemoteTable]:
    table = RemoteTable(**kw)
    try:
        yield table
    finally:
        table.web.stop()


def post(port: int, path: str, body: Any = None, cookie: str = "",
         headers: list[tuple[str, str]] | None = None) -> tuple[int, dict[str, str], Any]:
    data = b"" if body is None else json.dumps(body).encode()
    sent = [("Host", f"127.0.0.1:{port}"), ("Content-Length", str(len(data))),
            ("Content-Type", "application/json")]
    sent += headers if headers is not None else [("X-Dvonn-Request", "1")]
    if cookie:
        sent.append(("Cookie", cookie))
    status, got, answer = send(port, "POST", path, sent, data)
    return status, got, json.loads(answer) if answer else None


def get(port: int, path: str, cookie: str = "", token: str = "") -> tuple[int, Any]:
    sent = [("Host", f"127.0.0.1:{port}")]
    if cookie:
        sent.append(("Cookie", cookie))
    if token:
        sent.append(("X-Dvonn-Token", token))
    status, _, body = send(port, "GET", path, sent)
    return status, json.loads(body) if path.startswith("/api/") else body.decode()


def join(t: RemoteTable, code: str | None = None) -> str:
    """Use the invitation as the page does; the session's Cookie value."""
    status, headers, body = post(t.port, "/api/remote/join", {"code": code or t.seat.code})
    assert status == 200 and body == {"ok": True, "side": "b"}, body
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"dvonn_remote_{t.port}=")
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    return cookie.split(";")[0]


def test_the_invitation_is_printed_listed_to_paired_phones_and_works_once() -> None:
    with remote_table() as t:
        code = t.seat.code
        assert code is not None
        path = f"/remote?invite={code}"
        assert get(t.port, "/api/remote/invitations")[0] == 403  # spectators never see it
        status, listed = get(t.port, "/api/remote/invitations", token=TEST_TOKEN)
        assert status == 200 and listed == {"invitations": [
            {"side": "b", "path": path, "joined": False}]}
        phone = pair(t.port, t.web.server.pairing.new_code(), "white")
        assert get(t.port, "/api/remote/invitations", cookie=phone)[1] == listed
        status, page = get(t.port, path)  # opening the link uses nothing up (link previews)
        assert status == 200 and t.seat.code == code and 'class="remote' in page
        cookie = join(t, code)
        assert t.seat.joined and t.seat.note == ""
        status, _, body = post(t.port, "/api/remote/join", {"code": code})  # used: refused
        assert status == 403 and "used" in body["detail"]
        assert get(t.port, "/api/remote/invitations", token=TEST_TOKEN)[1]["invitations"] == [
            {"side": "b", "path": None, "joined": True}]
        status, page = get(t.port, "/remote", cookie=cookie)
        assert '"remote":{"side":"b"' in page
        status, seen = get(t.port, "/api/remote/status", cookie=cookie)
        assert status == 200 and seen["side"] == "b" and seen["turn"] == "w" and \
            seen["moves"] == [] and seen["offered"] is None


def test_the_session_offers_its_sides_actions_only_and_the_table_lights_them() -> None:
    with remote_table() as t:
        cookie = join(t)
        offer = "/api/remote/offer"
        status, _, body = post(t.port, offer, {"ply": 0, "action": "C3"}, cookie)
        assert status == 409 and body["detail"] == "it is White's turn"  # not Black's turn
        t.place("C3")  # the person at the table plays White
        assert t.ctl.game.ply == 1
        status, seen = get(t.port, "/api/remote/status", cookie=cookie)
        assert seen["turn"] == "b" and "D3" in seen["moves"] and "C3" not in seen["moves"]
        for bad, code in (({"ply": 1, "action": "C3"}, 409),   # occupied
                          ({"ply": 0, "action": "D3"}, 409),   # a stale position
                          ({"ply": 1, "action": "Z9"}, 400),
                          ({"ply": "1", "action": "D3"}, 400),
                          ({"ply": 1, "action": "PASS"}, 409),
                          ({"action": "D3"}, 400)):
            status, _, body = post(t.port, offer, bad, cookie)
            assert status == code, (bad, body)
            assert body["ok"] is False and body["detail"]
        assert post(t.port, offer, {"ply": 1, "action": "D3"})[0] == 403  # no session
        assert post(t.port, offer, {"ply": 1, "action": "D3"}, "dvonn_remote_1=forged")[0] == 403
        assert t.opponent.pending is None and t.ctl.game.ply == 1
        status, _, body = post(t.port, offer, {"ply": 1, "action": "d3"}, cookie)
        assert status == 200 and body == {"ok": True, "action": "D3"}
        status, _, body = post(t.port, offer, {"ply": 1, "action": "E3"}, cookie)
        assert status == 409 and "already" in body["detail"]
        t.runner.step(0.0)  # the table takes it in: lit as a suggestion
        assert t.opponent.pending == Move.parse("D3")
        assert t.ctl.view().roles.get(parse_cell("D3")) == "suggest"
        assert "Black (remote) plays D3" in t.web.hub.state["message"]  # type: ignore[index]
        t.place("E3")  # the person at the table puts Black's piece elsewhere: a mismatch
        assert t.ctl.game.ply == 1 and "mismatch" in t.ctl.view().roles.values()
        t.table.lift(parse_cell("E3"))
        t.place("D3")  # as offered: committed
        assert [str(m) for m in t.ctl.game.move_stack] == ["C3", "D3"]
        assert get(t.port, "/api/remote/status", cookie=cookie)[1]["offered"] is None


def test_a_remote_session_is_a_spectator_everywhere_else() -> None:
    with remote_table() as t:
        cookie = join(t)
        for path in ("/api/control/undo", "/api/control/new", "/api/control/hint",
                     "/api/control/share", "/api/remote/invitations/b/renew",
                     "/api/pair/request"):
            status, _, body = post(t.port, path, None, cookie)
            assert status in (403, 200) and (status == 403 or path == "/api/pair/request"), \
                (path, status, body)
            assert "code" not in (body or {})  # a code for another phone: never to it
        assert get(t.port, "/api/devices", cookie=cookie)[0] == 403
        assert get(t.port, "/api/remote/invitations", cookie=cookie)[0] == 403
        assert get(t.port, "/api/info", cookie=cookie)[1]["paired"] is False
        assert t.seat.code is None  # nothing renewed


def test_hostile_requests_change_nothing() -> None:
    with remote_table() as t:
        code = t.seat.code
        assert code is not None
        body = {"code": code}
        for headers in ([("Origin", "http://evil.example"), ("X-Dvonn-Request", "1")],
                        [("Sec-Fetch-Site", "cross-site"), ("X-Dvonn-Request", "1")],
                        [("Origin", f"http://127.0.0.1:{t.port + 1}"), ("X-Dvonn-Request", "1")],
                        []):  # a cross-site form: no X-Dvonn-Request
            status, _, answer = post(t.port, "/api/remote/join", body, headers=headers)
            assert status == 403, (headers, answer)
        status, _, answer = send(t.port, "POST", "/api/remote/join", [
            ("Host", "evil.example"), ("X-Dvonn-Request", "1"), ("Content-Length", "2")], b"{}")
        assert status == 421
        assert t.seat.code == code and not t.seat.joined  # still unused
        for bad in ({"code": 123456}, {"code": ""}, {"code": "x" * 100}, ["code"], None):
            assert post(t.port, "/api/remote/join", bad)[0] == 400
        for i in range(5):  # wrong codes count like wrong pairing codes
            status, _, answer = post(t.port, "/api/remote/join", {"code": f"wrong-{i}"})
            assert status == 403, answer
        status, got, answer = post(t.port, "/api/remote/join", body)
        assert status == 429 and int(got["retry-after"]) > 0  # even the right code, for now
        assert t.seat.code == code and not t.seat.joined
        status, _, answer = post(t.port, "/api/pair", {"code": "000000", "seat": "both"})
        assert status == 429  # the same limits as pairing


def test_a_new_invitation_voids_the_old_code_and_its_session() -> None:
    with remote_table() as t:
        old = t.seat.code
        assert old is not None
        cookie = join(t, old)
        assert post(t.port, "/api/remote/invitations/b/renew")[0] == 403  # spectator
        assert post(t.port, "/api/remote/invitations/w/renew", headers=[
            ("X-Dvonn-Token", TEST_TOKEN)])[0] == 404  # White is played at the table
        status, _, body = post(t.port, "/api/remote/invitations/black/renew", headers=[
            ("X-Dvonn-Token", TEST_TOKEN)])
        assert status == 200 and body["side"] == "b" and old not in body["path"]
        assert get(t.port, "/api/remote/status", cookie=cookie)[0] == 403
        assert post(t.port, "/api/remote/join", {"code": old})[0] == 403
        join(t)


def _cli(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp / "c"), XDG_DATA_HOME=str(tmp / "d"),
               DVONN_DATA_DIR=str(tmp / "d"), NO_COLOR="1", LANG="C")
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command", [["demo", "--fast", "--black", "remote"],
                                     ["play", "--white", "remote"]])
def test_remote_without_the_web_view_is_refused(tmp_path: Path, command: list[str]) -> None:
    done = _cli(*command, tmp=tmp_path)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "remote" in lines[0] and "--web" in lines[0], done.stderr
    assert not list(tmp_path.glob("d/**/*.sqlite3"))  # nothing was opened
