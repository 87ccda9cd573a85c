"""The prompted stack lifted and set back (controller.table.gesture)."""

from __future__ import annotations

from controller.table.gesture import raised

INF = float("inf")


def test_a_prompted_cell_read_empty_is_up_unless_it_was_empty_as_the_prompt_began() -> None:
    since = [INF] * 49
    since[3] = since[5] = 1.0
    assert raised(0b101000, 0b101000, 0, since) == 0b101000  # (both lifted at 1.0)
    assert raised(0b101000, 0b101000, 1 << 5, since) == 1 << 3
    assert raised(0b101000, 1 << 9, 0, since) == 0  # (read empty, but not prompted)


def test_of_several_the_one_lifted_last_is_up() -> None:
    since = [INF] * 49
    since[3], since[5] = 1.0, 2.5
    assert raised(0b101000, 0b101000, 0, since) == 1 << 5


def test_a_cell_empty_only_between_unreadable_readings_is_not_up() -> None:
    """Room game 136: D3, standing beside the hand answering on D2, read empty one frame in
    two (a camera's ``patchy`` cells)."""
    since = [INF] * 49
    since[3], since[5] = 1.0, 2.5
    assert raised(0b101000, 0b101000, 0, since, patchy=1 << 5) == 1 << 3
