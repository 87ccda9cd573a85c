"""How people answer the table's prompts, and what a table's LEDs show of the true game.

A person answers ``choose-destination`` (the lift-and-set-back gesture on the chosen cell) on
no fixed schedule: a player who knows the table begins before the prompt shows, another a few
seconds after it; the stack is up 0.3-1.5 s; the hand leaves with the stack or lingers; the
stack comes back a few millimetres off; and some players never answer at all (the game goes
on: the next player moves). :class:`AnswerRanges` holds the ranges; :func:`habits` draws one
player's own narrower ranges for a game, and :meth:`Habit.draw` one answer's timing from them,
so no two games (and no two answers) share a rule.

:func:`true_roles` lights the cells as a controller would once it could know (the side to
act's movable stacks, a lifted stack's source and destinations, cut-off stacks to remove, the
last move) from the TRUE game: what a renderer of a lit table films.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.game import Game
from engine.move import PASS, Move

Range = tuple[float, float]


@dataclass(frozen=True)
class AnswerRanges:
    """The ranges every answer's timing is drawn from (seconds unless said)."""

    #: When the gesture begins, after the prompt shows (below 0: before it, a player who
    #: knows the table and that it will ask).
    start: Range = (-1.0, 3.0)
    reach: Range = (0.1, 0.5)  # the hand over the cell before the stack goes up
    hold: Range = (0.3, 1.5)  # the stack in the air
    linger: Range = (0.0, 1.2)  # the hand over the cell after the stack is down (0: leaves with it)
    offset_mm: float = 3.0  # the stack comes back up to this far from where it stood
    never: float = 0.15  # per player and game: never answers a prompt
    #: How long the table takes to show its prompt, as a player who knows it guesses.
    prompt_s: float = 1.0
    patience: Range = (1.0, 4.0)  # how long the mover waits for a prompt before play goes on


@dataclass(frozen=True)
class Timing:
    """One answer: when it begins (after the prompt), each phase, where the stack comes back."""

    start: float
    reach: float
    hold: float
    linger: float
    shift_mm: tuple[float, float]


@dataclass(frozen=True)
class Habit:
    """One player's ways in one game: narrower ranges inside :class:`AnswerRanges`."""

    never: bool
    start: Range
    reach: Range
    hold: Range
    linger: Range
    leaves: float  # share of answers where the hand leaves with the stack
    patience: float
    offset_mm: float

    def draw(self, rng: random.Random) -> Timing:
        linger = 0.0 if rng.random() < self.leaves else rng.uniform(*self.linger)
        r = self.offset_mm * rng.random() ** 0.5
        a = rng.uniform(0.0, 2 * math.pi)
        return Timing(rng.uniform(*self.start), rng.uniform(*self.reach),
                      rng.uniform(*self.hold), linger, (r * math.cos(a), r * math.sin(a)))


def _within(rng: random.Random, span: Range, least: float = 0.25) -> Range:
    """A sub-range of ``span`` at least ``least`` of its width."""
    lo, hi = span
    width = (hi - lo) * rng.uniform(least, 1.0)
    a = rng.uniform(lo, hi - width)
    return (a, a + width)


def habits(ranges: AnswerRanges, rng: random.Random) -> Habit:
    """One player's habits for a game, drawn from ``ranges``."""
    return Habit(never=rng.random() < ranges.never, start=_within(rng, ranges.start),
                 reach=_within(rng, ranges.reach), hold=_within(rng, ranges.hold),
                 linger=_within(rng, ranges.linger), leaves=rng.random(),
                 patience=rng.uniform(*ranges.patience), offset_mm=ranges.offset_mm)


def candidates(game: Game, move: Move) -> list[int]:
    """The destinations a camera cannot tell ``move``'s from by the tops (``game`` before the
    move): the source's legal destinations whose top already shows the mover's colour."""
    s = move.source
    if s is None or move.target is None:
        return []
    stacks = game.stacks()
    colour = stacks[s][-1]
    return sorted(m.target for m in game.legal_moves()
                  if m.source == s and m.target is not None and stacks[m.target][-1:] == colour)


def will_ask(game: Game, move: Move) -> bool:
    """Whether a table will ask ``choose-destination`` after ``move`` (as a player who knows
    it expects): more than one candidate, the destination among them."""
    cands = candidates(game, move)
    return len(cands) > 1 and move.target in cands


@dataclass
class Lit:
    """What the true table's LEDs follow beside the game: a stack in the hand, an unanswered
    prompt (source, candidates), cut-off stacks still standing."""

    held: int | None = None
    prompt: tuple[int, tuple[int, ...]] | None = None
    remove: frozenset[int] = frozenset()


def true_roles(game: Game, lit: Lit) -> tuple[tuple[int, str], ...]:
    """(cell, role) lit for the true ``game`` as a controller lights them (all dark at the
    end; roles as in controller.table.view)."""
    if game.is_over():
        return ()
    roles: dict[int, str] = {}
    last = next((m for m in reversed(game.move_stack) if m != PASS), None)
    if game.placing:
        if last is not None and last.target is not None:
            roles[last.target] = "last"
    elif lit.held is not None:
        roles[lit.held] = "source"
        for m in game.legal_moves():
            if m.source == lit.held and m.target is not None:
                roles[m.target] = "destination"
    elif lit.prompt is not None:
        roles[lit.prompt[0]] = "source"
        for c in lit.prompt[1]:
            roles[c] = "destination"
    else:
        if not lit.remove:
            for m in game.legal_moves():
                if m.source is not None:
                    roles[m.source] = "movable"
        if last is not None and last.target is not None:
            roles[last.target] = "last"
    for c in lit.remove:
        roles[c] = "remove"
    return tuple(sorted(roles.items()))


def record_actions(moves: Iterable[Move | str]) -> list[Move]:
    """A record's actions for the players to play, forced passes left out (the players pass
    when they must)."""
    out = [m if isinstance(m, Move) else Move.parse(m) for m in moves]
    return [m for m in out if m != PASS]


def lit_roles(game: Game, lit: Lit) -> Callable[[], tuple[tuple[int, str], ...]]:
    """:func:`true_roles` of the live ``game`` and ``lit``, computed once per state."""
    cache: dict[tuple[object, ...], tuple[tuple[int, str], ...]] = {}

    def roles() -> tuple[tuple[int, str], ...]:
        key = (len(game.move_stack), lit.held, lit.prompt, lit.remove)
        if key not in cache:
            cache[key] = true_roles(game, lit)
        return cache[key]

    return roles
