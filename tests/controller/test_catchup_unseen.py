"""A stack moved from a cell the camera cannot see (camera game 7: J5, behind a grown stack,
moved onto J4, which kept its colour): never committed on its own, committed once a move of
the other side on cells the camera reads shows it finished, never guessed between two."""

from __future__ import annotations

import json
from pathlib import Path

from test_catchup import at, first, same_colour_targets

from controller.table.catchup import search
from controller.table.decision import decide
from engine.game import Game
from engine.geometry import iter_cells, spread
from engine.move import PASS, Move


def _unseen_move(g: Game) -> tuple[Move, Move] | None:
    """A move of the side to act onto its only target that keeps its top colour, and a reply
    of the other side away from both cells (nothing cut off by either)."""
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        if len(same) != 1:
            continue
        m1 = Move.step(s, same[0])
        after = g.copy()
        if after.push(m1) or after.must_pass():
            continue
        near = spread((1 << s) | (1 << same[0])) | (1 << s) | (1 << same[0])
        for m2 in after.legal_moves():
            if m2.is_pass or (1 << m2.source) & near or (1 << m2.target) & near:
                continue
            if not after.copy().push(m2):
                return m1, m2
    return None


def _case() -> tuple[Game, Move, Move]:
    g, found = first(_unseen_move)
    assert isinstance(found, tuple)
    return g, found[0], found[1]


def _read(g: Game, moves: list[Move], hidden: int) -> str:
    out = g.copy()
    for m in moves:
        out.push(m)
    snap = out.snapshot(True)
    for c in iter_cells(hidden):
        snap = at(snap, c, "?")
    return snap


def test_an_unseen_source_is_proven_by_the_other_sides_next_move() -> None:
    g, m1, m2 = _case()
    assert m1.source is not None
    hidden = 1 << m1.source
    snap = _read(g, [m1, m2], hidden)
    # without unseen sources nothing explains the board (a source must be seen empty)
    assert not search(g, snap, hidden=hidden).hypotheses
    d = decide(search(g, snap, hidden=hidden, unseen=True))
    assert d.kind == "commit"
    assert [m for m in d.moves if m != PASS] == [m1, m2]


def test_an_unseen_source_alone_is_never_committed() -> None:
    g, m1, _ = _case()
    assert m1.source is not None
    hidden = 1 << m1.source
    result = search(g, _read(g, [m1], hidden), hidden=hidden, unseen=True)
    assert any(list(h.moves[:1]) == [m1] for h in result.hypotheses)
    assert not all(h.certain for h in result.hypotheses)
    assert decide(result).kind in ("idle", "wait")


def test_a_reply_on_a_hidden_cell_proves_nothing() -> None:
    g, m1, m2 = _case()
    assert m1.source is not None and m2.target is not None
    hidden = (1 << m1.source) | (1 << m2.target)
    result = search(g, _read(g, [m1, m2], hidden), hidden=hidden, unseen=True)
    assert decide(result).kind != "commit"


def test_a_controller_commits_the_unseen_move_once_the_reply_is_seen() -> None:
    from table_helpers import Feeder

    g, m1, m2 = _case()
    assert m1.source is not None
    f = Feeder(game=g, colours=True)
    f.read(g.snapshot(True))
    hidden = 1 << m1.source
    f.read(_read(g, [], hidden), hold=5.0)  # the cell goes out of sight, the stack still there
    assert f.ctl.game.ply == g.ply
    f.read(_read(g, [m1], hidden), hold=2.0)
    assert f.ctl.game.ply == g.ply  # nothing the camera sees says the move is finished
    assert f.ctl.explanation.kind != "mismatch"
    f.read(_read(g, [m1, m2], hidden), hold=2.0)
    assert [m for m in f.ctl.game.move_stack[len(g.move_stack):] if m != PASS] == [m1, m2]


def _cutting_move(g: Game) -> tuple[Move, Move, int] | None:
    """A move of the side to act that cuts off stacks other than its own, and a reply of the
    other side away from all of them (nothing cut off by it)."""
    for m1 in g.legal_moves():
        if m1.is_pass or m1.source is None or m1.target is None:
            continue
        after = g.copy()
        cut = after.push(m1)
        if not cut or (cut >> m1.target) & 1 or after.must_pass():
            continue
        acted = cut | (1 << m1.source) | (1 << m1.target)
        near = acted | spread(acted)
        for m2 in after.legal_moves():
            if m2.is_pass or (1 << m2.source) & near or (1 << m2.target) & near:
                continue
            if not after.copy().push(m2):
                return m1, m2, cut
    return None


def _cut_case() -> tuple[Game, Move, Move, int]:
    g, found = first(_cutting_move)
    assert isinstance(found, tuple)
    return g, *found


def test_a_stack_an_unseen_move_cut_off_may_go_before_its_source_is_seen() -> None:
    # room game 120: C1 read '?' once its stack went onto D1, which that cut off; D1's stack
    # was taken away and read empty, C1 never: no order to check against a source never seen
    g, m1, m2, cut = _cut_case()
    assert m1.source is not None
    hidden = 1 << m1.source
    since = [1.0 if (cut >> c) & 1 else float("inf") for c in range(49)]
    result = search(g, _read(g, [m1, m2], hidden), hidden=hidden, unseen=True, since=since)
    assert any(h.moves[:1] == (m1,) and h.ordered for h in result.hypotheses)
    d = decide(result)
    assert d.kind == "commit"
    assert [m for m in d.moves if m != PASS] == [m1, m2]


#: Room game 120 (`benchmarks/camera_games.py --room --first 120`, from its `--dump`): the
#: position after I4H3, the actions after it, and the camera's readings from there.
LOG = Path(__file__).parent / "data" / "catchup" / "unseen_source.jsonl"


def test_a_vacated_cell_read_unknown_is_followed_once_later_moves_prove_its_move() -> None:
    # C1's white piece went onto D1 (black): C1 read '?' and its old top by turns to the end,
    # D1 showed white for 3 s, Black's H3A3 came, and D1's stack, cut off, was taken away
    # (then C1C2 fitted the board as well as C1D1: what D1 showed before must still count)
    from controller.sensorlog import parse_lines
    from controller.sim.scoring import replay_events

    head, *lines = LOG.read_text().splitlines()
    scene = json.loads(head)
    out = replay_events(parse_lines(lines, LOG.name), game=Game.from_moves(scene["position"]))
    assert out.lines[len(scene["position"]):] == [*scene["then"], scene["over"]]


def test_the_one_explanation_of_a_lone_unreadable_cell_is_kept_not_under_a_hand() -> None:
    from controller.table.candidates import Candidates

    g, m1, _, _ = _cut_case()
    assert m1.source is not None
    lone = 1 << m1.source
    beside = spread(lone) & g.occupied & ~(1 << (m1.target or 0))
    hand = lone | 1 << next(iter_cells(beside))  # the source and a stack beside it
    for hidden, kept in ((lone, ((m1,),)), (hand, ())):
        c = Candidates()
        result = c.search(g, _read(g, [m1], hidden), plain=False, prompt=False, t=0.0,
                          keep=True, hidden=hidden, unseen=True)
        assert [h.moves for h in result.hypotheses] == [(m1,)]
        assert c.paths(g) == kept
