"""The sessions benchmark reports apart a game that is exact but for an order no sensor can
observe (controller.sim.scoring.unseen_order); it is never counted as exact, and a reading
that tells the orders apart, or a different position, makes it a plain difference."""

from __future__ import annotations

from table_helpers import PLACEMENT

from controller.sim.scoring import unseen_order
from engine.game import Game
from hardware.events import SnapshotEvent

EMPTY = "." * 49


def _reading(t: float, moves: list[str]) -> SnapshotEvent:
    return SnapshotEvent(t, Game.from_moves(moves).snapshot(False))


def test_red_pieces_placed_in_one_blackout() -> None:
    """Hall: the first two red pieces placed while nothing was read, the third seen: the
    same position either way, no reading in between. Seen one at a time, the order is
    observable, and the other order is a difference."""
    truth = PLACEMENT[:5]
    swapped = [truth[1], truth[0], *truth[2:]]
    dark = [SnapshotEvent(0.0, EMPTY), _reading(5.0, truth[:2]), _reading(6.0, truth[:3]),
            _reading(7.0, truth)]
    assert unseen_order(swapped, truth, dark)
    assert not unseen_order(truth, truth, dark)  # exact is exact, not this
    seen = [*dark[:1], _reading(2.0, truth[:1]), *dark[1:]]
    assert not unseen_order(swapped, truth, seen)


def test_a_different_position_or_a_different_action_is_a_difference() -> None:
    truth = PLACEMENT[:5]
    events = [SnapshotEvent(0.0, EMPTY), _reading(5.0, truth)]
    other = [truth[0], PLACEMENT[6], *truth[2:]]  # another cell: another position
    assert not unseen_order(other, truth, events)
    assert not unseen_order(truth[:4], truth, events)  # a line missing
    # the third red piece and the first white one swapped: another position
    mixed = [truth[0], truth[1], truth[3], truth[2], truth[4]]
    assert not unseen_order(mixed, truth, events)
