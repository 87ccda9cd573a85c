"""A stack taller than the position says: the top is looked for higher up.

In play the controller gives the heights it has committed. A stack moved onto another one
makes the destination taller before the move is committed, and seen at a tilt its top is
then off where the heights put it by the parallax of the extra pieces: the samples there mix
the top with its side wall and the board ("mixed colours", '?'). The controller waits for the
destination's colour and the reader waits for the controller's heights. So a cell the heights
call occupied that reads mixed is sampled again one to four pieces higher; where one height
shows a flat top that fits one piece colour far better than the others, inside a disc edge,
the cell reads that colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from engine.geometry import NEIGHBOURS, NUM_CELLS
from vision.cues.colour_dist import PIECES, gate, piece_dists
from vision.sampling import CellSamples, Thresholds, measure, measure_board

MIXED = "mixed colours"
#: How many pieces higher the top is looked for (a DVONN move carries at most a few).
MAX_EXTRA = 4
#: The share of a top that may clip where its disc edge is strong (a glossy top's highlight).
SHEEN = 0.35
#: A colour the board itself fits this closely (squared standard scores, as ``piece_dists``)
#: is not read higher up: a vacated cell sampled there shows the board beyond it (room game
#: 132: dark felt, 0.1 from black, read as a black top three or four pieces up at C2 and I3,
#: stacks the controller had not yet seen go; grey felt under white tops: 2.6).
BOARD_LIKE = 1.0


class PieceModel(Protocol):
    """What this read takes of the colour model (``vision.classify.ColourModel``), which
    sits above the cues."""

    thresholds: Thresholds
    board: np.ndarray | None
    means: dict[str, np.ndarray]
    stds: dict[str, np.ndarray]


def read_taller(sample: Callable[[Sequence[int]], CellSamples], model: PieceModel,
                heights: Sequence[int], labels: str, conf: list[float], reasons: list[str],
                covered: np.ndarray) -> tuple[str, list[float], list[str]]:
    """``labels`` with the occupied cells read '?' for mixed colours read at a greater height
    where one fits clearly (``sample(heights)`` samples the frame at other heights)."""
    pending = [c for c in range(NUM_CELLS) if heights[c] > 0 and labels[c] == "?"
               and reasons[c] == MIXED and not covered[c]
               and not any(covered[n] for n in NEIGHBOURS[c])]
    if not pending:
        return labels, conf, reasons
    th = model.thresholds
    out, conf, reasons = list(labels), list(conf), list(reasons)
    for extra in range(1, MAX_EXTRA + 1):
        if not pending:
            break
        taller = list(heights)
        for c in pending:
            taller[c] += extra
        s = sample(taller)
        board = measure_board(s, th, model.board)
        m = measure(s.cells, s.valid, s.white, board.shade)
        d = piece_dists(m.piece, model.means, model.stds)
        gate(d, m.piece)
        rim = np.full(NUM_CELLS, np.inf) if s.rim is None else s.rim
        board_like = piece_dists(board.feats[None, :], model.means, model.stds)[0] <= BOARD_LIKE
        for c in list(pending):
            order = np.argsort(d[c])
            best, second = float(d[c, order[0]]), float(d[c, order[1]])
            k = PIECES[int(order[0])]
            bar = th.rim_dark if k == "b" else th.rim
            # a glossy top's highlight may clip a part of it, as the reader allows a new
            # top: inside a disc edge half as strong again (room game 135: J3, two white
            # pieces up on a black one, 0.11-0.21 clipped under a 3,300 K lamp)
            sheen = m.saturated[c] <= SHEEN and rim[c] >= 3.0 * bar
            if (m.hidden[c] <= 0.0 and m.spread[c] <= th.flat and not board_like[order[0]]
                    and (m.saturated[c] < 0.05 or sheen)
                    and best <= 0.25 * th.unknown and second - best >= 2.0 * th.margin
                    and rim[c] >= 2.0 * bar):
                out[c] = k
                conf[c] = float(np.exp(-best / (2 * th.unknown)))
                reasons[c] = f"a stack {extra} higher than the position says"
                pending.remove(c)
    return "".join(out), conf, reasons
