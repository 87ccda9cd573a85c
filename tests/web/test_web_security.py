"""The web server against hostile and careless requests (issue 24, items 2, 3 and 5).

- The bad-request battery: every route against every kind of bad request of
  tests/web/data/bad_requests.json, over real sockets: the status of each row, the
  refusal of framing on every answer, and nothing changed.
- Cross-origin and framing in real headless Chromium: a paired browser opens an attacker's
  page served from another loopback port, which POSTs to the table (fetch, a form) and frames
  it; the table's state does not change and the frame stays empty.
- ``<!--<script>`` in a player's name: the page still works.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    TEST_TOKEN,
    VirtualServer,
    click,
    get_json,
    pair,
    pair_page,
    send,
    virtual_server,
)

from controller.web.guard import HostCheck, host_name

BATTERY: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "bad_requests.json").read_text(encoding="utf-8"))
FRAMING = ("content-security-policy", "x-frame-options", "x-content-type-options",
           "referrer-policy")


# ---------------------------------------------------------------------------------- battery
class Battery:
    """The battery's table: a virtual table with a camera and three paired devices (one
    for the requests, a victim for revoke, one revoked), on a fake pairing clock."""

    def __init__(self, server: VirtualServer) -> None:
        import numpy as np

        from controller.web.server import CameraFrames

        self.server = server
        web = server.web.server
        web.camera = CameraFrames(lambda: np.full((60, 80, 3), 90, dtype=np.uint8))
        self.port = web.port
        self.pairing = web.pairing
        self.now = [1e9]
        self.pairing.clock = lambda: self.now[0]
        self.cookie = pair(self.port, self.pairing.new_code())
        pair(self.port, self.pairing.new_code(), "white")
        self.victim = self.pairing.devices()[-1].id
        self.revoked = pair(self.port, self.pairing.new_code(), "black")
        assert self.pairing.revoke(self.pairing.devices()[-1].id)
        for cell in ("C3", "D3"):
            assert click(server, cell)[0] == 200

    def snapshot(self) -> tuple[Any, ...]:
        hub = self.server.web.hub
        assert hub.latest is not None
        return (list(self.server.ctl.actions), hub.latest.seq, hub.latest.full,
                hub.share_hints, [d.id for d in self.pairing.devices()])

    def request(self, route: str, kind: str) -> tuple[int, dict[str, str], bytes]:
        method, target = BATTERY["routes"][route]
        target = target.format(victim=self.victim)
        port = self.port
        cookie: str | None = self.cookie
        headers = [("Host", f"127.0.0.1:{port}")]
        body = json.dumps(BATTERY["pair_body"]).encode() if route == "pair" else b""
        version, page_header = "HTTP/1.1", method == "POST"
        if kind in ("no_session", "token_in_query"):
            cookie = None
        elif kind == "wrong_session":
            cookie = f"dvonn_session_{port}=not-a-session-anybody-was-given"
        elif kind == "revoked_session":
            cookie = self.revoked
        elif kind == "token_cookie":
            cookie = f"dvonn_token_{port}={TEST_TOKEN}; dvonn_session_{port}={TEST_TOKEN}"
        if kind == "token_in_query":
            target += ("&" if "?" in target else "?") + f"token={TEST_TOKEN}"
        elif kind == "foreign_origin":
            headers.append(("Origin", f"http://127.0.0.1:{port + 1}"))
        elif kind == "null_origin":
            headers.append(("Origin", "null"))
        elif kind in ("cross_site", "same_site"):
            headers.append(("Sec-Fetch-Site", kind.replace("_", "-")))
        elif kind == "missing_header":
            page_header = False
        elif kind == "foreign_host":
            headers[0] = ("Host", f"evil.example:{port}")
        elif kind == "no_host":
            headers, version = [], "HTTP/1.0"
        elif kind == "head":
            method = "HEAD"
        elif kind == "oversize_body":
            body = b"x" * 65536
        elif kind == "oversize_headers":
            headers.append(("X-Filler", "a" * 12288))
        else:
            assert kind in BATTERY["kinds"], kind
        if cookie is not None:
            headers.append(("Cookie", cookie))
        if page_header:
            headers.append(("X-Dvonn-Request", "1"))
        if body or method == "POST":
            headers.append(("Content-Length", str(len(body))))
        return send(port, method, target, headers, body, version)


@pytest.fixture(scope="module")
def battery() -> Iterator[Battery]:
    pytest.importorskip("cv2")
    with virtual_server() as server:
        yield Battery(server)


def _rows() -> list[Any]:
    columns = BATTERY["columns"]
    assert set(columns) == set(BATTERY["kinds"])
    assert set(BATTERY["expect"]) == set(BATTERY["routes"])
    rows = []
    for route, statuses in BATTERY["expect"].items():
        assert len(statuses) == len(columns), route
        rows += [pytest.param(route, kind, status, id=f"{route}-{kind}")
                 for kind, status in zip(columns, statuses, strict=True)]
    return rows


@pytest.mark.parametrize(("route", "kind", "expected"), _rows())
def test_every_route_against_every_bad_request(battery: Battery, route: str, kind: str,
                                               expected: int) -> None:
    battery.now[0] += 61  # every row starts with the pairing throttles at rest
    before = battery.snapshot()
    status, headers, body = battery.request(route, kind)
    assert status == expected, (route, kind, status, body[:300])
    for name in FRAMING:
        assert name in headers, (route, kind, name)
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"
    if kind == "head":
        assert body == b""
    assert battery.snapshot() == before, (route, kind)


def test_the_battery_is_not_vacuous(battery: Battery) -> None:
    """The same requests done right do work: a paired phone controls the table."""
    port = battery.port
    status, _, body = send(port, "POST", "/api/control/share?on=1", [
        ("Host", f"localhost:{port}"), ("Cookie", battery.cookie), ("X-Dvonn-Request", "1"),
        ("Origin", f"http://localhost:{port}"), ("Sec-Fetch-Site", "same-origin"),
        ("Content-Length", "0")])
    assert status == 200 and json.loads(body)["share_hints"] is True
    status, _, body = send(port, "POST", "/api/control/share?on=0", [
        ("Host", f"127.0.0.1:{port}"), ("Cookie", battery.cookie), ("X-Dvonn-Request", "1"),
        ("Content-Length", "0")])
    assert status == 200 and json.loads(body)["share_hints"] is False
    status, _, body = send(port, "GET", "/api/devices", [("Host", f"[::1]:{port}"),
                                                         ("Cookie", battery.cookie)])
    assert status == 200 and len(json.loads(body)["devices"]) == 2


# ---------------------------------------------------------------------------------- hosts
def test_host_names_and_redirects() -> None:
    check = HostCheck("0.0.0.0", ["table.example"], addresses=lambda: {"192.0.2.7"})
    mdns = f"{host_name(socket.gethostname())}.local"
    for good in ("127.0.0.1:8080", "[::1]:8080", "localhost", "LOCALHOST:1", "table.example",
                 "table.example.:80", "192.0.2.7:8080", "127.9.9.9", mdns, mdns + ":8080"):
        assert check.allowed(good), good
    for bad in ("evil.example", "evil.example:8080", "192.0.2.8", "[::2]:80", "", ":80",
                "a b", "table.example@evil", "[::1", "127.0.0.1:x"):
        assert not check.allowed(bad), bad
    with virtual_server(address="127.0.0.1:0", host_names=("table.example",)) as server:
        port = server.web.server.port
        status, headers, _ = send(port, "GET", "/static", [("Host", f"table.example:{port}")])
        assert status in (307, 308) and headers["location"] == "/static/"  # never the Host
        assert send(port, "GET", "/api/state", [("Host", "table.example")])[0] == 200
        assert send(port, "GET", "/api/state", [("Host", "evil.example")])[0] == 421


# ---------------------------------------------------------------------------------- Chromium
class Attacker:
    """A page on another loopback port: it POSTs to the table and frames it."""

    def __init__(self, table: int) -> None:
        self.cookies: list[str] = []
        page = ATTACK.replace("TABLE", f"http://127.0.0.1:{table}").encode()
        cookies = self.cookies

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                cookies.append(self.headers.get("Cookie", ""))
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


ATTACK = """<!doctype html><html><body>
<iframe id="framed" src="TABLE/" width="600" height="400"></iframe>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="TABLE/api/control/share?on=1" target="sink"></form>
<script>
window.results = {};
function note(k) { return function (v) { window.results[k] = v; }; }
fetch("TABLE/api/control/share?on=1", {method: "POST", mode: "no-cors",
  credentials: "include"}).then(function (r) { return r.type; }, function () {
  return "error"; }).then(note("nocors"));
fetch("TABLE/api/control/new", {method: "POST", credentials: "include",
  headers: {"X-Dvonn-Request": "1"}}).then(function (r) { return r.status; }, function () {
  return "error"; }).then(note("cors"));
fetch("TABLE/api/state", {credentials: "include"}).then(function (r) { return r.text(); })
  .then(function (t) { return t.length; }, function () { return "error"; }).then(note("read"));
document.getElementById("form").submit();
setTimeout(function () { window.results.form = "sent"; }, 1500);
</script></body></html>"""


def _wait(cond: Callable[[], Any], timeout: float = 20.0) -> Any:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_another_port_of_the_host_can_neither_control_nor_frame_the_table(browser: Any
                                                                          ) -> None:
    with virtual_server() as server:
        pair_page(browser, server)  # the browser is paired: its cookie goes to any port
        assert click(server, "C3")[0] == 200
        before = get_json(f"{server.base}/api/state")
        attacker = Attacker(server.web.server.port)
        try:
            browser.get(f"http://127.0.0.1:{attacker.port}/")
            results = _wait(lambda: browser.execute_script(
                "var r = window.results || {}; return r.nocors && r.cors && r.read && r.form "
                "? r : null"))
            # the browser did send the session cookie to the attacker's port, but it is a
            # device's session, never the scripts' token
            assert any(f"dvonn_session_{server.web.server.port}=" in c for c in attacker.cookies)
            assert not any(TEST_TOKEN in c for c in attacker.cookies)
            assert results["cors"] == "error" and results["read"] == "error"
            after = get_json(f"{server.base}/api/state")
            assert after == before and server.web.hub.share_hints is False
            assert server.ctl.actions == ["C3"]
            # the framed table: the browser refused it (an empty error page, no board)
            frame = browser.find_element("id", "framed")
            browser.switch_to.frame(frame)
            try:
                cells = browser.execute_script(
                    "return document.querySelectorAll('[data-cell]').length")
                buttons = browser.execute_script(
                    "return document.querySelectorAll('[data-control]').length")
            finally:
                browser.switch_to.default_content()
            assert cells == 0 and buttons == 0
        finally:
            attacker.close()
        # the paired page itself still works
        browser.get(f"{server.base}/")
        assert browser.execute_script("return document.body.className").endswith("paired")


def test_script_like_text_in_the_state_does_not_break_the_page(browser: Any) -> None:
    evil = "<!--<script>"
    other = "</script><script>window.pwned=1</script>&amp;"
    with virtual_server(players=(evil, other)) as server:
        from web_helpers import http

        status, body, _ = http(f"{server.base}/")
        page = body.decode()
        # the JSON and the page's own scripts (app.js, review.js, clock.js, tutor.js): no
        # script that a name could open
        assert status == 200 and page.count("<script") == 5
        assert evil not in page.split('id="config"')[1].split("</script>")[0]
        assert "\\u003c!--\\u003cscript\\u003e" in page
        pair_page(browser, server)
        assert browser.find_element("id", "name-w").text == evil
        assert browser.find_element("id", "name-b").text == other
        assert browser.execute_script("return window.pwned === undefined")
        browser.find_element("css selector", '[data-cell="C3"]').click()
        _wait(lambda: browser.execute_script(
            "return (window.dvonn.state.actions || []).join() === 'C3'"))
        assert browser.execute_script(  # the inline style (the palette) still applies
            "return getComputedStyle(document.documentElement)"
            ".getPropertyValue('--role-movable').trim()")
