"""The game clock (controller/table/clock.py, timer.py) with a fake clock: time controls,
the increment, whose clock runs (the table's commits, prompts, removals, the clock button),
flag fall (a loss, or a tie when the opponent can no longer win), pause on power loss and
resume from the journal, remote clocks and a disagreement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_helpers import find_position, placed  # noqa: F401 - the fixture

from controller.journal.clocks import ClockStore
from controller.journal.store import Journal
from controller.remote.match import _clock, payload
from controller.table.clock import (
    GameClock,
    TimeControl,
    TimeControlError,
    can_still_win,
    mmss,
    parse_control,
)
from controller.table.session import TableController
from controller.table.timer import ClockOptions, TableClock
from engine.game import Game
from engine.geometry import parse_cell
from engine.move import Move
from hardware.clock import FakeClock
from hardware.events import ButtonEvent, SnapshotEvent


def test_time_controls_parse_and_show() -> None:
    assert parse_control("15+10") == TimeControl(15, 10)
    assert parse_control("none") is None and parse_control(None) is None
    assert str(parse_control("3+2")) == "3+2"
    for bad in ("15", "15+", "a+b", "0+5", "-1+2"):
        with pytest.raises(TimeControlError, match="time control"):
            parse_control(bad)
    assert [mmss(s) for s in (180, 59.2, 0.2, -3, 3725)] == ["3:00", "1:00", "0:01", "0:00",
                                                           "1:02:05"]


def test_the_model_runs_one_side_and_adds_the_increment() -> None:
    c = GameClock(TimeControl(1, 5))
    c.run("w", 10.0)
    assert c.left("w", 40.0) == 30.0 and c.left("b", 40.0) == 60.0
    c.increment("w")
    c.run("b", 40.0)
    assert c.left("w", 100.0) == 35.0 and c.left("b", 100.0) == 0.0
    assert c.flagged(100.0) == "b" and c.when_flag() == 100.0


class Table:
    """A camera table (top colours known) fed at the fake clock's time."""

    def __init__(self, control: str = "1+2", game: Game | None = None, journal: Any = None,
                 **options: Any) -> None:
        self.clock = FakeClock()
        self.ctl = TableController(game=game, colours=True, journal=journal)
        store = ClockStore(journal) if journal is not None else None
        tc = parse_control(control)
        assert tc is not None
        self.timer = TableClock(self.ctl, tc, self.clock, store=store,
                                options=ClockOptions(control=tc, **options))

    def read(self, cells: str, hold: float = 1.0) -> None:
        self.ctl.handle(SnapshotEvent(self.clock.now(), cells))
        self.wait(hold)

    def wait(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.ctl.advance(self.clock.now())
        self.timer.tick(self.clock.now())

    def play(self, action: str, hold: float = 1.0) -> None:
        g = self.ctl.game.copy()
        g.push(Move.parse(action))
        self.read(g.snapshot(True), hold)

    def left(self, side: str) -> float:
        return self.timer.left(side)


def test_the_table_switches_the_clock_when_it_commits_and_adds_the_increment() -> None:
    t = Table("1+2")
    assert t.timer.running() == "w"  # White's clock runs from the start
    t.wait(10.0)
    t.play("C3", hold=1.0)  # committed once the reading held 0.5 s
    assert t.ctl.game.ply == 1 and t.timer.running() == "b"
    white = t.left("w")
    assert 60 - 11 + 2 <= white <= 60 - 10 + 2  # White's time ran until the commit, +2 s
    t.wait(4.0)
    black = t.left("b")
    assert 60 - 5 <= black <= 60 - 4
    t.play("D3")
    assert t.timer.running() == "w" and t.left("w") == white
    assert 60 - 6 + 2 <= t.left("b") <= 60 - 4 + 2
    # the clocks add up to the time spent (less the increments)
    spent = 120 - t.left("w") - t.left("b") + 2 * 2
    assert spent == pytest.approx(t.clock.now(), abs=0.01)
    assert "White 0:5" in t.timer.line() and "*" in t.timer.line()


def test_the_clock_button_hands_over_when_the_table_committed() -> None:
    t = Table("1+0", switch="button")
    t.play("C3")
    assert t.ctl.game.ply == 1 and t.timer.running() == "w"  # White has not pressed yet
    t.wait(3.0)
    t.ctl.handle(ButtonEvent(t.clock.now(), "clock"))
    assert t.timer.running() == "b"
    assert t.left("w") == pytest.approx(60 - t.clock.now(), abs=0.01)  # until the press
    t.ctl.handle(ButtonEvent(t.clock.now(), "clock"))  # an early press: nothing to hand over
    assert t.timer.running() == "b"


def test_a_flag_falls_as_a_loss_on_time_journaled(tmp_path: Path) -> None:
    with Journal(tmp_path / "games.sqlite3") as journal:
        t = Table("0.1+0", journal=journal)  # 6 s a side
        t.play("C3")  # Black's clock runs from the commit
        t.wait(4.0)
        assert t.timer.fallen is None and t.left("b") > 0
        t.wait(2.0)
        assert t.timer.fallen == "b" and t.timer.result == "black out of time"
        assert t.ctl.finished and "Black's time is up: White wins on time" in t.ctl.message
        info = journal.game(t.ctl.game_id)
        assert info.result == "black out of time" and info.finished is not None
        t.play("D3")  # nothing is committed after the flag
        assert t.ctl.game.ply == 1
        assert t.timer.running() is None
        state = ClockStore(journal).load(t.ctl.game_id)
        assert state is not None and state["b"] <= 0


def test_a_flag_against_an_opponent_who_cannot_win_is_a_tie() -> None:
    def lost_cause(g: Game) -> bool:  # the side not to move could not win any more
        return not g.is_over() and not can_still_win(g, "b" if g.turn == "w" else "w")

    position = find_position(lost_cause, seed=3)
    t = Table("0.1+0", game=position)
    flagged = position.turn
    t.wait(7.0)
    assert t.timer.fallen == flagged and t.timer.result == "tie"
    assert "can no longer win" in t.ctl.message
    assert can_still_win(Game(), "b")  # in the placing phase anyone can still win


def test_a_removal_runs_the_movers_clock(placed: Game) -> None:  # noqa: F811
    game = find_position(lambda g: any(g.removal_if(m) for m in g.legal_moves()
                                       if not m.is_pass), seed=2)
    move = next(m for m in game.legal_moves() if not m.is_pass and game.removal_if(m))
    mover = game.turn
    t = Table("5+0", game=game)
    after = game.copy()
    after.push(move)
    cells = list(after.snapshot(True))
    before = game.snapshot(True)
    for c in range(49):  # the cut-off stacks still stand on the board
        if (game.removal_if(move) >> c) & 1 and c != move.target:
            cells[c] = before[c]
    t.read("".join(cells))
    assert t.ctl.game.ply == game.ply + 1 and t.ctl.removals
    assert t.timer.running() == mover  # taking off what the move cut off is the mover's time
    t.read(after.snapshot(True))
    assert not t.ctl.removals and t.timer.running() == after.turn


def test_a_prompt_runs_the_clock_of_the_side_that_must_answer(placed: Game) -> None:  # noqa: F811
    # a hall-sensor table cannot see where a lifted stack landed: it asks
    source = next(c for c in range(49) if placed.owner(c) == "w" and
                  bin(placed.destinations(c)).count("1") >= 2 and
                  not any(placed.removal_if(Move(c, d)) for d in range(49)
                          if (placed.destinations(c) >> d) & 1))
    clock = FakeClock()
    ctl = TableController(game=placed, colours=False)
    timer = TableClock(ctl, TimeControl(5, 0), clock)
    cells = list(placed.snapshot(False))
    cells[source] = "."
    ctl.handle(SnapshotEvent(clock.now(), "".join(cells)))
    clock.advance(1.0)
    ctl.advance(clock.now())
    assert ctl.view().prompt and ctl.game.ply == placed.ply
    assert timer.running() == "w"
    clock.advance(3.0)
    ctl.handle(ButtonEvent(clock.now(), "next"))
    ctl.handle(ButtonEvent(clock.now(), "confirm"))
    assert ctl.game.ply == placed.ply + 1 and timer.running() == "b"
    assert timer.left("w") == pytest.approx(300 - 4.0, abs=0.01)
    assert parse_cell("A1") == 0


def test_power_loss_pauses_the_clocks_and_resume_restores_them(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as journal:
        t = Table("2+0", journal=journal)
        t.wait(1.5)
        t.play("C3")
        t.wait(20.0)  # Black thinks; the clocks are saved every 10 s while one runs
        white, black = t.left("w"), t.left("b")
        assert white < 120
        game_id = t.ctl.game_id
    # the power is off for an hour; the table starts again on a fresh clock
    with Journal(path) as journal:
        clock = FakeClock(5000.0)
        ctl = TableController(journal=journal, colours=True)
        assert ctl.resumed and ctl.game_id == game_id
        timer = TableClock(ctl, TimeControl(2, 0), clock, store=ClockStore(journal))
        assert timer.left("w") == pytest.approx(white, abs=0.01)
        assert black <= timer.left("b") <= black + 10.0  # at most the time since the last save
        restored = timer.left("b")
        assert timer.running() == "b"
        clock.advance(5.0)
        assert timer.left("b") == pytest.approx(restored - 5.0, abs=0.01)


class Seat:
    """A remote seat as the timer sees it (controller.remote.match.MqttSeat's clock part)."""

    remote = True

    def __init__(self) -> None:
        self.clock_out: dict[str, object] | None = None
        self.their_clock: dict[str, object] | None = None


class Opponent:
    """The parts of controller.players.opponent.Opponent the table calls."""

    def __init__(self, seat: Seat) -> None:
        self.players = {"w": None, "b": seat}

    def refuse(self, ctl: Any, moves: Any, back: int) -> bool:
        return False

    def roles(self, ctl: Any, lifted: Any) -> tuple[dict[int, str], int]:
        return {}, 0

    def message(self, ctl: Any) -> str:
        return ""


def test_remote_clocks_take_the_other_tables_time_and_say_a_disagreement() -> None:
    seat = Seat()
    t = Table("5+0")
    t.ctl.opponent = Opponent(seat)
    t.wait(2.0)
    t.play("C3")  # this table's own side: its time goes out with its actions
    assert seat.clock_out == {"control": "5+0", "side": "w", "ply": 1,
                              "left": pytest.approx(300 - 2.0, abs=0.01)}
    # Black's table says Black used 4 s; this table saw about as much: no word
    t.wait(3.0)
    seat.their_clock = {"control": "5+0", "side": "b", "ply": 2, "left": 296.0}
    t.play("D3")
    assert t.left("b") == pytest.approx(296.0) and t.timer.note == ""
    # the next report is 40 s off what this table measured: said, not hidden
    t.play("E3")
    t.wait(2.0)
    seat.their_clock = {"control": "5+0", "side": "b", "ply": 4, "left": 250.0}
    t.play("F3")
    assert t.left("b") == pytest.approx(250.0)
    assert "the clocks disagree: Black" in t.timer.note and "4:10" in t.timer.note
    assert "disagree" in t.timer.line()
    # a remote side's flag is its own table's to call
    t2 = Table("0.1+0")
    t2.ctl.opponent = Opponent(Seat())
    t2.play("C3")
    t2.wait(10.0)
    assert t2.timer.fallen is None


def test_the_remote_payload_carries_the_clock() -> None:
    clock = {"control": "3+2", "side": "w", "ply": 5, "left": 171.5}
    text = payload("t1", "w", 3, ["C3"], clock=clock)
    assert _clock(text.encode()) == clock
    assert _clock(payload("t1", "w", 3, ["C3"]).encode()) is None
