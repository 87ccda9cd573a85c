"""Two simulated tables play each other through a real Mosquitto: both end with the same game,
also when one table's connection is cut and restored in the middle, and when one table stops
and resumes from its journal."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from controller.journal.store import Journal
from controller.remote.link import MqttLink
from controller.remote.url import parse_url
from controller.sim.demo import DemoOptions, DemoResult, run_demo
from hardware.leds import RecordingStrip
from tests.remote.broker import Broker
from tests.remote.proxy import Proxy

WAIT = 120.0  # seconds a test waits for a game before it fails (never a timing check)
REPO = Path(__file__).resolve().parents[2]


class Table(threading.Thread):
    """One demo table in a thread: ``result`` or ``error`` when done."""

    def __init__(self, opts: DemoOptions) -> None:
        super().__init__(daemon=True)
        self.opts = opts
        self.result: DemoResult | None = None
        self.error: BaseException | None = None
        self.out = io.StringIO()

    def run(self) -> None:
        try:
            self.result = run_demo(self.opts, self.out)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            self.error = exc

    def finish(self) -> DemoResult:
        self.join(WAIT)
        assert not self.is_alive(), "the table's game did not end"
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


def table(seed: int, **players: str) -> DemoOptions:
    opts = DemoOptions(fast=True, seed=seed, direct=True, quiet=True, strip=RecordingStrip(),
                       remote_timeout=60.0)
    for side, spec in players.items():
        setattr(opts, side, spec)
    return opts


class Watcher:
    """Reads the match's retained lists on the broker, as a third party."""

    def __init__(self, url: str, match: str) -> None:
        self.link = MqttLink(parse_url(url, levels=(1, 1)), name="watcher")
        self.link.subscribe(f"{match}/+")
        self.link.subscribe(f"{match}/+/presence")
        self.lengths: dict[str, int] = {}
        self.presence: dict[str, str] = {}

    def until(self, done: Callable[[dict[str, int]], bool], also: Callable[[], bool]) -> None:
        """Wait until ``done(lengths)`` (or ``also()``)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if done(self.lengths) or also():
                return
            msg = self.link.wait_message(0.05)
            if msg is None or not msg.payload:
                continue
            if msg.topic.endswith("/presence"):
                self.presence[msg.topic] = msg.text()
            else:
                self.lengths[msg.topic] = len(json.loads(msg.payload)["actions"])
        raise AssertionError(f"the match did not get there: {self.lengths}")

    def close(self) -> None:
        self.link.close()


def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)  # polling a condition, not timing the test
    raise AssertionError(f"never: {what}")


def same_game(a: DemoResult, b: DemoResult) -> None:
    assert a.over and b.over
    assert a.actions == b.actions
    assert a.score == b.score and a.winner == b.winner


def test_two_tables_play_each_other(broker: Broker) -> None:
    url = broker.url("m1")
    white = Table(table(1, black=f"remote:{url}"))  # plays White here; Black is over there
    black = Table(table(2, white=f"remote:{url}"))
    white.start()
    black.start()
    a, b = white.finish(), black.finish()
    same_game(a, b)
    assert len(a.actions) > 49


def test_a_cut_connection_is_restored_and_the_game_goes_on(broker: Broker) -> None:
    proxy = Proxy(broker.port)
    watcher = Watcher(broker.url("m2"), "m2")
    try:
        white = Table(table(3, black=f"remote:{proxy.url('m2')}"))
        black = Table(table(4, white=f"remote:{broker.url('m2')}"))
        white.start()
        black.start()
        watcher.until(lambda n: n.get("m2/white", 0) >= 40, lambda: not white.is_alive())
        assert white.is_alive(), white.error
        proxy.cut()
        until(lambda: proxy.refused >= 1, "the cut table tries to reconnect")
        watcher.until(lambda _: watcher.presence.get("m2/white/presence") == "offline",
                      lambda: False)  # the broker's last will of the cut table
        proxy.restore()
        watcher.until(lambda _: watcher.presence.get("m2/white/presence") == "online",
                      lambda: False)  # back
        a, b = white.finish(), black.finish()
        same_game(a, b)
        assert proxy.accepted >= 2  # it came back through the proxy
    finally:
        watcher.close()
        proxy.close()


def test_a_table_that_stops_resumes_from_its_journal_and_catches_up(
        broker: Broker, tmp_path: Path) -> None:
    proxy = Proxy(broker.port)
    watcher = Watcher(broker.url("m3"), "m3")
    journal = str(tmp_path / "white.sqlite3")
    try:
        first = table(5, black=f"remote:{proxy.url('m3')}")
        first.journal = journal
        first.remote_timeout = 1.0  # cut off, it gives up soon (a reboot)
        white = Table(first)
        black = Table(table(6, white=f"remote:{broker.url('m3')}"))
        white.start()
        black.start()
        watcher.until(lambda n: n.get("m3/white", 0) >= 30, lambda: not white.is_alive())
        proxy.cut()
        white.join(WAIT)
        assert white.error is not None and "no action from the remote side" in str(white.error)
        stopped_at = len(Journal(journal).actions(Journal(journal).games()[-1].id))
        assert 0 < stopped_at < 80
        proxy.restore()
        again = table(5, black=f"remote:{proxy.url('m3')}")
        again.journal = journal
        resumed = Table(again)
        resumed.start()
        a, b = resumed.finish(), black.finish()
        assert a.controller.resumed
        same_game(a, b)
    finally:
        watcher.close()
        proxy.close()


def test_two_demo_commands_play_each_other(broker: Broker, tmp_path: Path) -> None:
    """The commands as a person types them (``--direct`` keeps it quick)."""
    url = broker.url("m4")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = []
    for seed, side in ((1, "--black"), (2, "--white")):
        journal = tmp_path / f"{seed}.sqlite3"
        argv = [sys.executable, "-m", "controller.cli", "demo", "--fast", "--direct", "--seed",
                str(seed), side, f"remote:{url}", "--journal", str(journal)]
        out = (tmp_path / f"{seed}.out").open("w")
        procs.append((subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=out,
                                       stderr=subprocess.STDOUT, text=True), out, journal))
    said = []
    for proc, out, _ in procs:
        proc.wait(WAIT)
        out.close()
        text = Path(out.name).read_text()
        assert proc.returncode == 0, text[-2000:]
        said.append([line for line in text.splitlines() if line.startswith(("score", "winner"))])
    assert said[0] == said[1] and len(said[0]) == 2
    games = []
    for _, _, path in procs:
        j = Journal(path)
        games.append(j.actions(j.games()[-1].id))
        j.close()
    assert games[0] == games[1] and len(games[0]) > 49


def test_two_tables_that_both_play_white_stop_and_say_so(broker: Broker) -> None:
    url = broker.url("m5")
    one = Table(table(7, black=f"remote:{url}"))
    two = Table(table(8, black=f"remote:{url}"))
    one.start()
    two.start()
    for t in (one, two):
        t.join(WAIT)
        assert not t.is_alive()
        assert t.error is not None
        assert "another table plays White in match m5 too" in str(t.error)


def test_a_link_closed_right_after_publishing_delivers_the_last_message(broker: Broker) -> None:
    """(The last list of a table whose game just ended must not be lost on the way out.)"""
    url = parse_url(broker.url("m6"), levels=(1, 1))
    with MqttLink(url, name="watcher") as watcher:
        watcher.subscribe("m6/x")
        until(lambda: watcher.connected, "the watcher connected")
        link = MqttLink(url, name="table", will=("m6/presence", "offline"))
        until(lambda: link.connected, "the table connected")
        for i in range(50):
            link.publish("m6/x", str(i))
        link.close()
        deadline = time.monotonic() + WAIT
        seen = ""
        while seen != "49" and time.monotonic() < deadline:
            msg = watcher.wait_message(0.1)
            seen = msg.text() if msg is not None else seen
        assert seen == "49"
