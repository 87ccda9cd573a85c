"""Whether the board shows a prompted move alone, so that the stacks' heights may answer where
it landed (controller.table.growth.shows_alone): with the stacks it cut off taken away, and
with later moves that keep off the prompted cells."""

from __future__ import annotations

from table_helpers import board
from test_catchup import after, at, first, same_colour_targets

from controller.table.catchup import Hypothesis, cells_of
from controller.table.growth import shows_alone
from engine.game import Game
from engine.geometry import iter_cells
from engine.move import PASS, Move


def _cuts_with_a_choice(g: Game) -> tuple[int, int, int] | None:
    """A source with two destinations of the mover's colour, one of whose moves cuts off
    stacks: (source, that destination, the mask it cuts)."""
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        if len(same) < 2:
            continue
        for c in same:
            cut = g.copy().push(Move(s, c))
            if cut:
                return s, c, cut
    return None


def test_the_board_shows_a_move_alone_with_the_stacks_it_cut_off_taken_away() -> None:
    """Room game 112: the last move cut off stacks and the players took them away at once;
    the board still shows that move alone (the heights may answer where it landed)."""
    g, found = first(_cuts_with_a_choice)
    assert isinstance(found, tuple)
    s, c, cut = found
    choice = sum(1 << d for d in same_colour_targets(g, s))
    now = at(board(g, True), s, ".")
    for d in iter_cells(cut):
        now = at(now, d, ".")
    diff = (1 << s) | cut
    assert shows_alone(g, s, choice, diff, now)
    assert shows_alone(g, s, choice, 1 << s, at(board(g, True), s, "."))
    other = next(d for d in iter_cells(g.occupied) if d != s and not (cut >> d) & 1
                 and not (choice >> d) & 1)
    assert not shows_alone(g, s, choice, diff | (1 << other), at(now, other, "."))
    assert not shows_alone(g, s, choice, 1 << other, at(board(g, True), other, "."))


def _a_later_move_apart(g: Game) -> tuple[int, list[int], Move] | None:
    """A source with destinations of the mover's colour, and a move of the next player that
    keeps off them and cuts none of them off after the first one: (source, those, the move)."""
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        near = sum(1 << d for d in same) | 1 << s
        if len(same) < 2:
            continue
        h = after(g, Move(s, same[0]))
        for m in h.legal_moves():
            if (m.source is not None and not cells_of(m) & near and not h.copy().push(m) & near
                    and all(m in after(g, Move(s, d)).legal_moves() for d in same)):
                return s, same, m
    return None


def test_a_prompted_move_with_a_later_move_apart_from_its_candidates_shows_alone() -> None:
    """Room game 135: H5's stack onto G5 and H4's onto G3 between two frames. The board never
    shows H5's move alone, but every explanation's later move keeps off the prompted cells,
    so a prompted stack grown by the moved stack's height grew by that move."""
    g, found = first(_a_later_move_apart)
    assert isinstance(found, tuple)
    s, same, m = found
    assert m.source is not None and m.target is not None
    choice = sum(1 << d for d in same)
    options = [Hypothesis(0, (Move(s, d), m), None, (0, 0, 0, d), True) for d in same]
    now = after(g, Move(s, same[0]), m)
    snap = board(now, True)
    diff = sum(1 << c for c, (a, b) in enumerate(zip(board(g, True), snap, strict=True))
               if a != b)
    assert diff & ~((1 << s) | choice)  # the later move shows too
    assert not shows_alone(g, s, choice, diff, snap)
    assert shows_alone(g, s, choice, diff, snap, options)
    # a later move onto a prompted cell, or none at all in one explanation: not alone
    onto = next(Move(m.source, d) for d in range(49) if (choice >> d) & 1)
    assert not shows_alone(g, s, choice, diff, snap, [*options[:1], Hypothesis(
        0, (Move(s, same[1]), onto), None, (0, 0, 0, 0), True)])
    assert not shows_alone(g, s, choice, diff, snap, [*options[:1], Hypothesis(
        0, (Move(s, same[1]),), None, (0, 0, 0, 0), True)])


def _a_later_move_after_a_pass(g: Game) -> tuple[int, list[int], Move] | None:
    """As :func:`_a_later_move_apart`, where the other side must pass after the first move
    and the mover moves again (explanations carry the forced passes)."""
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        near = sum(1 << d for d in same) | 1 << s
        if len(same) < 2:
            continue
        if any(after(g, Move(s, d)).legal_moves() != [PASS] for d in same):
            continue
        h = after(g, Move(s, same[0]), PASS)
        for m in h.legal_moves():
            if (m.source is not None and not cells_of(m) & near and not h.copy().push(m) & near
                    and all(m in after(g, Move(s, d), PASS).legal_moves() for d in same)):
                return s, same, m
    return None


def test_a_later_move_apart_after_a_forced_pass_shows_alone_too() -> None:
    g, found = first(_a_later_move_after_a_pass)
    assert isinstance(found, tuple)
    s, same, m = found
    choice = sum(1 << d for d in same)
    options = [Hypothesis(0, (Move(s, d), PASS, m), None, (0, 0, 0, d), True) for d in same]
    now = after(g, Move(s, same[0]), PASS, m)
    snap = board(now, True)
    diff = sum(1 << c for c, (a, b) in enumerate(zip(board(g, True), snap, strict=True))
               if a != b)
    assert shows_alone(g, s, choice, diff, snap, options)
