"""Issue 24, items 6 and 7: HEAD on the event stream ends; ``share?on=`` takes 0 or 1 only;
the command queue is bounded and a command whose request timed out never runs; a busy port
leaves no journal behind. Real sockets on loopback, every wait bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

import pytest
from web_helpers import virtual_server

import controller.web.server as server_module
from controller.web.app import VirtualOptions, make_virtual_table
from controller.web.bridge import Command, Inbox, InboxFull

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "commands-test-token"  # the scripts' X-Dvonn-Token
WAIT = 20.0


def _post(port: int, path: str, token: str | None = TOKEN) -> tuple[int, dict[str, Any],
                                                                      dict[str, str]]:
    conn = HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request("POST", path, headers={"X-Dvonn-Token": token} if token else {})
        r = conn.getresponse()
        return r.status, json.loads(r.read()), {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


# ------------------------------------------------------------------------------ item 6
def test_head_on_the_event_stream_answers_headers_and_ends() -> None:
    with virtual_server(token=TOKEN) as server:
        port = server.web.server.port
        conn = HTTPConnection("127.0.0.1", port, timeout=WAIT)
        conn.request("HEAD", "/api/events")
        r = conn.getresponse()
        assert r.status == 200 and r.getheader("content-type", "").startswith(
            "text/event-stream")
        assert r.read() == b""
        conn.request("GET", "/api/state")  # the same connection is free again
        r = conn.getresponse()
        assert r.status == 200 and json.loads(r.read())["actions"] == []
        conn.close()
        assert server.web.server.connections.streams == 0


# ------------------------------------------------------------------------------ item 7
def test_share_takes_on_1_or_on_0_and_toggles_without_it() -> None:
    with virtual_server(token=TOKEN) as server:
        port, hub = server.web.server.port, server.web.hub
        for bad in ("maybe", "true", "on", "", "2", "01"):
            status, answer, _ = _post(port, f"/api/control/share?on={bad}")
            assert status == 400 and "on=1" in answer["detail"], bad
            assert hub.share_hints is False, bad
        assert _post(port, "/api/control/share?on=1")[1]["share_hints"] is True
        assert _post(port, "/api/control/share?on=1")[1]["share_hints"] is True
        assert _post(port, "/api/control/share?on=0")[1]["share_hints"] is False
        assert _post(port, "/api/control/share")[1]["share_hints"] is True
        assert _post(port, "/api/control/share")[1]["share_hints"] is False


def test_the_inbox_is_bounded_and_drops_withdrawn_commands() -> None:
    inbox = Inbox(limit=3)
    first, second, third = (Command("click", cell) for cell in ("C3", "D3", "E3"))
    for cmd in (first, second, third):
        inbox.put(cmd)
    with pytest.raises(InboxFull):
        inbox.put(Command("click", "F3"))
    assert first.future.cancel()  # its request gave up while it waited
    assert inbox.get() is second and inbox.dropped == 1
    assert not second.future.cancel()  # taken: it runs and is answered
    second.answer(True, "done")
    assert second.future.result(0) == {"ok": True, "detail": "done"}
    inbox.put(Command("click", "G3"))  # room again
    assert inbox.get(0.01) is third and inbox.get(0.01) is not None
    assert inbox.get(0.01) is None


@contextmanager
def _idle_virtual_table() -> Iterator[Any]:
    """A served virtual table whose loop the test steps itself (nobody takes commands)."""
    ctl, web, table, runner = make_virtual_table(VirtualOptions(address="127.0.0.1:0",
                                                                token=TOKEN))
    web.start()
    try:
        yield ctl, web, runner
    finally:
        table.close()
        web.stop()


def test_a_command_whose_request_timed_out_never_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "ANSWER_TIMEOUT", 0.2)
    with _idle_virtual_table() as (ctl, web, runner):
        port = web.server.port
        status, answer, _ = _post(port, "/api/control/click/C3")
        assert status == 503 and "dropped" in answer["detail"]
        for _ in range(5):  # the table comes back: the withdrawn click is not played
            runner.step(0.0)
        assert ctl.actions == [] and web.inbox.dropped == 1
        result: list[tuple[int, dict[str, Any], dict[str, str]]] = []
        monkeypatch.setattr(server_module, "ANSWER_TIMEOUT", WAIT)
        poster = threading.Thread(target=lambda: result.append(
            _post(port, "/api/control/click/D3")))
        poster.start()
        deadline = time.monotonic() + WAIT
        while poster.is_alive() and time.monotonic() < deadline:
            runner.step(0.002)
        poster.join(WAIT)
        assert result and result[0][0] == 200, result
        assert ctl.actions == ["D3"]


def test_a_full_command_queue_answers_503_at_once() -> None:
    with _idle_virtual_table() as (ctl, web, runner):
        waiting = [Command("click", "C3") for _ in range(web.inbox.limit)]
        for cmd in waiting:
            web.inbox.put(cmd)
        status, answer, headers = _post(web.server.port, "/api/control/click/D3")
        assert status == 503 and "busy" in answer["detail"] and headers["retry-after"] == "1"
        web.inbox.refuse_all("test over")
        assert all(not cmd.future.result(0)["ok"] for cmd in waiting)
        assert ctl.actions == []


# ------------------------------------------------------------------------------ busy port
def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"),
               DVONN_DATA_DIR=str(tmp / "data"), NO_COLOR="1")
    for name in ("DVONN_DEBUG", "DVONN_LEDS", "DVONN_WEB_TOKEN"):
        env.pop(name, None)
    return env


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("command", ["web", "demo", "play"])
def test_a_busy_port_leaves_no_journal_behind(tmp_path: Path, command: str) -> None:
    import socket

    from controller.journal.store import Journal

    cfg = tmp_path / "table.toml"
    cfg.write_text('[sensor]\nbackend = "sensor-board"\nport = "/nonexistent/ttyACM9"\n'
                   '[leds]\nbackend = "terminal"\ncolour = false\n')
    fresh, kept = tmp_path / "fresh.sqlite3", tmp_path / "kept.sqlite3"
    Journal(kept, writer=True).close()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        address = f"127.0.0.1:{busy.getsockname()[1]}"
        for journal in (fresh, kept):
            before = _files(tmp_path)
            args = {"web": ["web", address],
                    "demo": ["demo", "--fast", "--direct", "--web", address],
                    "play": ["play", "--config", str(cfg), "--web", address]}[command]
            r = subprocess.run([sys.executable, "-m", "controller.cli", *args, "--journal",
                                str(journal)], cwd=ROOT, capture_output=True, text=True,
                               timeout=60, env=_env(tmp_path))
            assert r.returncode == 2, (r.stdout, r.stderr)
            (line,) = r.stderr.strip().splitlines()
            assert "cannot serve" in line and address in line, line
            assert _files(tmp_path) == before, "a file was created or changed"
            assert not fresh.exists()
