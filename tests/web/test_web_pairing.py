"""Pairing by one-time code (issue 24, item 4): per-device sessions that a restart keeps,
revoke, throttled guesses, one seat per phone, the scripts' token from a file or the
environment (never the command line)."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TEST_TOKEN, pair, pair_page, send, virtual_server

from controller.web.hub import StateHub
from controller.web.pairing import (
    CODE_TTL,
    Pairing,
    Refused,
    address_key,
    device_name,
    last_mover,
    seat_refusal,
)
from controller.web.server import WebServer

ROOT = Path(__file__).resolve().parents[2]


def _post(port: int, path: str, cookie: str | None = None, body: Any = None,
          token: str | None = None) -> tuple[int, dict[str, str], Any]:
    data = b"" if body is None else json.dumps(body).encode()
    headers = [("Host", f"127.0.0.1:{port}"), ("X-Dvonn-Request", "1"),
               ("Content-Length", str(len(data)))]
    if cookie:
        headers.append(("Cookie", cookie))
    if token:
        headers.append(("X-Dvonn-Token", token))
    status, got, answer = send(port, "POST", path, headers, data)
    return status, got, json.loads(answer)


def _get(port: int, path: str, cookie: str | None = None) -> tuple[int, Any]:
    headers = [("Host", f"127.0.0.1:{port}"), ("User-Agent", "Mozilla/5.0 (Linux; Android 14)"
                                                             " Chrome/126.0 Mobile")]
    if cookie:
        headers.append(("Cookie", cookie))
    status, _, body = send(port, "GET", path, headers)
    return status, json.loads(body)


def test_a_code_pairs_one_phone_once_for_a_while_and_the_cookie_is_no_token() -> None:
    with virtual_server() as server:
        port, pairing = server.web.server.port, server.web.server.pairing
        now = [1e9]
        pairing.clock = lambda: now[0]
        code = pairing.new_code()
        assert re.fullmatch(r"\d{6}", code)
        status, headers, answer = _post(port, "/api/pair", body={"code": code, "seat": "both",
                                                                 "name": "Ann's phone"})
        assert status == 200 and answer["seat"] == "both"
        cookie = headers["set-cookie"]
        name, _, value = cookie.split(";")[0].partition("=")
        assert name == f"dvonn_session_{port}" and len(value) >= 40
        assert TEST_TOKEN not in cookie
        assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
        device = pairing.devices()[0]
        assert device.name == "Ann's phone" and value not in json.dumps(device.__dict__)
        assert _post(port, "/api/control/click/C3", f"{name}={value}")[0] == 200
        assert _get(port, "/api/info", f"{name}={value}")[1]["seat"] == "both"
        # one phone per code
        assert _post(port, "/api/pair", body={"code": code, "seat": "both"})[0] == 403
        # a code lives CODE_TTL seconds
        code = pairing.new_code()
        now[0] += CODE_TTL + 1
        assert _post(port, "/api/pair", body={"code": code, "seat": "both"})[0] == 403
        for bad in ({"code": "12345", "seat": "both"}, {"code": code, "seat": "red"}, [1]):
            assert _post(port, "/api/pair", body=bad)[0] == 400


def test_wrong_codes_are_throttled_per_address_and_in_all() -> None:
    with virtual_server() as server:
        port, pairing = server.web.server.port, server.web.server.pairing
        now = [1e9]
        pairing.clock = lambda: now[0]
        code = pairing.new_code()
        wrong = f"{(int(code) + 1) % 10**6:06d}"
        for n in range(7):
            status, headers, answer = _post(port, "/api/pair",
                                            body={"code": wrong, "seat": "white"})
            assert status == (403 if n < 5 else 429), (n, answer)
        assert int(headers["retry-after"]) == 60
        assert _post(port, "/api/pair", body={"code": code, "seat": "white"})[0] == 429
        now[0] += 61
        assert _post(port, "/api/pair", body={"code": code, "seat": "white"})[0] == 200
    # from many addresses: at most GLOBAL_FAILURES a minute in all; IPv6 counts by /64
    p = Pairing(clock=lambda: 5.0)
    p.new_code()
    refused = []
    for n in range(40):
        try:
            p.pair("000000" if p.code() != "000000" else "000001", "both", "x", f"10.0.{n}.1")
        except Refused as exc:
            refused.append(exc.status)
    assert refused[:30] == [403] * 30 and set(refused[30:]) == {429}
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff") == "2001:db8::/64"
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1"


def test_one_seat_per_phone() -> None:
    with virtual_server() as server:
        port, pairing = server.web.server.port, server.web.server.pairing
        white = pair(port, pairing.new_code(), "white")
        black = pair(port, pairing.new_code(), "black")
        assert _post(port, "/api/control/click/C3", black)[0] == 403  # White's turn
        status, _, answer = _post(port, "/api/control/click/C3?seat=b", white)
        assert status == 403 and "White only" in answer["detail"]
        assert _post(port, "/api/control/click/C3", white)[0] == 200
        assert _post(port, "/api/control/click/D3", white)[0] == 403  # Black's turn now
        status, _, answer = _post(port, "/api/control/confirm", white)
        assert status == 403 and "Black's turn" in answer["detail"]
        assert _post(port, "/api/control/undo", black)[0] == 403  # White's action
        assert _post(port, "/api/control/click/D3", black)[0] == 200
        assert _post(port, "/api/control/undo", white)[0] == 403  # Black's action
        assert server.ctl.actions == ["C3", "D3"]
        for neutral in ("hint", "share?on=0"):  # either seat
            assert _post(port, f"/api/control/{neutral}", white)[0] == 200
            assert _post(port, f"/api/control/{neutral}", black)[0] == 200
        assert _post(port, "/api/control/undo", black)[0] == 200
        assert server.ctl.actions == ["C3"]
    state = {"turn": "w", "phase": "moving", "actions": ["C3", "D3"], "roles": {"E3": "remove"}}
    assert seat_refusal("b", "click", "e3", state) == ""  # whoever takes a cut-off stack
    assert seat_refusal("w", "undo", "", state, computer={"b"}) == ""  # the computer's move
    assert seat_refusal("", "confirm", "", state) == ""  # both seats
    assert last_mover(["C3", "D3", "E3"]) == "w" and last_mover([]) is None


def test_the_devices_list_and_revoke() -> None:
    with virtual_server() as server:
        port, pairing = server.web.server.port, server.web.server.pairing
        assert _get(port, "/api/devices")[0] == 403
        mine = pair(port, pairing.new_code(), "both")
        lost = pair(port, pairing.new_code(), "black")
        status, listed = _get(port, "/api/devices", mine)
        assert status == 200
        devices = listed["devices"]
        assert [(d["seat"], d["this"]) for d in devices] == [("both", True), ("black", False)]
        assert all(d["last_seen"] > 0 and d["name"] for d in devices)
        lost_id = devices[1]["id"]
        assert _post(port, f"/api/devices/{lost_id}/revoke", mine)[0] == 200
        assert _post(port, "/api/control/hint", lost)[0] == 403  # at once
        assert _get(port, "/api/devices", lost)[0] == 403
        assert _post(port, f"/api/devices/{lost_id}/revoke", mine)[0] == 404
        my_id = devices[0]["id"]
        status, headers, _ = _post(port, f"/api/devices/{my_id}/revoke", mine)
        assert status == 200 and 'max-age=0' in headers["set-cookie"].lower()
        assert pairing.devices() == []
    assert device_name("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 "
                       "Mobile/15E148 Safari/604.1") == "Safari (iPhone)"


def test_a_restart_keeps_the_phones_paired(tmp_path: Path) -> None:
    devices = tmp_path / "config" / "web-devices-1234.json"
    first = WebServer(StateHub(), None, host="127.0.0.1", port=0, devices=devices)
    with first:
        cookie = pair(first.port, first.pairing.new_code(), "white")
        gone = pair(first.port, first.pairing.new_code(), "black")
        assert first.pairing.revoke(first.pairing.devices()[-1].id)
    assert stat.S_IMODE(devices.stat().st_mode) == 0o600
    text = devices.read_text()
    assert cookie.split("=", 1)[1] not in text and gone.split("=", 1)[1] not in text
    assert [p.name for p in devices.parent.iterdir()] == [devices.name]  # no temporary left
    second = WebServer(StateHub(), None, host="127.0.0.1", port=0, devices=devices)
    with second:
        name = f"dvonn_session_{second.port}="
        status, info = _get(second.port, "/api/info", name + cookie.split("=", 1)[1])
        assert status == 200 and info["paired"] and info["seat"] == "white"
        assert not _get(second.port, "/api/info", name + gone.split("=", 1)[1])[1]["paired"]
    devices.write_text("{not json")
    from engine.errors import DvonnError

    with pytest.raises(DvonnError, match="delete"):
        WebServer(StateHub(), None, host="127.0.0.1", port=0, devices=devices)


def test_asking_for_a_code_prints_it_on_the_table() -> None:
    with virtual_server() as server:
        port, pairing = server.web.server.port, server.web.server.pairing
        said: list[str] = []
        pairing.announce = said.append
        status, _, answer = _post(port, "/api/pair/request")
        assert status == 200 and "code" not in answer  # a stranger does not see it
        (line,) = said
        code = re.search(r"\d{6}", line)
        assert code and pairing.code() == code.group()
        status, _, answer = _post(port, "/api/pair/request", token=TEST_TOKEN)
        assert answer["code"] == code.group()  # the code in force, for a script
        assert _post(port, "/api/pair", body={"code": answer["code"], "seat": "both"})[0] == 200


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", *args]


def test_the_command_prints_a_code_and_takes_the_token_from_a_file(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("file-token-0123456789abcdef\n")
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.pop("DVONN_WEB_TOKEN", None)
    proc = subprocess.Popen(_cli("web", "127.0.0.1:0", "--token-file", str(token_file)),
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout is not None
        seen = b""
        while b"?pair=" not in seen or not seen.endswith(b"\n"):
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, seen
            seen += os.read(proc.stdout.fileno(), 65536)
        text = seen.decode()
        address = re.search(r"^web view: http://127\.0\.0\.1:(\d+)/$", text, re.M)
        code = re.search(r"^pairing code: (\d{6}) ", text, re.M)
        url = re.search(r"^pair a phone without typing: http://\S+/\?pair=(\d{6}) ", text, re.M)
        assert address and code and url and code.group(1) == url.group(1), text
        port = int(address.group(1))
        assert "file-token" not in text
        assert "file-token" not in Path(f"/proc/{proc.pid}/cmdline").read_text()
        assert _post(port, "/api/control/click/C3", token="file-token-0123456789abcdef")[0] == 200
        assert _post(port, "/api/pair", body={"code": code.group(1), "seat": "both"})[0] == 200
        assert _post(port, "/api/pair", body={"code": code.group(1), "seat": "both"})[0] == 403
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for argv, env_token, words in (
            (("--token-file", str(tmp_path / "missing")), None, "missing"),
            ((), "short", "DVONN_WEB_TOKEN"),
            (("--token", "a-token-typed-on-the-command-line"), None, "--token-file")):
        run_env = dict(env, DVONN_WEB_TOKEN=env_token) if env_token else env
        r = subprocess.run(_cli("web", "127.0.0.1:0", *argv), cwd=ROOT, capture_output=True,
                           text=True, timeout=60, env=run_env)
        assert r.returncode == 2 and words in r.stderr, (argv, r.stderr)
        assert "a-token-typed" not in r.stderr and "short" not in r.stderr.split(":", 1)[1]
    assert not (tmp_path / "config").exists()  # port 0: no devices file


def test_the_page_pairs_lists_the_devices_and_forgets_itself(browser: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    def until(script: str) -> Any:
        return WebDriverWait(browser, 20, poll_frequency=0.05).until(
            lambda d: d.execute_script(script), message=script)

    with virtual_server() as server:
        pair_page(browser, server, seat="white", name="Ann's phone")
        assert browser.execute_script("return document.getElementById('seat').disabled")
        assert browser.find_element("id", "seat").get_attribute("value") == "w"
        until("return document.querySelectorAll('#device-list li').length === 1")
        item = browser.find_element("css selector", "#device-list li")
        assert "Ann's phone (this device)" in item.text and "white" in item.text
        browser.find_element("css selector", '[data-cell="C3"]').click()
        until("return (window.dvonn.state.actions || []).join() === 'C3'")
        browser.find_element("css selector", '[data-cell="D3"]').click()  # Black's turn
        until("return document.getElementById('notice').textContent.indexOf("
              "\"Black's turn\") >= 0")
        assert server.ctl.actions == ["C3"]
        item.find_element("css selector", "button.revoke").click()  # forget this phone
        until("return document.body.classList.contains('spectator') && "
              "!document.getElementById('pair').hidden")
        assert server.web.server.pairing.devices() == []
