"""Covered cells (vision.cues.hands): a hand or sleeve the colour of the board hides the board's
print, so the cells under it read '?', and the cells beside it keep their reading."""

from __future__ import annotations

import numpy as np
import pytest

from engine.geometry import NEIGHBOURS, NUM_CELLS
from vision.cues.hands import (
    ANGLES,
    RADII,
    Cover,
    hide_covered,
    inside_directions,
    mark_covered,
    print_cover,
)
from vision.geometry import BoardGeometry
from vision.reader import BoardReader
from vision.sampling import CellSamples
from vision.synthetic.materials import BOARD_STYLES
from vision.synthetic.render import heights_of, random_position, random_scene, render

SIZE = (800, 600)
SHAPE = (NUM_CELLS, len(ANGLES), len(RADII))


def _board_coloured_hand(seed: int) -> tuple[np.ndarray, str, list[int]]:
    """A widened-renderer table with one hand whose skin and sleeve are the board's colour."""
    rng = np.random.default_rng(9000 + seed)
    stacks = random_position(rng)
    scene = random_scene(rng, stacks, hands=1, size=SIZE, wide=True)
    board = (scene.material.albedo if scene.material is not None
             else BOARD_STYLES[scene.board_style])
    for hand in scene.hands:
        hand.skin = hand.sleeve = tuple(int(v) for v in board)  # type: ignore[assignment]
    frame, truth = render(scene)
    return frame, truth.expected, heights_of(stacks)


def _no_cover() -> Cover:
    """A Cover with no print missing anywhere (the tests then set what they need)."""
    return print_cover(np.zeros(SHAPE, np.float32), np.full(NUM_CELLS, 150.0, np.float32),
                       np.ones(NUM_CELLS, bool), inside_directions(BoardGeometry()))


# Paper with circles, card with hexagons, black felt with a bright lattice, felt with
# hexagons: without the print cue 7, 6, 4 and 2 of their covered cells read '.'.
@pytest.mark.parametrize("seed", [0, 9, 12, 17])
def test_a_board_coloured_hand_reads_unknown_and_its_neighbours_keep_their_reading(
        seed: int) -> None:
    frame, want, heights = _board_coloured_hand(seed)
    got = BoardReader().read(frame, heights).snapshot
    covered = [c for c in range(NUM_CELLS) if want[c] == "?"]
    assert len(covered) >= 6
    assert [c for c in covered if got[c] != "?"] == []
    wrong = [(c, got[c], want[c]) for c in range(NUM_CELLS) if want[c] not in "?*"
             and got[c] != want[c]]
    assert wrong == []


def _lines(print_rays: np.ndarray, strength: float = 60.0) -> np.ndarray:
    """Hand-built line contrast: ``strength`` grey levels on the rays ``print_rays`` (A,)
    of every cell at one radius, sensor noise of a few grey levels elsewhere."""
    rng = np.random.default_rng(3)
    lines = rng.uniform(0.0, 4.0, SHAPE).astype(np.float32)
    lines[:, print_rays, len(RADII) // 2] = strength
    return lines


def test_cells_whose_print_is_gone_are_covered_and_the_rest_are_not() -> None:
    inside = inside_directions(BoardGeometry())
    lines = _lines(np.ones(len(ANGLES), bool))  # circles: print on every ray
    hand = [20, 21, 22, 31, 32]
    lines[hand] = 3.0  # a plain surface over these cells
    brightness = np.full(NUM_CELLS, 150.0, np.float32)
    empty = np.ones(NUM_CELLS, bool)
    cover = print_cover(lines, brightness, empty, inside)
    assert list(np.flatnonzero(cover.covered)) == hand
    # Half of a cell's rays in view (a hand beside it): not covered.
    lines[10, : len(ANGLES) // 2] = 3.0
    assert not print_cover(lines, brightness, empty, inside).covered[10]


def test_a_lattice_shows_on_a_third_of_the_rays_and_is_not_taken_for_a_hand() -> None:
    inside = inside_directions(BoardGeometry())
    spokes = (np.degrees(ANGLES).round().astype(int) % 60) <= 10  # lines toward neighbours
    lines = _lines(spokes)
    lines[[24, 25]] = 2.0
    cover = print_cover(lines, np.full(NUM_CELLS, 150.0, np.float32), np.ones(NUM_CELLS, bool),
                        inside)
    assert list(np.flatnonzero(cover.covered)) == [24, 25]


def test_a_plain_board_or_a_faint_print_gives_no_verdict() -> None:
    inside = inside_directions(BoardGeometry())
    brightness = np.full(NUM_CELLS, 150.0, np.float32)
    empty = np.ones(NUM_CELLS, bool)
    plain = _lines(np.zeros(len(ANGLES), bool))
    faint = _lines(np.ones(len(ANGLES), bool), strength=9.0)  # at the noise: cannot tell
    for lines in (plain, faint):
        lines[[20, 21]] = 1.0
        cover = print_cover(lines, brightness, empty, inside)
        assert not cover.covered.any()
        assert np.isnan(cover.missing).all()


def test_a_colour_needs_its_print_gone_and_a_hand_beside_it() -> None:
    cover = _no_cover()
    cover.covered[:3] = True
    cover.missing[:] = 0.0
    cover.missing[:3] = 0.65  # a top's own outline shows: it keeps its colour
    labels, conf, reasons = mark_covered("." + "w" + "?" + "." * 46, [0.9] * NUM_CELLS,
                                         [""] * NUM_CELLS, cover)
    assert labels[:4] == "?w?."
    assert conf[0] == 0.0 and conf[1] == 0.9
    assert "print" in reasons[0] and reasons[1] == ""
    # Print mostly gone round the top, but no neighbour is the core of a hand: a colour.
    cover.missing[1] = 0.8
    assert mark_covered("." + "w" + "?" + "." * 46, [0.9] * NUM_CELLS, [""] * NUM_CELLS,
                        cover)[0][1] == "w"
    core = NEIGHBOURS[1][0]  # its print gone all round: the top beside it is covered too
    cover.missing[core] = 1.0
    assert mark_covered("." + "w" + "?" + "." * 46, [0.9] * NUM_CELLS, [""] * NUM_CELLS,
                        cover)[0][1] == "?"


def test_covered_empty_cells_are_no_examples_of_the_empty_board() -> None:
    """A hand over most of the empty cells must not teach the colour model that the hand is
    the empty board: the covered cells the position says are empty go out of view."""
    heights = np.zeros(NUM_CELLS, int)
    heights[:10] = 1
    samples = CellSamples(np.full((NUM_CELLS, 19, 3), 120.0, np.float32),
                          np.ones((NUM_CELLS, 19), bool), np.full((NUM_CELLS, 3), 240.0),
                          heights=heights, base_valid=np.ones((NUM_CELLS, 7), bool))
    cover = _no_cover()
    cover.covered[5:30] = True
    hidden = hide_covered(samples, cover)
    assert not hidden.valid[10:30].any() and hidden.valid[30:].all()
    assert hidden.valid[:10].all()  # stacks: their own cues (rim, colour) decide
    assert hidden.base_valid is not None and not hidden.base_valid[10:30].any()
    assert samples.valid.all()  # the caller's samples are left alone


def test_stack_outlines_alone_are_no_print() -> None:
    """A faint print no empty cell shows (stacks' own outlines around the others): no
    verdict, rather than every empty cell under a hand (a clean frame must read exactly)."""
    inside = inside_directions(BoardGeometry())
    lines = _lines(np.zeros(len(ANGLES), bool))
    empty = np.zeros(NUM_CELLS, bool)
    empty[::2] = True
    lines[~empty, :, len(RADII) // 2] = 60.0  # the stacks' outlines
    cover = print_cover(lines, np.full(NUM_CELLS, 150.0, np.float32), empty, inside)
    assert not cover.covered.any()
    # ... while two empty cells showing the print make the others' covered.
    lines[[0, 2], :, len(RADII) // 2] = 60.0
    cover = print_cover(lines, np.full(NUM_CELLS, 150.0, np.float32), empty, inside)
    assert cover.covered[4] and not cover.covered[0]


def _samples_of(colours: dict[int, tuple[float, float, float]], outline: dict[int, bool]
                ) -> CellSamples:
    """Samples of a frame: every cell's top the board's brown unless ``colours`` says, and a
    top's radial profiles a face with a clear step at the outline (1.0 radii) in every
    direction where ``outline`` says, flat (a hand's or sleeve's smooth surface) elsewhere."""
    cells = np.full((NUM_CELLS, 19, 3), (90.0, 120.0, 160.0), np.float32)
    for c, bgr in colours.items():
        cells[c] = bgr
    profile = np.zeros((NUM_CELLS, 12, 6))
    for c, shown in outline.items():
        if shown:
            profile[c, :, 3:] = -0.8  # a dark side wall beyond the rim
    heights = np.ones(NUM_CELLS, int)
    return CellSamples(cells, np.ones((NUM_CELLS, 19), bool), np.full((NUM_CELLS, 3), 240.0),
                       heights=heights, rim_profile=profile)


RIM_RADII = np.array([0.6, 0.8, 0.92, 1.04, 1.16, 1.35])


def test_a_top_the_colour_of_the_hand_beside_it_with_half_its_print_gone_is_covered() -> None:
    """A red sleeve over a stack (renderer seed 2 frame 89: 51 % of the print gone round it):
    the top reads '?' when the sleeve over its neighbour is its colour and it does not show
    its outline all round; a top of another colour, or one whose whole outline shows, keeps
    its colour."""
    red, sleeve_red, white = (45.0, 45.0, 170.0), (30.0, 32.0, 125.0), (200.0, 210.0, 215.0)
    top, hand = 24, NEIGHBOURS[24][0]
    cover = _no_cover()
    cover.missing[:] = 0.0
    cover.missing[top], cover.missing[hand] = 0.51, 1.0
    cover.covered[:] = cover.missing >= 0.6
    labels = "b" * NUM_CELLS
    labels = labels[:top] + "r" + labels[top + 1:]

    def read(colours: dict[int, tuple[float, float, float]], outline: bool) -> str:
        samples = _samples_of(colours, {top: outline})
        return mark_covered(labels, [0.9] * NUM_CELLS, [""] * NUM_CELLS, cover,
                            samples=samples, rim_radii=RIM_RADII)[0][top]

    assert read({top: red, hand: sleeve_red}, outline=False) == "?"
    assert read({top: red, hand: white}, outline=False) == "r"  # the hand is another colour
    assert read({top: red, hand: sleeve_red}, outline=True) == "r"  # a whole disc in view
    cover.missing[top] = 0.35  # most of its print in view: beside the hand, not under it
    assert read({top: red, hand: sleeve_red}, outline=False) == "r"
    # Without the frame's samples, only the rule for a top whose print is mostly gone.
    cover.missing[top] = 0.51
    assert mark_covered(labels, [0.9] * NUM_CELLS, [""] * NUM_CELLS, cover)[0][top] == "r"


def test_a_hand_over_every_empty_cell_of_a_nearly_full_board_is_seen_by_the_stacks() -> None:
    """Renderer seed 1 frame 70: a board-coloured arm lies over all six empty cells and a
    band of stacks. No empty cell shows the print, so the print is judged round all the
    cells (the stacks stand on it); a hand covers stacks and empty cells alike."""
    inside = inside_directions(BoardGeometry())
    lines = _lines(np.ones(len(ANGLES), bool))
    empty = np.zeros(NUM_CELLS, bool)
    empty[[5, 14, 22, 23, 30, 31]] = True
    arm = np.zeros(NUM_CELLS, bool)
    arm[[4, 5, 6, 13, 14, 15, 21, 22, 23, 24, 29, 30, 31, 32]] = True
    lines[arm] = 3.0  # smooth skin over them
    brightness = np.full(NUM_CELLS, 150.0, np.float32)
    cover = print_cover(lines, brightness, empty, inside)
    assert list(np.flatnonzero(cover.covered)) == list(np.flatnonzero(arm))
    # The same board with the print too faint to see round the empty cells and no arm: the
    # stacks' outlines show, the empty cells nothing. Not a hand (covered cells all empty).
    faint = _lines(np.zeros(len(ANGLES), bool))
    faint[~empty, :, len(RADII) // 2] = 60.0
    assert not print_cover(faint, brightness, empty, inside).covered.any()


def test_a_top_beside_a_half_covered_cell_of_the_hand_s_colour_is_covered_too() -> None:
    """Renderer seed 21 frame 21: a red sleeve over a stack and its two neighbours, none of
    them covered all round (print 45-73 % gone); the neighbours read '?' (something red
    over an empty cell), the stack read red. One sleeve: all three read '?'."""
    red, sleeve_red = (45.0, 45.0, 170.0), (30.0, 32.0, 125.0)
    top, beside = 24, NEIGHBOURS[24][0]
    cover = _no_cover()
    cover.missing[:] = 0.0
    cover.missing[top], cover.missing[beside] = 0.46, 0.53
    cover.covered[:] = cover.missing >= 0.6
    labels = list("b" * NUM_CELLS)
    labels[top], labels[beside] = "r", "?"
    samples = _samples_of({top: red, beside: sleeve_red}, {top: False})
    got = mark_covered("".join(labels), [0.9] * NUM_CELLS, [""] * NUM_CELLS, cover,
                       samples=samples, rim_radii=RIM_RADII)[0]
    assert got[top] == "?"
    labels[beside] = "."  # the board shows there after all: no hand beside the top
    got = mark_covered("".join(labels), [0.9] * NUM_CELLS, [""] * NUM_CELLS, cover,
                       samples=samples, rim_radii=RIM_RADII)[0]
    assert got[top] == "r"


def test_a_stack_read_as_lifted_beside_a_hand_with_half_its_print_gone_is_covered() -> None:
    """A board-coloured hand over a stack at its edge (renderer seed 1 frame 481 B2: 59 % of
    the print gone, a neighbour covered all round): the board's colour shows, so the colour
    model reads the stack as lifted ('.'); a lifted stack shows the board's print round its
    cell, and half of it is gone beside a hand: '?'. An empty cell there keeps '.' (what
    the position says), and so does a lifted stack whose print shows."""
    cover = _no_cover()
    stack, hand, empty_cell = 24, NEIGHBOURS[24][0], NEIGHBOURS[24][1]
    cover.missing[:] = 0.0
    cover.missing[[stack, empty_cell]] = 0.55
    cover.missing[hand] = 1.0
    cover.covered[:] = cover.missing >= 0.6
    samples = _samples_of({}, {})
    assert samples.heights is not None
    samples.heights[empty_cell] = 0
    labels = "." * NUM_CELLS

    def read() -> str:
        return mark_covered(labels, [0.9] * NUM_CELLS, [""] * NUM_CELLS, cover,
                            samples=samples, rim_radii=RIM_RADII)[0]

    got = read()
    assert got[stack] == "?" and got[empty_cell] == "." and got[hand] == "?"
    cover.missing[stack] = 0.3  # most of its print shows: the stack is gone
    assert read()[stack] == "."
