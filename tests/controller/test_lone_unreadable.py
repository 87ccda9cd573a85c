"""In the moving phase an empty cell read '?' now and then with nothing beside it read so is a
misread, not a hand: it does not hold a commit next to it (room game 110: the empty C2,
beside F4D2's landing D2, read '?' by turns for seconds with no hand near; the move was read
at once and held, the players went on, and the table stalled). Two cells side by side read
'?' are a hand, and still hold it; so does a stack read '?' alone (room game 136: J3, where
I2's stack landed, read '?' beside the hand over I1 and I2, and I2I3 was committed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import room_log

from controller.sim.scoring import replay_events
from engine.geometry import parse_cell

DATA = Path(__file__).parent / "data" / "catchup"
#: Room game 110 (`benchmarks/camera_games.py --room --first 110`, from its `--dump`): the
#: position after E1D1, the actions after it, and the camera's readings from there (the last
#: two, H5H4's prompt never answered, told by the stacks seen set down: controller.table.setdown).
LOG = DATA / "lone_unreadable.jsonl"
#: Room game 136 likewise: the position after B2A1.
STACK = DATA / "lone_stack.jsonl"


def _with_hand(cells: str) -> str:
    """The reading with B2 read '?' too wherever C2 is (a hand over both)."""
    c2, b2 = parse_cell("C2"), parse_cell("B2")
    return cells[:b2] + "?" + cells[b2 + 1:] if cells[c2] == "?" else cells


@pytest.mark.parametrize("hand", [False, True], ids=["lone", "beside another"])
def test_a_lone_flickering_unreadable_cell_does_not_hold_the_move_next_to_it(
        hand: bool) -> None:
    game, then, events = room_log(LOG, _with_hand if hand else None)
    c2 = parse_cell("C2")
    assert sum(e.cells[c2] == "?" for e in events) > len(events) // 3
    out = replay_events(events, game=game)
    assert out.lines[game.ply:] == ([] if hand else then)


def test_a_stack_read_unknown_alone_beside_a_hidden_source_still_holds_the_move() -> None:
    game, then, events = room_log(STACK)
    assert any(e.cells[parse_cell("J3")] == "?" for e in events)
    out = replay_events(events, game=game)
    assert out.lines[game.ply:] == then
