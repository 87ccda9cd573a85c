"""The HTTP contract: state, event stream, 403 for devices that are not paired, camera,
addresses (pairing and the gate: test_web_security.py)."""

from __future__ import annotations

import json
import re
import socket

import pytest
from web_helpers import click, get_json, http, moving_game, sim_table, virtual_server

from controller.web.hub import StateHub
from controller.web.server import CameraFrames, WebServer, parse_address
from engine.errors import DvonnError

CONTROLS = ("confirm", "next", "undo", "hint", "new", "share", "click/A2", "click/K3")


def _state_and_seq(base: str) -> tuple[bytes, str]:
    status, body, headers = http(f"{base}/api/state")
    assert status == 200
    return body, headers["x-state-seq"]


def test_controls_without_the_token_are_refused_and_change_nothing() -> None:
    with virtual_server() as server:
        assert click(server, "C3")[0] == 200
        before = _state_and_seq(server.base)
        token = server.web.token
        assert token is not None
        for name in CONTROLS:
            status, body, _ = http(f"{server.base}/api/control/{name}", "POST")
            assert status == 403, (name, status)
            assert "X-Dvonn" in json.loads(body)["detail"]
            status, _, _ = http(f"{server.base}/api/control/{name}?token={token}", "POST")
            assert status == 403  # the token in a URL is no token
        # wrong tokens: 403, and after five a minute from this address, 429 for a while
        pairing = server.web.server.pairing
        now = [1e9]
        pairing.clock = lambda: now[0]
        for n, name in enumerate(CONTROLS):
            status, _, headers = http(f"{server.base}/api/control/{name}", "POST",
                                      token=token[:-1])
            assert status == (403 if n < 5 else 429), (n, status)
        assert headers["retry-after"] == "60"
        assert click(server, "D3")[0] == 429  # the right token waits too
        assert _state_and_seq(server.base) == before
        now[0] += 61
        assert server.ctl.actions == ["C3"]
        # the same requests with the token do change the table
        assert click(server, "D3")[0] == 200
        assert get_json(f"{server.base}/api/state")["actions"] == ["C3", "D3"]


def test_the_page_carries_the_position_in_its_data_attributes() -> None:
    game = moving_game(4, 6)
    with sim_table(game) as sim:
        state = get_json(f"{sim.base}/api/state")
        status, body, headers = http(f"{sim.base}/")
        page = body.decode()
        assert status == 200 and headers["content-type"].startswith("text/html")
        cells = re.findall(r'data-cell="([A-K][1-5])" data-stack="([wbr]*)" '
                           r'data-role="([a-z-]*)"', page)
        assert len(cells) == 49 and page.count("data-cell=") == 49
        assert {n: s for n, s, _ in cells if s} == state["stacks"]
        assert {n: r for n, _, r in cells if r} == state["roles"]
        actions = re.search(r'<ol id="actions"[^>]*>(.*?)</ol>', page, re.S)
        assert actions is not None
        assert re.findall(r"<li>(.*?)</li>", actions.group(1)) == state["actions"]
        assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
        for asset in ("/static/app.js", "/static/style.css"):
            status, body, _ = http(f"{sim.base}{asset}")
            assert status == 200 and b"http://" not in body.replace(b"http://www.w3.org", b"")


def _sse_events(sock_file: object, count: int) -> list[tuple[int, dict]]:
    """Read ``count`` state events from a raw chunked SSE response."""
    out: list[tuple[int, dict]] = []
    seq = None
    while len(out) < count:
        line = sock_file.readline()  # type: ignore[attr-defined]
        assert line, "stream closed"
        text = line.decode().rstrip("\r\n")
        if text.startswith("id: "):
            seq = int(text[4:])
        elif text.startswith("data: "):
            assert seq is not None
            out.append((seq, json.loads(text[6:])))
    return out


def test_the_event_stream_starts_with_the_whole_state_then_follows_every_change() -> None:
    with virtual_server() as server:
        assert click(server, "C3")[0] == 200
        sock = socket.create_connection(("127.0.0.1", server.web.server.port), timeout=30)
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        f = sock.makefile("rb")
        head = []
        while (line := f.readline()) not in (b"\r\n", b""):
            head.append(line.decode().lower())
        assert head[0].startswith("http/1.1 200")
        assert any(h.startswith("content-type: text/event-stream") for h in head)
        (seq0, first), = _sse_events(f, 1)
        assert first == get_json(f"{server.base}/api/state") and first["actions"] == ["C3"]
        for cell in ("D3", "E3"):
            assert click(server, cell)[0] == 200
        later = _sse_events(f, 2)
        assert [s for s, _ in later] == sorted(s for s, _ in later) and later[0][0] > seq0
        assert later[-1][1]["actions"] == ["C3", "D3", "E3"]
        sock.close()


def test_spectators_see_no_hints_unless_the_players_share_them() -> None:
    with sim_table(moving_game(4, 6), hints=True) as sim:
        token = sim.web.token
        mine = get_json(f"{sim.base}/api/state", token=token)["roles"]
        assert "movable" in mine.values()
        theirs = get_json(f"{sim.base}/api/state")["roles"]
        assert "movable" not in theirs.values()
        # (the Hint switch on: the best action lit too, hidden from spectators)
        assert theirs == {c: r for c, r in mine.items() if r not in ("movable", "suggest")}
        status, answer = sim.post_while_stepping("/api/control/share?on=1", token)
        assert status == 200 and answer["share_hints"] is True
        assert get_json(f"{sim.base}/api/state")["roles"] == mine
        assert get_json(f"{sim.base}/api/info")["share_hints"] is True


def test_the_buttons_reach_the_running_table_with_the_token() -> None:
    with sim_table(moving_game(4, 6)) as sim:
        assert sim.ctl.hints is False
        status, answer = sim.post_while_stepping("/api/control/hint", sim.web.token)
        assert (status, answer["ok"]) == (200, True) and sim.ctl.hints is True
        assert get_json(f"{sim.base}/api/state")["hints"] is True
        ply = sim.ctl.game.ply
        assert sim.post_while_stepping("/api/control/undo", sim.web.token)[0] == 200
        assert sim.ctl.game.ply < ply
        status, answer = sim.post_while_stepping("/api/control/click/A1", sim.web.token)
        assert status == 404 and "virtual" in answer["detail"]
        assert sim.post_while_stepping("/api/control/dance", sim.web.token)[0] == 404
        assert sim.post_while_stepping("/api/control/hint", None)[0] == 403


def test_a_seat_plays_only_its_own_side() -> None:
    with virtual_server() as server:
        assert click(server, "C3", seat="w")[0] == 200
        status, answer = click(server, "D3", seat="w")
        assert status == 409 and answer["detail"] == "it is Black's turn"
        assert click(server, "D3", seat="x")[0] == 400
        assert click(server, "D3", seat="b")[0] == 200


def test_the_camera_frame_is_served_at_a_rate_the_pi_can_afford() -> None:
    np = pytest.importorskip("numpy")
    frames = []

    def frame() -> object:
        frames.append(1)
        return np.full((480, 1280, 3), 90, dtype=np.uint8)

    with sim_table(camera=frame, camera_interval=60.0) as sim:
        for _ in range(3):
            status, body, headers = http(f"{sim.base}/api/camera.jpg")
            assert status == 200 and headers["content-type"] == "image/jpeg"
            assert body[:2] == b"\xff\xd8"
        camera = sim.web.server.camera
        assert camera is not None and camera.encoded == 1 and len(frames) == 1
        assert get_json(f"{sim.base}/api/info")["camera"] is True
    with sim_table() as sim:
        assert http(f"{sim.base}/api/camera.jpg")[0] == 404
    assert CameraFrames(lambda: None).jpeg() is None


def test_addresses() -> None:
    assert parse_address("8080") == ("0.0.0.0", 8080)
    assert parse_address("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_address("[::1]:80") == ("::1", 80)
    for bad in ("", "x", "host:", "1.2.3.4:99999", "a:b"):
        with pytest.raises(DvonnError):
            parse_address(bad)
    with WebServer(StateHub(), None, host="127.0.0.1", port=0) as first:
        with pytest.raises(DvonnError, match="cannot serve on 127.0.0.1"):
            WebServer(StateHub(), None, host="127.0.0.1", port=first.port).start()
        assert first.urls() == [f"http://127.0.0.1:{first.port}/"]
        assert http(f"http://127.0.0.1:{first.port}/api/state")[0] == 503  # nothing yet
