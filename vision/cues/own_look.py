"""Each cell's own look when last seen empty: in play every cell is seen empty before a piece
is put there, so a cell the heights call empty whose board round it changed all round since
holds a new piece (white on paper too), and one unchanged since holds none; and a cell the
heights call occupied whose board round it is again as it was then holds no stack any more
(a stack lifted away, a cut-off stack taken off: white on cream, black on dark felt)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.geometry import NUM_CELLS, board_xy
from vision.cues.colour_dist import NEIGHBOURING, WITHIN_TWO
from vision.sampling import (
    RING_CHANGED,
    CellSamples,
    Thresholds,
    _median,
    features,
    placing,
    ring_change,
    ring_steps,
)


def _toward(directions: int) -> np.ndarray:
    """(49, 49, A): for each cell and each cell within two steps of it (stacks that may lean
    over it or cast their shadows on it), the directions round the first (A evenly from 0)
    within 50 degrees of the second."""
    xy = np.array([board_xy(c) for c in range(NUM_CELLS)])
    d = xy[None, :, :] - xy[:, None, :]
    angle = np.arctan2(d[..., 1], d[..., 0])  # (49, 49)
    rays = 2.0 * np.pi * np.arange(directions) / directions
    apart = np.abs(np.angle(np.exp(1j * (rays[None, None, :] - angle[..., None]))))
    return np.asarray(WITHIN_TWO[..., None] & (apart < np.radians(50.0)))


_TOWARD: dict[int, np.ndarray] = {}
#: Reasons a cell reads '?' for a hand or sleeve over the board there.
HAND_REASONS = ("something over the board here", "the board's print does not show")
#: A bare cell: the median change of its directions in view at most this (log brightness),
#: at most this share of them changed clearly, and this many directions in view at least
#: (five: a standing stack changes every direction in view by 0.16 or more, a bare cell by
#: 0.02; at a 28 degree tilt tall neighbours leave a cell five directions, and with six
#: a single piece moved off a cream board kept reading 'w': outside camera game 15, B2C2).
BARE_CHANGE = 0.05
BARE_SHARE = 0.1
#: Later still frames that must have shown a look again before the cells the heights call
#: empty, or a cell with one direction changed, are judged by it.
CONFIRMED = 1
BARE_LEAST = 5
#: Directions that must compare for a look to be refreshed (a new piece changes them all).
LOOSE_LEAST = 3
#: ... and the chroma at its centre within this of the range it showed while empty ...
BARE_CHROMA = 0.06
#: ... and, while placing, within this of its mean while empty, both less the frame's drift
#: (what the cells the heights call empty moved by since: automatic white balance and the
#: room's light move every cell's chroma together, by 0.08 over a game, and the range
#: swallows a white top then: room game 113's G5, -0.11 against a range from -0.07 while
#: empty, read bare).
REF_CHROMA = 0.05
#: The weight of a new frame in that mean, and the cells the drift must be taken over (with
#: fewer, late in the placing phase, the last drift stands: it moves over seconds).
REF_RATE = 0.1
DRIFT_CELLS = 3
#: Frames in a row a cell the heights call occupied must read bare, with no hand near it,
#: before it stays bare until a hand comes near or the heights change (``read_bare``).
GONE_AFTER = 2
#: A cell the heights call empty whose centre's chroma left the range it showed while empty
#: by this much holds something new: a white top on cream paper is the paper's brightness
#: (the print profiles are brightness only) but not its tint (camera game 15, F3: 0.13 off
#: where the frame's other empty cells were within 0.004 of theirs).
NEW_CHROMA = 0.1


def _chroma(s: CellSamples) -> np.ndarray | None:
    """(49, 2) chroma of each cell's base on the board (its centre and inner ring, z = 0;
    nan where fewer than 4 of them are in view): the board's there when empty, the stack's
    top or side wall where one stands."""
    if s.base is None or s.base_valid is None:
        return None
    norm = s.base / np.maximum(s.white, 8.0)[:, None, :]
    f = features(_median(norm, s.base_valid, 0.5))[:, 1:]
    return np.asarray(np.where((s.base_valid.sum(axis=1) >= 4)[:, None], f, np.nan))


@dataclass
class CellLooks:
    """Per cell, the board round its centre (log brightness, ``CellSamples.ring``) when last
    seen empty in a still frame, the directions then in view, where the cell was in the frame
    (a moved camera makes the look useless) and the heights of all cells then."""

    look: np.ndarray | None = None
    valid: np.ndarray | None = None
    anchor: np.ndarray | None = None
    heights: np.ndarray | None = None
    #: The last ``change``, from 3 directions at least (nan where it could not compare): a
    #: look is refreshed only where it compared and changed little (a new piece the frame
    #: missed stays new), and then with the heights of that frame (more directions compare
    #: next time).
    last: np.ndarray | None = None
    #: The range of the chroma at each cell's centre (white-normalised, ``measure.features``)
    #: over the still frames the cell was seen empty in, since the camera last moved (per
    #: cell and channel): the print profiles are brightness only, and a white top on a light
    #: blue board of its brightness leaves them as they were (renderer seed 2 frame 33); a
    #: printed line through the centre puts the median of its samples on the ink in one
    #: frame and on the board in the next (camera game 8, a lattice on white paper: C1 from
    #: -0.11 to -0.20 while empty).
    chroma_lo: np.ndarray | None = None
    chroma_hi: np.ndarray | None = None
    #: Per cell, how many later still frames showed the same look (refreshed it): a look
    #: taken once may be a piece the frame missed (a reader started on a full board).
    confirmed: np.ndarray | None = None
    #: Per cell, the committed height of a stack the cell was read bare of in GONE_AFTER
    #: frames in a row with no hand near (0: none), and how many frames in a row it has been
    #: read so: a lifted stack's cell stays bare until a hand comes back (``read_bare``).
    gone: np.ndarray | None = None
    bare_run: np.ndarray | None = None
    #: Per cell, whether it read '?' at the last reading (``read_bare`` notes it), and
    #: whether it read '?' (a hand over it) since its look was last kept at a reading after a
    #: clear one: the first reading as a hand leaves may show a new piece read '.'.
    hid: np.ndarray | None = None
    veiled: np.ndarray | None = None
    #: Per cell, the mean chroma at its centre while empty, less the drift (``REF_CHROMA``),
    #: and the last drift taken.
    chroma_ref: np.ndarray | None = None
    last_drift: np.ndarray | None = None

    def drift(self, chroma: np.ndarray, heights: np.ndarray | None) -> np.ndarray | None:
        """How far the chroma of the cells the heights call empty moved from their means
        (their median: a new piece on one is not the frame's), kept as ``last_drift``; with
        too few known, the last drift (None before any)."""
        if self.chroma_ref is None or heights is None:
            return None
        ok = ((np.asarray(heights) == 0) & np.isfinite(self.chroma_ref).all(axis=1)
              & np.isfinite(chroma).all(axis=1))
        if ok.sum() >= DRIFT_CELLS:
            self.last_drift = np.asarray(np.median(chroma[ok] - self.chroma_ref[ok], axis=0))
        return self.last_drift

    def off_ref(self, chroma: np.ndarray, heights: np.ndarray | None) -> np.ndarray:
        """Per cell, how far its chroma less the drift is from its mean while empty (nan:
        not known)."""
        drift = self.drift(chroma, heights)
        if drift is None or self.chroma_ref is None:
            return np.full(NUM_CELLS, np.nan)
        return np.asarray(np.abs(chroma - drift - self.chroma_ref).max(axis=1))

    def change(self, s: CellSamples, th: Thresholds) -> np.ndarray:
        """Per cell, how much the board round its centre changed since the cell was last
        seen empty, in units of the change that makes it a new piece (nan: no look kept, the
        camera moved since, too few directions to compare): 1 or more where most directions
        changed clearly."""
        out = np.full(NUM_CELLS, np.nan)
        look, valid, anchor = self.look, self.valid, self.anchor
        if (look is None or valid is None or anchor is None or s.ring is None
                or s.ring_valid is None or s.anchor is None or s.heights is None
                or self.heights is None):
            return out
        # Directions towards a stack that is new or of another height since the look was kept
        # are left out (its side wall, its shadow, what it hides there).
        a = s.ring.shape[1]
        if a not in _TOWARD:
            _TOWARD[a] = _toward(a)
        changed = self.heights != np.asarray(s.heights)[None, :]  # (49, 49)
        away = ~(changed[..., None] & _TOWARD[a]).any(axis=1)  # (49, A)
        seen = s.ring_valid & away
        med, share = ring_change(s.ring, seen, look, valid, least=LOOSE_LEAST)
        same = np.linalg.norm(s.anchor - anchor, axis=1) <= th.look_moved
        ok = same & np.isfinite(med) & np.isfinite(share)
        score = np.minimum(np.nan_to_num(med) / th.look_change,
                           np.nan_to_num(share) / th.look_share)
        self.last = np.where(ok, score, np.nan)
        # A new piece needs 8 directions at least; whether a look may be refreshed, 3.
        return np.where((seen & valid).sum(axis=1) >= 8, self.last, np.nan)

    def chroma_off(self, s: CellSamples, th: Thresholds) -> np.ndarray:
        """Per cell, how far the chroma at its centre is outside the range it showed while
        empty (0 inside; nan where no range is known, it was seen in one frame only, or the
        camera moved since; nan everywhere where more than a few of the cells the heights
        call empty left their ranges: the white all colours are relative to moved, a card
        under a hand, not a piece put down)."""
        out = np.full(NUM_CELLS, np.nan)
        chroma = _chroma(s)
        lo, hi, anchor = self.chroma_lo, self.chroma_hi, self.anchor
        if (chroma is None or lo is None or hi is None or anchor is None or s.anchor is None
                or self.confirmed is None):
            return out
        off = np.maximum(np.maximum(lo - chroma, chroma - hi), 0.0).max(axis=1)
        known = ((np.linalg.norm(s.anchor - anchor, axis=1) <= th.look_moved)
                 & (self.confirmed >= CONFIRMED) & np.isfinite(off))
        if s.heights is not None:
            empty = known & (np.asarray(s.heights) == 0)
            if (off[empty] > BARE_CHROMA).sum() > max(3.0, 0.2 * empty.sum()):
                return out
        return np.where(known, off, np.nan)

    def bare(self, s: CellSamples, open_for: Callable[[np.ndarray], np.ndarray],
             th: Thresholds, also: np.ndarray | None = None) -> np.ndarray:
        """Per cell the heights call occupied (and the cells ``also`` holds): True where the
        board round its centre is as it was when the cell was last seen empty, in every
        direction in view (at least 5 of 12), so no stack stands there. ``open_for(cells)``
        gives those cells' directions (A)
        whose profile is in view were the cell's own stack gone (no other stack in the line
        of sight: a neighbour's top, side wall or what it hides). A standing stack's top,
        side wall and edge change the inner part of every direction (0.16 or more in log
        brightness on the renderer's tables; a bare cell 0.02 at most). One direction changed
        of seven or more is a move landed beside the cell and not committed yet, leaning over
        the board there."""
        out = np.zeros(NUM_CELLS, bool)
        look, valid, anchor = self.look, self.valid, self.anchor
        if (look is None or valid is None or anchor is None or s.ring is None
                or s.ring_valid is None or s.anchor is None or s.heights is None):
            return out
        same = np.linalg.norm(s.anchor - anchor, axis=1) <= th.look_moved
        # Only cells that show their old look in a few directions at least, all stacks as
        # they stand (the sight lines are the costly part).
        _, share = ring_change(s.ring, s.ring_valid, look, valid, least=1)
        n = (s.ring_valid & valid).sum(axis=1)
        unchanged = n * (1.0 - np.nan_to_num(share, nan=1.0))
        chroma = _chroma(s)
        lo, hi = self.chroma_lo, self.chroma_hi
        if chroma is None or lo is None or hi is None:
            near = np.zeros(NUM_CELLS, bool)
        else:  # within the range the empty cell showed (nan: not known, not near)
            off = np.maximum(np.maximum(lo - chroma, chroma - hi), 0.0).max(axis=1)
            near = np.nan_to_num(off, nan=np.inf) <= BARE_CHROMA
            if placing(s.heights):  # (moving, a hand's shade and the LEDs tint a lifted
                # stack's cell beyond that: room game 121's answer, D2 lifted, was not seen)
                near &= np.nan_to_num(self.off_ref(chroma, s.heights), nan=0.0) <= REF_CHROMA
        # The cells the heights call empty and the one-direction rescue below only where
        # the look was seen again in a later frame (not a piece a first frame missed).
        sure = (np.zeros(NUM_CELLS, bool) if self.confirmed is None
                else self.confirmed >= CONFIRMED)
        asked = np.asarray(s.heights) > 0
        if also is not None:
            asked = asked | (also & sure)
        cells = np.flatnonzero(asked & same & near & (unchanged >= 4))
        if len(cells) == 0:
            return out
        seen = s.ring_valid[cells] & open_for(cells)
        med, share = ring_change(s.ring[cells], seen, look[cells], valid[cells],
                                 least=BARE_LEAST)
        n = (seen & valid[cells]).sum(axis=1)
        ok = np.isfinite(med) & (med <= BARE_CHANGE)
        out[cells] = ok & (np.nan_to_num(share, nan=1.0) <= BARE_SHARE)
        # One direction changed of BARE_LEAST + 1 or more: a stack just landed beside the cell
        # leans over the board there (its side wall), not yet in the heights (camera game 6:
        # B2's stack moved onto C2 changed B2's direction toward it by 0.56, the other seven
        # by 0.03 at most; outside camera game 15: D3E4 left D3 one changed direction of 7,
        # F3G3 F3 one of 9, and the vacated cells read 'w' on the cream paper). A standing
        # stack changes every direction in view by 0.16 or more.
        out[cells] |= (ok & (np.rint(np.nan_to_num(share) * n) == 1) & (n >= BARE_LEAST + 2)
                       & sure[cells])
        if s.led_side is not None:
            # Directions changed only where an LED glows into them (its own hole toward row 1,
            # its upper neighbours'): the table's LEDs lit otherwise than when the look was
            # kept, and 4 directions or more unchanged (room game 122: vacated A1 changed
            # toward its own hole alone, 3 of 9, and read 'w' on paper; 102: G2 toward H3's).
            per, both = ring_steps(s.ring[cells], seen, look[cells], valid[cells])
            changed = both & (per >= RING_CHANGED)
            lit = changed & s.led_side[cells]
            out[cells] |= (ok & (n >= BARE_LEAST) & lit.any(axis=1)
                           & ~(changed & ~lit).any(axis=1)
                           & ((n - changed.sum(axis=1)) >= 4) & sure[cells])
        return out

    def remember(self, s: CellSamples, empty: np.ndarray, moved: np.ndarray,
                 shown: np.ndarray, th: Thresholds) -> None:
        """Keep the look of the cells read empty (refreshed while it changes little: light
        drifts; never replaced by a changed look: a new piece the frame missed stays new)."""
        if s.ring is None or s.ring_valid is None or s.anchor is None:
            return
        if self.look is None or self.valid is None or self.anchor is None:
            self.look = np.zeros_like(s.ring)
            self.valid = np.zeros(s.ring_valid.shape, bool)
            self.anchor = np.full((NUM_CELLS, 2), np.inf)
        if self.heights is None:
            self.heights = np.zeros((NUM_CELLS, NUM_CELLS), int)
        # Comparable with the kept look: the camera where it was.
        known = np.linalg.norm(s.anchor - self.anchor, axis=1) <= th.look_moved
        # Where the last change could not compare (too few directions away from neighbours
        # that changed), a piece put down meanwhile is not seen: the old look stays (camera
        # game 5: a white piece on cream read '.' for six frames, its look replaced by the
        # piece's, and the stack there later read as bare).
        last = moved if self.last is None else self.last
        # ... nor where the colour at its centre left the range it showed while empty (a
        # white top on cream paper: the print profiles are brightness only; camera game 15,
        # F3 read '.', its look became the piece's, and once committed it read 'gone').
        tinted = np.nan_to_num(self.chroma_off(s, th), nan=0.0) > BARE_CHROMA
        keep = empty & (s.ring_valid.sum(axis=1) >= 8) & (
            ~known | (np.isfinite(last) & (np.nan_to_num(last) < 0.5) & ~tinted))
        if self.chroma_lo is None or self.chroma_hi is None:
            self.chroma_lo = np.full((NUM_CELLS, 2), np.nan)
            self.chroma_hi = np.full((NUM_CELLS, 2), np.nan)
        chroma = _chroma(s)
        if chroma is not None:
            again = keep & ~known  # the first look, or the camera moved: a new range
            self.chroma_lo[again] = np.nan
            self.chroma_hi[again] = np.nan
            self._keep_ref(chroma, s.heights, keep, again)
            self.chroma_lo[keep] = np.fmin(self.chroma_lo[keep], chroma[keep])
            self.chroma_hi[keep] = np.fmax(self.chroma_hi[keep], chroma[keep])
        if self.veiled is not None and self.hid is not None:
            self.veiled &= ~(keep & ~self.hid)
        self.look[keep] = s.ring[keep]
        self.valid[keep] = s.ring_valid[keep]
        self.anchor[keep] = s.anchor[keep]
        self.heights[keep] = shown.astype(int)[None, :]
        if self.confirmed is None:
            self.confirmed = np.zeros(NUM_CELLS, int)
        self.confirmed[keep & known] += 1
        self.confirmed[keep & ~known] = 0

    def _keep_ref(self, chroma: np.ndarray, heights: np.ndarray | None, keep: np.ndarray,
                  again: np.ndarray) -> None:
        """Move the means of the cells kept empty toward their chroma less the drift (not
        where it is far from it: a piece the frame missed)."""
        if self.chroma_ref is None:
            self.chroma_ref = np.full((NUM_CELLS, 2), np.nan)
        ref = self.chroma_ref
        ref[again] = np.nan
        drift = self.drift(chroma, heights)
        now = chroma - (0.0 if drift is None else drift)
        new = keep & np.isfinite(now).all(axis=1)
        fresh = new & ~np.isfinite(ref).all(axis=1)
        near = new & ~fresh & (np.nan_to_num(np.abs(now - ref).max(axis=1), nan=np.inf)
                               <= REF_CHROMA)
        ref[fresh] = now[fresh]
        ref[near] += REF_RATE * (now[near] - ref[near])


def read_bare(looks: CellLooks, s: CellSamples,
              open_for: Callable[[np.ndarray, Sequence[int]], np.ndarray], th: Thresholds,
              labels: str, conf: list[float], reasons: list[str], covered: np.ndarray
              ) -> tuple[str, list[float], list[str]]:
    """``labels`` with the cells the heights call occupied read '.' where the board round
    them is again as it was when they were last seen empty (``CellLooks.bare``) and no hand
    covers them: the colour model cannot tell a lifted stack's cell from a piece where the
    board is the piece's colour (white on cream: the printed circle gives it an edge). The
    same for the cells the heights call empty that read a piece: a stack cut off and taken
    away on a board of its colour (black on dark felt, camera game 6: C3, C4, D3 read 'b',
    no sequence of moves explained the board and the game stalled); where the board round
    the cell changed too little since, the cell's own look could not tell a new piece.

    A cell the heights call occupied that read bare GONE_AFTER frames in a row with no hand
    near stays bare while its committed height stays, no hand comes near it and the board
    round it does not change as a new piece changes it: only a hand brings a stack back.
    The test is one-sided (a standing stack changes every direction), and on white paper a
    vacated cell passed it in every other frame only (the grown destination leaning over one
    direction, noise over another, its centre's tint: camera games 20 and 24 flickered '.'
    and 'w' until they stalled)."""
    heights = np.asarray(s.heights) if s.heights is not None else np.zeros(NUM_CELLS, int)
    looks.hid = np.array([x == "?" for x in labels])
    looks.veiled = looks.hid | (False if looks.veiled is None else looks.veiled)
    piece = np.array([x in "wbr" for x in labels]) & (heights == 0)
    if placing(heights):
        # placing: a hand left a piece the look cannot tell (white on pale paper: the board
        # round it as it was; room game 113's G4, read '.' a frame as the hand left, then
        # 'w'), so a piece read where a hand was is kept (a piece misread on a cell no hand
        # came near since its look was kept is not)
        piece &= ~looks.veiled
    covered = np.asarray(covered, bool)
    # ``open_for(cells, heights)``: a neighbour read empty, or bare since, stands in no line
    # of sight (a stack lifted away before the controller has the move: room game 102,
    # vacated H3 beside I3 had four directions by the heights and read 'w', I3H3 committed)
    gone = np.array([x == "." for x in labels]) | (
        False if looks.gone is None else looks.gone > 0)
    sight = np.where(gone, 0, heights).tolist()
    bare = looks.bare(s, lambda cells: open_for(cells, sight), th, also=piece) & ~covered
    if looks.gone is None or looks.bare_run is None:
        looks.gone = np.zeros(NUM_CELLS, int)
        looks.bare_run = np.zeros(NUM_CELLS, int)
    # what ends a latch: a hand near the cell, or its board changed as a new piece changes it
    release = covered | (NEIGHBOURING & covered).any(axis=1) | np.array(
        [r.startswith(HAND_REASONS) for r in reasons])
    standing = heights > 0
    if looks.last is not None:
        release |= np.nan_to_num(looks.last, nan=0.0) >= 1.0
    looks.bare_run = np.where(bare & standing & ~release, looks.bare_run + 1, 0)
    looks.gone = np.where(release | (looks.gone != heights) | ~standing, 0, looks.gone)
    looks.gone = np.where(looks.bare_run >= GONE_AFTER, heights, looks.gone)
    held = (looks.gone > 0) & ~bare
    if not (bare.any() or held.any()):
        return labels, conf, reasons
    out, conf, reasons = list(labels), list(conf), list(reasons)
    for c in np.flatnonzero(bare | held):
        if out[c] != ".":
            out[c] = "."
            conf[c] = 0.9
            reasons[c] = ("the board round it is as it was when last seen empty: "
                          + ("the stack is gone" if heights[c] > 0 else "no piece there")
                          + (" (so since, no hand near)" if held[c] else ""))
    return "".join(out), conf, reasons
