"""Static evaluation of DVONN positions for the search, in centipieces (100 = one piece).

Every value is from the point of view of the side to act (negamax). A finished game is
scored exactly: ``WIN`` plus 100 per piece of margin (``-WIN`` ... for a loss, 0 for a tie),
so the search prefers any win to any unfinished position and then the larger margin.

Placing phase: own pieces near the DVONN pieces (they survive), edge pieces (they can always
move), not clumped with own pieces (they can jump onto the opponent later).
Moving phase: stacks controlled, weighted by their cell's field value (how close it sits to
the DVONN pieces: safety); each stack's landing cells, weighted by their field value too (a
surrounded stack's count as well: it moves once a neighbour leaves); for a stack that can move
now, extra for landing cells on DVONN stacks and on enemy stacks. Material (pieces controlled
now) has weights MAT_EARLY/MAT_LATE but they are 0: in self-play every material term lost
(75 % for none in 16 games at 0.1 s a move); near the end the search counts exactly anyway.

The moving-phase terms were flat counts of landing cells plus a penalty for stacks the
opponent could cut off by moving their single link away, until landing cells weighted by field
value (the weighting PrimaDvonna's published evaluation uses) won 4/8 against PrimaDvonna at
equal depth 5 where the flat counts won 2.5/26 (benchmarks/RESULTS.md).
"""

from __future__ import annotations

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

# Weights (integers; field values are 64 at base, more near DVONN pieces).
W_STACK = 100  # per controlled stack, times its field value
W_MOVE = 25  # per landing cell, times its field value
W_LIFE = 20  # extra per landing cell on a DVONN stack (a stack that can move), times its value
W_ENEMY = 20  # extra per landing cell on an enemy stack (a stack that can move), times its value
SCALE = 64 * 100  # raw units per "one stack-worth" before converting to centipieces
MAT_EARLY = 0  # centipieces per piece of material while the board is full
MAT_LATE = 0  # ... and when it is empty (self-play: material terms lose to none)
POSITION = 40  # centipieces per stack-worth of position (SCALE raw units): scores read as pieces

_field_cache: dict[int, tuple[tuple[int, ...], int, int, int]] = {}
# TARGET_MASKS[cell * 11 + height]: the same as a mask.
_TARGET_MASKS: tuple[int, ...] = tuple(sum(1 << t for t in ts) for ts in _TARGETS)


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


def placing_value(game: Game) -> int:
    """Placing phase: closeness to DVONN pieces, edge share, clumping (centipieces)."""
    stacks = game._stacks
    red = game._red
    reds = list(iter_cells(red))
    white_me = game.turn == "w"
    if not reds:
        return 0
    score = [0, 0]  # white, black
    edges = [0, 0]
    for c in iter_cells(game._white | game._black):
        piece = stacks[c]
        side = 0 if piece == "w" else 1
        row = _DIST[c]
        near = 9
        total = 0
        for r in reds:
            d = row[r]
            total += d
            if d < near:
                near = d
        v = -total * 10
        if near == 1:
            v += 100
        elif near == 2:
            v += 50
        if _IS_EDGE[c]:
            edges[side] += 1
        foreign = 0
        for n in NEIGHBOURS[c]:
            if stacks[n] != piece:
                foreign += 1
        if foreign < 2:
            v -= 50 * (2 - foreign)
        score[side] += v
    if edges[1] - edges[0] > 3:
        score[0] -= 10 * (edges[1] - edges[0] - 3)
    if edges[0] - edges[1] > 3:
        score[1] -= 10 * (edges[0] - edges[1] - 3)
    value = (score[0] - score[1]) // 4
    return value if white_me else -value


def moving_value(game: Game) -> int:
    """Moving phase: stacks, landing cells, attacks, material (centipieces)."""
    return moving_value_and_over(game)[0]


def moving_value_and_over(game: Game) -> tuple[int, bool]:
    """moving_value() and whether the game is over (no stack can move: the loop sees that
    for free, which spares the search a move generation at every leaf)."""
    over = True
    occ = game._occ
    white = game._white
    black = game._black
    red = game._red
    fv = field_values(red)[0]
    tmasks = _TARGET_MASKS
    nmasks = NEIGHBOUR_MASKS
    interior = _IS_INTERIOR
    w_stack, w_move, w_life, w_enemy = W_STACK, W_MOVE, W_LIFE, W_ENEMY
    tall = MAX_MOVING_HEIGHT
    raw = 0  # white minus black, raw units
    material = 0
    c = -1
    for s in game._stacks:
        c += 1
        if not s:
            continue
        top = s[-1]
        if top == "r":
            continue
        h = len(s)
        v = w_stack * fv[c]
        if h <= tall:
            reach = tmasks[c * 11 + h] & occ
            if reach:
                enemy = black if top == "w" else white
                moves = life = hit = 0
                rest = reach
                while rest:
                    low = rest & -rest
                    t = low.bit_length() - 1
                    rest ^= low
                    value_t = fv[t]
                    moves += value_t
                    if red & low:
                        life += value_t
                    if enemy & low:
                        hit += value_t
                v += w_move * moves
                nm = nmasks[c]
                if occ & nm != nm or not interior[c]:  # it can move now
                    over = False
                    v += w_life * life + w_enemy * hit
        if top == "w":
            raw += v
            material += h
        else:
            raw -= v
            material -= h
    if MAT_EARLY or MAT_LATE:
        # Material counts MAT_EARLY per piece early, up to MAT_LATE when most stacks are gone.
        empty = NUM_CELLS - occ.bit_count()
        raw_material = material * (MAT_EARLY + ((MAT_LATE - MAT_EARLY) * empty) // NUM_CELLS)
    else:
        raw_material = 0
    value = (raw * POSITION) // SCALE + raw_material
    return (value if game.turn == "w" else -value), over
