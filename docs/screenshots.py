"""Screenshots of the web pages for the docs, made again by anyone, offline.

    .venv/bin/python docs/screenshots.py [--out DIR] [--page live|review|broadcast]
        [--size phone|laptop] [--theme light|dark] [--lang en|de]

Makes ``PAGE-SIZE-THEME-LANG.png`` in DIR (default ``docs/screenshots/``) for every page, size,
theme and language asked for (each option repeatable; default: all of them, 24 files):

- ``live``: the page of a simulated table (the project's DirectTable read by a
  TableController, served by a WebView on loopback) in the moving phase, with a last move and
  its stacks, seen from a phone paired for both sides;
- ``review``: a finished game from a journal (a temporary file) in the review mode, once the
  engine's analysis is done, at the first blunder of the moving phase;
- ``broadcast``: ``dvonn-board broadcast`` of a club of four tables (two finished, two
  playing), published through a Mosquitto that the script starts on a free loopback port and
  stops.

Sizes: ``phone`` 390x844 (a mobile viewport, touch), ``laptop`` 1366x768, both at one device
pixel a CSS pixel. Themes: ``prefers-color-scheme`` as Chromium emulates it. Languages: the
browser's (``--lang`` and Accept-Language), as a visitor's browser would ask. The games come
from fixed seeds and the names are fixed, so two runs differ only where the engine's review
(a time budget) or the clock (times shown) does.

Needs Debian's ``chromium`` and ``chromium-driver``, ``selenium`` (the ``test`` extra), the
``web`` and ``remote`` extras, and ``mosquitto`` for the broadcast; when one is missing it
says which on one line of stderr and exits 2. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import getpass
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGES = ("live", "review", "broadcast")
SIZES: dict[str, tuple[int, int, bool]] = {"phone": (390, 844, True),  # width, height, mobile
                                           "laptop": (1366, 768, False)}
THEMES = ("light", "dark")
LANGS: dict[str, str] = {"en": "en-GB,en", "de": "de-DE,de"}  # the browser's Accept-Language
DEFAULT_OUT = ROOT / "docs" / "screenshots"

LIVE_SEED, LIVE_MOVES = 7, 14  # the live table: a random game, 14 moves into the moving phase
REVIEW_SEED = 5  # the reviewed game: a random game played to the end
REVIEW_BUDGET = 5.0  # seconds of engine time for its review
PLAYERS = ("Anna", "Ben")
#: the club: (table, White, Black, seed, moves into the moving phase; None: to the end)
CLUB: tuple[tuple[str, str, str, int, int | None], ...] = (
    ("table1", "Anna", "Ben", 101, None),
    ("table2", "Carla", "Dirk", 102, 9),
    ("table3", "Emil", "Frida", 103, None),
    ("table4", "Greta", "Hans", 104, 3),
)
WAIT = 90.0  # seconds for a page or a review to be ready (slow machines; never a timing)
SETTLE = 0.6  # seconds after a page is ready before its picture (fonts, transitions)
HOST = "127.0.0.1"


class ShotError(Exception):
    """A page or a helper did not become ready: one line for stderr."""


# ---------------------------------------------------------------------------------- tools
@dataclass
class Tools:
    chromium: str
    chromedriver: str
    mosquitto: str | None


def _first(*candidates: str | None) -> str | None:
    return next((p for p in candidates if p and os.path.exists(p)), None)


def find_tools(pages: Sequence[str]) -> Tools | str:
    """The programs the ``pages`` need, or the one line that says what is missing."""
    for module, extra in (("selenium", "test"), ("starlette", "web"), ("uvicorn", "web"),
                          ("paho.mqtt", "remote")):
        if module == "paho.mqtt" and "broadcast" not in pages:
            continue
        try:
            __import__(module)
        except ImportError:
            return (f"screenshots: the Python package {module.split('.')[0]} is missing: "
                    f"pip install -e '.[{extra}]' (or python3 dev.py test)")
    chromium = _first(shutil.which("chromium"), shutil.which("chromium-browser"),
                      "/usr/bin/chromium")
    driver = _first(shutil.which("chromedriver"), "/usr/bin/chromedriver",
                    "/usr/lib/chromium/chromedriver")
    if chromium is None or driver is None:
        what = "chromium" if chromium is None else "chromedriver"
        return (f"screenshots: {what} is missing: apt-get install chromium chromium-driver "
                f"(or python3 dev.py test as root)")
    mosquitto = None
    if "broadcast" in pages:
        mosquitto = _first(shutil.which("mosquitto"), "/usr/sbin/mosquitto",
                           "/usr/bin/mosquitto")
        if mosquitto is None:
            return "screenshots: mosquitto is missing (the broadcast needs a broker): " \
                   "apt-get install mosquitto"
    return Tools(chromium, driver, mosquitto)


# ---------------------------------------------------------------------------------- games
def random_game(seed: int, moves: int | None) -> Any:
    """A game of random actions (``seed``): ``moves`` plies into the moving phase, or (None)
    played to the end."""
    from engine.game import Game

    rng = random.Random(seed)
    game = Game()
    while not game.is_over() and (moves is None or game.placing or moves > 0):
        if not game.placing and moves is not None:
            moves -= 1
        game.push(rng.choice(game.legal_moves()))
    return game


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def poll(cond: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """``cond()``'s first true value, tried every 0.1 s; ShotError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = cond()
        except (OSError, ValueError, urllib.error.URLError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise ShotError(f"screenshots: {what} within {timeout:.0f} s")
        time.sleep(0.1)


# ---------------------------------------------------------------------------------- scenes
@dataclass
class Scene:
    """One page to photograph: its address, the script that is true once it has drawn what
    matters, and what to do then (``after``: e.g. step the review)."""

    url: str
    ready: str
    what: str
    cookies: list[dict[str, Any]] = field(default_factory=list)
    after: Callable[[Any], None] | None = None


def _served_table(game: Any, players: tuple[str, str], **web_args: Any) -> tuple[Any, Any]:
    """A WebView serving a simulated table that holds ``game``'s stacks, read and settled,
    as a table with a page (``play --web``) would be; (web view, controller), not started."""
    from controller.runner import Runner
    from controller.sim.hands import DirectTable
    from controller.table.debounce import Timing
    from controller.table.session import TableController
    from controller.web.app import WebView
    from hardware.clock import FakeClock
    from hardware.events import SnapshotEvent

    web = WebView(f"{HOST}:0", **web_args)
    clock, table = FakeClock(), DirectTable()
    ctl = TableController(timing=Timing(), game=game, players=players)
    for cell in range(49):
        if ctl.game.stack(cell):
            table.put(cell, ctl.game.stack(cell))
    runner = Runner(ctl, sources=[web.attach(ctl, clock)], clock=clock, frame_interval=None)
    for _ in range(2):  # read the table, and again once the reading is stable
        runner.feed([SnapshotEvent(clock.now(), table.cells())])
        clock.advance(0.6)
    return web, ctl


def _pair(base: str, code: str, name: str) -> dict[str, Any]:
    """Pair as the page does (both seats); the session cookie for the browser."""
    body = json.dumps({"code": code, "seat": "both", "name": name}).encode()
    req = urllib.request.Request(f"{base}/api/pair", data=body, method="POST", headers={
        "X-Dvonn-Request": "1", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        cookie = r.headers.get("Set-Cookie", "")
    name_value = cookie.split(";")[0]
    if "=" not in name_value:
        raise ShotError("screenshots: pairing the live page gave no session cookie")
    key, _, value = name_value.partition("=")
    return {"name": key.strip(), "value": value.strip(), "path": "/", "httpOnly": True,
            "sameSite": "Strict"}


BOARD_READY = ("!!(window.dvonn && window.dvonn.state) && "
               "document.querySelectorAll('[data-cell]').length >= 49 && "
               "!!document.querySelector('[data-stack]:not([data-stack=\"\"])')")


@contextlib.contextmanager
def live_scene(tools: Tools) -> Iterator[Scene]:
    """A simulated table in the moving phase; the page of a phone paired for both sides."""
    web, _ = _served_table(random_game(LIVE_SEED, LIVE_MOVES), PLAYERS)
    web.start()
    try:
        base = f"http://{HOST}:{web.server.port}"
        cookie = _pair(base, web.server.pairing.new_code(), "Anna")
        yield Scene(f"{base}/", BOARD_READY + " && document.body.classList.contains('paired')",
                    "the live page did not show the paired board", cookies=[cookie])
    finally:
        web.stop()


@contextlib.contextmanager
def review_scene(tools: Tools) -> Iterator[Scene]:
    """A finished game in a journal, reviewed by the engine, shown at a blunder."""
    from controller.journal.store import Journal
    from engine.game import Game

    with tempfile.TemporaryDirectory(prefix="dvonn-shots-") as tmp, \
            Journal(Path(tmp) / "games.sqlite3", now=lambda: "2025-06-01T19:30:00Z") as journal:
        game = random_game(REVIEW_SEED, None)
        gid = journal.new_game(white=PLAYERS[0], black=PLAYERS[1])
        for move in game.move_stack:
            journal.append(gid, str(move))
        w, b = game.score()
        journal.finish(gid, white_score=w, black_score=b,
                       result={"w": "white", "b": "black"}.get(game.winner() or "", "tie"))
        web, _ = _served_table(Game(), PLAYERS, review_budget=REVIEW_BUDGET)
        web.server.journal = journal
        web.start()
        try:
            base = f"http://{HOST}:{web.server.port}"
            answer = poll(lambda: (lambda a: a if a.get("status") == "done" else None)(
                get_json(f"{base}/api/review/{gid}")), "the engine did not review the game",
                timeout=WAIT + REVIEW_BUDGET * 4)
            step = review_step(answer)

            def go(driver: Any) -> None:
                from selenium.webdriver.common.action_chains import ActionChains
                from selenium.webdriver.common.keys import Keys

                keys = [Keys.HOME] + [Keys.ARROW_RIGHT] * step
                ActionChains(driver).send_keys(*keys).perform()
                with contextlib.suppress(ShotError):  # an attribute the page may rename
                    poll(lambda: driver.execute_script(
                        "return document.body.getAttribute('data-review-step')") == str(step),
                        "the review did not step", timeout=10)
                driver.execute_script("window.scrollTo(0, 0)")

            yield Scene(f"{base}/#review={gid}",
                        "!!document.getElementById('review') && "
                        "document.getElementById('review').getAttribute('data-status') === "
                        "'done' && document.querySelectorAll('[data-cell]').length >= 49",
                        "the review page did not show the analysed game", after=go)
        finally:
            web.stop()


def review_step(answer: dict[str, Any]) -> int:
    """The step to show: just after the first blunder (else mistake) of the moving phase,
    else two thirds into the game."""
    actions = (answer.get("analysis") or {}).get("actions") or []
    for mark in ("??", "?"):
        for i, a in enumerate(actions):
            if i >= 49 and a.get("mark") == mark:
                return i + 1
    return len(answer.get("actions") or []) * 2 // 3


class Mosquitto:
    """A Mosquitto of our own on a free loopback port (its config in a temporary folder)."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.port = free_port()
        conf = folder / "mosquitto.conf"
        lines = [f"listener {self.port} {HOST}", "allow_anonymous true", "persistence false",
                 "log_dest stderr", "log_type error", "set_tcp_nodelay true"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            lines.append(f"user {getpass.getuser()}")  # else it drops to user 'mosquitto'
        conf.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)

        def listening() -> bool:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise ShotError(f"screenshots: mosquitto exited {self.proc.returncode}: "
                                + " ".join(err.split())[:200])
            with socket.create_connection((HOST, self.port), timeout=0.5):
                return True

        try:
            poll(listening, f"mosquitto did not listen on port {self.port}", timeout=15)
        except BaseException:
            self.stop()
            raise

    def url(self, path: str) -> str:
        return f"mqtt://{HOST}:{self.port}/{path}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stderr:
            self.proc.stderr.close()


@contextlib.contextmanager
def broadcast_scene(tools: Tools) -> Iterator[Scene]:
    """The club's tables publish through our Mosquitto; one broadcast page shows them."""
    from controller.publish import table_state
    from controller.remote.publisher import StatePublisher
    from controller.remote.url import parse_url
    from controller.table.debounce import Timing
    from controller.table.session import TableController
    from controller.web.broadcast import BroadcastServer

    assert tools.mosquitto is not None
    with tempfile.TemporaryDirectory(prefix="dvonn-shots-") as tmp, \
            contextlib.ExitStack() as stack:
        broker = Mosquitto(tools.mosquitto, Path(tmp))
        stack.callback(broker.stop)
        phases: dict[str, str] = {}
        for name, white, black, seed, moves in CLUB:
            ctl = TableController(timing=Timing(), game=random_game(seed, moves),
                                  players=(white, black))
            phases[name] = table_state(ctl)["phase"]
            publisher = StatePublisher(parse_url(broker.url(f"club/{name}")))
            stack.callback(publisher.close)
            publisher.attach(ctl)
            publisher.flush()
        server = BroadcastServer(parse_url(broker.url("club"), levels=(1, 1)), host=HOST, port=0)
        server.start()
        stack.callback(server.stop)
        base = f"http://{HOST}:{server.port}"

        def all_tables() -> bool:
            got = {t["name"]: (t.get("state") or {}).get("phase") for t in
                   get_json(f"{base}/api/tables")}
            return got == phases

        poll(all_tables, f"the broadcast did not get the {len(CLUB)} tables from the broker")
        yield Scene(f"{base}/", "document.body.getAttribute('data-live') === '1' && "
                    f"document.querySelectorAll('article[data-table]').length === {len(CLUB)} "
                    "&& Array.from(document.querySelectorAll('article[data-table]')).every("
                    "a => !!a.getAttribute('data-phase'))",
                    f"the broadcast page did not show the {len(CLUB)} tables")


SCENES: dict[str, Callable[[Tools], contextlib.AbstractContextManager[Scene]]] = {
    "live": live_scene, "review": review_scene, "broadcast": broadcast_scene}


# ---------------------------------------------------------------------------------- browser
def open_browser(tools: Tools, lang: str) -> Any:
    """A headless Chromium whose language is ``lang`` (its Accept-Language too)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = tools.chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-extensions", "--no-first-run", "--hide-scrollbars",
                "--force-color-profile=srgb", "--window-size=1366,900",
                f"--lang={LANGS[lang].split(',')[0]}"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": LANGS[lang]})
    return webdriver.Chrome(options=options, service=Service(tools.chromedriver))


def shoot(driver: Any, scene: Scene, size: str, theme: str, path: Path) -> None:
    """Emulate ``size`` and ``theme``, load the scene's page afresh, wait until it has drawn,
    and write the viewport as a PNG to ``path``."""
    width, height, mobile = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {
        "enabled": mobile, "maxTouchPoints": 5 if mobile else 1})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "screen", "features": [
        {"name": "prefers-color-scheme", "value": theme},
        {"name": "prefers-reduced-motion", "value": "reduce"}]})
    driver.get("about:blank")
    if scene.cookies:
        parts = urllib.parse.urlsplit(scene.url)
        driver.get(f"{parts.scheme}://{parts.netloc}/api/state")  # the cookie's site first
        for cookie in scene.cookies:
            driver.add_cookie(cookie)
        driver.get("about:blank")
    driver.get(scene.url)
    poll(lambda: driver.execute_script(f"return ({scene.ready});"), scene.what)
    if scene.after is not None:
        scene.after(driver)
    driver.execute_script("window.scrollTo(0, 0); if (document.activeElement) "
                          "{ document.activeElement.blur(); }")
    time.sleep(SETTLE)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    path.write_bytes(base64.b64decode(shot["data"]))


def make_screenshots(out: Path, pages: Sequence[str] = PAGES, sizes: Sequence[str] = tuple(SIZES),
                     themes: Sequence[str] = THEMES, langs: Sequence[str] = tuple(LANGS),
                     tools: Tools | None = None,
                     log: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Every ``PAGE-SIZE-THEME-LANG.png`` asked for, into ``out``; their paths. ShotError
    when a page does not become ready."""
    found = tools or find_tools(pages)
    if isinstance(found, str):
        raise ShotError(found)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with contextlib.ExitStack() as stack:
        scenes = {page: stack.enter_context(SCENES[page](found)) for page in pages}
        for lang in langs:
            driver = open_browser(found, lang)
            try:
                for page, scene in scenes.items():
                    for size in sizes:
                        for theme in themes:
                            path = out / f"{page}-{size}-{theme}-{lang}.png"
                            shoot(driver, scene, size, theme, path)
                            written.append(path)
                            log(str(path))
            finally:
                driver.quit()
    return written


# ---------------------------------------------------------------------------------- CLI
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"folder for the PNGs (default {DEFAULT_OUT.relative_to(ROOT)})")
    parser.add_argument("--page", action="append", choices=PAGES, help="(repeatable) default: all")
    parser.add_argument("--size", action="append", choices=tuple(SIZES), help="default: all")
    parser.add_argument("--theme", action="append", choices=THEMES, help="default: both")
    parser.add_argument("--lang", action="append", choices=tuple(LANGS), help="default: both")
    args = parser.parse_args(argv)
    pages = tuple(dict.fromkeys(args.page or PAGES))
    tools = find_tools(pages)
    if isinstance(tools, str):
        print(tools, file=sys.stderr)
        return 2
    try:
        shots = make_screenshots(args.out, pages, args.size or tuple(SIZES),
                                 args.theme or THEMES, args.lang or tuple(LANGS), tools=tools,
                                 log=print)
    except ShotError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"{len(shots)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
