"""perft: count the leaves of the game tree to a depth (a pass is a move; a finished game is
a leaf). The standard correctness and speed check for move generation."""

from __future__ import annotations

from engine.game import Game

#: No game lasts longer: 49 placements, at most 48 moves (each leaves one stack fewer) and a
#: pass before each move and at the end (two passes in a row end the game).
MAX_PLIES = 49 + 48 + 49


def perft(game: Game, depth: int) -> int:
    """Leaves ``depth`` actions below ``game`` (a game that ends earlier is one leaf)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    moves = game.legal_moves()
    if not moves:
        return 1
    if depth == 1:
        return len(moves)
    total = 0
    push, pop = game.push_unchecked, game.pop
    for m in moves:
        push(m)
        total += perft(game, depth - 1)
        pop()
    return total


def divide(game: Game, depth: int) -> dict[str, int]:
    """perft split by first action, for comparing with another engine."""
    out = {}
    for m in game.legal_moves():
        game.push_unchecked(m)
        out[str(m)] = perft(game, depth - 1)
        game.pop()
    return out


def estimate_tree(game: Game, depth: int, probes: int = 64, seed: int = 1) -> list[float]:
    """Estimated number of positions at each depth 0..min(``depth``, MAX_PLIES) below
    ``game`` (deeper levels are the same: every game is over by then) by Knuth's
    estimator (the mean over random paths of the product of branching factors), so a caller
    can tell how long a perft would take before starting it. Deterministic for a seed;
    unbiased, though rough on very uneven trees. Cost: ``probes`` random games at most."""
    import random

    rng = random.Random(seed)
    depth = min(depth, MAX_PLIES)  # deeper levels hold the same finished games
    total = [0.0] * (depth + 1)
    for _ in range(probes):
        weight = 1.0
        pushed = 0
        total[0] += 1.0
        for level in range(1, depth + 1):
            moves = game.legal_moves()
            if not moves:  # a finished game is one leaf at every depth below it
                for rest in range(level, depth + 1):
                    total[rest] += weight
                break
            weight *= len(moves)
            total[level] += weight
            game.push_unchecked(moves[rng.randrange(len(moves))])
            pushed += 1
        for _ in range(pushed):
            game.pop()
    return [t / probes for t in total]
