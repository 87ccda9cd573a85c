"""A stack cannot land before it left: a landing cell that read the moved stack's colour since
before the camera saw that stack leave holds a commit of that move (room game 116: J3K4 H1K4
committed for J3J4 K4J4 H1H4, K4 white all along behind J4's grown side)."""

from __future__ import annotations

import json
from pathlib import Path

from table_helpers import room_log

from controller.sim.scoring import replay_events
from controller.table.landing import SLACK, Touches
from engine.game import Game
from engine.geometry import mask_of, parse_cell
from engine.move import Move

#: Room game 116 (`benchmarks/camera_games.py --room --first 116`, from its `--dump` on the
#: twenty-seventh session's branch): the position after I1H1, the actions after it, and the
#: readings from 144.3 s (J3's stack just landed on J4) to 151 s.
LOG = Path(__file__).parent / "data" / "catchup" / "landed_before_it_left.jsonl"


def _board(**cells: str) -> str:
    out = ["."] * 49
    for name, ch in cells.items():
        out[parse_cell(name)] = ch
    return "".join(out)


def _game() -> Game:
    return Game.from_moves(json.loads(LOG.read_text().splitlines()[0])["position"])


def _moves(*texts: str) -> list[Move]:
    return [Move.parse(t) for t in texts]


def _seen(touches: Touches, t: float, moved: tuple[str, ...] = (), **cells: str) -> None:
    touches.observe(mask_of(parse_cell(c) for c in moved), _board(**cells), t)


def test_the_position_has_the_tops_the_tests_say() -> None:
    game = _game()
    tops = {c: game.stack(parse_cell(c))[-1] for c in ("J3", "J4", "K4", "H1")}
    assert tops == {"J3": "b", "J4": "w", "K4": "w", "H1": "w"}


def test_a_landing_read_in_the_new_colour_before_the_stack_left_holds_it() -> None:
    # J3's black top onto K4, then H1's white one: K4 white since 145 s, moved at 145 s;
    # H1 seen leaving at 147 s
    touches = Touches()
    _seen(touches, 144.0, ("J3", "J4"), J4="b", K4="w", H1="w")
    _seen(touches, 145.0, ("J4", "K4"), J4="w", K4="w", H1="w")
    _seen(touches, 146.5, H1="w", K4="w")
    _seen(touches, 147.0, ("H1",), K4="w", H1="r")  # (a red reading dates nothing)
    assert touches.left(parse_cell("H1")) is None  # not read empty yet
    _seen(touches, 147.2, K4="w")
    assert touches.left(parse_cell("H1")) == 147.0
    assert touches.landed_unseen(_game(), _moves("J3K4", "H1K4"))
    # J3K4 alone changes K4 to black, which K4 never read: nothing says it did not land
    assert not touches.landed_unseen(_game(), _moves("J3K4"))


def test_a_landing_seen_moved_or_changing_colour_after_the_stack_left_does_not() -> None:
    for late in (("K4",), ()):
        touches = Touches()
        _seen(touches, 145.0, ("J4",), K4="b")
        _seen(touches, 146.5, H1="w", K4="b")
        _seen(touches, 147.0, ("H1",), K4="b")
        _seen(touches, 147.0 + SLACK / 2, late, K4="w")  # white from now, or moved now
        if late:
            _seen(touches, 148.0, K4="w")
        assert not touches.landed_unseen(_game(), _moves("J3K4", "H1K4"))


def test_a_landing_unreadable_since_the_stack_left_says_nothing() -> None:
    # room game 119: E4 read black, then '?' (behind a taller stack) from before E5's white
    # top landed on it to after E1's black one did, E1 seen leaving: E5E4 E1E4 was held for
    # good; here K4 (white) read '?' from before J3's black top to after H1's white one
    touches = Touches()
    _seen(touches, 140.0, K4="w", H1="w")
    _seen(touches, 141.0, K4="?", H1="w")
    _seen(touches, 147.0, ("H1",), K4="?")
    assert touches.left(parse_cell("H1")) == 147.0
    assert not touches.landed_unseen(_game(), _moves("J3K4", "H1K4"))
    # white again after the stack left, and never seen moved: the old top read through
    _seen(touches, 148.0, K4="w")
    assert touches.landed_unseen(_game(), _moves("J3K4", "H1K4"))


def test_a_stack_leaves_when_first_seen_moved_then_empty() -> None:
    # room game 129: B1 seen moved and read empty, then its old top for a moment, then seen
    # moved again under the next hand; H1 in 116: passed over by a hand (still read white),
    # then lifted
    touches = Touches()
    b1, h1 = parse_cell("B1"), parse_cell("H1")
    _seen(touches, 84.7, ("B1", "H1"), H1="w")
    _seen(touches, 84.8, B1="w", H1="w")
    _seen(touches, 86.1, ("B1",), H1="?")
    _seen(touches, 86.3, ("H1",), H1="?")
    _seen(touches, 86.5)
    assert (touches.left(b1), touches.left(h1)) == (84.7, 86.3)


def test_a_landing_on_its_own_colour_or_a_stack_not_seen_leave_does_not() -> None:
    touches = Touches()
    _seen(touches, 145.0, K4="w", H1="w")
    _seen(touches, 147.0, ("H1",), K4="w")
    # after J3J4, H1's white onto K4's white: no colour to see, and the touch cue misses some
    # (room game 102); after J3K4 it would have shown
    assert not touches.landed_unseen(_game(), _moves("J3J4", "H1K4"))
    assert touches.landed_unseen(_game(), _moves("J3K4", "H1K4"))
    touches.clear()  # committed: what was seen moved was that action's
    assert touches.left(parse_cell("H1")) is None
    assert not touches.landed_unseen(_game(), _moves("J3K4", "H1K4"))


def test_room_game_116_asks_where_j3s_stack_went() -> None:
    # on the branch without the rule, J3K4 H1K4 was committed from these readings; now the
    # table waits, and asks where J3's stack landed (J4 or K4)
    game, then, events = room_log(LOG)
    assert then == ["J3J4", "K4J4", "PASS"]
    out = replay_events(events, game=game)
    view = out.controller.view()
    assert out.lines[game.ply:] == []
    assert view.prompt == "choose-destination"
    assert view.blink == {parse_cell(c) for c in ("J4", "K4")}
