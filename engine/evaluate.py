"""Static evaluation of DVONN positions for the search, in centipieces (100 = one piece).

Every value is from the point of view of the side to act (negamax). A finished game is
scored exactly: ``WIN`` plus 100 per piece of margin (``-WIN`` ... for a loss, 0 for a tie),
so the search prefers any win to any unfinished position and then the larger margin.

Placing phase: own pieces near the DVONN pieces (they survive), edge pieces (they can always
move), not clumped with own pieces (they can jump onto the opponent later).
Moving phase: stacks controlled (weighted by how close they sit to a DVONN piece: safety),
mobility (reach of each movable stack), moves onto DVONN stacks and onto enemy stacks, stacks
that the opponent can cut off by moving their single link away. Material (pieces controlled
now) has weights MAT_EARLY/MAT_LATE but they are 0: in self-play every material term lost
(75 % for none in 16 games at 0.1 s a move); near the end the search counts exactly anyway.
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
W_STACK = 100  # per controlled stack, times field value / 64
W_MOVE = 22  # per reachable landing cell, times field value / 64
W_LIFE = 18  # per move onto a stack holding a DVONN piece
W_ENEMY = 22  # per move onto an enemy stack
W_CUT = 40  # per piece in a stack the opponent can cut off (its one link is theirs to move)
SCALE = 64 * 100  # raw units per "one stack-worth" before converting to centipieces
MAT_EARLY = 0  # centipieces per piece of material while the board is full
MAT_LATE = 0  # ... and when it is empty (self-play: material terms lose to none)
POSITION = 40  # centipieces per stack-worth of position (SCALE raw units): scores read as pieces
W_REACH = W_MOVE * 64
W_REACH_LIFE = W_MOVE * 64 + W_LIFE * 128
W_REACH_NEAR = W_MOVE * 16
W_HIT = W_ENEMY * 64

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
    """Moving phase: stacks, mobility, attacks, cut-off threats, material (centipieces)."""
    return moving_value_and_over(game)[0]


def moving_value_and_over(game: Game) -> tuple[int, bool]:
    """moving_value() and whether the game is over (no stack can move: the loop sees that
    for free, which spares the search a move generation at every leaf)."""
    over = True
    occ = game._occ
    white = game._white
    black = game._black
    red = game._red
    fv, ring1, _, _ = field_values(red)
    tmasks = _TARGET_MASKS
    nmasks = NEIGHBOUR_MASKS
    interior = _IS_INTERIOR
    w_stack, w_reach, w_life, w_near, w_hit = (W_STACK, W_REACH, W_REACH_LIFE, W_REACH_NEAR,
                                               W_HIT)
    w_cut = W_CUT * 64
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
        enemy = black if top == "w" else white
        v = w_stack * fv[c]
        nm = nmasks[c]
        links = occ & nm
        if h <= tall and (links != nm or not interior[c]):
            reach = tmasks[c * 11 + h] & occ
            if reach:
                over = False
                # Landing cells weighted like the field values (64 base, more near life),
                # landing on a DVONN stack and on an enemy stack weigh extra.
                v += (w_reach * reach.bit_count() + w_life * (reach & red).bit_count()
                      + w_near * (reach & ring1).bit_count()
                      + w_hit * (reach & enemy).bit_count())
        # One link, held by the opponent, and no DVONN piece here: they can cut this stack off
        # by moving that link away.
        if links & enemy and not links & (links - 1) and not (red >> c) & 1:
            v -= w_cut * h
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
