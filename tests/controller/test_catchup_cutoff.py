"""A move that cuts off many stacks, all taken away: every stack read empty may be a source,
but one that stands beside the stacks that stay, linked through them to a DVONN piece, can
never be cut off, so each such stack costs an action of its own and the search prunes
sequences too short for them (room game 116 at ply 63: F2H2 cut off 16 stacks, the players
took them away and Black lifted J2; with one action more asked, as while a prompt is open,
the search ran out of positions and explained nothing)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from table_helpers import board

from controller.table.catchup import Limits, search
from engine.game import Game
from engine.geometry import parse_cell
from engine.move import Move

#: Room game 116's first 63 actions.
OPENING = (
    "G5 J2 H3 E1 F5 B2 F1 B4 F2 I2 F3 D4 F4 J5 K5 E3 I1 K3 G1 G3 K4 D3 I5 C5 H1 H5 G4 J3 I3 C1 "
    "J4 E4 H4 B3 H2 D5 G2 A1 I4 D1 E2 C4 E5 A3 D2 B1 C2 A2 C3 E5E4 B1C2 E4G4 J5I5 F4E3 C1D2 "
    "E3G3 C2E2 F1E1 I5G5 F5G5 H5G5 F3F2 K3J2").split()
#: The board as read then: F2H2 made, the stacks it cut off gone, J2 in Black's hand.
READ = "......www......wwb.......wrwb......wwwww....b...w"


def _game() -> Game:
    g = Game()
    for m in OPENING:
        g.push(Move.parse(m))
    return g


def test_a_move_that_cut_off_sixteen_stacks_is_found_within_the_bound() -> None:
    for extra in (0, 1):
        r = search(_game(), READ, extra=extra)
        assert not r.truncated and r.nodes < Limits().nodes // 10, (extra, r.nodes)
        found = {(tuple(map(str, h.moves)), h.lifted) for h in r.hypotheses}
        assert (("F2H2",), parse_cell("J2")) in found, found


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=60),
       st.integers(min_value=1, max_value=2))
def test_the_actions_made_are_always_found(seed: int, plies: int, n: int) -> None:
    """Whatever is cut off and taken away, the sequence made is among the explanations
    (of the fewest actions and one more), from 116's position or a random game's."""
    rng = random.Random(seed)
    start = _game()
    if plies:  # a random game that many plies into its moving phase (or its end)
        start = Game()
        while not start.is_over() and (start.placing or plies):
            plies -= not start.placing
            start.push(rng.choice(start.legal_moves()))
    g = start.copy()
    made = []
    for _ in range(n):
        moves = [m for m in g.legal_moves() if not m.is_pass]
        if not moves:
            break
        made.append(rng.choice(moves))
        g.push(made[-1])
    r = search(start, board(g, colours=True), extra=1, limits=Limits(nodes=100_000))
    assert not r.truncated and min(h.cost for h in r.hypotheses) <= len(made)
    assert any(h.real_moves() == tuple(made) and h.lifted is None for h in r.hypotheses), (
        made, [h.moves for h in r.hypotheses])
