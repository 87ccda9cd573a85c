"""Players who do not wait for the camera: in the placing phase, a white piece read seconds
late, after three more pieces came (outside camera game 5, issue 41). Every top read on an
empty cell is a placement still to come, as many as there are; the pieces of each colour go
in the order the hands came over their cells, where the camera saw the hands."""

from __future__ import annotations

from table_helpers import board, edit
from test_camera_evidence import hide
from test_camera_placing import placing_camera

from controller.table.catchup import search
from controller.table.decision import decide
from engine.game import Game
from engine.geometry import parse_cell

OPENING = ["F3", "D3", "E3", "A1"]  # the red pieces, then Black's A1: White next


def test_four_placements_read_at_once_are_explained_where_the_colours_say_so() -> None:
    g = Game.from_moves(OPENING)
    snap = edit(board(g, True), E1="w", B2="b", D1="w", C3="b")
    result = search(g, snap)
    assert result.hypotheses and not result.truncated
    assert {len(h.moves) for h in result.hypotheses} == {4}
    assert decide(result).kind == "commit"  # one position, whatever the order of each colour


def test_a_hall_board_four_behind_is_still_a_mismatch() -> None:
    g = Game.from_moves(OPENING)
    snap = edit(board(g), E1="x", B2="x", D1="x", C3="x")
    assert not search(g, snap).hypotheses  # 'x' says no colour: no order to go by


def test_a_white_piece_read_late_keeps_its_turn_by_the_hand_that_put_it_down() -> None:
    """The hand puts White's piece on E1 (E1 reads '?'), E1 reads empty after it (the camera
    misses the piece); Black's B2 and White's D1 come and are read; then E1 reads white: the
    record is E1 B2 D1, as the hands came, not D1 B2 E1 as the tops were read."""
    cam, g = placing_camera(OPENING)
    e1, b2, d1 = (parse_cell(n) for n in ("E1", "B2", "D1"))
    empty = board(g, True)
    cam.frames(hide(empty, 1 << e1), 0.6)  # the hand over E1
    cam.frames(empty, 1.0)  # gone: E1 reads empty (the piece missed)
    cam.frames(hide(empty, 1 << b2), 0.6)  # Black's hand over B2
    cam.frames(edit(empty, B2="?"), 0.2)
    seen = edit(empty, B2="b")
    cam.frames(seen, 0.4)
    cam.frames(hide(seen, 1 << d1), 0.6)  # White's hand over D1
    cam.frames(edit(seen, D1="w"), 0.4)
    assert cam.ctl.actions == OPENING  # E1 not seen: B2 and D1 cannot go first
    cam.frames(edit(seen, D1="w", E1="w"), 2.0)
    assert cam.ctl.actions == [*OPENING, "E1", "B2", "D1"]


def test_a_board_not_read_whole_is_not_explained_that_far_behind() -> None:
    """A piece under the next hand may be one of them (room game 103: E5 read for seconds,
    then under a hand, and four other placements committed without it): with a cell
    unreadable, no more than ``Limits.depth`` placements at once."""
    g = Game.from_moves(OPENING)
    snap = edit(board(g, True), E1="w", B2="b", D1="w", C3="b", E5="?")
    assert not search(g, snap).hypotheses
    assert not search(g, edit(snap, E5="."), hidden=1 << parse_cell("E5")).hypotheses
    assert search(g, edit(snap, E5=".")).hypotheses
