"""vision.cues.touch: a stack the hand set down again moved; one it only passed over did not."""

from __future__ import annotations

import cv2
import numpy as np

from engine.geometry import NUM_CELLS
from vision.cues.touch import TouchWatch
from vision.geometry import BoardGeometry

G = BoardGeometry()
SCALE = 1.6  # px per mm


def project(pts: np.ndarray) -> np.ndarray:
    """A camera straight above: board mm -> px (no parallax, so heights do not matter)."""
    return np.column_stack([300.0 + SCALE * pts[:, 0], 300.0 - SCALE * pts[:, 1]])


def frame(offsets: dict[int, tuple[float, float]], seed: int, gone: int = 0) -> np.ndarray:
    """Every cell holds a disc (offset in mm where given; none on the cells of ``gone``) on a
    grey board, with sensor noise."""
    rng = np.random.default_rng(seed)
    img = np.full((600, 700, 3), 120, np.uint8)
    centres = G.cell_centres_mm()
    for c in range(NUM_CELLS):
        if (gone >> c) & 1:
            continue
        dx, dy = offsets.get(c, (0.0, 0.0))
        (u, v), = project(np.array([[centres[c][0] + dx, centres[c][1] + dy, 0.0]]))
        colour = (235, 235, 235) if c % 2 else (30, 30, 30)
        cv2.circle(img, (int(round(u * 4)), int(round(v * 4))),
                   int(round(G.disc_radius_mm * SCALE * 4)), colour, -1, cv2.LINE_AA, shift=2)
    noise = rng.normal(0.0, 2.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def test_a_stack_set_down_off_where_it_stood_is_touched_and_the_others_are_not() -> None:
    watch = TouchWatch(G.cell_centres_mm(), G.disc_radius_mm, G.thickness_mm)
    heights = [1] * NUM_CELLS
    clear = "w" * NUM_CELLS
    hand = (1 << 20) | (1 << 21)  # the hand over two stacks
    under = "".join("?" if (hand >> c) & 1 else ch for c, ch in enumerate(clear))
    assert watch.update(frame({}, 1), project, heights, clear) == 0
    assert watch.update(frame({}, 2), project, heights, under) == 0
    touched = watch.update(frame({21: (2.5, -1.5)}, 3), project, heights, clear)
    assert touched == 1 << 21  # set down 3 mm off; 20 was only under the hand
    assert watch.update(frame({21: (2.5, -1.5)}, 4), project, heights, clear) == 1 << 21
    assert watch.update(frame({21: (2.5, -1.5)}, 5), project, heights, under) == 0  # covered


def test_a_cell_under_a_hand_that_comes_back_as_it_was_is_not_touched() -> None:
    watch = TouchWatch(G.cell_centres_mm(), G.disc_radius_mm, G.thickness_mm)
    heights = [1] * NUM_CELLS
    clear = "b" * NUM_CELLS
    under = clear[:5] + "?" + clear[6:]
    watch.update(frame({}, 1), project, heights, clear)
    watch.update(frame({}, 2), project, heights, under)
    assert watch.update(frame({}, 3), project, heights, clear) == 0


def _neighbours_under_a_hand(shaken: float, monkeypatch: object = None) -> int:
    """Cells 20 and 21 under one hand: 21 set down 3 mm off, its neighbour 20 only nudged
    (its look changes a little: what a tall stack set down beside it does to it)."""
    watch = TouchWatch(G.cell_centres_mm(), G.disc_radius_mm, G.thickness_mm)
    heights = [1] * NUM_CELLS
    clear = "w" * NUM_CELLS
    hand = (1 << 20) | (1 << 21)
    under = "".join("?" if (hand >> c) & 1 else ch for c, ch in enumerate(clear))
    watch.update(frame({}, 1), project, heights, clear)
    watch.update(frame({}, 2), project, heights, under)
    return watch.update(frame({21: (2.5, -1.5), 20: (shaken, 0.0)}, 3), project, heights, clear)


def test_a_neighbour_changed_far_less_than_the_stack_set_down_beside_it_was_only_shaken(
        ) -> None:
    import vision.cues.touch as touch

    assert _neighbours_under_a_hand(0.6) == 1 << 21
    # the nudge alone is a change the watch would call touched: the rule is what drops it
    saved = touch.SHAKEN
    try:
        touch.SHAKEN = 1e9
        assert _neighbours_under_a_hand(0.6) == (1 << 21) | (1 << 20)
    finally:
        touch.SHAKEN = saved
    # two stacks both set down off their places under one hand are both touched
    assert _neighbours_under_a_hand(2.5) == (1 << 21) | (1 << 20)


def test_a_stack_gone_from_beside_a_landing_does_not_hide_it() -> None:
    """Cell 21's stack lifted onto its neighbour 20 under one hand: 21 now reads empty (or,
    a frame, a top it does not hold), a change far greater than 20's; that is a stack gone,
    not one shaken, and 20, where it landed, is touched (room games 105, 108)."""
    for after in (".", "b"):
        watch = TouchWatch(G.cell_centres_mm(), G.disc_radius_mm, G.thickness_mm)
        heights = [1] * NUM_CELLS
        clear = "w" * NUM_CELLS
        hand = (1 << 20) | (1 << 21)
        under = "".join("?" if (hand >> c) & 1 else ch for c, ch in enumerate(clear))
        now = clear[:21] + after + clear[22:]
        watch.update(frame({}, 1), project, heights, clear)
        watch.update(frame({}, 2), project, heights, under)
        touched = watch.update(frame({20: (0.6, 0.0)}, 3, gone=1 << 21), project, heights, now)
        assert touched & (1 << 20), after


def test_a_stack_that_received_one_with_no_hand_seen_is_touched() -> None:
    """Room games 102 and 135: a stack went onto a top of its own colour between two frames
    with no hand in the picture. The stack that changed between the frame the source was
    last read and the one it read empty received it; a top misread empty for a frame (its
    look unchanged) moves nothing, a gone stack read too late is not compared, a stack the
    gone one could not reach (one cell on, as it was one high) is not touched, nor one beside
    another stack gone in the same frames (cut-off stacks taken away)."""
    heights = [1] * NUM_CELLS
    clear = "w" * NUM_CELLS
    src, dst, far, beside = 20, 21, 40, 31  # B3, its neighbour C3, C5, C4 next to C3
    for case in ("gone", "misread", "late", "beside"):
        watch = TouchWatch(G.cell_centres_mm(), G.disc_radius_mm, G.thickness_mm)
        watch.update(frame({}, 1), project, heights, clear)
        watch.update(frame({}, 2), project, heights, clear)
        away = 1 << src | (1 << beside if case == "beside" else 0)
        now = "".join("." if (away >> c) & 1 else ch for c, ch in enumerate(clear))
        if case == "misread":  # nothing moved: a top read empty a frame
            assert watch.update(frame({}, 3), project, heights, now) == 0
            continue
        landed = frame({dst: (2.5, -1.5), far: (-2.5, 1.5)}, 3, gone=away)
        if case == "late":  # the source read its old top for four more frames
            for i in range(4):
                watch.update(frame({dst: (2.5, -1.5)}, 4 + i, gone=away), project,
                             heights, clear)
        got = watch.update(landed, project, heights, now)
        if case == "beside":  # C3 not; C5, beside C4 alone, may have received C4's stack
            assert got == 1 << far, case
        else:
            assert got == (1 << dst if case == "gone" else 0), case


def test_a_stack_changed_on_one_side_beside_a_stack_gone_was_not_touched() -> None:
    """Room game 129: J3's stack landed on I3; J4, beside the vacated J3, changed on the
    side toward it and was marked touched too. Beside a stack gone, a touch must change two
    opposite sides of the outline (a stack set down off its place); elsewhere a one-sided
    change still counts (outside camera game 15: C4 lifted and set back almost where it stood,
    one side changed)."""
    import vision.cues.touch as touch

    def shaded(seed: int, gone: int) -> np.ndarray:
        img = frame({}, seed, gone=gone)
        (u, v), = project(np.array([[*G.cell_centres_mm()[21], 0.0]]))
        r = G.disc_radius_mm * SCALE
        img[int(v - 1.4 * r):int(v + 1.4 * r), int(u + 0.4 * r):int(u + 1.4 * r)] //= 2
        return img

    def touched(gone: int) -> int:
        watch = TouchWatch(G.cell_centres_mm(), G.disc_radius_mm, G.thickness_mm)
        heights = [1] * NUM_CELLS
        clear = "w" * NUM_CELLS
        hand = (1 << 20) | (1 << 21)
        under = "".join("?" if (hand >> c) & 1 else ch for c, ch in enumerate(clear))
        now = "".join("." if (gone >> c) & 1 else ch for c, ch in enumerate(clear))
        watch.update(frame({}, 1), project, heights, clear)
        watch.update(frame({}, 2), project, heights, under)
        return watch.update(shaded(3, gone), project, heights, now)

    assert not touched(1 << 20) & (1 << 21)  # beside the gone 20
    assert touched(0) & (1 << 21)  # nothing gone beside it: the change counts as before
    saved = touch.OPPOSITE
    try:  # beside the gone 20 the change is one the watch would call touched without the rule
        touch.OPPOSITE = 0.0
        assert touched(1 << 20) & (1 << 21)
    finally:
        touch.OPPOSITE = saved
