"""TableController: removals, passes, undo, game end, hints, new game, colours, journal, resume."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import Feeder, board, find_position, popcount, step_moves

from controller.journal.store import Journal
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import PASS, Move


def lifted(snap: str, cell: int, value: str = ".") -> str:
    return snap[:cell] + value + snap[cell + 1:]


def play(f: Feeder, move: Move, colours: bool = False) -> None:
    """Lift the source, choose the target with next/confirm if asked, set it down."""
    g = f.ctl.game.copy()
    assert move.source is not None and move.target is not None
    snap = lifted(board(g, colours), move.source)
    f.read(snap)
    for _ in range(8):
        if f.ctl.game.ply > g.ply:
            break
        f.press("next")
        if f.ctl.suggested == move.target:
            f.press("confirm")
    assert f.ctl.game.move_stack[g.ply] == move


def start(g: Game, **kw: object) -> Feeder:
    f = Feeder(game=g, **kw)  # type: ignore[arg-type]
    f.read(board(g, bool(kw.get("colours"))))
    return f


def test_removal_roles_until_read_empty_then_last() -> None:
    g = find_position(lambda g: any(g.removal_if(m) for m in step_moves(g)))
    move = next(m for m in step_moves(g) if g.removal_if(m))
    cut = g.removal_if(move)
    f = start(g)
    play(f, move)
    roles = f.roles()
    removing = {n for n, r in roles.items() if r == "remove"}
    assert removing == {CELL_NAMES[c] for c in iter_cells(cut)}
    assert "last" not in roles.values()
    snap = f.ctl.stable
    assert snap is not None
    cells = list(iter_cells(cut))
    snap = lifted(snap, cells[0])
    f.read(snap)
    assert f.roles().get(CELL_NAMES[cells[0]]) is None
    for c in cells[1:]:
        snap = lifted(snap, c)
    f.read(snap)
    assert "remove" not in f.roles().values()
    assert move.source is not None and move.target is not None
    assert f.roles()[CELL_NAMES[move.source]] == "last"


def test_removed_stack_put_back_takes_the_move_back() -> None:
    """Only a take-back explains a cut-off stack standing again: the move is taken back (with
    occupancy only, its stack may as well still be in the hand)."""
    g = find_position(lambda g: any(g.removal_if(m) for m in step_moves(g)))
    move = next(m for m in step_moves(g) if g.removal_if(m))
    c = next(iter_cells(g.removal_if(move)))
    f = start(g)
    play(f, move)
    snap = f.ctl.stable
    assert snap is not None
    f.read(lifted(snap, c))
    assert f.ctl.actions[-1] == str(move)
    f.read(snap)
    assert str(move) not in f.ctl.actions[len(g.move_stack):]
    assert f.roles().get(CELL_NAMES[c]) != "remove"
    assert move.source is not None and f.roles()[CELL_NAMES[move.source]] == "source"


def _before_pass(g: Game) -> bool:
    for m in step_moves(g):
        g.push(m)
        forced = g.legal_moves() == [PASS]
        g.pop()
        if forced:
            return True
    return False


def test_forced_pass_is_committed_by_itself() -> None:
    g = find_position(_before_pass)
    move = None
    for m in step_moves(g):
        g.push(m)
        forced = g.legal_moves() == [PASS]
        g.pop()
        if forced:
            move = m
            break
    assert move is not None
    f = start(g)
    play(f, move)
    assert f.ctl.actions[-2:] == [str(move), "PASS"]
    assert "PASS" in f.ctl.view().message


def _before_end(g: Game) -> bool:
    for m in step_moves(g):
        g.push(m)
        over = g.is_over()
        g.pop()
        if over:
            return True
    return False


def test_game_end_shows_owners_and_winner(tmp_path: Path) -> None:
    g = find_position(_before_end)
    move = next(m for m in step_moves(g) if (g.push(m), g.is_over(), g.pop())[1])
    with Journal(tmp_path / "j.sqlite3") as j:
        f = start(g, journal=j)
        play(f, move)
        final = f.ctl.game
        assert final.is_over()
        w, b = final.score()
        winner = final.winner()
        roles = f.ctl.view().roles
        for c in iter_cells(final.occupied):
            owner = final.owner(c)
            if owner is None or c in f.ctl.removals:
                continue
            want = "winner" if owner == winner else ("own-white" if owner == "w" else "own-black")
            assert roles[c] == want
        assert f"white {w} black {b}" in f.ctl.view().message
        info = j.game(f.ctl.game_id or 0)
        assert (info.white_score, info.black_score) == (w, b)
        assert info.result == {"w": "white", "b": "black"}.get(winner or "", "tie")


def test_undo_guides_back_to_the_earlier_position(placed: Game) -> None:
    f = start(placed)
    s = next(iter_cells(placed.movable()))
    d = next(iter_cells(placed.destinations(s)))
    play(f, Move.step(s, d))
    after = f.ctl.stable
    assert after is not None
    f.press("undo")
    assert f.ctl.game == placed
    assert f.roles() == {CELL_NAMES[s]: "mismatch"}
    f.read(after)  # no change: still guided, nothing re-inferred
    assert f.ctl.game == placed and f.roles() == {CELL_NAMES[s]: "mismatch"}
    f.read(board(placed))
    assert f.roles() == {}
    play(f, Move.step(s, d))
    assert f.ctl.actions[-1] == str(Move.step(s, d))


def test_undo_of_a_unique_move_does_not_recommit() -> None:
    def unique(g: Game) -> bool:
        return any(popcount(g.destinations(s)) == 1 for s in iter_cells(g.movable()))

    g = find_position(unique)
    s = next(s for s in iter_cells(g.movable()) if popcount(g.destinations(s)) == 1)
    f = start(g)
    f.read(lifted(board(g), s))
    assert f.ctl.game.ply > g.ply
    f.press("undo")
    assert f.ctl.game == g
    f.read(lifted(board(g), s))
    assert f.ctl.game == g and f.roles() == {CELL_NAMES[s]: "mismatch"}


def test_undo_in_placing_phase_and_with_nothing_to_undo() -> None:
    f = Feeder()
    empty = "." * 49
    f.read(empty)
    f.press("undo")
    assert f.ctl.actions == []
    f.read(lifted(empty, 21, "x"))
    assert f.ctl.actions == ["C3"]
    f.press("undo")
    assert f.ctl.actions == [] and f.roles() == {"C3": "mismatch"}
    f.read(empty)
    assert f.roles() == {}


def test_hint_toggles_movable_roles(placed: Game) -> None:
    f = start(placed)
    assert f.roles() == {}
    f.press("hint")
    movable = {CELL_NAMES[c] for c in iter_cells(placed.movable())}
    assert {n for n, r in f.roles().items() if r == "movable"} == movable
    f.press("hint")
    assert f.roles() == {}


def test_new_game_needs_a_clear_board(tmp_path: Path, placed: Game) -> None:
    with Journal(tmp_path / "j.sqlite3") as j:
        f = start(placed, journal=j)
        first = f.ctl.game_id
        f.press("new", long=True)
        assert f.ctl.game.ply == 0 and f.ctl.game_id != first
        assert j.game(first or 0).result == "abandoned"
        assert len([r for r in f.roles().values() if r == "mismatch"]) == 49
        f.read("." * 49)
        assert f.roles() == {}


def test_new_needs_a_long_press_when_configured(placed: Game) -> None:
    f = Feeder(TableController(game=placed, new_needs_long=True))
    f.read(board(placed))
    f.press("new")
    assert f.ctl.game == placed
    f.press("new", long=True)
    assert f.ctl.game.ply == 0


def test_every_action_is_journaled_when_committed(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as j:
        f = Feeder(TableController(journal=j))
        g = Game()
        f.read(board(g))
        for name in ("C3", "D3", "E3", "F3"):
            g.push(Move.parse(name))
            f.read(board(g))
            assert j.actions(f.ctl.game_id or 0) == f.ctl.actions
        f.read(board(Game.from_moves(["C3", "D3", "E3"])))  # lifted at once: taken back
        assert j.actions(f.ctl.game_id or 0) == ["C3", "D3", "E3"]


def test_resume_guides_restore_then_continues(tmp_path: Path, placed: Game) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        f = Feeder(TableController(journal=j))
        f.read("." * 49)
        for i in range(5):
            f.read(board(Game.from_moves(placed.move_stack[: i + 1])))
        gid = f.ctl.game_id
    with Journal(path) as j:
        f2 = Feeder(TableController(journal=j))
        assert f2.ctl.resumed and f2.ctl.game_id == gid and f2.ctl.game.ply == 5
        f2.read("." * 49)
        assert len(f2.roles()) == 5 and set(f2.roles().values()) == {"mismatch"}
        g5 = Game.from_moves(placed.move_stack[:5])
        f2.read(board(g5))
        assert f2.roles() == {CELL_NAMES[g5.move_stack[-1].target or 0]: "last"}
        g6 = Game.from_moves(placed.move_stack[:6])
        f2.read(board(g6))
        assert j.actions(gid or 0) == [str(m) for m in g6.move_stack]


def test_trace_records_roles_prompt_and_mismatch(placed: Game) -> None:
    f = start(placed)
    s, k = list(iter_cells(placed.movable()))[:2]  # a second stack of the same side
    f.read(lifted(board(placed), s))
    f.read(lifted(lifted(board(placed), s), k))
    kinds = [next(k for k in r if k != "t") for r in f.trace]
    assert kinds[-4:] == ["roles", "prompt", "roles", "mismatch"]
    assert f.trace[-1] == {"t": f.trace[-1]["t"], "mismatch": [CELL_NAMES[s], CELL_NAMES[k]]}
    assert all(isinstance(r["t"], float) for r in f.trace)


def test_view_of_a_lifted_stack_asks_prompting_once(placed: Game,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.table import guide

    f = start(placed)
    s = next(c for c in iter_cells(placed.movable()) if popcount(placed.destinations(c)) > 1)
    f.read(lifted(board(placed), s))
    calls: list[int] = []
    real = guide.prompting

    def counting(ctl: TableController) -> int:
        calls.append(1)
        return real(ctl)

    monkeypatch.setattr(guide, "prompting", counting)
    view = f.ctl.view()
    assert len(calls) == 1
    assert view.prompt == guide.CHOOSE_DESTINATION and len(view.blink) > 1
    assert view.message == guide.message(f.ctl)  # the same line as when asked afresh
    assert "lift the destination" in view.message
