"""Static evaluation of DVONN positions for the search, in centipieces (100 = one piece).

Every value is from the point of view of the side to act (negamax). A finished game is
scored exactly: ``WIN`` plus 100 per piece of margin (``-WIN`` ... for a loss, 0 for a tie),
so the search prefers any win to any unfinished position and then the larger margin.

The value is a weighted sum of features (MOVING_FEATURES, PLACING_FEATURES: counts a DVONN
player would name, white minus black), the weights interpolated between two stages of each
phase: the moving phase from a full board to an empty one (by the stacks left), the placing
phase from the first ply to the last. The weights live in engine/evalweights.py, written by
benchmarks/learn.py (self-play positions labelled by a deeper search and the result, fitted by
logistic regression); ``HAND`` holds issue 25's hand-set evaluation as weights of the same
features (``DVONN_EVAL=hand`` selects it, e.g. for a match of the two). The compiled core
(engine/_dvonneval.h) computes the same features and gets the weights through accel.init().

Issue 25's hand-set evaluation: placing, own pieces near the DVONN pieces, on the edge, not
clumped; moving, stacks weighted by their cell's field value (closeness to DVONN pieces:
safety), landing cells weighted by their field value, for a stack that can move now extra for
landings on DVONN and enemy stacks (PrimaDvonna's published weighting; it won 4/8 against
PrimaDvonna at equal depth 5 where flat counts won 2.5/26, benchmarks/RESULTS.md).
"""

from __future__ import annotations

import os

from engine import evalweights as _w
from engine.game import MAX_MOVING_HEIGHT, PLACEMENTS, Game
from engine.geometry import (
    EDGE_MASK,
    INTERIOR_MASK,
    NEIGHBOUR_MASKS,
    NEIGHBOURS,
    NUM_CELLS,
    RAYS,
    distance,
    iter_cells,
)

#: Value of a won game before the margin is added (well above any heuristic value).
WIN = 1_000_000

# TARGETS[cell * 11 + height]: cells exactly `height` away in a straight line.
_TARGETS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ray[h - 1] for ray in RAYS[cell] if 0 < h <= len(ray))
    for cell in range(NUM_CELLS)
    for h in range(11)
)
_DIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(distance(a, b) for b in range(NUM_CELLS)) for a in range(NUM_CELLS)
)
_IS_EDGE = tuple(bool((EDGE_MASK >> c) & 1) for c in range(NUM_CELLS))
_IS_INTERIOR = tuple(bool((INTERIOR_MASK >> c) & 1) for c in range(NUM_CELLS))

# The hand-set weights of issue 25 (PrimaDvonna's, for the moving phase): W_STACK per stack,
# W_MOVE per landing cell, W_LIFE / W_ENEMY extra per DVONN / enemy landing of a stack that can
# move, each times a field value; POSITION centipieces per SCALE raw units. HAND below holds
# them (and the placing heuristic's) as feature weights: the baseline ``DVONN_EVAL=hand``.
W_STACK, W_MOVE, W_LIFE, W_ENEMY = 100, 25, 20, 20
SCALE = 64 * 100
POSITION = 40

#: The moving phase's features, white minus black (stacks with a DVONN-only top count for
#: nobody). "Can move" = it has a landing cell and is not walled in.
MOVING_FEATURES = (
    "stack",     # per stack: its cell's field value (64 + more near DVONN pieces)
    "move",      # landing cells (occupied, exactly its height away), times their field value
    "life",      # of a stack that can move now: landings on a DVONN stack, times field value
    "enemy",     # ... landings on an enemy stack, times field value
    "height",    # 64 per piece controlled (material)
    "mobile",    # 64 per stack that can move now
    "capture",   # of a stack that can move now: 64 per piece of the enemy stacks it can cover
    "locked",    # 64 per piece of a stack that has no landing cell (or is over 10 high)
    "dangling",  # 64 per piece of a stack without DVONN piece with one occupied neighbour
    "dvonn",     # 64 per controlled stack holding a DVONN piece
    "tempo",     # 64 for the side to act
)
#: The placing phase's features (per placed piece, white minus black).
PLACING_FEATURES = (
    "distance",  # sum of its distances to the DVONN pieces
    "near1",     # 1 when a DVONN piece is next to it
    "near2",     # 1 when the nearest DVONN piece is 2 away
    "clump",     # 2 - neighbours not of its colour (empty, DVONN, other), when that is > 0
    "edgepen",   # edge pieces behind the opponent's by more than 3: how many more
    "edge",      # 1 on an edge cell (it can move from the start)
    "field",     # its cell's field value once the moves start
    "own",       # neighbours of its colour
    "empty",     # empty neighbours (cells still to be placed around it)
    "dvonnadj",  # DVONN pieces next to it
    "tempo",     # 1 for the side to act
)
NM = len(MOVING_FEATURES)
NP = len(PLACING_FEATURES)
_H = W_STACK * POSITION, W_MOVE * POSITION, W_LIFE * POSITION, W_ENEMY * POSITION
#: (MOVING_DEN, MOVING_FULL, MOVING_EMPTY, PLACING_DEN, PLACING_EARLY, PLACING_LATE)
Weights = tuple[int, tuple[int, ...], tuple[int, ...], int, tuple[int, ...], tuple[int, ...]]
HAND: Weights = (SCALE, _H + (0,) * (NM - 4), _H + (0,) * (NM - 4),
                 4, (-10, 100, 50, -50, -10) + (0,) * (NP - 5),
                 (-10, 100, 50, -50, -10) + (0,) * (NP - 5))
LEARNED: Weights = (_w.MOVING_DEN, _w.MOVING_FULL, _w.MOVING_EMPTY, _w.PLACING_DEN,
                    _w.PLACING_EARLY, _w.PLACING_LATE)
#: The weights in use (``use(HAND)`` or ``DVONN_EVAL=hand`` for the baseline; accel.init()
#: passes them to the compiled core).
WEIGHTS: Weights = HAND if os.environ.get("DVONN_EVAL", "").strip().lower() == "hand" else LEARNED


def use(weights: Weights) -> None:
    """Evaluate with ``weights`` from now on (call accel.init() for the compiled core too)."""
    global WEIGHTS
    den_m, full, empty, den_p, early, late = weights
    if (den_m <= 0 or den_p <= 0 or {len(full), len(empty)} != {NM}
            or {len(early), len(late)} != {NP}):
        raise ValueError(f"weights need {NM} moving and {NP} placing ints and DEN > 0: "
                         f"{weights!r}")
    WEIGHTS = weights


_field_cache: dict[int, tuple[tuple[int, ...], int, int, int]] = {}
# TARGET_MASKS[cell * 11 + height]: the same as a mask.
_TARGET_MASKS: tuple[int, ...] = tuple(sum(1 << t for t in ts) for ts in _TARGETS)


def flat_weights(weights: Weights | None = None) -> tuple[int, ...]:
    """``weights`` (default: WEIGHTS) as one tuple, in the order the compiled core reads."""
    den_m, full, empty, den_p, early, late = weights or WEIGHTS
    return (den_m, *full, *empty, den_p, *early, *late)


def field_values(red: int) -> tuple[tuple[int, ...], int, int, int]:
    """Value of each cell given the DVONN stacks ``red`` (64 plus 64, 16, 4, 1 for each DVONN
    piece at distance 0, 1, 2, 3: closer to life is safer), and the masks of the cells at
    distance 1, 2 and 3 of the nearest DVONN piece (for counting landing cells by mask)."""
    cached = _field_cache.get(red)
    if cached is not None:
        return cached
    reds = list(iter_cells(red))
    out = []
    rings = [0, 0, 0, 0, 0]
    for c in range(NUM_CELLS):
        v = 64
        row = _DIST[c]
        near = 4
        for r in reds:
            d = row[r]
            if d < 4:
                v += 64 >> (2 * d)
            near = min(near, d)
        rings[near] |= 1 << c
        out.append(v)
    result = (tuple(out), rings[1], rings[2], rings[3])
    if len(_field_cache) > 4096:
        _field_cache.clear()
    _field_cache[red] = result
    return result


def terminal_value(game: Game) -> int:
    """Exact value of a finished game for the side to act."""
    w, b = game.score()
    diff = w - b if game.turn == "w" else b - w
    if diff > 0:
        return WIN + 100 * diff
    if diff < 0:
        return -WIN + 100 * diff
    return 0


def evaluate(game: Game) -> int:
    """Heuristic value for the side to act (the game must not be over)."""
    if game._ply < PLACEMENTS:
        return placing_value(game)
    return moving_value(game)


def placing_features(game: Game) -> list[int]:
    """PLACING_FEATURES of ``game`` (placing phase), white minus black."""
    stacks = game._stacks
    red = game._red
    reds = list(iter_cells(red))
    f = [0] * NP
    if not reds:
        return f
    fv = field_values(red)[0]
    edges = [0, 0]
    for c in iter_cells(game._white | game._black):
        piece = stacks[c]
        sign = 1 if piece == "w" else -1
        row = _DIST[c]
        near = 9
        total = 0
        for r in reds:
            d = row[r]
            total += d
            if d < near:
                near = d
        foreign = own = empty = dvonn = 0
        for n in NEIGHBOURS[c]:
            other = stacks[n]
            if other == piece:
                own += 1
            else:
                foreign += 1
                if not other:
                    empty += 1
                elif other == "r":
                    dvonn += 1
        f[0] += sign * total
        if near == 1:
            f[1] += sign
        elif near == 2:
            f[2] += sign
        if foreign < 2:
            f[3] += sign * (2 - foreign)
        if _IS_EDGE[c]:
            edges[0 if sign > 0 else 1] += 1
            f[5] += sign
        f[6] += sign * fv[c]
        f[7] += sign * own
        f[8] += sign * empty
        f[9] += sign * dvonn
    f[4] = max(0, edges[1] - edges[0] - 3) - max(0, edges[0] - edges[1] - 3)
    f[10] = 1 if game.turn == "w" else -1
    return f


def placing_value(game: Game) -> int:
    """Placing phase: PLACING_FEATURES times their weights at this ply (centipieces)."""
    if not game._red:
        return 0
    f = placing_features(game)
    _, _, _, den, early, late = WEIGHTS
    t = game._ply
    u = NUM_CELLS - t
    raw = 0
    for k in range(NP):
        if f[k]:
            raw += f[k] * (late[k] * t + early[k] * u)
    value = raw // (den * NUM_CELLS)
    return value if game.turn == "w" else -value


def moving_value(game: Game) -> int:
    """Moving phase: MOVING_FEATURES times their weights at this many stacks (centipieces)."""
    return moving_value_and_over(game)[0]


def moving_features(game: Game) -> tuple[list[int], bool]:
    """MOVING_FEATURES of ``game`` (moving phase), white minus black, and whether the game is
    over (no stack can move: the loop sees that for free, which spares the search a move
    generation at every leaf)."""
    over = True
    occ = game._occ
    white = game._white
    black = game._black
    red = game._red
    fv = field_values(red)[0]
    tmasks = _TARGET_MASKS
    nmasks = NEIGHBOUR_MASKS
    interior = _IS_INTERIOR
    stacks = game._stacks
    tall = MAX_MOVING_HEIGHT
    stack = move = life = hit = height = mobile = capture = locked = dangling = dvonn = 0
    c = -1
    for s in stacks:
        c += 1
        if not s:
            continue
        top = s[-1]
        if top == "r":
            continue
        sign = 1 if top == "w" else -1
        h = len(s)
        stack += sign * fv[c]
        height += sign * h
        bit = 1 << c
        nm = nmasks[c]
        if red & bit:
            dvonn += sign
        elif (occ & nm).bit_count() == 1:
            dangling += sign * h
        reach = tmasks[c * 11 + h] & occ if h <= tall else 0
        if not reach:
            locked += sign * h
            continue
        enemy = black if top == "w" else white
        moves = 0
        rest = reach
        while rest:
            low = rest & -rest
            moves += fv[low.bit_length() - 1]
            rest ^= low
        move += sign * moves
        if occ & nm != nm or not interior[c]:  # it can move now
            over = False
            mobile += sign
            rest = reach & (red | enemy)
            while rest:
                low = rest & -rest
                t = low.bit_length() - 1
                rest ^= low
                if red & low:
                    life += sign * fv[t]
                if enemy & low:
                    hit += sign * fv[t]
                    capture += sign * len(stacks[t])
    tempo = 64 if game.turn == "w" else -64
    return [stack, move, life, hit, 64 * height, 64 * mobile, 64 * capture, 64 * locked,
            64 * dangling, 64 * dvonn, tempo], over


def moving_value_and_over(game: Game) -> tuple[int, bool]:
    """moving_value() and whether the game is over (see moving_features)."""
    f, over = moving_features(game)
    den, full, empty, _, _, _ = WEIGHTS
    t = game._occ.bit_count()
    u = NUM_CELLS - t
    raw = 0
    for k in range(NM):
        if f[k]:
            raw += f[k] * (full[k] * t + empty[k] * u)
    value = raw // (den * NUM_CELLS)
    return (value if game.turn == "w" else -value), over
