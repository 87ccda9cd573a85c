"""Colour and occupancy model: a cell's sampled top face -> '.', 'w', 'b', 'r' or '?'.

Nothing here assumes the look of one board. Every frame is normalised by the white of the
markers' own modules and quiet zones (the only surface known to be white), and by the local
light measured on the board between the cells. Then the frame explains itself:

* the board: the cells the position says are empty are dozens of labelled examples of
  "empty" on this very table (their robust median and spread), the surface between the cells
  tells where something foreign (a hand, a sleeve) lies over the board;
* the pieces: white, black and red are wide priors (ivory to paper white, matte to glossy
  black) that the frame's own occupied cells sharpen (black and white split where this frame's
  tops split), and that the game teaches (``learn``: every placement is a labelled piece);
* the table's own past: in play every cell is seen empty before a piece is put there, so
  each cell keeps its own look from the last still frame that showed it empty, and a cell
  the heights call empty whose board round it changed since (all round, not towards a stack
  that changed) and that shows a flat top of a piece's colour with a disc's edge is a new
  piece, also where that colour is the board's (white on paper);
* the heights the controller knows are strong priors: a cell the position says is empty reads
  '.' unless a piece clearly sits there; an occupied cell reads a colour unless it clearly
  shows the empty board, or nothing fits (skin, sleeves, glare), which reads '?'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.errors import DvonnError
from engine.geometry import NUM_CELLS
from vision.cues.colour_dist import PIECES, dark_tops, dist, gate, local_empty_dist, piece_dists
from vision.cues.departure import Departures, departed
from vision.cues.frame_classes import MIN_STD, PRIOR_WEIGHT, black_tint, piece_models
from vision.cues.new_tops import new_tops, outline_bare, print_absent
from vision.cues.own_look import NEW_CHROMA, CellLooks
from vision.cues.spot import Spots, ring_clipped
from vision.sampling import (
    Board,
    CellSamples,
    Measured,
    Thresholds,
    measure,
    measure_board,
    placing,
    plain_view,
    profile_match,
)
from vision.stats import median, percentile

#: Piece priors: centre and spread of (log brightness, (R-G)/L, (B-G)/L) after normalising by
#: the marker white and the local light. Wide on purpose: ivory..paper white, matte..glossy.
DEFAULT_MEANS = {"w": (np.log(0.86), 0.03, -0.04), "b": (np.log(0.22), 0.02, 0.02),
                 "r": (np.log(0.42), 1.25, 0.10)}
DEFAULT_STDS = {"w": (0.22, 0.06, 0.08), "b": (0.45, 0.12, 0.14), "r": (0.35, 0.30, 0.18)}
#: Floor of the empty cells' spread within a frame.
EMPTY_STD = (0.10, 0.035, 0.04)
#: The share of a new top's pixels its highlight may clip where the board round it changed
#: all round twice over (glossy ivory under a warm lamp: camera game 25's first white top
#: clips 10 %), and where it changed all round (room game 113: K5, white on paper, 5 %).
FIRST_GLOSS, SPOT_GLOSS = 0.2, 0.1
#: The disc edge a new top needs where its board changed all round (in disc-edge bars): twice
#: the bar, as a surprise should; once the bar (what an expected top needs) where the board
#: round it changed twice over, or where the cell read this new top in the last frame that
#: judged it. A small board far from the camera blurs a white top's edge on a pale board to
#: 1.3-2 bars (outside camera games 5 and 9: A2 read by turns, I3 never).
NEW_EDGE = 2.0
KEPT_EDGE = 1.0
#: How near the white class (a share of the unknown bar; 0.25 elsewhere) a first white top
#: must be where the board round it changed all round and a whole disc edge shows: the prior
#: is ivory to paper white, and a grey board under the table's LED holes and a camera's own
#: exposure put a white top beyond it (room game 107: I3 at 6-7, before any white top).
FIRST_FIT = 0.5
#: The reason for a cell read '?' because a lamp's spot clips it (no hand over it).
GLARE = "glare"


@dataclass
class ColourModel:
    """Piece priors (learned from the game), per-cell empty offsets (from the empty board)."""

    means: dict[str, np.ndarray] = field(
        default_factory=lambda: {k: np.array(v) for k, v in DEFAULT_MEANS.items()})
    stds: dict[str, np.ndarray] = field(
        default_factory=lambda: {k: np.array(v) for k, v in DEFAULT_STDS.items()})
    #: Per cell: an empty cell's features minus the median empty cell's (prints, tints).
    empty_offset: np.ndarray = field(default_factory=lambda: np.zeros((NUM_CELLS, 3)))
    empty_std: np.ndarray = field(default_factory=lambda: np.array(EMPTY_STD))
    #: An empty cell's features minus the board between the cells (a tinted fill), once seen.
    fill_offset: np.ndarray | None = None
    #: Features of the board between the cells, once seen clearly (calibration, memory).
    board: np.ndarray | None = None
    #: The board's print around a cell (radial profiles, see ``print_match``), once seen, and
    #: its strength relative to the noise.
    print_template: np.ndarray | None = field(default=None, repr=False)
    print_strength: float = 0.0
    #: The median outline profile of the empty cells, once a frame showed many (``classify``):
    #: on a nearly full board the new pieces would be most of the frame's own examples.
    empty_profile: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: Each cell's own look when last seen empty in a still frame (``vision.cues.own_look``).
    looks: CellLooks = field(default_factory=CellLooks, repr=False, compare=False)
    #: Each cell's own colour range while empty (``vision.cues.departure``).
    departures: Departures = field(default_factory=Departures, repr=False, compare=False)
    #: The lamp's spots on the empty board (``vision.cues.spot``).
    spots: Spots = field(default_factory=Spots, repr=False, compare=False)
    #: Per cell: the last frame that judged it read a new top where the heights say empty.
    new_top: np.ndarray = field(default_factory=lambda: np.zeros(NUM_CELLS, bool), repr=False,
                                compare=False)
    thresholds: Thresholds = field(default_factory=Thresholds)
    #: When a dict, ``classify`` leaves its intermediate figures there (diagnostics).
    debug: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    _sums: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False)

    def _empty_model(self, m: Measured, board: Board, expect_empty: np.ndarray,
                     usable: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """Centre (per cell) and spread of an empty cell's features in this frame."""
        rel = m.raw - self.empty_offset
        rel = rel.copy()
        rel[:, 0] -= board.shade
        sel = expect_empty & usable
        spread = self.empty_std.copy()
        if sel.sum() >= 3:
            x = rel[sel]
            centre = median(x, axis=0)
            mad = 1.4826 * median(np.abs(x - centre), axis=0)
            spread = np.maximum(spread, mad)
            if board.seen:
                self.fill_offset = centre - board.feats
        elif board.seen and self.fill_offset is not None:
            centre = board.feats + self.fill_offset
        elif sel.any():
            centre = median(rel[sel], axis=0)  # one or two examples: better than none
        elif board.seen:
            centre = board.feats  # nothing better known: a fill like the surface around it
        else:
            return None, spread
        per_cell = centre[None, :] + self.empty_offset
        per_cell = per_cell.copy()
        per_cell[:, 0] += board.shade
        return per_cell, spread

    # -- decisions ------------------------------------------------------------------------
    def classify(self, s: CellSamples) -> tuple[str, list[float], list[str]]:
        """Labels (snapshot string), confidences 0..1 and a short reason per cell."""
        th = self.thresholds
        board = measure_board(s, th, self.board)
        m = measure(s.cells, s.valid, s.white, board.shade)
        heights = s.heights
        if board.seen and float(np.mean(board.disturbed)) < 0.1:  # a clear view: remember
            self.board = (board.feats.copy() if self.board is None
                          else 0.8 * self.board + 0.2 * board.feats)
        occupied = np.zeros(NUM_CELLS, bool) if heights is None else heights > 0
        # Mixed colours: beyond what this frame's empty cells show (prints), or a piece's.
        empty_spread = m.spread[~occupied] if heights is not None else m.spread
        spread_max = np.where(occupied, th.spread, max(
            th.spread, 2.0 * float(median(empty_spread)) + 0.03 if len(empty_spread) else 0))
        mixed = m.spread > spread_max
        usable = (m.hidden <= th.hidden) & (board.disturbed < th.disturbed) & ~mixed
        rim = np.full(NUM_CELLS, np.inf) if s.rim is None else s.rim
        if s.rim_soft is not None:  # a soft edge confirms an expected top
            rim = np.where(occupied, s.rim_soft, rim)
        tint = black_tint(self.means, m, occupied & usable & (rim >= th.rim_dark))
        means, stds = piece_models(self.means, self.stds, th.unknown, m, occupied & usable, tint)
        dp = piece_dists(m.piece, means, stds)
        gate(dp, m.piece, tint)
        nll = dp + np.array([2.0 * float(np.log(stds[k]).sum()) for k in PIECES])[None, :]
        if heights is None:
            # No position: cells that fit no piece well are the examples of "empty".
            expect_empty = usable & (dp.min(axis=1) > th.unknown)
        else:
            expect_empty = ~occupied
        empty_c, empty_s = self._empty_model(m, board, expect_empty, usable)
        de = (np.full(NUM_CELLS, np.inf) if empty_c is None
              else dist(m.raw, empty_c, empty_s))
        if heights is not None and empty_c is not None:
            de = np.minimum(de, self._plain_dist(s, m, board, ~occupied, empty_c, empty_s))
            # ... and against the empty cells round it that fit the empty board themselves
            # (a hand over a few empty cells is no example), where nothing foreign is near.
            de = np.minimum(de, np.where(~occupied & (board.disturbed == 0), local_empty_dist(
                m.raw - self.empty_offset, ~occupied & usable & (m.hidden <= 0.0)
                & (de <= th.empty), empty_s), np.inf))
        base_de = np.full(NUM_CELLS, np.inf)
        base_dp = np.zeros(NUM_CELLS)
        if empty_c is not None and s.base is not None and s.base_valid is not None:
            bm = measure(s.base, s.base_valid, s.white, board.shade)
            base_de = np.where((bm.hidden <= th.hidden) & (bm.spread <= th.spread),
                               dist(bm.raw, empty_c, empty_s), np.inf)
            # Where the stack stands, its base shows its own side wall: a piece in shade.
            shaded = np.array([0.45, 0.0, 0.0])
            bdp = np.minimum(piece_dists(bm.piece, means, stds), piece_dists(
                bm.piece, {k: v - shaded for k, v in means.items()},
                {k: v * [2.5, 1, 1] for k, v in stds.items()}))
            gate(bdp, bm.piece, tint)
            base_dp = bdp.min(axis=1)
        # Clipped tops are white pieces only where this frame's white tops are near clipping
        # (a bright lamp); elsewhere a clipped top is glare, which may hide any colour.
        white_like = occupied & usable & (np.argmin(dp, axis=1) == 0)
        wsel = white_like & (m.saturated <= th.saturated)
        # One white top the game placed, a whole disc fitting white closely, that clips a
        # quarter of itself says so too (cream tops under a 5,500 K lamp on card: camera game
        # 39's first white top clipped half its pixels and read as glare; the next, a fifth).
        glossy = white_like & (m.saturated >= 0.25) & (dp[:, 0] <= 0.25 * th.unknown) & (
            rim >= 4.0 * th.rim) & (m.spread <= th.flat) & (m.hidden <= 0.0)
        whites_clip = bool((wsel.sum() >= 2 and median(m.peak[wsel]) >= 225)
                           or (white_like & (m.saturated > th.saturated)).sum() >= 4
                           or glossy.any())
        # ... and where the light at the cell would clip a white top by itself: the cards'
        # white there (clipped itself: the light is at least that), its shade, this frame's
        # white tops relative to the cards.
        card = s.white.max(axis=1)
        lit = (card >= 248.0) | (np.exp(means["w"][0] + board.shade) * card >= 240.0)
        # A black top's edges are steps between dark surfaces: smaller in white units.
        has_rim = {k: rim >= (th.rim_dark if k == "b" else th.rim) for k in PIECES}
        no_print, (self.print_template, self.print_strength), diag = print_absent(
            s, ~occupied & usable & (de <= th.empty), self.print_template, self.print_strength, th)
        if self.debug is not None and diag is not None:
            self.debug["print"] = diag
        print_shows = (np.zeros(NUM_CELLS, bool) if s.print_missing is None
                       else np.nan_to_num(s.print_missing, nan=1.0) < 0.4)
        # An expected top that shows its whole disc (a strong edge all round, an even face of
        # a piece's colour) is seen, whatever lies over the board beside it: a hand or a
        # sleeve over the top hides that edge (four times the bar: covered tops that fit a
        # piece show at most about twice it).
        fit = np.sort(dp, axis=1)
        fit[:, 1] = np.where(np.isfinite(fit[:, 0]), fit[:, 1], np.inf)
        fit[:, 0] = np.where(np.isfinite(fit[:, 0]), fit[:, 0], 1e9)
        bars = np.where(np.argmin(dp, axis=1) == 1, th.rim_dark, th.rim)
        whole_top = (occupied & (fit[:, 0] <= 0.25 * th.unknown)
                     & (fit[:, 1] - fit[:, 0] >= th.margin) & (rim >= 4.0 * bars)
                     & (m.spread <= th.flat) & (m.saturated < 0.05) & (m.hidden <= th.hidden))
        # A black top off the tint of the frame's other black tops (a glossy one).
        dark_top = dark_tops(m.piece, piece_dists(m.piece, self.means, self.stds)[:, 1],
                             0.5 * (means["w"][0] + means["b"][0]), rim, th.rim, th.unknown,
                             occupied & (m.saturated < 0.05) & (m.spread <= th.spread)
                             & (m.hidden <= th.hidden) & (board.disturbed == 0)
                             & (board.foreign <= 1) & ~(s.covered if s.covered is not None
                                                        else np.zeros(NUM_CELLS, bool)))
        # A printed circle or hexagon is an edge around every empty cell too.
        looks = ~occupied & usable & (de <= th.empty) & np.isfinite(rim)
        print_rim = float(median(rim[looks])) if looks.sum() >= 4 else 0.0
        # Outline profiles: the frame's known single pieces of each colour (a whole disc in
        # view) and its empty cells are labelled examples of both shapes.
        profile = s.rim_profile if heights is not None else None
        kind = np.argmin(dp, axis=1)
        shape_examples = [occupied & (heights == 1) & usable & (kind == j) & has_rim[k]
                          & (m.hidden <= 0.0) if heights is not None else occupied
                          for j, k in enumerate(PIECES)]
        empty_shapes = looks & (m.hidden <= 0.0)
        if profile is not None and empty_shapes.sum() >= 12 and float(
                np.mean(board.disturbed)) < 0.1:
            self.empty_profile = median(profile[empty_shapes], axis=0)
        # Each cell against its own look when last seen empty (a new piece changes the board
        # round it), in a still frame (a lamp's spot round a cell is light: room game 149's A3).
        moved = self.looks.change(s, self.thresholds)
        glare = board.foreign <= board.lit
        still = not (s.covered is not None and bool(s.covered.any())) and not bool(
            ((board.disturbed > 0) & ~glare).any())
        # ... and the colour at its centre against the range it showed while empty (a white
        # top on cream paper changes the board's brightness round it too little), in a still
        # frame only (a hand over a marker card moves the white every colour is relative to).
        tinted = still & placing(heights) & (np.nan_to_num(
            self.looks.chroma_off(s, self.thresholds), nan=0.0) >= NEW_CHROMA)
        # A glossy top's highlight clips on every top of its colour: a new one may show as much.
        gloss = {j: max(0.05, float(percentile(m.saturated[ex], 90)) + 0.05)
                 if ex.sum() >= 2 else 0.05 for j, ex in enumerate(shape_examples)}
        # ... and its highlight makes every top of its colour as uneven (ivory tops with a
        # hollow and a lamp's spot: camera game 37's E3 at 0.06-0.08 beside its known tops).
        even = {j: max(th.flat, float(percentile(m.spread[ex], 90)) + 0.01)
                if ex.sum() >= 2 else th.flat for j, ex in enumerate(shape_examples)}
        pm, pdp, pnll = new_tops(s, m, board, occupied, means, stds, tint, dp, nll,
                                 self.thresholds, empty_c)
        # A new black top brighter than the frame's other black tops (a glossy one mirrors the
        # lamp) fits neither class by the margin; where the board round it changed since it
        # was seen empty, in a still frame of the placing phase, a dark neutral whole disc is
        # one (outside camera game 5: B2 at -1.07 between black -1.7 and white -0.1). Its
        # disc hides the print round the cell: the whole disc edge says it is no hand.
        dark_new = dark_tops(pm.piece, piece_dists(pm.piece, self.means, self.stds)[:, 1],
                             0.5 * (means["w"][0] + means["b"][0]), rim, th.rim, th.unknown,
                             ~occupied & still & placing(heights)
                             & (np.nan_to_num(moved) >= 1.0) & (pm.saturated < 0.05)
                             & (pm.spread <= th.spread) & (m.hidden <= 0.0)
                             & (board.disturbed == 0))
        labels: list[str] = []
        conf: list[float] = []
        reasons: list[str] = []
        orders = np.argsort(pnll, axis=1)
        # A first white top (none in the frame yet) whose board round it changed all round
        # and that shows a whole disc edge may fit the white prior loosely.
        loose = ((placing(heights) and not shape_examples[0].any())
                 & (np.nan_to_num(moved) >= 1.0) & (rim >= 4.0 * bars))
        # A colour that left the cell's own range far, toward a piece's, is tinted too (a
        # white top on a pale board of its brightness, nearly its tint: outside game 5's G4).
        plain_empty = ~occupied & usable & (m.hidden <= 0.0) & (board.disturbed == 0) & ~no_print
        tinted = tinted | (placing(heights) & (heights is not None) & departed(
            self.departures, m, empty_s, means, orders[:, 0], board.shade, plain_empty, still,
            s.anchor, th))
        ring = ring_clipped(s.inter, s.inter_of)  # (a piece under a lamp's spot hides it)
        spot = placing(heights) & self.spots.hidden(pm.saturated, ring)
        for c in range(NUM_CELLS):
            # Which piece: the most likely (a wide class pays for its width); whether any: the
            # chosen class must be near enough.
            order = orders[c]
            k, best = PIECES[order[0]], pdp[c, order[0]]
            second = (best + pnll[c, order[1]] - pnll[c, order[0]]
                      if np.isfinite(pnll[c, order[1]]) else np.inf)
            piece_ok = best <= th.unknown and second - best >= th.margin
            label, why = "?", ""
            if m.hidden[c] > th.hidden and not (
                    # Where the position says empty, the points of the cell in view (a third
                    # at least) that show the empty board closely are that: a piece would
                    # stand over them (seed 11 frame 14 B3, behind a tall stack).
                    not occupied[c] and heights is not None and m.hidden[c] <= 2.0 / 3.0
                    and de[c] <= 0.25 * th.empty and not no_print[c]
                    and board.disturbed[c] == 0):
                why = "hidden by a stack"
            elif board.disturbed[c] >= th.disturbed and not whole_top[c] and not (
                    # Where the position says empty, a cell that is the empty board closely
                    # is seen, whatever lies round it: a hand over it hides its print
                    # (vision.cues.hands), and one the colour of the board is caught there; a
                    # little less closely where most of its print shows all round.
                    heights is not None and not occupied[c] and (
                        de[c] <= 0.25 * th.empty or (de[c] <= 0.35 * th.empty
                                                     and print_shows[c]))
            ) and (board.foreign[c] >= 3 or not (
                    (occupied[c] and best <= 0.25 * th.unknown and second - best >= 3 * th.margin)
                    or (not occupied[c] and de[c] <= 0.25 * th.empty))):
                # Something lies over the board around the cell (a hand, a sleeve): only a
                # cell that is itself unmistakable, with two foreign neighbours at most, or an
                # expected top that shows a whole disc, reads (a lamp's spot alone: glare).
                why = GLARE if glare[c] else "something over the board here"
            elif mixed[c] and occupied[c]:
                why = "mixed colours"
            elif heights is not None and heights[c] > 0:
                # Where the base is out of sight (behind a neighbour) or crossed by print, a
                # top that is the empty board closely and no piece at all is bare too, unless
                # the base shows a piece; and one with no disc edge that is a piece far less
                # than the board, or no edge at all, whatever its base shows, and its print
                # where a taller neighbour hides some of it (room games 101: vacated B4, base
                # and print behind a tall C4, read w and '?' by turns; 109: vacated J2 on
                # white card, '?' for 20 s; not beside a hand: 136's D3 read '.' by turns).
                edgeless = (de[c] <= 0.25 * th.empty and rim[c] < 2 * bars[c] and (
                    best > de[c] + th.margin or rim[c] < 0.5 * bars[c]))
                bare = edgeless or de[c] <= 0.25 * th.empty and best > th.unknown and not (
                    base_dp[c] <= th.unknown and base_dp[c] < base_de[c])
                looks_empty = ((base_de[c] <= th.empty or bare) and de[c] <= th.empty
                               and (not no_print[c] or edgeless and m.hidden[c] > 0))
                # Where the empty board and a piece both fit well and a disc edge shows, the
                # position's prior decides: the stack is there (ivory on cream, black on felt).
                fits = piece_ok and has_rim[k][c] and (best <= 0.5 * th.unknown or (
                    # ... or where its outline is a disc's, not the print's: an edge far
                    # stronger than the empty cells show (a white top in the shade of a cream
                    # board: its colour fits the board as well as white; a lifted stack's
                    # cell shows the print's own edge).
                    looks.sum() >= 4 and rim[c] >= max(1.5 * bars[c], 3.0 * print_rim)))
                # ... unless the outline is the print's like the empty cells', not a disc's
                # like the known pieces' (white on cream: a lifted stack's cell).
                if looks_empty and (edgeless or (best > de[c] + th.margin and not fits) or (
                        fits and outline_bare(profile, c, shape_examples[order[0]],
                                              empty_shapes, self.empty_profile))):
                    label = "."  # the stack was lifted: the empty board shows
                elif m.saturated[c] > th.saturated and not (k == "w" and (
                        whites_clip or lit[c])) or board.lit[c] >= 2 and best > 0.25 * th.unknown:
                    why = GLARE  # (or in a spot's halo, a loose fit: 149's black B4 read 'w')
                elif not piece_ok and dark_top[c]:
                    label = "b"  # a glossy black top off the tint of the frame's others
                    best, second = float(dark_top[c]), float(dark_top[c]) + th.margin
                elif not piece_ok:
                    why = "unknown colour" if best > th.unknown else "ambiguous colour"
                elif (base_de[c] <= 0.25 * th.empty and base_dp[c] > base_de[c] + th.margin
                      and de[c] > th.empty and not (
                          # A glossy top (a clipped spot on a face that otherwise fits a
                          # piece closely, inside a disc edge) shows its highlight where its
                          # base is looked for, at its centre: ivory tops on white paper
                          # read 'bare' (seed 11 frame 106, six tops).
                          m.saturated[c] > 0 and best <= 0.25 * th.unknown
                          and rim[c] >= 2.0 * bars[c])):
                    why = "base of the expected stack is bare"
                elif not has_rim[k][c]:
                    why = "no disc edge: something lies over it"
                else:
                    label = k
            else:
                # A piece is a flat, evenly lit top: a glare spot or a shadow edge is not.
                # ... and its colour must be one the empty board cannot take in this frame.
                # A surprise needs more evidence than a confirmation: twice the disc edge.
                # Where the colour fits the empty board too, the edge must also stand out
                # from the print's own (a printed circle is an edge around every cell).
                edge = max(2.0 * (th.rim_dark if k == "b" else th.rim),
                           1.5 * print_rim if de[c] <= th.empty else 0.0)
                # A glossy top's highlight may clip a part of it: not glare where the rest
                # fits a piece closely, off the empty board, inside a whole disc edge (room game
                # 149: white tops on yellow laminate, 1.7-3.9 times the empty bar off it).
                sheen = (pm.saturated[c] <= 0.35 and best <= 0.25 * th.unknown
                         and de[c] >= th.empty and rim[c] >= 1.5 * edge)
                clearly = (piece_ok and rim[c] >= edge and best + th.clearly <= de[c]
                           and (pm.saturated[c] < 0.05 or sheen)
                           and pm.spread[c] <= th.flat and empty_c is not None
                           and dist(means[k], empty_c[c], empty_s) >= th.separable)
                if (not clearly and de[c] <= th.empty and profile is not None and piece_ok
                        and best <= 0.25 * th.unknown and rim[c] >= 2.0 * bars[c]
                        and pm.spread[c] <= even[order[0]]
                        and (pm.saturated[c] <= gloss[order[0]] or (
                            k == "w" and (whites_clip or lit[c])))
                        and not no_print[c] and board.disturbed[c] < th.disturbed):
                    # The colour fits the empty board too (white on paper, black on felt):
                    # the outline decides. A piece's edge, side wall and shadow look like
                    # those of the frame's known pieces of that colour, not like the print
                    # round the frame's other empty cells (a printed circle is thin and
                    # flat).
                    known = shape_examples[order[0]]
                    d_piece = d_empty = float("nan")
                    # Enough empty examples that a few new pieces among them (the heights
                    # say empty there too) cannot make the median empty outline theirs.
                    # With fewer, the empty outline kept from an earlier frame of this table.
                    if known.sum() >= 2 and (empty_shapes.sum() - empty_shapes[c]) >= 5:
                        d_piece, d_empty = profile_match(profile, c, known, empty_shapes)
                        clearly = d_empty >= max(3.0 * d_piece, 0.015)
                    elif known.sum() >= 2 and self.empty_profile is not None:
                        d_piece = float(np.mean(
                            (profile[c] - median(profile[known], axis=0)) ** 2))
                        d_empty = float(np.mean((profile[c] - self.empty_profile) ** 2))
                        clearly = d_empty >= max(3.0 * d_piece, 0.015)
                    if self.debug is not None:
                        self.debug.setdefault("outline", {})[c] = (d_piece, d_empty)
                edge_new = KEPT_EDGE if (moved[c] >= 2.0 or self.new_top[c]) else NEW_EDGE
                # (a new top once read is kept while a hand is elsewhere: players do not wait)
                if (not clearly and (still or self.new_top[c]) and (
                        moved[c] >= 1.0 or tinted[c] or (
                        moved[c] >= 0.5 and rim[c] >= max(4.0 * bars[c], 8.0 * print_rim)))
                        and piece_ok
                        and best <= (FIRST_FIT if loose[c] and k == "w" else 0.25) * th.unknown
                        and rim[c] >= edge_new * bars[c]
                        and pm.spread[c] <= even[order[0]]
                        and (pm.saturated[c] <= gloss[order[0]] or (
                            k == "w" and (whites_clip or lit[c])) or (
                            moved[c] >= 2.0 and pm.saturated[c] <= FIRST_GLOSS) or (
                            moved[c] >= 1.0 and pm.saturated[c] <= SPOT_GLOSS))
                        and not no_print[c] and board.disturbed[c] == 0):
                    # The board round the cell changed since it was last seen empty (or the
                    # colour at its centre left the range it showed then), and what stands
                    # there now is a flat top of a piece's colour with a disc's edge: a new
                    # piece (a printed circle does not change; white on paper or cream).
                    # Where most of it changed, an edge eight times the print's says so too
                    # (white on white card: camera game 22's A1 changed 5 rays of 6); where
                    # all of it changed twice over, a first top may clip a highlight.
                    clearly = True
                if de[c] <= th.empty and not clearly and no_print[c]:
                    why = "the board's print does not show: something lies over it"
                elif de[c] <= th.empty and not clearly and not tinted[c] and not spot[c]:
                    # (a new top read before, with a hand beside it now: not seen gone)
                    label = "." if not (self.new_top[c] and board.disturbed[c] > 0) else "?"
                elif pm.saturated[c] > th.saturated and not (
                        clearly and k == "w" and (whites_clip or lit[c])):
                    why = GLARE  # (a new white top under a lamp that clips white is not)
                elif clearly and moved[c] < th.look_same and not tinted[c]:
                    # Seen empty before and unchanged since, all round: no piece was put
                    # there (a board the colour of a piece, on a nearly full board).
                    label = "."
                elif clearly:
                    label = k  # a piece clearly sits where the position says empty
                elif dark_new[c] and not piece_ok:
                    label = "b"  # a glossy new black top
                    best, second = float(dark_new[c]), float(dark_new[c]) + th.margin
                elif empty_c is None and heights is not None:
                    label = "."  # no empty model at all: trust the position
                else:
                    why = "neither empty nor a piece"
            labels.append(label)
            reasons.append(why)
            if label == ".":
                conf.append(float(np.exp(-de[c] / (2 * th.empty))) if np.isfinite(de[c])
                            else 0.5)
            elif label in PIECES:
                conf.append(float(np.exp(-best / (2 * th.unknown))
                                  * (1.0 - np.exp(-(second - best) / th.margin))))
            else:
                conf.append(0.0)
        if self.debug is not None:
            self.debug.update(shape_examples=shape_examples, empty_shapes=empty_shapes,
                              print_rim=print_rim, bars=bars, whole_top=whole_top,
                              no_print=no_print, board=board, measured=m, means=means,
                              stds=stds, dp=dp, de=de, pdp=pdp, pnll=pnll,
                              base_de=base_de, base_dp=base_dp, rim=rim, empty_c=empty_c,
                              empty_s=empty_s, usable=usable, mixed=mixed, tint=tint,
                              still=still, tinted=tinted, dark_new=dark_new, pm=pm)
        if heights is not None:
            read = np.array([x in PIECES for x in labels])
            judged = read | (np.array([x == "." for x in labels]) & (board.disturbed == 0))
            self.new_top = np.where(judged, read & ~occupied, self.new_top & ~occupied)
        if heights is not None and not heights.any() and all(x == "." for x in labels):
            self._learn_empty_board(m, board, usable)
        if heights is not None and still:
            self.spots.remember(pm.saturated, ring, ~occupied & (board.disturbed == 0), th)
            self.departures.remember(m.raw, np.array([x == "." for x in labels]) & plain_empty,
                                     s.anchor)
            # The stacks as this frame shows them (a new piece it read is there already).
            shown = np.where(occupied, heights, np.array([x in PIECES for x in labels]))
            self.looks.remember(s, np.array([x == "." for x in labels]) & ~occupied
                                 & (m.hidden <= 0.0) & (board.disturbed == 0),
                                 np.nan_to_num(moved), shown, self.thresholds)
        if self.debug is not None:
            self.debug["moved"] = moved
        return "".join(labels), [round(v, 4) for v in conf], reasons

    def _plain_dist(self, s: CellSamples, m: Measured, board: Board, empty: np.ndarray,
                    empty_c: np.ndarray, empty_s: np.ndarray) -> np.ndarray:
        """Distance from the empty board of each empty cell's plain points (inf elsewhere): a
        printed line through a few of a cell's sample points is the board's print, not a mix
        (the rest of its points must be colours the frame's empty cells show)."""
        th = self.thresholds
        examples = empty & (m.hidden <= th.hidden) & (board.disturbed < th.disturbed)
        raw, _, share = plain_view(s.cells, s.valid, s.white, board.shade, examples,
                                   board.feats if board.seen else None)
        if self.debug is not None:
            self.debug["plain"] = (raw, share)
        sel = empty & (share >= th.plain_share)
        out = np.full(NUM_CELLS, np.inf)
        out[sel] = dist(raw[sel], empty_c[sel], empty_s)
        # ... and from the plain surface itself: where a print crosses most of the empty
        # cells' points (a lattice through their centres), their median colours are a mix of
        # board and ink, and a cell the print crosses less (at the board's rim) shows more
        # plain board than that mix: the plain points of the frame's other empty cells.
        ex = sel & examples & np.all(np.isfinite(raw), axis=1)
        if ex.sum() >= 6:
            rel = raw - self.empty_offset
            rel[:, 0] -= board.shade
            centre = median(rel[ex], axis=0)
            spread = np.maximum(self.empty_std,
                                1.4826 * median(np.abs(rel[ex] - centre), axis=0))
            out[sel] = np.minimum(out[sel], dist(rel[sel], centre, spread))
            if board.seen:  # the plain board between the cells, where no print runs
                out[sel] = np.minimum(out[sel], dist(rel[sel], board.feats, spread))
        return out

    def _learn_empty_board(self, m: Measured, board: Board, usable: np.ndarray) -> None:
        """The empty board (at the start of a game): 49 labelled examples of "empty" on this
        very table, each cell's own print and light relative to the others, kept."""
        rel = m.raw.copy()
        rel[:, 0] -= board.shade
        if usable.sum() < 10:
            return
        centre = median(rel[usable], axis=0)
        step = np.where(usable[:, None], 0.25 * (rel - centre - self.empty_offset), 0.0)
        self.empty_offset = self.empty_offset + step

    # -- learning -------------------------------------------------------------------------
    def learn(self, samples: CellSamples, cell: int, colour: str) -> None:
        """Refine the model from a cell known to show ``colour`` ('.', 'w', 'b' or 'r')."""
        if colour not in (".",) + PIECES:
            raise DvonnError(f"cannot learn colour {colour!r}: expected one of '.', 'w', 'b', 'r'")
        th = self.thresholds
        board = measure_board(samples, th, self.board)
        m = measure(samples.cells, samples.valid, samples.white, board.shade)
        if (m.hidden[cell] > 0.2 or m.saturated[cell] > 0.05 or m.spread[cell] > th.spread
                or board.disturbed[cell] >= th.disturbed):
            return  # not a clean example
        if colour == ".":
            return  # empty cells are learned a whole board at a time (calibrate_empty)
        x = m.piece[cell]
        acc = self._sums.setdefault(colour, [np.zeros(3), np.zeros(3), np.zeros(1)])
        acc[0] += x
        acc[1] += x * x
        acc[2] += 1.0
        n = float(acc[2][0])
        mu0, sd0 = np.array(DEFAULT_MEANS[colour]), np.array(DEFAULT_STDS[colour])
        mean = (PRIOR_WEIGHT * mu0 + acc[0]) / (PRIOR_WEIGHT + n)
        var = (PRIOR_WEIGHT * (sd0 ** 2 + mu0 ** 2) + acc[1]) / (PRIOR_WEIGHT + n) - mean ** 2
        self.means[colour] = mean
        self.stds[colour] = np.maximum(np.sqrt(np.maximum(var, 0.0)) * 1.5,
                                       np.array(MIN_STD[colour]))

    def calibrate_empty(self, views: list[CellSamples]) -> None:
        """Per-cell offsets of an empty cell from the median empty cell, from empty-board
        views (prints, tinted fills, uneven light the frame's own references miss)."""
        if not views:
            raise DvonnError("calibration needs at least one view of the empty board")
        offsets = []
        fills = []
        refs = []
        for v in views:
            board = measure_board(v, self.thresholds, self.board)
            m = measure(v.cells, v.valid, v.white, board.shade)
            rel = m.raw.copy()
            rel[:, 0] -= board.shade
            ok = (m.hidden <= 0.2) & (board.disturbed < self.thresholds.disturbed)
            if ok.sum() < 10:
                continue
            centre = median(rel[ok], axis=0)
            offsets.append(np.where(ok[:, None], rel - centre, np.nan))
            if board.seen:
                fills.append(centre - board.feats)
                refs.append(board.feats)
        if not offsets:
            raise DvonnError("calibration needs a clear view of the empty board")
        with np.errstate(all="ignore"):
            off = np.nanmedian(np.stack(offsets), axis=0)
        self.empty_offset = np.where(np.isfinite(off), off, 0.0)
        if fills:
            self.fill_offset = median(np.stack(fills), axis=0)
            self.board = median(np.stack(refs), axis=0)
