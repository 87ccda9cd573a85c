"""What a camera sees while the pieces are placed (controller.table.camera): a new piece the
colour model cannot name yet, pieces seen in another order than the turns."""

from __future__ import annotations

import pytest
from table_helpers import board
from test_camera_evidence import Camera, hide
from test_catchup import at

from controller.table.camera import CameraEvidence
from controller.table.decision import Decision
from controller.table.doubts import unsettled
from controller.table.session import TableController
from controller.table.turns import in_order
from engine.game import Game
from engine.geometry import CELL_NAMES, NEIGHBOUR_MASKS, parse_cell
from engine.move import Move


def placing_camera(moves: list[str]) -> tuple[Camera, Game]:
    g = Game.from_moves(moves)
    cam = Camera(TableController(game=g, colours=True))
    cam.frames(board(g, True), 1.0)
    return cam, g


def test_a_lone_unreadable_cell_in_the_placing_phase_is_the_side_to_acts_piece() -> None:
    cam, g = placing_camera(["F3", "D3", "E3"])  # the three red pieces: Black next
    cell = parse_cell("E5")
    cam.frames(hide(board(g, True), 1 << cell), 0.2)
    assert cam.ctl.actions[-1] == "E3"  # not yet: held 2 s first
    cam.frames(hide(board(g, True), 1 << cell), 2.0)
    assert cam.ctl.actions[-1] == "E5"
    assert cam.ctl.game.stack(cell) == "b"


def test_an_unreadable_cell_beside_a_hand_is_not_a_piece() -> None:
    cam, g = placing_camera(["F3", "D3", "E3"])
    cell = parse_cell("E5")
    cam.frames(hide(board(g, True), (1 << cell) | NEIGHBOUR_MASKS[cell]), 3.0)
    assert cam.ctl.actions[-1] == "E3"


def test_an_empty_cell_misread_for_a_second_is_not_a_piece() -> None:
    cam, g = placing_camera(["F3", "D3", "E3"])
    cam.frames(hide(board(g, True), 1 << parse_cell("G2")), 1.2)
    cam.frames(board(g, True), 2.0)
    assert cam.ctl.actions[-1] == "E3"


def test_placements_are_recorded_in_the_order_the_camera_saw_them() -> None:
    """The first black piece reads '?' (a colour not learned yet) and White's next piece is
    read before it is: the record keeps the camera's order (Black's, then White's)."""
    cam, g = placing_camera(["F3", "D3", "E3"])
    b, w = parse_cell("C4"), parse_cell("I1")
    seen = hide(board(g, True), 1 << b)
    cam.frames(seen, 0.2)
    cam.frames(at(seen, w, "w"), 2.5)
    assert cam.ctl.actions[-2:] == ["C4", "I1"]


def test_placements_wait_for_an_earlier_piece_the_camera_cannot_name() -> None:
    """White's piece on C4 reads '?' with arms passing beside it, then Black's C5 and White's
    F1 read (camera benchmark game 19): the chain waits for the unnamed piece, and the
    pieces of each colour keep the order the camera saw them in (not F1 C5 C4)."""
    cam, g = placing_camera(["F3", "D3", "E3", "A1"])  # White next

    def cells(*names: str) -> int:
        return sum(1 << parse_cell(n) for n in names)

    empty = board(g, True)
    cam.frames(hide(empty, cells("C4", "B4", "C5", "D5", "B3")), 0.8)  # White's arm
    cam.frames(hide(empty, cells("C4")), 0.8)
    cam.frames(hide(empty, cells("C4", "B4", "C5")), 0.8)  # Black's arm beside it
    seen = hide(at(empty, parse_cell("C5"), "b"), cells("C4"))
    cam.frames(seen, 0.8)
    cam.frames(hide(seen, cells("E1", "F1", "G1", "F2", "G2")), 0.4)  # White's arm
    cam.frames(at(seen, parse_cell("F1"), "w"), 3.0)
    assert cam.ctl.actions[-3:] == ["C4", "C5", "F1"]


@pytest.mark.parametrize("case", ["swapped", "missed", "late"])
def test_placements_seen_out_of_turn_wait_for_the_piece_the_camera_missed(case: str) -> None:
    """The pieces the camera saw began to fill (the hand came over their cells) in another
    order than the turns: a piece came before them unseen, so they are never recorded as
    White's then Black's. White's piece swapped for one read '.' (camera benchmark game 25),
    or put on H2 and never read (game 37: Black's C5 came, then White's F1, recorded as
    White's missed piece). A piece read late counts from when the hand came over it: the
    order of the turns stands (camera game 30)."""
    cam, g = placing_camera(["F3", "D3", "E3", "A1"])  # White next
    empty = board(g, True)
    g4, h2, c5, f1 = (parse_cell(x) for x in ("G4", "H2", "C5", "F1"))
    if case == "swapped":
        cam.frames(at(empty, g4, "b"), 1.5)  # the wrong piece, shown as a mismatch
        cam.frames(hide(empty, 1 << g4), 0.6)  # the swap: the white piece is missed
    elif case == "missed":
        cam.frames(hide(empty, 1 << h2), 0.6)  # White's hand on H2: its piece never read
    else:
        cam.frames(hide(empty, 1 << f1), 0.6)  # White's hand on F1: its piece read late
    cam.frames(empty, 1.0)
    black = at(empty, c5, "b")
    cam.frames(black, 2.0)
    if case == "missed":
        cam.frames(hide(black, 1 << f1), 0.6)  # White's hand on F1, after Black's piece
    cam.frames(at(black, f1, "w"), 3.0)
    if case == "late":
        assert cam.ctl.actions[-2:] == ["F1", "C5"]
    else:
        assert cam.ctl.actions[-1] == "A1"  # waiting: neither F1 C5 nor anything else


def test_a_later_flicker_does_not_hold_up_placements() -> None:
    """A '?' that began after the pieces were seen is a hand or a flicker: the chain goes on."""
    cam, g = placing_camera(["F3", "D3", "E3"])  # Black next
    empty = board(g, True)
    two = at(at(empty, parse_cell("C5"), "b"), parse_cell("F1"), "w")
    cam.frames(two, 0.4)
    cam.frames(hide(two, 1 << parse_cell("I3")), 1.0)
    assert cam.ctl.actions[-2:] == ["C5", "F1"]


@pytest.mark.parametrize("glare", [False, True])
def test_a_placed_piece_under_glare_does_not_hold_the_next_placement(glare: bool) -> None:
    """Room game 103: Black's new piece on C5, under glare, read '?' by turns after it was
    seen; White's next piece came, and every commit waited for what C5 might hide. A lone
    unreadable cell that last read a piece is that piece (pieces do not move while they are
    placed); a hand (unreadable neighbours too) still holds the commit."""
    for hand in (False, True):
        cam, g = placing_camera(["F3", "D3", "E3"])  # Black next
        b, w = parse_cell("C5"), parse_cell("B4")
        cam.frames(hide(board(g, True), 1 << b | NEIGHBOUR_MASKS[b]), 0.6)  # Black's hand
        placed = at(board(g, True), b, "b")
        arm = (1 << w | NEIGHBOUR_MASKS[w]) & ~(1 << b)
        cam.frames(hide(placed, arm), 1.0)  # seen, White's hand beside it: not committed
        assert cam.ctl.actions[3:] == []
        veil = 1 << b | (NEIGHBOUR_MASKS[b] if hand else 0)
        after = at(placed, w, "w")
        for _ in range(8):  # White's piece; C5 under glare, or a hand over it
            cam.frames(hide(after, veil), 0.2)
            cam.frames(after if glare and not hand else hide(after, veil), 0.2)
        assert cam.ctl.actions[3:] == ([] if hand else ["C5", "B4"]), (hand, glare)


def test_pieces_of_one_colour_that_began_to_fill_together_keep_the_order_they_were_read(
        ) -> None:
    """Room game 103: the hand placing White's C5 passed over B3 on its way, so both cells
    began to fill at once (17.9 s); C5 was read at 20.2 s, B3 at 22.0 s, and with C5 under
    glare the three placements came as one chain. The two white pieces keep the order they
    were read in, not the cell order (B3 before C5)."""
    g = Game.from_moves(["F3", "D3", "E3", "A1"])  # White next
    c5, f1, b3 = (parse_cell(x) for x in ("C5", "F1", "B3"))
    d = Decision("commit", moves=(Move.place(b3), Move.place(f1), Move.place(c5)))
    began = {c5: 17.9, b3: 17.9, f1: 20.8}
    read = {c5: 20.2, b3: 22.0, f1: 21.0}
    got = in_order(g, d, began.__getitem__, read.__getitem__)
    assert [str(m) for m in got.moves] == ["C5", "F1", "B3"]
    assert [str(m) for m in in_order(g, d, began.__getitem__).moves] == ["B3", "F1", "C5"]


def test_an_empty_cell_unreadable_since_before_the_last_piece_is_not_the_next_piece() -> None:
    # room game 138: a lamp's spot on two empty cells read '?' from the first frame; a piece
    # put on one of them reads, and the other, alone now, must not become the next piece
    # (it read '?' before that piece was there: no piece came since)
    cam, g = placing_camera(["F3", "D3", "E3"])  # Black to place
    p, q = parse_cell("D5"), parse_cell("E5")
    cam.frames(hide(board(g, True), (1 << p) | (1 << q)), 4.0)
    cam.frames(hide(at(board(g, True), p, "b"), 1 << q), 6.0)
    assert cam.ctl.actions[3:] == ["D5"]


def test_a_lamps_glare_beside_a_new_piece_is_no_hand() -> None:
    """Room game 138: a lamp's spot on E5, read '?' for glare from the first frame, read '.' a
    moment under the hand that placed F5 beside it, then '?' for glare again. That '?' is the
    lamp's, not a hand beside F5: F5 is committed once read (before, the new spell of '?'
    counted as a hand for 3 s, and the next players' pieces came first)."""
    e5, f5 = parse_cell("E5"), parse_cell("F5")
    g = Game()
    cam = Camera(TableController(game=g, colours=True))
    spot = 1 << e5
    cam.frames(hide(board(g, True), spot), 1.0, glare=spot)
    end = Game()
    for cell in ("F3", "D3", "E3"):  # the red pieces, each read before the next
        end.push(Move.place(parse_cell(cell)))
        cam.frames(hide(board(end, True), spot), 1.4, glare=spot)
    assert cam.ctl.actions == ["F3", "D3", "E3"]
    cam.frames(hide(board(end, True), spot | (1 << f5)), 0.4)  # the hand over both
    cam.frames(hide(board(end, True), 1 << f5), 0.4)  # its shade: E5 read '.' a moment
    end.push(Move.place(f5))
    cam.frames(hide(board(end, True), spot), 1.2, glare=spot)
    assert cam.ctl.actions[-1] == "F5"


def test_a_piece_named_late_counts_from_the_first_hand_over_its_cell() -> None:
    """Room game 150: White's I1, a new top the camera could not read, read '?' for seconds
    with a moment of '.' between; a hand passed over C4 meanwhile; Black's F4 came, then
    White's C4, read at once; I1, alone and unreadable, was then named White's. The white
    pieces go in the order their cells began to fill, I1 from the first hand over it (before,
    from its last spell of '?': after the hand that passed over C4, and C4 went first)."""
    cam, g = placing_camera(["F3", "D3", "E3", "A1"])  # White next
    i1, c4, f4 = parse_cell("I1"), parse_cell("C4"), parse_cell("F4")
    s = board(g, True)
    cam.frames(hide(s, 1 << i1), 0.6)  # White's hand puts a piece on I1
    cam.frames(hide(s, (1 << i1) | (1 << c4)), 0.4)  # ... passing over C4
    cam.frames(s, 0.4)  # both read empty a moment
    cam.frames(hide(s, (1 << i1) | (1 << f4)), 0.4)  # Black's hand on F4
    cam.frames(hide(at(s, f4, "b"), 1 << i1), 0.8)
    cam.frames(hide(at(s, f4, "b"), (1 << i1) | (1 << c4)), 0.4)  # White's hand on C4
    cam.frames(hide(at(at(s, f4, "b"), c4, "w"), 1 << i1), 2.0)
    assert cam.ctl.actions[4:] == ["I1", "F4", "C4"]


def _black_on_c1(spell: float, gap: float, times: int) -> tuple[Camera, str]:
    """Black's hand puts a piece on C1 (after the red ones), which then reads '?' for
    ``spell`` s and '.' for ``gap`` s by turns, ``times`` times; the camera and the board."""
    g = Game.from_moves(["F3", "D3", "E3"])  # Black next
    cam = Camera(TableController(game=g, colours=True), step=0.1)
    c1 = parse_cell("C1")
    s = board(g, True)
    cam.frames(s, 1.0)
    cam.frames(hide(s, NEIGHBOUR_MASKS[c1] | 1 << c1), 0.4)  # Black's hand on C1
    for _ in range(times):
        cam.frames(hide(s, 1 << c1), spell)
        cam.frames(s, gap)
    return cam, s


def test_a_moment_of_empty_does_not_end_an_unnamed_pieces_spell() -> None:
    """Room game 158: Black's C1, a piece the camera could not read, read '?' with a
    one-frame '.' now and then; White's A3 and Black's D5 came and read at once. A '.' shorter
    than the debounce noise does not end C1's spell: the placements wait for it and keep the
    turns (before, its spell began again at each '.', and D5 A3 were committed before C1)."""
    cam, s = _black_on_c1(0.6, 0.1, 2)
    c1, a3, d5 = parse_cell("C1"), parse_cell("A3"), parse_cell("D5")
    cam.frames(hide(s, 1 << c1 | NEIGHBOUR_MASKS[a3] | 1 << a3), 0.4)  # White's hand on A3
    s = at(s, a3, "w")
    cam.frames(hide(s, 1 << c1), 0.4)
    cam.frames(s, 0.1)
    cam.frames(hide(s, 1 << c1 | NEIGHBOUR_MASKS[d5] | 1 << d5), 0.4)  # Black's hand on D5
    s = at(s, d5, "b")
    for _ in range(3):
        cam.frames(hide(s, 1 << c1), 0.6)
        cam.frames(s, 0.1)
    cam.frames(hide(s, 1 << c1), 3.0)
    assert cam.ctl.actions[3:] == ["C1", "A3", "D5"]


def test_a_piece_under_a_lamps_spot_is_named_once_the_next_colour_shows() -> None:
    """Room game 158, live: Black's C1 under a lamp's spot read '?' and '.' by turns, in
    spells too short for a lone cell (2 s), and White's A3 came. A piece of the next colour
    down says Black's is somewhere: the lone unreadable cell held half a second is it. Named
    so, C1 keeps its piece while it reads '.' (washed out), and the placements go on."""
    cam, s = _black_on_c1(1.2, 0.4, 3)
    c1, a3, d5 = parse_cell("C1"), parse_cell("A3"), parse_cell("D5")
    assert cam.ctl.actions[3:] == []  # no spell of 2 s: not named
    cam.frames(hide(s, NEIGHBOUR_MASKS[a3] | 1 << a3), 0.4)  # White's hand on A3
    s = at(s, a3, "w")
    cam.frames(s, 0.4)
    assert cam.ctl.actions[3:] == []  # C1 reads '.': nothing to name
    cam.frames(hide(s, 1 << c1), 0.8)
    assert cam.ctl.actions[3:] == ["C1", "A3"]
    cam.frames(s, 0.6)  # C1 washed out
    cam.frames(hide(s, NEIGHBOUR_MASKS[d5] | 1 << d5), 0.4)  # Black's hand on D5
    cam.frames(at(s, d5, "b"), 2.0)
    assert cam.ctl.actions[3:] == ["C1", "A3", "D5"]
    assert cam.ctl.game.stack(c1) == "b"


def test_two_lone_unreadable_cells_are_not_named_by_the_next_colour() -> None:
    """The same with two cells under the lamp's spot, both read '?' since the hand: which
    one holds Black's piece is not told; the table waits (2 s alone names neither: the
    other one is unreadable too)."""
    cam, s = _black_on_c1(0.0, 0.0, 0)
    c1, h3, a3 = parse_cell("C1"), parse_cell("H3"), parse_cell("A3")
    cam.frames(hide(s, 1 << c1 | 1 << h3), 0.6)
    s = at(s, a3, "w")
    cam.frames(hide(s, 1 << c1 | 1 << h3), 1.0)
    assert cam.ctl.actions[3:] == []


def test_a_piece_named_under_a_lamps_spot_reads_unreadable_once_the_stacks_move() -> None:
    """Once the pieces move, a named piece read '.' may be its stack gone, or the spot
    again: neither as committed (its move unseen) nor as gone (a move no hand made), but
    unreadable, like '?'; a move onto it ends the naming, and so does its top read (room
    game 105: I3's piece, named before white was learned, read 'w' for a minute; its stack
    moved, and its empty cell read as unreadable held every later move)."""
    first = ["F3", "D3", "E3", "C1"]  # Black's C1 fourth
    g = Game.from_moves(first + [n for n in CELL_NAMES if n not in first])
    c1 = parse_cell("C1")
    assert g.piece_to_place() is None and g.stack(c1) == "b"
    sight = CameraEvidence()
    sight._named = 1 << c1
    s = board(g, True)
    snap, hidden, _ = sight.placement(g, at(s, c1, "."), 0, 1.0)
    assert snap[c1] == "b" and hidden == 1 << c1
    snap, hidden, _ = sight.placement(g, s, 1 << c1, 1.1)  # '?' (its last reading kept)
    assert snap[c1] == "b" and hidden == 1 << c1
    move = next(m for m in g.legal_moves() if m.target == c1)
    g.push(move)
    snap, hidden, _ = sight.placement(g, at(board(g, True), c1, "."), 0, 1.2)
    assert snap[c1] == "." and hidden == 0
    g.pop()
    sight._named = 1 << c1  # read its top: the camera sees it, named no more
    sight.placement(g, s, 0, 1.3)
    snap, hidden, _ = sight.placement(g, at(s, c1, "."), 0, 1.4)
    assert snap[c1] == "." and hidden == 0


@pytest.mark.parametrize("glare_after", [False, True])
def test_a_piece_under_a_lamps_spot_is_named_once_its_glare_ends(glare_after: bool) -> None:
    """Room game 149: a lamp's spot on A3 and B4, read '?' for glare from the first frame;
    Black's piece put on B4 read '?' from then on, as neither empty nor a piece (its top
    hides part of the spot), and White's next piece came. B4's '?' is no longer the lamp's:
    it is Black's piece, and A3 beside it, '?' for glare still, is no hand. Where B4 still
    reads '?' for glare, nothing tells whether a piece came there: the table waits."""
    a3, b4, c1 = parse_cell("A3"), parse_cell("B4"), parse_cell("C1")
    spot = 1 << a3 | 1 << b4
    g = Game()
    cam = Camera(TableController(game=Game(), colours=True))
    cam.frames(hide(board(g, True), spot), 1.0, glare=spot)
    for cell in ("F3", "D3", "E3"):  # the red pieces, each read before the next
        g.push(Move.place(parse_cell(cell)))
        cam.frames(hide(board(g, True), spot), 1.4, glare=spot)
    assert cam.ctl.actions == ["F3", "D3", "E3"]  # Black next
    s = board(g, True)
    cam.frames(hide(s, spot | NEIGHBOUR_MASKS[b4]), 0.6)  # Black's hand on B4
    after = spot if glare_after else 1 << a3
    cam.frames(hide(s, spot), 0.6, glare=after)
    cam.frames(hide(s, spot | NEIGHBOUR_MASKS[c1] | 1 << c1), 0.4, glare=after)  # White's
    cam.frames(hide(at(s, c1, "w"), spot), 1.0, glare=after)
    assert cam.ctl.actions[3:] == ([] if glare_after else ["B4", "C1"])
    assert cam.ctl.game.stack(b4) == ("" if glare_after else "b")


def test_placements_wait_for_pieces_read_before_them_and_hidden_now() -> None:
    """Room game 138: Black's piece on D5, under a lamp's spot, read '.'; White's D1, Black's
    H5 and White's E1 were first read at 30.3, 31.8 and 33.3 s, then J5 I4 C3 (34.0, 36.0,
    37.6); a hand came over D1 E1 H5 (39.0 s) as J5 I4 C3 were to be committed, and they
    were, for Black's missed piece and the two after it. Pieces first read before the
    chain's last one and hidden now came before it: the chain waits for them. A piece read
    after it does not hold it, also where a piece of the chain read '?' by turns since, and
    so was seen again later (room game 127: J4, read 'w' and '?' by turns; I4, the next white
    piece, held J4 B1 until the five placements came as one chain, in the wrong order)."""
    g = Game.from_moves(["F3", "D3", "E3"])  # Black next
    chain = [parse_cell(c) for c in ("J5", "I4", "C3")]
    d = Decision("commit", moves=tuple(Move.place(c) for c in chain))
    seen = dict(zip(chain, (34.7, 38.9, 38.3), strict=True))
    shown = dict(zip(chain, (34.0, 36.0, 37.6), strict=True))
    before = {parse_cell("D1"): 30.3, parse_cell("E1"): 33.3, parse_cell("H5"): 31.8}
    hidden = sum(1 << c for c in before)
    assert unsettled(g, d, 0, hidden, lambda c: seen.get(c, 39.0),
                     shown=lambda c: shown.get(c, before.get(c, 0.0)))
    assert not unsettled(g, d, 0, hidden, lambda c: seen.get(c, 39.0))
    assert not unsettled(g, d, 0, hidden, lambda c: seen.get(c, 39.0),
                         shown=lambda c: shown.get(c, 38.0))
