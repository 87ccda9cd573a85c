"""Where the camera saw stacks set down tells where a move nobody answered landed
(controller.table.setdown)."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import board, edit, room_log

from controller.sim.scoring import replay_events
from controller.table.catchup import Hypothesis
from controller.table.setdown import HAND, LATE, SetDowns
from engine.game import Game
from engine.geometry import parse_cell
from engine.move import Move

#: Room game 143 (`benchmarks/camera_games.py --room --first 143`, from its `--dump`): the
#: position after G4E2, the actions after it, and the camera's readings to the end. G3's
#: white stack went onto H3 (F2 and H4 white too), D3's black one onto C3 (E3 black too),
#: H2's white one onto I2 (H3 and I3 white too); nobody answered, the game went on to its end.
LOG = Path(__file__).parent / "data" / "catchup" / "set_down_unanswered.jsonl"

#: The 49 placements of room game 143: White to move; K3's white stack may go onto J2, J3 or
#: K4, all topped white.
PLACED = ("F3 F4 E1 D4 H3 B4 H4 G2 G3 F1 A3 A1 J3 B1 K4 E2 J2 E5 C1 E3 C2 C3 C5 G1 H5 C4 E4 "
          "D1 I3 D3 B3 J4 I4 I2 K3 B2 I1 F5 G5 D2 I5 A2 H2 D5 F2 J5 H1 G4 K5").split()
K3, J2, J3, K4 = (parse_cell(c) for c in ("K3", "J2", "J3", "K4"))


def _options() -> tuple[Game, list[Hypothesis]]:
    game = Game.from_moves(PLACED)
    return game, [Hypothesis(0, (Move(K3, c),), None, (0, 0, 0, 0), True) for c in (J2, J3, K4)]


def _seen(hand_over: list[int], moved: list[int], at: float = 3.0, *,
          hand_at: float | None = None) -> SetDowns:
    """K3's stack read for 2 s, a hand over ``hand_over`` (and K3), K3 read empty at 3 s,
    and ``moved`` seen moved at ``at``."""
    game = Game.from_moves(PLACED)
    s = board(game, True)
    seen = SetDowns()
    for i in range(20):
        seen.observe(0, s, i * 0.1)
    covered = "".join("?" if c in (K3, *hand_over) else ch for c, ch in enumerate(s))
    seen.observe(0, covered, 2.8 if hand_at is None else hand_at)
    gone = s[:K3] + "." + s[K3 + 1:]
    seen.observe(0, gone, 3.0)
    seen.observe(sum(1 << c for c in moved), gone, at)
    return seen


def _kept(seen: SetDowns) -> list[str]:
    game, options = _options()
    return [str(h.moves[0]) for h in seen.keep(game, options)]


def test_the_one_stack_seen_set_down_is_where_the_move_landed() -> None:
    assert _kept(_seen([J3], [J3])) == ["K3J3"]
    assert _kept(_seen([J3], [J3], at=2.6)) == ["K3J3"]  # the hand left it a moment before K3


@pytest.mark.parametrize("case", ["none", "two", "no hand", "late", "after the next", "covered"])
def test_what_the_camera_cannot_tell_keeps_every_landing(case: str) -> None:
    if case == "none":
        seen = _seen([J3], [])
    elif case == "two":  # a neighbour shaken, or a touch on the other one missed
        seen = _seen([J3, K4], [J3, K4])
    elif case == "no hand":  # seen moved with no hand over it: an arm's shade, the exposure
        seen = _seen([J3], [K4], hand_at=3.0 - HAND - 1.0)
    elif case == "covered":  # K4 still under the hand: its stack not judged yet (room game 134)
        seen = _seen([J3], [J3])
        s = edit(board(Game.from_moves(PLACED), True), K3=".", K4="?")
        seen.observe(0, s, 3.1)
    elif case == "late":  # a hand passing long after
        seen = _seen([J3], [J3], at=3.0 + LATE + 0.5)
    else:  # seen moved after the next stack left: that move's
        seen = _seen([J3], [], at=3.2)
        s = edit(board(Game.from_moves(PLACED), True), K3=".")
        for i in range(5):  # C5's stack leaves at 3.6 s; a hand over J3, seen moved at 4.0 s
            seen.observe(0, edit(s, C5="?" if i < 3 else "."), 3.2 + 0.1 * i)
        seen.observe(0, edit(s, C5=".", J3="?"), 3.8)
        seen.observe(1 << J3, edit(s, C5="."), 4.0)
    assert _kept(seen) == ["K3J2", "K3J3", "K3K4"]


def test_a_set_down_no_explanation_agrees_with_is_no_evidence() -> None:
    game, options = _options()
    seen = _seen([J3], [J3])
    only = [h for h in options if h.moves[0].target != J3]
    assert seen.keep(game, only) == only


def test_the_players_who_never_answered_three_such_moves_are_followed() -> None:
    game, then, events = room_log(LOG)
    out = replay_events(events, game=game)
    assert out.lines[game.ply:game.ply + len(then)] == then


#: Simulated camera session 233 (`controller.sim.physical.generate(233, "camera")`): the
#: position after I1H1, the actions after it, and the readings from 115 s to 128 s: A3's stack
#: landed on A2 unseen (A2 then cut off and taken away), D4's on B4, seen set down under the
#: hand. The prompt asking where A3's stack went began with D4 gone already.
LANDED = Path(__file__).parent / "data" / "catchup" / "landing_not_answer.jsonl"


def test_a_later_stack_set_down_on_a_prompted_cell_is_no_answer() -> None:
    """The hand that set D4's stack on B4 was taken as the answer to A3's prompt (A2 or B4),
    and A3B4 was committed: where another stack gone when the prompt began may land, a stack
    set down under the hand says nothing, and the table asks on."""
    _asks_on(LANDED)


#: Room game 134 (`benchmarks/camera_games.py --room --first 134 --games 1`): the position
#: after E3G3, the actions after it, and the readings from 112.3 s to 135 s. The hand that
#: lifted D4's stack passed over D2 and shook it (seen moved a moment later); the stack landed
#: on F4, which read '?' (the lamp's glare, a colour between) until the next player lifted J5.
SHAKEN = Path(__file__).parent / "data" / "catchup" / "shaken_not_landing.jsonl"


def test_a_stack_shaken_while_the_landing_is_unreadable_is_no_landing() -> None:
    """D4D2 was committed twice over: by the prompt's answer (D2 the one blinking stack seen
    moved) and by the set-downs (F4 read at last in the reading where J5 left). Neither may
    tell while F4, where it may have landed, cannot be read: the table asks on."""
    _asks_on(SHAKEN)


#: Room game 133 (`benchmarks/camera_games.py --room --first 133`, the reader with the lamp's
#: clipped board read as a spot, dropped in the thirty-sixth session): the position after
#: E1D1, the actions after it, and the readings from 103 s to 112.5 s. F2's white stack came
#: down on E2 (F1 and F3 white too), seen moved; then the hand, leaving, shook F3, seen moved
#: just before the prompt showed. The player answered E2 two seconds later.
EARLY = Path(__file__).parent / "data" / "catchup" / "early_touch_not_answer.jsonl"


def test_a_stack_shaken_after_the_landing_was_seen_is_no_answer() -> None:
    """F2F3 was committed: F3, the one blinking stack still seen moved as the prompt opened,
    was taken as where the stack landed, though E2 had been seen moved before it. Two blinking
    stacks seen moved since the last commit tell nothing; the player's answer then does."""
    game, then, events = room_log(EARLY)
    out = replay_events(events, game=game)
    assert out.lines[game.ply:] == then[:2]  # K5J5 F2E2
    assert out.controller.view().prompt == "choose-destination"


def _asks_on(log: Path) -> None:
    """A room log replayed gives only true actions and ends asking where a stack landed."""
    game, then, events = room_log(log)
    out = replay_events(events, game=game)
    done = out.lines[game.ply:]
    assert done == then[:len(done)]
    assert out.controller.view().prompt == "choose-destination"
