"""A game's clock in its records: the journal's clock states (controller.journal.clocks) as
the engine's plain time values (engine.gamerecord.GameTime) for ``games export``, and back
for ``games import``.

The journal keeps the clocks after each action (``idx``: the game's ply then). A record
keeps the time control (SGF ``TM``/``OT``) and, after each action, the acting side's time
left (SGF ``WL``/``BL``): the state kept at the action's ply gives it. A loss on time is the
journal's result ``white out of time`` / ``black out of time``.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.table.clock import TimeControlError, parse_control
from controller.table.timer import OUT_OF_TIME
from engine.game import Game
from engine.gamerecord import GameTime
from engine.move import Move

#: the side whose flag fell, by the journal's result
TIMEOUT = {result: side for side, result in OUT_OF_TIME.items()}


def timeout_of(result: str | None) -> str | None:
    """'w' for ``white out of time``, 'b' for ``black out of time``, else None."""
    return TIMEOUT.get(result or "")


def _seconds(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def movers(moves: Sequence[Move]) -> list[str]:
    """The side that took each action (passes counted)."""
    game = Game()
    sides = []
    for move in moves:
        sides.append(str(game.turn))
        game.push(move)
    return sides


def record_time(history: Sequence[tuple[int, dict[str, object]]],
                moves: Sequence[Move]) -> GameTime | None:
    """The time of a game from its journaled clock states (ClockStore.history): None for a
    game played without a clock (no states, or none with a readable time control)."""
    control = None
    for _ply, kept in history:
        try:
            control = parse_control(str(kept.get("control", "")))
        except TimeControlError:
            continue
        if control is not None:
            break
    if control is None:
        return None
    sides = movers(moves)
    by_ply = dict(history)
    left: list[float | None] = []
    for index, side in enumerate(sides):
        state = by_ply.get(index + 1)
        left.append(_seconds(state.get(side)) if state is not None else None)
    while left and left[-1] is None:
        left.pop()
    return GameTime(limit=control.seconds, increment=control.increment, left=tuple(left))


def clock_states(time: GameTime | None, moves: Sequence[Move]
                 ) -> list[tuple[int, dict[str, object]]]:
    """What ``games import`` keeps of a record's time: the clock states by ply (ply 0: the
    time control and the full time; then each action whose time left the record gives, the
    other side's time as last known). Nothing without a time limit (``TM``)."""
    if time is None or time.limit is None or time.limit <= 0:
        return []
    control = f"{time.limit / 60:g}+{time.increment:g}"
    try:
        if parse_control(control) is None:
            return []
    except TimeControlError:
        return []
    known = {"w": time.limit, "b": time.limit}
    states: list[tuple[int, dict[str, object]]] = [
        (0, {"control": control, "w": known["w"], "b": known["b"], "running": None})]
    for index, side in enumerate(movers(moves)):
        left = time.left_after(index)
        if left is None:
            continue
        known[side] = left
        states.append((index + 1, {"control": control, "w": known["w"], "b": known["b"],
                                   "running": None}))
    return states
