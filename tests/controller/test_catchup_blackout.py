"""Catch-up after blackouts and unanswered prompts, each from a hand-built position and log:
the 49th piece placed and moved unseen, an answer given while another prompted cell is gone
(cut off and taken away), one gesture at a time while a prompted cell became the next move's
source, and a prompt left unanswered one action past the usual depth."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import PLACEMENT, Feeder, board, edit, playouts, replay_from

from controller.table.catchup import Limits, search
from controller.table.decision import decide
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells, parse_cell
from engine.move import Move

DATA = Path(__file__).parent / "data" / "catchup"  # a position, then a sensor log


def _answer(f: Feeder, cell: str, how: str, s: str) -> None:
    """Answer the prompt with ``cell``: the gesture (lift it, set it back) or next/confirm."""
    if how == "gesture":
        f.read(edit(s, **{cell: "."}))
        f.read(s)
        return
    for _ in range(12):
        if f.ctl.suggested == parse_cell(cell):
            break
        f.press("next")
    f.press("confirm")


def test_the_49th_piece_placed_and_moved_in_one_blackout() -> None:
    """Hall seed 601: the table dark while White places the 49th piece (B4) and lifts it at
    once for the first move (B4C4), and Black moves too. B4 reads empty as before, so no
    placement 'goes on a cell that reads occupied': the last placement is forced, and a cell
    that reads empty after it is its first move's source. B4 is committed and where it went
    is asked (hall cannot see a landing on an occupied cell)."""
    g = Game.from_moves(PLACEMENT[:48])
    f = Feeder(game=g, colours=False)
    f.read(board(g))
    end = Game.from_moves([*PLACEMENT, "B4C4"])
    black = next(m for m in end.legal_moves() if m.source is not None and m.is_step
                 and m.source != parse_cell("C4") and not end.copy().push(m))
    end.push(black)
    f.read(board(end))
    assert f.ctl.actions == PLACEMENT
    e = f.ctl.explanation
    assert e.kind == "lifted" and e.source == parse_cell("B4")
    assert (e.choice >> parse_cell("C4")) & 1
    _answer(f, "C4", "buttons", board(end))
    assert f.ctl.actions[:50] == [*PLACEMENT, "B4C4"]


def _cut_off_candidate() -> tuple[Game, Move, int]:
    """A position where a lifted stack's move cuts off another of its legal landings and
    more stacks that no other landing of it cuts off (so with that landing hidden, the
    board taken away says where it went)."""
    for g in playouts(7):
        if g.placing or g.is_over():
            continue
        for m in g.legal_moves():
            if m.source is None or m.target is None:
                continue
            every = g.copy().push(m)
            cut = every & g.destinations(m.source) & ~(1 << m.target)
            if not cut or cut & (cut - 1) or (every >> m.target) & 1:
                continue
            rest = every & ~cut
            others = [o for o in g.legal_moves() if o.source == m.source and o != m]
            if rest and all(g.copy().push(o) & rest != rest for o in others):
                return g.copy(), m, cut.bit_length() - 1
    raise AssertionError("no such position")


@pytest.mark.parametrize("how", ["gesture", "buttons"])
def test_an_answer_while_another_prompted_cell_is_gone(how: str) -> None:
    """Hall seeds 362, 364, 468, 502: a stack lifted, where it landed is asked; the move cut
    off another prompted cell, which the players take away before they answer. That cell,
    empty since, is not a gesture half made: when the players answer on the true cell (the
    gesture, or next/confirm), the board as read with that answer is committed (before, the
    cell gone was taken for a gesture under way and the game waited for ever)."""
    g, move, gone = _cut_off_candidate()
    assert move.source is not None and move.target is not None
    f = Feeder(game=g, colours=False)
    f.read(board(g))
    s = board(g)
    s = edit(s, **{CELL_NAMES[move.source]: "."})
    f.read(s)  # lifted, landed unseen: asked
    e = f.ctl.explanation
    assert e.kind == "lifted" and (e.choice >> gone) & 1 and (e.choice >> move.target) & 1
    after = g.copy()
    cut = after.push(move)
    for c in [gone, *(c for c in iter_cells(cut) if c != gone)]:
        s = edit(s, **{CELL_NAMES[c]: "."})  # the cut-off stacks taken away, that one first
        f.read(s)
    assert f.ctl.actions == [str(m) for m in g.move_stack]  # nothing proves it yet
    _answer(f, CELL_NAMES[move.target], how, s)
    assert f.ctl.actions == [str(m) for m in after.move_stack]
    assert f.ctl.explanation.kind == "idle"


def test_one_gesture_at_a_time_while_a_prompted_cell_was_the_next_source() -> None:
    """Hall seed 991 (its log from the position before): B1C1 and F2B2 in one blackout (where
    B1 went is asked: A1, C1, B2, C2), C2C3 before the prompt was up and I1I2 while it was
    left unanswered, then the gesture on C1. C2, a prompted cell emptied as a source long
    before, is not held up for a gesture: only the prompted cell lifted last is hidden
    (before, both were, nothing explained the board, and the game was lost). Set back, C1
    is the answer: B1C1 and F2B2 are committed and C2's move is asked about."""
    ctl, position, then = replay_from(DATA / "unanswered_four.jsonl")
    assert ctl.actions == position + then[:2]
    e = ctl.explanation
    nxt = Move.parse(then[2])
    assert e.kind == "lifted" and e.source == nxt.source
    assert nxt.target is not None and (e.choice >> nxt.target) & 1


def test_a_prompt_narrowed_while_its_cell_is_up_stays_the_gestures() -> None:
    """Hall seed 364 (its log from the position before): D4 lifted (C3, D3, C4, E4 or D5:
    asked), nobody answers, E4E3 (E4, a prompted cell, empties as a source), then the
    gesture on C4. With C4 hidden the prompt only narrows (E4 is no landing now) and C4 is
    still in it: that is the gesture's prompt, not 'C4 is a source' (which committed D4E4,
    a move nobody made). Set back: D4C4, then E4E3."""
    ctl, position, then = replay_from(DATA / "narrowed_prompt.jsonl")
    assert ctl.actions == position + then
    assert ctl.explanation.kind == "idle"


def test_an_unanswered_prompt_may_reach_one_action_past_the_depth() -> None:
    """Hall seed 991: two moves in a blackout (where the first went is asked), a third
    before the players saw the prompt, and a fourth as they left it unanswered: four
    actions, one more than the usual depth. With the prompt pending (``extra``) the
    sequences in the order the sources were seen to empty in are searched one action
    deeper (pruned by that order as they are built, so it stays cheap: a third of the
    budget, with ``UNANSWERED_BEHIND`` more actions allowed); every order is searched only
    when none fits, and then no deeper than usual."""
    g = Game.from_moves(PLACEMENT)
    truth = []
    h = g.copy()
    for _ in range(4):  # four steps from different sources, nothing cut off
        used = {m.source for m in truth} | {m.target for m in truth}
        m = next(m for m in h.legal_moves() if m.is_step and m.source not in used
                 and m.target not in used and not h.copy().push(m))
        truth.append(m)
        h.push(m)
    snap = board(h)
    inf = float("inf")
    since = [inf] * 49
    for t, m in zip((1.0, 1.0, 2.0, 3.0), truth, strict=True):  # two in one blackout
        assert m.source is not None
        since[m.source] = t
    first = truth[0].source
    found = search(g, snap, since=since, extra=1, first=first)
    assert not found.truncated
    assert any(hy.moves == tuple(truth) for hy in found.hypotheses)
    assert all(hy.ordered for hy in found.hypotheses)
    assert found.nodes < Limits().nodes // 3
    assert decide(found, slack=1).kind == "choose"
    # no prompt pending: the usual depth, nothing explains it (a mismatch, no guess)
    assert not search(g, snap, since=since, first=first).hypotheses



def test_the_search_generates_only_the_moves_of_stacks_that_read_empty() -> None:
    """The catch-up search asks the engine only for the moves of the stacks that may have
    left (Game.moves_from) and whether a pass is forced (Game.must_pass): the same moves, in
    the same order, as legal_moves() filtered."""
    checked = 0
    for i, g in enumerate(playouts(11)):
        if i > 3000:
            break
        if g.placing:
            assert g.moves_from(g.occupied) == [] and not g.must_pass()
            continue
        legal = g.legal_moves()
        assert g.must_pass() == (legal == [Move.parse("PASS")])
        for mask in (g.occupied, g.occupied & 0x5555555555555, 1 << (i % 49)):
            want = [m for m in legal if m.source is not None and (mask >> m.source) & 1]
            assert g.moves_from(mask) == want
        checked += 1
    assert checked > 1000


def test_the_49th_piece_on_a_cell_read_unreadable_then_moved_at_once() -> None:
    """Room game 113: a lamp's glare on the last empty cell, C1, read '?' from the moment its
    piece came to the end of the game; the piece was moved at once onto D1, where the top then
    showed its colour. The 49th placement is forced whatever its cell reads, so with C1 unknown
    the board still says both (before, the search with C1 unknown placed nothing on a '?'
    cell, so it found nothing, and the commit waited for ever)."""
    g = Game.from_moves(PLACEMENT[:48])
    last = parse_cell(PLACEMENT[48])
    f = Feeder(game=g, colours=True)
    f.read(board(g, True))
    end = Game.from_moves(PLACEMENT)
    move = next(m for m in end.legal_moves() if m.source == last and m.target is not None
                and end.stack(m.target)[-1] != end.stack(last)[-1]
                and not end.copy().push(m))
    end.push(move)
    s = edit(board(end, True), **{PLACEMENT[48]: "?"})
    for _ in range(4):
        f.read(s)
    assert f.ctl.actions == [*PLACEMENT, str(move)]
