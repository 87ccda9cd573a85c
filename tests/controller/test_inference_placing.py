"""Phase 1 on hand-built snapshot sequences: placements, colours, mistakes, take-backs."""

from __future__ import annotations

from table_helpers import PLACEMENT, Feeder, board, edit

from controller.table.expected import Expected
from controller.table.inference import IDLE, PLACE, explain
from engine.game import Game
from engine.move import Move

EMPTY = "." * 49


def test_explain_is_pure_and_sees_one_new_piece() -> None:
    g = Game()
    snap = edit(EMPTY, C3="x")
    e = explain(g, Expected.of(g), snap)
    assert e.kind == PLACE and e.move == Move.parse("C3")
    assert g.ply == 0
    assert explain(g, Expected.of(g), EMPTY).kind == IDLE


def test_whole_placement_phase_is_committed_in_order() -> None:
    f = Feeder()
    g = Game()
    f.read(board(g))
    for p in PLACEMENT:
        g.push(Move.parse(p))
        f.read(board(g))
    assert f.ctl.actions == PLACEMENT
    assert not f.ctl.game.placing and f.ctl.explanation.kind == IDLE


def test_two_red_pieces_at_once_are_caught_up() -> None:
    """Either order gives the same position (both red): both are committed."""
    f = Feeder()
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="x", D3="x"))
    assert sorted(f.ctl.actions) == ["C3", "D3"]
    assert "mismatch" not in f.roles().values()


def test_too_many_pieces_at_once_mismatch_until_the_board_matches_again() -> None:
    f = Feeder()
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="x", D3="x", E3="x", F3="x"))  # beyond the catch-up depth
    assert f.ctl.actions == []
    assert f.roles() == {"C3": "mismatch", "D3": "mismatch", "E3": "mismatch", "F3": "mismatch"}
    assert f.trace[-1]["mismatch"] == ["C3", "D3", "E3", "F3"]
    f.read(EMPTY)
    assert f.roles() == {}
    f.read(edit(EMPTY, C3="x"))
    assert f.ctl.actions == ["C3"]
    assert f.roles() == {"C3": "last"}  # the piece just placed is acknowledged


def test_wrong_colour_for_a_camera_is_a_mismatch() -> None:
    f = Feeder()
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="w"))  # the first three pieces are red
    assert f.ctl.actions == [] and f.roles() == {"C3": "mismatch"}
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="r"))
    assert f.ctl.actions == ["C3"]
    f.read(edit(EMPTY, C3="r", D3="r"))
    f.read(edit(EMPTY, C3="r", D3="r", E3="r"))
    f.read(edit(EMPTY, C3="r", D3="r", E3="r", F3="w"))  # Black places after the reds
    assert f.ctl.actions == ["C3", "D3", "E3"] and f.roles() == {"F3": "mismatch"}
    f.read(edit(EMPTY, C3="r", D3="r", E3="r"))
    f.read(edit(EMPTY, C3="r", D3="r", E3="r", F3="b"))
    assert f.ctl.actions == ["C3", "D3", "E3", "F3"]


def test_colours_off_ignores_colours() -> None:
    f = Feeder(colours=False)
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="w"))
    assert f.ctl.actions == ["C3"]


def test_piece_lifted_right_after_placing_is_taken_back() -> None:
    f = Feeder()
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="x"))
    f.read(edit(EMPTY, C3="x", D3="x"))
    assert f.ctl.actions == ["C3", "D3"]
    f.read(edit(EMPTY, C3="x"))
    assert f.ctl.actions == ["C3"] and f.roles() == {"C3": "last"}
    f.read(edit(EMPTY, C3="x", E3="x"))
    assert f.ctl.actions == ["C3", "E3"]


def test_older_piece_knocked_off_is_a_mismatch_until_restored() -> None:
    f = Feeder()
    f.read(EMPTY)
    for snap in (edit(EMPTY, C3="x"), edit(EMPTY, C3="x", D3="x"),
                 edit(EMPTY, C3="x", D3="x", E3="x")):
        f.read(snap)
    f.read(edit(EMPTY, D3="x", E3="x"))
    assert f.roles() == {"C3": "mismatch"}
    f.read(edit(EMPTY, D3="x", E3="x", F3="x"))  # no placement while the board differs
    assert f.ctl.actions == ["C3", "D3", "E3"]
    assert f.roles() == {"C3": "mismatch", "F3": "mismatch"}
    f.read(edit(EMPTY, C3="x", D3="x", E3="x"))
    assert f.roles() == {"E3": "last"}
    f.read(edit(EMPTY, C3="x", D3="x", E3="x", F3="x"))
    assert f.ctl.actions == ["C3", "D3", "E3", "F3"]


def test_short_flicker_places_nothing() -> None:
    f = Feeder()
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="x"), hold=0.1)
    f.read(EMPTY)
    assert f.ctl.actions == []
    assert [r for r in f.trace if "mismatch" in r] == []


def test_unreadable_cells_are_no_news() -> None:
    f = Feeder()
    f.read(EMPTY)
    f.read(edit(EMPTY, C3="x"))
    f.read(edit(EMPTY, C3="?", D3="?"))
    assert f.ctl.actions == ["C3"] and f.roles() == {"C3": "last"}
    f.read(edit(EMPTY, C3="?", D3="x"))
    assert f.ctl.actions == ["C3", "D3"]


def test_start_with_pieces_on_the_table_guides_clearing() -> None:
    f = Feeder()
    f.read(edit(EMPTY, C3="x", D3="x", E3="x", F3="x"))  # more than a missed placement or two
    assert f.ctl.actions == [] and len(f.roles()) == 4
    f.read(EMPTY)
    assert f.roles() == {}
    f.read(edit(EMPTY, C3="x"))
    assert f.ctl.actions == ["C3"]
