"""perft: count the leaves of the game tree to a depth (a pass is a move; a finished game is
a leaf). The standard correctness and speed check for move generation."""

from __future__ import annotations

from engine.game import Game


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
