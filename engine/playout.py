"""Random and simple players, used by benchmarks, tests and the simulated table."""

from __future__ import annotations

import random

from engine.game import Game
from engine.move import Move


def random_move(game: Game, rng: random.Random) -> Move | None:
    """A uniformly random legal action, or None when the game is over."""
    moves = game.legal_moves()
    return rng.choice(moves) if moves else None


def greedy_move(game: Game, rng: random.Random) -> Move | None:
    """The action that leaves the mover the best score margin (random among equals)."""
    moves = game.legal_moves()
    if not moves:
        return None
    if game.placing or len(moves) == 1:
        return rng.choice(moves)
    side_white = game.turn == "w"
    best: list[Move] = []
    best_value = -10**9
    for m in moves:
        game.push_unchecked(m)
        w, b = game.score()
        game.pop()
        value = w - b if side_white else b - w
        if value > best_value:
            best, best_value = [m], value
        elif value == best_value:
            best.append(m)
    return rng.choice(best)


def random_game(rng: random.Random, max_plies: int = 1000) -> Game:
    """Play uniformly random actions from the empty board until the game is over."""
    game = Game()
    for _ in range(max_plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.push_unchecked(rng.choice(moves))
    return game
