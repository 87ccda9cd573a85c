"""The order cells were seen to empty in as a flicker may have hidden it, and a blind spell
(a camera or sensor board silent for a while) in which whole actions may pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import board, find_position, replay_from

import controller.table.debounce as debounce
from controller.table.catchup import search
from controller.table.debounce import BLIND, Debouncer
from engine.game import Game
from engine.geometry import iter_cells
from engine.move import Move

DATA = Path(__file__).parent / "data" / "catchup"
INF = float("inf")


def _cutting_move() -> tuple[Game, Move, int]:
    """A position and a move that cuts off stacks (``cut``: their mask)."""
    def cuts(g: Game) -> bool:
        return not g.placing and any(m.is_step and g.copy().push(m) for m in g.legal_moves())

    g = find_position(cuts)
    move = next(m for m in g.legal_moves() if m.is_step and g.copy().push(m))
    return g, move, g.copy().push(move)


def test_a_sequence_in_order_as_a_flicker_hid_it_is_ordered() -> None:
    """Simulated camera session 118: the stacks a move cut off were seen taken away 0.8 s
    before its source read empty (it read its old top after the stack left), but the source
    had flickered empty before them. As seen, the move is out of order; as far as the
    flicker may have hidden it, in order: it counts as ordered, and no longer loses to a
    longer explanation that is in order as seen (before, two moves more were committed)."""
    g, move, cut = _cutting_move()
    assert move.source is not None
    after = g.copy()
    after.push(move)
    snap = board(after)  # the cut-off stacks taken away
    since = [INF] * 49
    for c in iter_cells(cut):
        since[c] = 1.0
    since[move.source] = 1.8
    seen = search(g, snap, since=since)
    mine = [h for h in seen.hypotheses if h.moves == (move,)]
    assert mine and not mine[0].ordered and mine[0].disorder == pytest.approx(0.8)
    loose = list(since)
    loose[move.source] = 0.5  # it read empty once, before the others
    flickered = search(g, snap, since=since, loose=loose)
    mine = [h for h in flickered.hypotheses if h.moves == (move,)]
    assert mine and mine[0].ordered and mine[0].disorder == 0.0


def test_a_streaming_source_silent_for_a_while_was_blind() -> None:
    d = Debouncer()
    t = 0.0
    for _ in range(10):
        d.feed(t, "." * 49)
        t += 0.1
    assert d.blind_at == -INF
    t += BLIND + 0.5  # a blackout
    d.feed(t, "." * 49)
    assert d.blind_at == t
    # a source that reads only now and then (a hall board's change messages) is never blind
    d = Debouncer()
    for t in (0.0, 3.0, 7.0, 12.0):
        d.feed(t, "." * 49)
    assert d.blind_at == -INF


def test_two_moves_in_one_blind_spell_are_asked_not_guessed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated camera session 320 (its log from the position before): the camera blind for
    5 s while White moves C2 on to E2, Black passes and White moves D2 on to D1, C2's stack
    then cut off and taken away. The board after fits D2D1 alone (C2 cut off by it) as well:
    one action fewer. After a blind spell one action more counts, so the table asks where
    the first action went, the players answer, and the true game is recorded. Without it the
    fewest actions were committed: D2D1, a move order that never happened."""
    ctl, position, then = replay_from(DATA / "blind_two_moves.jsonl", colours=True)
    assert ctl.actions == position + then
    monkeypatch.setattr(debounce, "BLIND", INF)
    ctl, position, then = replay_from(DATA / "blind_two_moves.jsonl", colours=True)
    assert ctl.actions[len(position):] == ["F2F3", "D2D1", "PASS"]
