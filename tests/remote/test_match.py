"""MqttSeat's rules with a fake link: prefixes, duplicates, late messages, disagreements,
a resumed table, the end of a match, and the notes the players see."""

from __future__ import annotations

import json

import pytest

from controller.config.settings import parse_config
from controller.players.opponent import Opponent
from controller.remote.link import Message
from controller.remote.match import MqttSeat, payload
from controller.remote.url import parse_url
from engine.errors import ConfigError
from engine.game import Game
from engine.move import Move

URL = parse_url("mqtt://broker.example/m1", levels=(1, 1))
OPENING = ["D3", "E3", "F3", "G3", "C3", "H3"]


class FakeLink:
    """What MqttSeat sees of a broker: the test hands it messages and connection news."""

    def __init__(self) -> None:
        self.connected = False
        self.error = ""
        self.subs: list[str] = []
        self.sent: list[tuple[str, str]] = []
        self.inbox: list[Message] = []
        self.events: list[str] = []
        self.closed = False

    def subscribe(self, topic: str) -> None:
        self.subs.append(topic)

    def publish(self, topic: str, payload: str | bytes, *, retain: bool = True) -> None:
        assert retain
        self.sent.append((topic, payload if isinstance(payload, str) else payload.decode()))

    def messages(self) -> list[Message]:
        out, self.inbox = self.inbox, []
        return out

    def wait_message(self, timeout: float) -> Message | None:
        return self.inbox.pop(0) if self.inbox else None

    def news(self) -> list[str]:
        out, self.events = self.events, []
        return out

    def close(self) -> None:
        self.closed = True

    # the test's side
    def arrive(self, topic: str, text: str, retained: bool = False) -> None:
        self.inbox.append(Message(topic, text.encode(), retained))

    def lists(self, topic: str) -> list[dict[str, object]]:
        return [json.loads(p) for t, p in self.sent if t == topic]


def game_of(actions: list[str]) -> Game:
    game = Game()
    for a in actions:
        game.push(Move.parse(a))
    return game


def seat_at_white_table() -> tuple[MqttSeat, FakeLink]:
    """The table that plays White; Black is the remote seat."""
    link = FakeLink()
    seat = MqttSeat(URL, "b", link=link)
    link.events.append("connected")
    seat.pump()
    return seat, link


def black_says(link: FakeLink, actions: list[str], *, seq: int, table: str = "tb",
               over: bool = False) -> None:
    link.arrive("m1/black", payload(table, "b", seq, actions, over=over))


def test_topics_presence_and_the_published_list() -> None:
    seat, link = seat_at_white_table()
    assert link.subs == ["m1/black", "m1/black/presence", "m1/white"]
    assert link.sent[0] == ("m1/white/presence", "online")
    seat.tell(game_of(OPENING[:1]))
    seat.tell(game_of(OPENING[:1]))  # told twice: published once
    (data,) = link.lists("m1/white")
    assert data["actions"] == ["D3"] and data["seq"] == 1 and data["side"] == "white"
    assert data["table"] == seat.table_id and data["over"] is False
    seat.tell(game_of(OPENING[:2]))
    assert [d["seq"] for d in link.lists("m1/white")] == [1, 2]
    seat.close()
    assert link.sent[-1] == ("m1/white/presence", "offline") and link.closed


def test_the_remote_action_beyond_the_local_list_is_lit() -> None:
    seat, link = seat_at_white_table()
    game = game_of(OPENING[:1])
    seat.tell(game)
    assert seat.poll(game) is None  # nothing from Black yet
    black_says(link, OPENING[:2], seq=1)
    assert seat.pump()
    assert seat.poll(game) == Move.parse("E3")
    assert seat.poll(game_of(OPENING[:2])) is None  # White's turn: not the seat's
    black_says(link, OPENING[:4], seq=2)  # Black's list may run ahead with White's action
    seat.pump()
    assert seat.poll(game) == Move.parse("E3")
    assert seat.poll(game_of(OPENING[:3])) == Move.parse("G3")
    assert seat.note == ""


def test_an_action_that_is_not_legal_here_is_not_lit() -> None:
    seat, link = seat_at_white_table()
    game = game_of(["D3"])
    seat.tell(game)
    black_says(link, ["D3", "D3"], seq=1)  # (an occupied space)
    seat.pump()
    assert seat.poll(game) is None


def test_duplicated_late_and_reordered_messages_change_nothing() -> None:
    seat, link = seat_at_white_table()
    game = game_of(OPENING[:3])
    seat.tell(game)
    black_says(link, OPENING[:4], seq=3)
    black_says(link, OPENING[:2], seq=2)  # late: an older message of the same table
    black_says(link, OPENING[:4], seq=3)  # duplicated (a republish after a reconnect)
    seat.pump()
    assert seat.theirs == OPENING[:4]
    assert seat.poll(game) == Move.parse("G3")
    black_says(link, OPENING[:4], seq=3)
    assert not seat.pump()  # nothing new
    black_says(link, OPENING[:2], seq=1)
    assert not seat.pump()
    assert seat.poll(game) == Move.parse("G3")
    link.arrive("m1/black", "not json")
    link.arrive("m1/black", json.dumps({"v": 1, "table": "x", "seq": 9, "actions": ["Z9"]}))
    link.arrive("m1/black", "")  # a cleared retained topic
    assert not seat.pump()
    assert seat.theirs == OPENING[:4] and not seat.stopped


def test_a_restarted_table_is_heard_with_its_new_id() -> None:
    seat, link = seat_at_white_table()
    game = game_of(OPENING[:5])
    seat.tell(game)
    black_says(link, OPENING[:4], seq=40, table="old")
    black_says(link, OPENING[:6], seq=1, table="new")  # rebooted: seq starts again
    seat.pump()
    assert seat.poll(game) == Move.parse("H3")


def test_tables_that_disagree_stop_and_say_where() -> None:
    seat, link = seat_at_white_table()
    seat.tell(game_of(OPENING[:3]))
    black_says(link, ["D3", "E3", "E4"], seq=1)  # Black's table has White's third elsewhere
    seat.pump()
    assert seat.stopped
    assert seat.note.startswith("the tables disagree at ply 3: here F3, there E4")
    black_says(link, OPENING[:4], seq=2)  # even if it comes back into line: stopped
    seat.pump()
    assert seat.poll(game_of(OPENING[:3])) is None
    assert "disagree" in seat.note


def test_a_take_back_then_another_action_is_a_disagreement() -> None:
    seat, link = seat_at_white_table()
    seat.tell(game_of(OPENING[:3]))
    black_says(link, OPENING[:4], seq=1)
    seat.pump()
    seat.tell(game_of(OPENING[:2]))  # White took back F3: still a prefix of Black's list
    assert not seat.stopped
    seat.tell(game_of(OPENING[:2] + ["A1"]))  # ... and played another action
    assert seat.stopped and "ply 3: here A1, there F3" in seat.note


def test_a_take_back_of_the_remote_action_lights_it_again() -> None:
    seat, link = seat_at_white_table()
    seat.tell(game_of(OPENING[:2]))
    black_says(link, OPENING[:2], seq=1)
    seat.pump()
    game = game_of(OPENING[:1])  # the person took Black's E3 back
    seat.tell(game)
    assert seat.poll(game) == Move.parse("E3")


def test_a_resumed_table_catches_up_from_the_retained_list() -> None:
    link = FakeLink()
    seat = MqttSeat(URL, "b", link=link)  # a table that rebooted: its journal is at ply 3
    game = game_of(OPENING[:3])
    seat.tell(game)
    assert "connecting to the broker" in seat.note
    link.events.append("connected")
    link.arrive("m1/black", payload("tb", "b", 7, OPENING[:4]), retained=True)
    seat.pump()
    assert seat.poll(game) == Move.parse("G3")
    assert link.lists("m1/white")[-1]["actions"] == OPENING[:3]


def test_a_table_behind_with_its_own_action_is_told_what_to_play() -> None:
    seat, link = seat_at_white_table()
    game = game_of(OPENING[:2])  # White's journal lost F3; Black's table recorded it
    seat.tell(game)
    black_says(link, OPENING[:4], seq=1)
    seat.pump()
    assert seat.poll(game) is None  # White's turn: a person plays it
    assert seat.note == "the other table has F3 for White next: play it to catch up"


def test_the_match_ends_with_its_game() -> None:
    seat, link = seat_at_white_table()
    game = Game()
    rng = __import__("random").Random(3)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    seat.tell(game)
    last = link.lists("m1/white")[-1]
    assert last["over"] is True and last["score"] == list(game.score())
    sent = len(link.sent)
    seat.tell(Game())  # a new game on this table: the match is over, nothing is published
    assert seat.stopped and "ended with its game" in seat.note
    assert len(link.sent) == sent
    assert seat.poll(Game()) is None


def test_joining_a_match_whose_game_is_over() -> None:
    seat, link = seat_at_white_table()
    seat.tell(Game())
    black_says(link, OPENING, seq=5, over=True)
    seat.pump()
    assert seat.stopped and "ended with its game" in seat.note


def test_notes_for_the_connection_and_the_other_table() -> None:
    link = FakeLink()
    seat = MqttSeat(URL, "b", link=link)
    seat.tell(Game())
    assert "connecting to the broker mqtt://broker.example:1883/m1" in seat.note
    link.events.append("connected")
    assert seat.pump()
    assert seat.note == "waiting for Black's table to join match m1"
    black_says(link, [], seq=1)
    link.arrive("m1/black/presence", "online", retained=True)
    seat.pump()
    assert seat.note == ""
    link.arrive("m1/black/presence", "offline")  # its last will: it dropped off
    assert seat.pump()
    assert seat.note == "Black's table is offline; waiting for it to come back"
    link.events.append("disconnected")
    seat.pump()
    assert seat.note == "connection to the broker lost; reconnecting"
    link.events.append("connected")
    link.arrive("m1/black/presence", "online")
    seat.pump()
    assert seat.note == ""
    link.error = "Not authorized"
    link.events.append("refused")
    seat.pump()
    assert "refused the connection (Not authorized)" in seat.note


def test_wait_takes_a_message_for_pump() -> None:
    seat, link = seat_at_white_table()
    game = game_of(["D3"])
    seat.tell(game)
    assert not seat.wait(0.0)
    black_says(link, OPENING[:2], seq=1)
    assert seat.wait(0.0)
    assert seat.poll(game) is None  # not taken in until pumped
    assert seat.pump()
    assert seat.poll(game) == Move.parse("E3")


def test_the_config_remote_section_reaches_the_seat(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    cfg = parse_config(f'[remote]\nusername = "club"\npassword_file = "{secret}"\n')
    assert cfg.remote.as_dict() == {"username": "club", "password_file": str(secret),
                                    "tls": False, "ca_file": None}
    with pytest.raises(ConfigError, match="remote.tls"):
        parse_config("[remote]\ntls = 1\n")
    with pytest.raises(ConfigError, match="remote.port"):
        parse_config("[remote]\nport = 1\n")
    made: list[object] = []

    class Spy(MqttSeat):
        def __init__(self, url, side, *, credentials=None, link=None):  # type: ignore[no-untyped-def]
            made.append((str(url), side, credentials))
            super().__init__(url, side, link=FakeLink())

    monkeypatch.setattr("controller.remote.match.MqttSeat", Spy)
    for name in ("DVONN_MQTT_USERNAME", "DVONN_MQTT_PASSWORD", "DVONN_MQTT_PASSWORD_FILE"):
        monkeypatch.delenv(name, raising=False)
    opponent = Opponent("human", "remote:mqtt://club.example/m9",
                        remote_config=cfg.remote.as_dict())
    assert opponent.remote
    ((url, side, creds),) = made
    assert (url, side, creds.username, creds.password) == (
        "mqtt://club.example:1883/m9", "b", "club", "s3cret")
    opponent.close()


def test_two_tables_playing_the_same_side_stop() -> None:
    seat, link = seat_at_white_table()
    seat.tell(game_of(["D3"]))
    link.arrive("m1/white", payload(seat.table_id, "w", 1, ["D3"]))  # its own, echoed
    link.arrive("m1/white", payload("before-a-reboot", "w", 9, ["D3"]), retained=True)
    seat.pump()
    assert not seat.stopped
    link.arrive("m1/white", payload("another", "w", 1, []))  # live: another White table
    seat.pump()
    assert seat.stopped
    assert seat.note == "another table plays White in match m1 too: one of the two must play Black"
