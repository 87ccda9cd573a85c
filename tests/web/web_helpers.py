"""Helpers for the web view's tests: servers on loopback, HTTP calls, a headless Chromium.

The browser is Debian's ``chromium`` driven through ``chromium-driver`` by Selenium (``python3
dev.py test`` installs both when it runs as root). When they are missing the browser tests
skip with the reason, except in CI (``CI`` set), where they fail: never a silent skip.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.runner import Runner
from controller.sim.hands import DirectTable
from controller.table.debounce import Timing
from controller.table.session import TableController
from controller.web.app import VirtualOptions, WebView, make_virtual_table
from engine.game import Game
from hardware.clock import FakeClock
from hardware.events import SnapshotEvent

#: The scripts' token of the test servers (X-Dvonn-Token): what ``click`` and the tests'
#: requests use; pages pair with a code (:func:`pair_page`).
TEST_TOKEN = "test-token-for-scripts-0123"

BROWSER_HINT = ("Debian's chromium and chromium-driver are needed for the page tests: run "
                "`python3 dev.py test` as root (it installs them), or `apt-get install "
                "chromium chromium-driver`")


def missing(reason: str) -> None:
    """Skip with ``reason``, or fail when running in CI (a skip there would hide a gap)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the browser tests must run)")
    pytest.skip(reason)


def chromium_paths() -> tuple[str, str] | None:
    """(browser, driver) executables, or None when either is missing."""
    browser = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                                "/usr/bin/chromium") if p and os.path.exists(p)), None)
    driver = next((p for p in (shutil.which("chromedriver"), "/usr/bin/chromedriver",
                               "/usr/lib/chromium/chromedriver") if p and os.path.exists(p)),
                  None)
    return (browser, driver) if browser and driver else None


def new_browser(width: int = 1200, height: int = 900, lang: str = "",
                profile: Path | None = None) -> Any:
    """A headless Chromium under Selenium (skips, or fails in CI, when there is none);
    ``profile``: the folder it keeps its profile (cookies) in, so that quitting it and
    starting another on the same folder is a browser restart."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium is not installed: run `python3 dev.py test` (installs .[test])")
        raise
    paths = chromium_paths()
    if paths is None:
        missing(BROWSER_HINT)
        raise AssertionError("unreachable")
    options = webdriver.ChromeOptions()
    options.binary_location = paths[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-extensions", "--no-first-run", f"--window-size={width},{height}"):
        options.add_argument(arg)
    if profile is not None:
        options.add_argument(f"--user-data-dir={profile}")
    if lang:  # the browser's language: its Accept-Language header
        options.add_argument(f"--lang={lang}")
        options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    return webdriver.Chrome(options=options, service=Service(paths[1]))


# ---------------------------------------------------------------------------------- HTTP
def http(url: str, method: str = "GET", token: str | None = None,
         timeout: float = 30.0) -> tuple[int, bytes, dict[str, str]]:
    """(status, body, headers) of one request; HTTP errors are answers, not exceptions."""
    headers = {"X-Dvonn-Token": token} if token else {}
    req = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), {k.lower(): v for k, v in r.headers.items()}
    except urllib.error.HTTPError as e:
        return e.code, e.read(), {k.lower(): v for k, v in e.headers.items()}


def wait_state(base: str, cond: Any, what: str, timeout: float = 45.0) -> dict[str, Any]:
    """The first state from the event stream for which ``cond(state)`` holds (the stream
    starts with the current state); AssertionError naming ``what`` after ``timeout`` s."""
    import socket
    import time

    deadline = time.monotonic() + timeout
    host, port = base.removeprefix("http://").split(":")
    last: dict[str, Any] = {}
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        f = sock.makefile("rb")
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                line = f.readline()
            except TimeoutError:
                line = b""
            if not line:
                raise AssertionError(f"no state with {what} within {timeout} s; last: {last}")
            if line.startswith(b"data: "):
                last = json.loads(line[6:])
                if cond(last):
                    return last


def get_json(url: str, token: str | None = None) -> Any:
    status, body, _ = http(url, token=token)
    assert status == 200, (url, status, body)
    return json.loads(body)


# ---------------------------------------------------------------------------------- tables
class SimTable:
    """A simulated physical table (DirectTable, occupancy sensors, FakeClock) whose Runner
    the test drives from its own thread, served by a WebView on loopback."""

    def __init__(self, web: WebView, game: Game | None = None, hints: bool = False) -> None:
        self.clock = FakeClock()
        self.table = DirectTable()
        self.ctl = TableController(timing=Timing(), game=game, hints=hints)
        for c in range(49):
            if self.ctl.game.stack(c):
                self.table.put(c, self.ctl.game.stack(c))
        self.web = web
        self.controls = web.attach(self.ctl, self.clock)
        self.runner = Runner(self.ctl, sources=[self.controls], clock=self.clock,
                             frame_interval=None)
        self.settle()

    def settle(self) -> None:
        """Read the table now and let the readings become stable (0.6 s on the fake clock)."""
        self.runner.feed([SnapshotEvent(self.clock.now(), self.table.cells())])
        self.clock.advance(0.6)
        self.runner.feed([SnapshotEvent(self.clock.now(), self.table.cells())])

    def step(self) -> None:
        """One round of the loop: the page's buttons, then the time."""
        self.runner.step(0.0)

    def post_while_stepping(self, path: str, token: str | None) -> tuple[int, dict[str, Any]]:
        """POST from another thread while this one drives the loop (as the table would)."""
        result: list[tuple[int, bytes, dict[str, str]]] = []
        t = threading.Thread(target=lambda: result.append(
            http(f"{self.base}{path}", "POST", token=token)))
        t.start()
        deadline = time.monotonic() + 60  # the request's own timeout is shorter
        while t.is_alive() and time.monotonic() < deadline:
            self.runner.step(0.002)
        t.join(5)
        assert result, f"POST {path} did not finish"
        status, body, _ = result[0]
        return status, json.loads(body)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web.server.port}"


@contextmanager
def sim_table(game: Game | None = None, hints: bool = False, **web_args: Any
              ) -> Iterator[SimTable]:
    web_args.setdefault("token", TEST_TOKEN)
    web = WebView("127.0.0.1:0", **web_args)
    sim = SimTable(web, game, hints)
    web.start()
    try:
        yield sim
    finally:
        web.stop()


class VirtualServer:
    """``dvonn-board web`` in-process: the runner loop in one thread of its own."""

    def __init__(self, opts: VirtualOptions) -> None:
        self.ctl, self.web, self.table, self.runner = make_virtual_table(opts)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.runner.run(until=self._stop.is_set, poll=0.02)
        except BaseException as exc:  # reported by stop()
            self.error = exc

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web.server.port}"

    @property
    def pair_url(self) -> str:
        """The printed pairing URL: the page with a new one-time code filled in."""
        return f"{self.base}/?pair={self.web.server.pairing.new_code()}"

    def start(self) -> VirtualServer:
        self.web.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.table.close()
        self.web.stop()
        if self.error is not None:
            raise self.error


@contextmanager
def virtual_server(**kwargs: Any) -> Iterator[VirtualServer]:
    kwargs.setdefault("address", "127.0.0.1:0")
    kwargs.setdefault("token", TEST_TOKEN)
    opts = VirtualOptions(**kwargs)
    server = VirtualServer(opts).start()
    try:
        yield server
    finally:
        server.stop()


def click(server: VirtualServer, cell: str, seat: str = "") -> tuple[int, dict[str, Any]]:
    """POST a virtual-table click with the token; (status, answer)."""
    query = f"?seat={seat}" if seat else ""
    status, body, _ = http(f"{server.base}/api/control/click/{cell}{query}", "POST",
                           token=server.web.token)
    return status, json.loads(body)


def send(port: int, method: str, target: str, headers: list[tuple[str, str]],
         body: bytes = b"", version: str = "HTTP/1.1", timeout: float = 10.0
         ) -> tuple[int, dict[str, str], bytes]:
    """One request over a new socket, exactly as given; (status, headers, body). An event
    stream's body is not read; a HEAD answer's body must be empty."""
    head = [f"{method} {target} {version}", *(f"{k}: {v}" for k, v in headers),
            "Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall("\r\n".join(head).encode("latin-1") + body)
        f = sock.makefile("rb")
        status = int(f.readline().split()[1])
        got: dict[str, str] = {}
        while (line := f.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode("latin-1").partition(":")
            got[key.strip().lower()] = value.strip()
        if got.get("content-type", "").startswith("text/event-stream") and method != "HEAD":
            return status, got, b""
        if method == "HEAD":
            return status, got, f.read()  # the server closes: must be nothing
        length = got.get("content-length")
        return status, got, f.read(int(length)) if length is not None else f.read()


def pair(port: int, code: str, seat: str = "both") -> str:
    """Pair over HTTP as the page does; the ``Cookie`` value of the new session."""
    body = json.dumps({"code": code, "seat": seat}).encode()
    status, headers, answer = send(port, "POST", "/api/pair", [
        ("Host", f"127.0.0.1:{port}"), ("X-Dvonn-Request", "1"),
        ("Content-Type", "application/json"), ("Content-Length", str(len(body)))], body)
    assert status == 200, answer
    return headers["set-cookie"].split(";")[0]


def pair_page(browser: Any, server: VirtualServer | SimTable, seat: str = "both",
              name: str = "") -> None:
    """Pair ``browser`` with the table as a person does: open the pairing URL, choose the
    seat, press Pair; returns once the page is the paired view."""
    from selenium.webdriver.support.ui import Select, WebDriverWait

    base = server.base
    browser.get(f"{base}/?pair={server.web.server.pairing.new_code()}")
    Select(browser.find_element("id", "pair-seat")).select_by_value(seat)
    if name:
        browser.find_element("id", "pair-name").send_keys(name)
    browser.find_element("css selector", '#pair button[type="submit"]').click()
    from selenium.common.exceptions import WebDriverException

    WebDriverWait(browser, 30, poll_frequency=0.05, ignored_exceptions=(WebDriverException,)
                  ).until(lambda d: d.execute_script(
                      "return document.body.classList.contains('paired') && "
                      "!!(window.dvonn && window.dvonn.state)"),
                          message="the page did not become the paired view")


__all__ = ["click", "get_json", "wait_state", "http", "missing", "new_browser", "pair",
           "pair_page", "send", "sim_table", "virtual_server", "TEST_TOKEN"]


def moving_game(seed: int, moves: int) -> Game:
    """A random game that has gone ``moves`` plies into the moving phase."""
    rng = random.Random(seed)
    game = Game()
    while game.placing or moves > 0:
        if not game.placing:
            moves -= 1
        game.push(rng.choice(game.legal_moves()))
    return game
