"""The virtual table: clicks become snapshots for the same TableController as the sensors."""

from __future__ import annotations

import random
from concurrent.futures import wait
from typing import Any

import pytest

from controller.publish import table_state
from controller.runner import Runner
from controller.table.session import TableController
from controller.web.app import VIRTUAL_TIMING
from controller.web.bridge import Command, Inbox
from controller.web.virtual import VirtualTable, agent_for
from engine.errors import DvonnError
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import Move
from hardware.clock import FakeClock

#: Seconds a computer player may think before a test gives up on it (it takes milliseconds).
THINK_TIMEOUT = 60.0


class Harness:
    """A virtual table driven step by step from the test's thread (a fake clock)."""

    def __init__(self, **kwargs: Any) -> None:
        self.clock = FakeClock()
        self.ctl = TableController(colours=False, timing=VIRTUAL_TIMING)
        self.inbox = Inbox()
        self.table = VirtualTable(self.ctl, self.inbox, self.clock, **kwargs)
        self.runner = Runner(self.ctl, sources=[self.table], clock=self.clock,
                             frame_interval=None)
        if not self.table.agents:
            self.settle()

    def wait_for_computer(self) -> None:
        """A computer player thinks in its own thread: wait until it has chosen (a step of
        the loop only looks whether it has, so counting steps would race the scheduler)."""
        thinking = self.table._thinking
        if thinking is not None:
            done, _ = wait([thinking], timeout=THINK_TIMEOUT)
            assert done, f"the computer player did not choose within {THINK_TIMEOUT} s"

    def run_until(self, done: Any, steps: int = 5000) -> None:
        """Step (waiting for computer players) until ``done()``."""
        for _ in range(steps):
            if done():
                return
            self.wait_for_computer()
            self.clock.advance(0.01)
            self.runner.step(0.0)
        raise AssertionError(f"not done after {steps} steps: {self.ctl.view()}")

    def settle(self, limit: int = 200) -> None:
        """Step until the table has nothing more to do by itself."""
        quiet = 0
        for _ in range(limit):
            self.wait_for_computer()
            self.clock.advance(0.01)
            quiet = 0 if self.runner.step(0.0) else quiet + 1
            if quiet >= 2 and self.table._thinking is None:
                return
        raise AssertionError("the virtual table did not settle")

    def send(self, name: str, arg: str = "", seat: str = "") -> dict[str, Any]:
        future = self.inbox.put(Command(name, arg, seat))
        for _ in range(20):
            self.clock.advance(0.01)
            self.runner.step(0.0)
            if future.done():
                break
        self.settle()
        return future.result(timeout=0)

    def click(self, cell: int | str, seat: str = "") -> dict[str, Any]:
        return self.send("click", cell if isinstance(cell, str) else CELL_NAMES[cell], seat)

    def roles(self, role: str) -> list[str]:
        """Cells with ``role`` in the published state (what a page shows)."""
        roles = self.table.overlay(table_state(self.ctl))["roles"]
        return sorted(n for n, r in roles.items() if r == role)

    def play(self, move: Move) -> None:
        """Carry out ``move`` by clicks, checking what the page would light on the way."""
        ply = self.ctl.game.ply
        if move.is_placement:
            assert self.click(move.target)["ok"]
        else:
            assert move.source is not None and move.target is not None
            legal = self.ctl.game.destinations(move.source)
            assert self.click(move.source)["ok"]
            assert self.roles("source") == [CELL_NAMES[move.source]]
            lit = set(self.roles("destination")) | set(self.roles("suggest"))
            assert lit == {CELL_NAMES[c] for c in range(49) if (legal >> c) & 1}
            assert self.click(move.target)["ok"]
        assert self.ctl.game.ply > ply, self.ctl.view()


def _play_by_clicks(h: Harness, seed: int) -> list[str]:
    rng = random.Random(seed)
    chosen: list[str] = []
    for _ in range(200):
        game = h.ctl.game
        if game.is_over():
            break
        move = rng.choice(game.legal_moves())
        chosen.append(str(move))
        h.play(move)
        h.settle()
    return chosen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_played_by_clicks_reaches_the_end_with_the_right_score(seed: int) -> None:
    h = Harness()
    chosen = _play_by_clicks(h, seed)
    game = h.ctl.game
    assert game.is_over()
    assert [a for a in h.ctl.actions if a != "PASS"] == chosen
    replay = Game.from_moves(h.ctl.actions)
    assert game.score() == replay.score() and replay.is_over()
    assert h.table.stacks == list(game.stacks())  # cut-off stacks went by themselves
    assert "game over" in h.ctl.view().message


def test_cut_off_stacks_wait_for_a_click_when_they_do_not_go_by_themselves() -> None:
    h = Harness(auto_remove=False)
    rng = random.Random(11)
    for _ in range(300):
        game = h.ctl.game
        assert not game.is_over(), "no move cut a stack off"
        moves = game.legal_moves()
        cutting = [m for m in moves if not game.placing and m.is_step and game.removal_if(m)]
        move = cutting[0] if cutting else rng.choice(moves)
        h.play(move)
        h.settle()
        if cutting:
            break
    cut = h.roles("remove")
    assert cut, "the cut-off stacks are shown with role remove"
    other = next(c for c in range(49) if h.table.stacks[c] and CELL_NAMES[c] not in cut)
    answer = h.click(other)
    assert not answer["ok"] and "cut-off" in answer["detail"]
    for name in cut:
        assert h.click(name)["ok"]
    assert h.roles("remove") == []
    assert all(not h.table.stacks[CELL_NAMES.index(n)] for n in cut)


def test_undo_and_new_game_set_the_virtual_table_right_by_themselves() -> None:
    h = Harness()
    for name in ("C3", "D3", "E3", "F3"):
        assert h.click(name)["ok"]
    assert h.ctl.actions == ["C3", "D3", "E3", "F3"]
    assert h.send("undo")["ok"]
    assert h.ctl.actions == ["C3", "D3", "E3"]
    assert h.roles("mismatch") == [] and h.table.cells()[CELL_NAMES.index("F3")] == "."
    assert h.click("G3")["ok"] and h.ctl.actions[-1] == "G3"
    game_before = h.ctl.game_id
    assert h.send("new")["ok"]
    assert h.ctl.actions == [] and h.table.cells() == "." * 49
    assert h.ctl.game_id == game_before  # no journal: no ids
    assert h.click("A1")["ok"] and h.ctl.actions == ["A1"]


def test_clicks_that_mean_nothing_legal_are_refused_with_the_reason() -> None:
    h = Harness()
    assert h.click("C3")["ok"]
    assert h.click("C3") == {"ok": False, "detail": "C3 is occupied"}
    assert "not a cell" in h.click("Z9")["detail"]
    assert h.click("D3", seat="w")["detail"] == "it is Black's turn"
    assert h.click("D3", seat="b")["ok"]
    rng = random.Random(3)
    while h.ctl.game.placing:
        h.play(rng.choice(h.ctl.game.legal_moves()))
    game = h.ctl.game
    theirs = next(c for c in range(49) if game.stack(c) and game.owner(c) not in (None, game.turn))
    assert "is not yours" in h.click(theirs)["detail"]  # the opponent's stack
    stuck = next(c for c in range(49) if game.stack(c) and not (game.movable() >> c) & 1
                 and game.owner(c) in (None, game.turn))
    assert "cannot move" in h.click(stuck)["detail"]
    source = next(c for c in range(49) if (game.movable() >> c) & 1)
    assert h.click(source)["ok"] and h.roles("source") == [CELL_NAMES[source]]
    far = next(c for c in range(49) if game.stack(c) and c != source
               and not (game.destinations(source) >> c) & 1)
    assert "not a landing space" in h.click(far)["detail"]
    ply = game.ply
    assert h.click(source)["ok"]  # set it back: changed one's mind
    assert h.roles("source") == [] and h.ctl.game.ply == ply
    assert h.table.stacks == list(h.ctl.game.stacks())


def test_computer_players_plug_in_as_agents() -> None:
    h = Harness(agents={"w": agent_for("random", "w", 1), "b": agent_for("ai:1", "b", 2)})
    h.run_until(h.ctl.game.is_over)
    assert h.ctl.game.score() == Game.from_moves(h.ctl.actions).score()
    assert agent_for("human", "w") is None
    for bad in ("deep-blue", "cmd:./prog"):
        with pytest.raises(DvonnError):
            agent_for(bad, "b")


def test_a_computer_player_that_fails_is_reported_not_fatal() -> None:
    def broken(game: Game) -> Move:
        raise RuntimeError("no idea")

    h = Harness(agents={"b": broken})
    h.run_until(lambda: h.table._started)
    assert h.click("C3")["ok"]
    h.run_until(lambda: bool(h.table.error))
    assert "no idea" in h.table.error and "no idea" in h.ctl.view().message
    assert h.click("D3")["detail"].startswith("it is the computer's turn")


def test_undo_against_the_computer_goes_back_to_the_humans_turn() -> None:
    h = Harness(agents={"b": agent_for("random", "b", 4)})
    h.run_until(lambda: h.table._started)
    for cell in ("C3", "E3"):
        ply = h.ctl.game.ply
        assert h.click(cell)["ok"]
        h.run_until(lambda ply=ply: h.ctl.game.ply == ply + 2 and h.table._thinking is None)
    assert len(h.ctl.actions) == 4 and h.ctl.actions[2] == "E3"
    assert h.send("undo")["ok"]
    assert h.ctl.actions == h.ctl.actions[:2] and len(h.ctl.actions) == 2
    assert h.ctl.game.turn == "w" and h.table.stacks == list(h.ctl.game.stacks())
    assert h.click("F3")["ok"] and h.ctl.actions[2] == "F3"
