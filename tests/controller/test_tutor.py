"""The live tutor on the simulated table (TableController fed readings, a fake clock): a known
blunder is marked with the better action, which the LEDs light for a few seconds; the table
offers to take it back: a person opponent may refuse (it stays) or allow, a computer opponent
accepts, and the take-back restores the position (the game and the board the LEDs ask for).
The judging runs in its own process: the tests poll for its verdicts (real time, generous)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from table_helpers import Feeder, board, playouts

from controller.players.judging import NODES, Judge
from controller.players.opponent import Opponent
from controller.players.tutor import Tutor
from controller.publish import table_state
from controller.table.expected import Expected
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import Move
from engine.review import BLUNDER, judge
from engine.search import Limits
from hardware.clock import FakeClock


def blunder() -> tuple[Game, Move, Move]:
    """A moving-phase position with White to act and an action that loses BLUNDER pieces or
    more against the engine's best (engine.review.judge at the tutor's budget), cutting
    nothing off: the position, the blunder and the better action."""
    for g in playouts(7):
        if g.placing or g.is_over() or g.turn != "w":
            continue
        for m in g.legal_moves():
            if m.is_pass or g.removal_if(m):
                continue
            r = judge(g, m, Limits(nodes=NODES))
            if r.mark == "??" and r.loss >= BLUNDER and r.best is not None:
                return g.copy(), m, r.best
    raise AssertionError("no blunder found")


@pytest.fixture(scope="module")
def known() -> tuple[Game, Move, Move]:
    return blunder()


@pytest.fixture
def judge_worker() -> Iterator[Judge]:
    j = Judge(seconds=None)  # nodes only: the same verdict however loaded the machine
    yield j
    j.close()


def after(game: Game, move: Move) -> str:
    g = game.copy()
    g.push(move)
    return board(g, True)


def play(f: Feeder, game: Game, move: Move) -> None:
    """Carry out ``move`` from ``game`` on the table; when the readings leave the landing
    space open (the table prompts), lift the stack that landed and set it back."""
    snap = after(game, move)
    f.read(snap)
    if f.ctl.game.ply == game.ply and move.target is not None:
        t = move.target
        f.read(snap[:t] + "." + snap[t + 1:])
        f.read(snap)
    assert f.ctl.game.move_stack[-1] == move


def wait_for(tutor: Tutor, pred: object, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tutor.poll()
        if pred():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError("the tutor's verdict did not come")


def table(game: Game, judge_worker: Judge, black: str = "human"
          ) -> tuple[Feeder, Tutor, FakeClock]:
    clock = FakeClock()
    f = Feeder(game=game, colours=True)
    if black != "human":
        Opponent("human", black, seed=1).attach(f.ctl)
    tutor = Tutor("better", clock=clock, judge=judge_worker)
    tutor.attach(f.ctl)
    f.read(board(game, True))
    return f, tutor, clock


def test_a_blunder_is_marked_with_the_better_action(known: tuple[Game, Move, Move],
                                                    judge_worker: Judge) -> None:
    game, bad, best = known
    f, tutor, clock = table(game, judge_worker)
    assert tutor.sides == "wb"
    play(f, game, bad)
    assert f.ctl.game.move_stack[-1] == bad
    ply = game.ply + 1
    wait_for(tutor, lambda: ply in tutor.judged)
    j = tutor.judged[ply]
    assert (j.mark, j.action, j.best) == ("??", str(bad), str(best))
    message = f.ctl.view().message
    assert f"{bad}??" in message and f"better: {best}" in message
    assert f"undo takes {bad} back" in message
    roles = f.roles()
    assert best.source is not None and best.target is not None
    assert roles[CELL_NAMES[best.source]] == roles[CELL_NAMES[best.target]] == "suggest"
    state = table_state(f.ctl)["tutor"]
    assert state["marks"] == {str(ply - 1): "??"}
    assert state["last"]["text"] == f"{bad}??" and state["last"]["best"] == str(best)
    assert state["offer"]["side"] == "w" and not state["offer"]["computer"]
    # a few seconds later the LEDs go back to the game; the mark stays in the list
    clock.advance(tutor.show_seconds + 0.1)
    tutor.poll()
    assert "suggest" not in f.roles().values()
    assert table_state(f.ctl)["tutor"]["marks"] == {str(ply - 1): "??"}


def test_a_person_opponent_refuses_and_the_action_stays(known: tuple[Game, Move, Move],
                                                        judge_worker: Judge) -> None:
    game, bad, _best = known
    f, tutor, _clock = table(game, judge_worker)
    play(f, game, bad)
    wait_for(tutor, lambda: tutor.offer is not None)
    assert tutor.command("takeback", "b")  # only the erring side asks
    assert tutor.command("takeback", "w") == ""
    assert "allow or refuse" in f.ctl.view().message
    assert tutor.command("allow", "w")  # the opponent answers, not the one who asked
    assert tutor.command("refuse", "b") == ""
    assert f.ctl.game.move_stack[-1] == bad and tutor.offer is None
    assert f"Black refused: {bad} stays" in f.ctl.view().message
    assert "mismatch" not in f.roles().values()


def test_allowed_the_take_back_restores_the_position(known: tuple[Game, Move, Move],
                                                     judge_worker: Judge) -> None:
    game, bad, _best = known
    f, tutor, _clock = table(game, judge_worker)
    play(f, game, bad)
    wait_for(tutor, lambda: tutor.offer is not None)
    assert tutor.command("takeback", "w") == "" and tutor.command("allow", "b") == ""
    assert f.ctl.game.move_stack == game.move_stack
    assert f.ctl.expected.board == Expected.of(game, {}).board
    # the LEDs ask for the board to be put back (the emptied space), until it is
    assert bad.source is not None
    assert f.roles()[CELL_NAMES[bad.source]] == "mismatch"
    f.read(board(game, True))
    assert "mismatch" not in f.roles().values()
    assert f.ctl.game.move_stack == game.move_stack


def test_a_computer_accepts_and_undo_takes_back_its_reply_too(
        known: tuple[Game, Move, Move], judge_worker: Judge) -> None:
    game, bad, _best = known
    f, tutor, _clock = table(game, judge_worker, black="ai:1")
    assert tutor.sides == "w"
    play(f, game, bad)
    mid = f.ctl.game.copy()
    reply = f.ctl.opponent.pending_for(mid)
    assert reply is not None
    play(f, mid, reply)  # the person carries out the computer's reply at once
    assert f.ctl.game.ply == game.ply + 2
    # the verdict came after the next action: shown for the action it judged, no LEDs
    wait_for(tutor, lambda: game.ply + 1 in tutor.judged)
    assert tutor.offer is not None and table_state(f.ctl)["tutor"]["offer"]["computer"]
    assert f"{bad}??" in f.ctl.view().message
    assert table_state(f.ctl)["tutor"]["lit"] == []
    f.press("undo")  # the table's undo button: back to before the blunder
    assert f.ctl.game.move_stack == game.move_stack
    f.read(board(game, True))
    assert "mismatch" not in f.roles().values()
    assert tutor.offer is None


def test_a_verdict_for_an_action_taken_back_is_dropped(known: tuple[Game, Move, Move]) -> None:
    game, bad, _best = known
    j = Judge(seconds=None, process=False)
    try:
        f, tutor, _clock = table(game, j)
        play(f, game, bad)
        f.press("undo")
        f.read(board(game, True))
        tutor.settle(60.0)
        assert tutor.judged == {} and tutor.dropped == 1 and tutor.latest is None
    finally:
        j.close()
