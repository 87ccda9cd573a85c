"""A prompted stack seen grown tells where the unanswered action landed after the players have
played on, where every explanation with that one cell grown has the action land there (room
game 135: H5's piece onto G5, never answered, H4G3 and G4's move after it)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from table_helpers import room_log

from controller.sim.scoring import replay_events
from controller.table.camera import STEADY, CameraEvidence
from controller.table.catchup import Hypothesis
from controller.table.growth import heights_along, told_by_growth
from engine.geometry import mask_of, parse_cell
from engine.move import Move
from hardware.events import SnapshotEvent

#: Room game 135 (`benchmarks/camera_games.py --room --first 135`, from its `--dump`): the
#: position after K3K4, the actions after it, and the camera's readings from there, with
#: the stacks it saw moved (``touched``) and the prompted cell it saw grown (``grown``). The
#: last three actions, their prompts never answered either, were once left open; the stacks
#: seen set down tell them (controller.table.setdown).
LOG = Path(__file__).parent / "data" / "catchup" / "grown_played_on.jsonl"
#: Room game 112 likewise: the position after E1E4, and the readings to the end.
STEADY_LOG = Path(__file__).parent / "data" / "catchup" / "grown_steady.jsonl"
#: Room game 115 likewise: the position after B3C3, and the readings to the end (C2 and B1,
#: vacated on a salmon-filled print, read red).
RED_LOG = Path(__file__).parent / "data" / "catchup" / "vacated_read_red.jsonl"


def _h(*moves: str, lifted: str | None = None) -> Hypothesis:
    return Hypothesis(0, tuple(Move.parse(m) for m in moves),
                      None if lifted is None else parse_cell(lifted), (0, 0, 0, 0), True)


def _heights(**cells: int) -> list[int]:
    out = [1] * 49
    for name, h in cells.items():
        out[parse_cell(name)] = h
    return out


CHOICE = mask_of(parse_cell(c) for c in ("G4", "G5", "I5"))  # H5's one piece may land on


def test_heights_along_move_each_stack_and_leave_the_lifted_one_out() -> None:
    heights = _heights(H5=1, G5=2, H4=3)
    after = heights_along(heights, _h("H5G5", lifted="H4"))
    assert (after[parse_cell("H5")], after[parse_cell("G5")], after[parse_cell("H4")]) == (0, 3, 0)


def test_a_grown_cell_tells_where_later_moves_keep_off_the_prompted_cells() -> None:
    heights = _heights(H5=1, G5=2)
    options = [_h(f"H5{c}", "H4G3") for c in ("G4", "G5", "I5")]
    assert told_by_growth(heights, options, CHOICE, 1) == CHOICE


def test_a_cell_a_later_move_grew_tells_nothing_where_that_move_alone_grew_it() -> None:
    g4, g5, i5 = (mask_of([parse_cell(c)]) for c in ("G4", "G5", "I5"))
    heights = _heights(H5=1, G5=2, G4=1)
    # where H5's piece landed on G4 and G4's stack then left, no cell shows it grown
    options = [_h("H5G5", "H4G3"), _h("H5I5", "H4G3"), _h("H5G4", "G4F4")]
    assert told_by_growth(heights, options, CHOICE, 1) == g5 | i5
    options.append(_h("H5I5", "G4G5"))  # G5 grown by G4's stack, the landing I5
    assert told_by_growth(heights, options, CHOICE, 1) == i5


def test_nothing_is_told_without_options_or_with_a_take_back() -> None:
    heights = _heights(H5=1)
    assert told_by_growth(heights, [], CHOICE, 1) == 0
    taken = dataclasses.replace(_h("H5G5"), back=1)
    assert told_by_growth(heights, [taken], CHOICE, 1) == 0


def _replay(log: Path) -> tuple[list[str], list[str]]:
    """The actions the table gives from a room game's readings, and the ones it must."""
    game, then, events = room_log(log)
    assert any(isinstance(e, SnapshotEvent) and e.grown for e in events)
    out = replay_events(events, game=game)
    return out.lines[game.ply:], then


def test_the_camera_seeing_the_landing_grown_follows_players_who_played_on() -> None:
    got, want = _replay(LOG)
    assert got == want


def test_a_landing_read_grown_steadily_is_the_answer_though_no_stack_was_seen_moved() -> None:
    # room game 112's last move, H5's one piece onto G5 (H4 the other prompted cell), never
    # answered: G5 read grown for 4 s, never seen moved
    got, want = _replay(STEADY_LOG)
    assert got == want == ["H5G5"]


def test_a_grown_reading_is_steady_only_while_every_reading_says_so() -> None:
    # a break in the grown readings while nothing blinked (the prompt closed and opened again)
    # starts the 3 s again
    g5 = mask_of([parse_cell("G5")])
    board = "b" * 49

    def seen(sight: CameraEvidence, t: float, watch: int, grown: int) -> None:
        sight.observe(watch, 0, 0, t, board, board, grown)

    sight = CameraEvidence()
    sight.told = CHOICE
    seen(sight, 0.0, CHOICE, g5)
    seen(sight, 1.0, 0, 0)
    seen(sight, STEADY + 0.5, CHOICE, g5)
    assert sight.answer == 0
    seen(sight, 2 * STEADY + 1.0, CHOICE, g5)
    assert sight.answer == g5


def test_stacks_seen_moved_and_read_red_after_are_gone() -> None:
    # room game 115's last two moves: C2's and B1's stacks (black tops) lifted onto taller
    # stacks of black tops; their cells, salmon-filled, read red to the end of the game. The
    # table asks where C2's stack went (no prompt was answered, no growth seen), where it
    # showed the board unexplained before
    game, then, events = room_log(RED_LOG)
    assert then == ["C2C3", "PASS", "B1B2"]
    out = replay_events(events, game=game)
    view = out.controller.view()
    assert out.lines[game.ply:] == []
    assert view.prompt == "choose-destination"
    assert view.blink == {parse_cell(c) for c in ("B1", "B2", "C3")}
