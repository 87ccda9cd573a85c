"""``--publish mqtt://HOST/CLUB/TABLE``: a table's state, presence and results on a real
Mosquitto (controller.remote.publisher), and the option's checks on the command line."""

from __future__ import annotations

import io
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.publish import table_state
from controller.remote.link import MqttLink
from controller.remote.publisher import OFFLINE, ONLINE, StatePublisher, result_key
from controller.remote.url import parse_url
from controller.sim.demo import DemoOptions, run_demo
from controller.table.session import TableController
from engine.game import Game
from hardware.leds.base import NullStrip
from tests.remote.broker import Broker

WAIT = 20.0  # seconds a test waits for the network before it fails (never a timing check)


def random_game(seed: int, plies: int = 400) -> Game:
    rng = random.Random(seed)
    game = Game()
    while not game.is_over() and game.ply < plies:
        game.push(rng.choice(sorted(game.legal_moves(), key=str)))
    return game


def state_of(game: Game, players: tuple[str, str] = ("Ann", "Bob")) -> dict[str, Any]:
    """A real table_state of ``game``."""
    return table_state(TableController(game=game, players=players, resume=False))


def retained(url: str, topics: list[str], want: dict[str, Any] | None = None
             ) -> dict[str, str]:
    """What a new subscriber gets on ``topics`` (retained), waiting until each topic in
    ``want`` says what ``want`` says (a callable: until it returns True)."""
    link = MqttLink(parse_url(url, levels=(1, 2)), name="test-watch")
    try:
        for topic in topics:
            link.subscribe(topic)
        got: dict[str, str] = {}
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            msg = link.wait_message(0.1)
            if msg is not None:
                got[msg.topic] = msg.text()
            if all(k in got and (v(got[k]) if callable(v) else got[k] == v)
                   for k, v in (want or {}).items()):
                return got
        raise AssertionError(f"not retained as wanted: {want} (got {sorted(got)})")
    finally:
        link.close()


def connected(pub: StatePublisher) -> None:
    deadline = time.monotonic() + WAIT
    while not pub.link.connected:
        assert time.monotonic() < deadline, "the publisher never connected"
        time.sleep(0.01)


# ---------------------------------------------------------------------------- a real broker
def test_a_demo_table_publishes_its_state_presence_and_result(broker: Broker) -> None:
    pub = StatePublisher(parse_url(broker.url("club/t1")))
    try:
        result = run_demo(DemoOptions(fast=True, direct=True, seed=5, quiet=True,
                                      strip=NullStrip(), publish=pub), io.StringIO())
        assert result.over
        final = state_of(result.controller.game, result.controller.players)
        final["analysis"] = None
        key = result_key(result.controller.game_id, result.actions)
        got = retained(broker.url("club"), ["club/t1/#"], {
            "club/t1/state": lambda text: json.loads(text)["phase"] == "over",
            "club/t1/presence": ONLINE, f"club/t1/result/{key}": lambda text: bool(text)})
        state = json.loads(got["club/t1/state"])
        assert state["format"] == "dvonn-board/table-state"
        assert state["actions"] == result.actions and state["stacks"] == final["stacks"]
        assert state["score"] == {"white": result.score[0], "black": result.score[1]}
        assert key == result_key(state["game_id"], state["actions"])
        record = json.loads(got[f"club/t1/result/{key}"])
        assert record["actions"] == result.actions and record["winner"] == result.winner
    finally:
        pub.close()
    got = retained(broker.url("club"), ["club/t1/presence"], {"club/t1/presence": OFFLINE})
    assert got["club/t1/presence"] == OFFLINE  # said on close; the state stays
    got = retained(broker.url("club"), ["club/t1/state"],
                   {"club/t1/state": lambda text: bool(text)})


def test_the_last_will_says_offline_when_a_table_drops_without_a_goodbye(
        broker: Broker) -> None:
    pub = StatePublisher(parse_url(broker.url("club/t2")))
    connected(pub)
    pub.publish_state(state_of(Game()))
    retained(broker.url("club"), ["club/t2/presence"], {"club/t2/presence": ONLINE})
    # the table vanishes: its network thread stops without a DISCONNECT (a power cut)
    client = pub.link._client
    client.loop_stop()
    client._sock_close()
    try:
        got = retained(broker.url("club"), ["club/t2/presence"], {"club/t2/presence": OFFLINE})
        assert got["club/t2/presence"] == OFFLINE
    finally:
        pub.link._closed = True


def test_a_broker_restart_that_lost_everything_gets_the_state_again(broker: Broker) -> None:
    game = random_game(11, plies=60)
    pub = StatePublisher(parse_url(broker.url("club/t3")))
    try:
        connected(pub)
        pub.publish_state(state_of(game))
        retained(broker.url("club"), ["club/t3/state"],
                 {"club/t3/state": lambda text: json.loads(text)["ply"] == game.ply})
        broker.stop()
        for kept in broker.folder.glob("*.db"):
            kept.unlink()  # its persistence gone: only the table can bring the state back
        broker.start()
        got = retained(broker.url("club"), ["club/t3/#"], {
            "club/t3/state": lambda text: json.loads(text)["ply"] == game.ply,
            "club/t3/presence": ONLINE})
        assert json.loads(got["club/t3/state"])["actions"] == [str(m) for m in game.move_stack]
    finally:
        pub.close()


# ---------------------------------------------------------------------------- no network
class FakeLink:
    """Records what the publisher publishes."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []
        self.connected = True
        self.closed = False
        self.lock = threading.Lock()

    def publish(self, topic: str, payload: str | bytes, *, retain: bool = True) -> None:
        with self.lock:
            self.sent.append((topic, payload.encode() if isinstance(payload, str) else payload))

    def on(self, topic: str) -> list[bytes]:
        with self.lock:
            return [p for t, p in self.sent if t == topic]

    def close(self) -> None:
        self.closed = True


def wait_for(check: Any) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, "the condition never came true"
        time.sleep(0.005)


def test_bursts_are_thinned_and_the_newest_state_always_goes_out() -> None:
    now = [100.0]
    link = FakeLink()
    pub = StatePublisher(parse_url("mqtt://h/club/t"), link=link, min_interval=0.5,
                         clock=lambda: now[0])
    assert link.on("club/t/presence") == [b"online"]
    for ply in range(50):
        pub.publish_state({"format": "x", "ply": ply})
    pub.publish_state({"format": "x", "ply": 49})  # the same again: nothing new
    assert [json.loads(p)["ply"] for p in link.on("club/t/state")] == [0]  # the clock stood
    now[0] += 1.0  # the interval has passed: the worker sends the newest (no other)
    wait_for(lambda: len(link.on("club/t/state")) == 2)
    assert json.loads(link.on("club/t/state")[-1])["ply"] == 49
    pub.publish_state({"format": "x", "ply": 50})  # within the interval: pending...
    pub.close()  # ...and sent on close, before the goodbye
    assert json.loads(link.on("club/t/state")[-1])["ply"] == 50
    assert link.sent[-1] == ("club/t/presence", b"offline") and link.closed
    pub.close()  # safe twice


def test_a_finished_game_is_a_result_and_taking_it_back_clears_it() -> None:
    link = FakeLink()
    pub = StatePublisher(parse_url("mqtt://h/club/t"), link=link, min_interval=0.0)
    game = random_game(3)
    assert game.is_over()
    over = state_of(game)
    over["game_id"] = 7
    pub.publish_state(over)
    pub.publish_state(dict(over, message="game over!"))  # the same result: published once
    assert len(link.on("club/t/result/g7")) == 1
    record = json.loads(link.on("club/t/result/g7")[0])
    assert record["actions"] == over["actions"] and record["players"] == over["players"]
    game.pop()
    back = state_of(game)
    back["game_id"] = 7
    pub.publish_state(back)
    assert link.on("club/t/result/g7")[-1] == b""  # taken back: not finished after all
    pub.close()


def test_the_computer_s_analysis_is_not_published() -> None:
    link = FakeLink()
    pub = StatePublisher(parse_url("mqtt://h/club/t"), link=link, min_interval=0.0)
    pub.publish_state(dict(state_of(Game()), analysis={"best": "C3", "score": 1.0}))
    pub.close()
    assert json.loads(link.on("club/t/state")[0])["analysis"] is None


# ---------------------------------------------------------------------------- the CLI
@pytest.mark.parametrize("command", [
    ["demo", "--fast", "--direct"],
    ["web", "127.0.0.1:0"],
    ["play"],
])
@pytest.mark.parametrize("url, words", [
    ("mqtt://127.0.0.1:1/club", "level"),
    ("http://127.0.0.1/club/t", "expected mqtt://"),
    ("mqtt://me:pw@127.0.0.1/club/t", "no user name or password"),
])
def test_a_bad_publish_url_is_one_line_and_creates_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        command: list[str], url: str, words: str) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    journal = tmp_path / "games.sqlite3"
    rc = main([*command, "--journal", str(journal), "--publish", url])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and words in err and "--publish" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no journal, no lock, no config

