"""A first game (``--learn``): each rule is said once, at the first position where it matters,
with its cells lit; and ``demo --fast --tutor --learn`` plays a whole game showing the tutor's
marks written as the review writes them (``C3D4?``)."""

from __future__ import annotations

import io
import re

from controller.players.lessons import RULES, Lessons, cut_by_last, surrounded, too_far
from controller.sim.demo import DemoOptions, run_demo
from controller.table.session import TableController
from engine.game import Game


def test_each_rule_once_at_the_first_position_it_matters() -> None:
    """A scripted (seeded) game through the controller: the lessons say what a position
    needs exactly when the game first reaches it: surrounded, too far, cut off."""
    out = io.StringIO()
    result = run_demo(DemoOptions(seed=3, direct=True, tutor=None, learn=True,
                                  strip=None, quiet=True), out)
    ctl = result.controller
    lessons = next(layer for layer in ctl.opponent.layers if isinstance(layer, Lessons))
    said = lessons.said
    keys = [k for _, k in said]
    assert len(keys) == len(set(keys)) and set(keys) <= set(RULES)
    # replay the game: the first position where each rule matters is where it was said
    want: dict[str, int] = {}
    g = Game()
    for move in [*ctl.game.move_stack, None]:
        if g.placing:
            want.setdefault("dvonn" if g.piece_to_place() == "r" else "own", g.ply)
        elif not g.is_over():
            want.setdefault("moving", g.ply)
            if surrounded(g):
                want.setdefault("surrounded", g.ply)
            if too_far(g):
                want.setdefault("too-far", g.ply)
        if not g.placing and cut_by_last(g):
            want.setdefault("cut-off", g.ply)
        if g.move_stack and g.move_stack[-1].is_pass:
            want.setdefault("pass", g.ply)
        if g.is_over():
            want.setdefault("end", g.ply)
        if move is None:
            break
        g.push(move)
    assert {"surrounded", "too-far", "cut-off"} <= set(want)
    assert dict((k, p) for p, k in said) == want


def test_a_rule_lights_its_cells() -> None:
    from table_helpers import PLACEMENT

    game = Game.from_moves(PLACEMENT)
    ctl = TableController(game=game)
    lessons = Lessons()
    lessons.attach(ctl)
    assert [k for _, k in lessons.said] == ["moving", "surrounded"]
    roles = ctl.view().roles
    stuck = surrounded(game)[0]
    assert roles[stuck] == "source" and stuck in ctl.view().blink
    assert "cannot move: it is surrounded on all 6 sides" in ctl.view().message


def test_demo_with_the_tutor_shows_marks() -> None:
    out = io.StringIO()
    result = run_demo(DemoOptions(seed=3, direct=True, tutor="better", learn=True), out)
    assert result.over
    text = out.getvalue()
    assert re.search(r"tutor: \d+\. [A-K][1-5][A-K][1-5]\?\??", text)
    assert "rule: " in text and "better: " in text
