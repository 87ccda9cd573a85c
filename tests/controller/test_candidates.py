"""The games the readings allow, kept while a prompt goes unanswered: the next search extends
them (``catchup.search``'s ``paths``, ``controller.table.candidates``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from table_helpers import board, replay_from
from test_catchup import after, at, feeder, first, same_colour_targets

from controller.table.candidates import STALE, Candidates
from controller.table.catchup import Hypothesis, Limits, Result, search
from engine.game import Game
from engine.geometry import NEIGHBOUR_MASKS, iter_cells
from engine.move import PASS, Move

DATA = Path(__file__).parent / "data" / "catchup"
LOG = DATA / "never_answered.jsonl"


def _scene(plies: int) -> tuple[Game, Game, list[Move]]:
    """The log's position, the true game ``plies`` actions on, and those actions."""
    head = json.loads(LOG.read_text().splitlines()[0])
    start = Game.from_moves(head["position"])
    moves = [Move.parse(m) for m in head["then"][:plies]]
    after = start.copy()
    for m in moves:
        after.push(m)
    return start, after, moves


def test_a_search_along_paths_finds_their_extensions_and_only_those() -> None:
    """Given the explanations of an earlier reading, the search explains the new one by
    extending them: exactly the full search's explanations that begin with one of them."""
    start, after, moves = _scene(4)
    snap = board(after, colours=True)
    deep = Limits(depth=4, nodes=200000, snapshot=200000)
    full = search(start, snap, limits=deep)
    assert not full.truncated and len(full.hypotheses) > 1
    first = tuple(m for m in full.hypotheses[0].moves[:2])
    narrowed = search(start, snap, limits=deep, paths=[first])
    assert narrowed.hypotheses
    assert {h.moves for h in narrowed.hypotheses} == {
        h.moves for h in full.hypotheses if h.moves[:2] == first}
    assert narrowed.nodes < full.nodes
    # a path that no longer fits the board explains nothing (the caller searches again)
    wrong = (next(m for m in start.legal_moves() if m != moves[0] and not m.is_pass),)
    assert not search(start, snap, limits=deep, paths=[wrong]).hypotheses


def test_kept_explanations_follow_what_is_committed() -> None:
    start, after, moves = _scene(3)
    snap = board(after, colours=True)
    result = search(start, snap, limits=Limits(depth=3))
    assert result.hypotheses and not result.truncated
    kept = Candidates()
    kept.keep(start, result, 0.0)
    assert set(kept.paths(start)) == {h.moves for h in result.hypotheses}
    on = start.copy()
    on.push(moves[0])  # the first action committed: the rest of each that began with it
    assert set(kept.paths(on)) == {h.moves[1:] for h in result.hypotheses
                                   if h.moves[:1] == (moves[0],) and h.moves[1:]}
    other = start.copy()
    other.push(next(m for m in start.legal_moves() if m != moves[0] and not m.is_pass))
    assert kept.paths(other) == ()
    kept.keep(start, Result([], truncated=True), 1.0)  # an answer cut short changes nothing
    assert set(kept.paths(start)) == {h.moves for h in result.hypotheses}
    kept.clear()
    assert kept.paths(start) == ()


def test_a_kept_game_one_reading_does_not_fit_stays_a_while() -> None:
    """A reading that fits only some kept games (a cell flickering back to its old top)
    does not drop the others at once: only when the readings have not fitted one for
    ``STALE`` seconds; one that an explanation extends stays."""
    start, after, moves = _scene(3)
    result = search(start, board(after, colours=True), limits=Limits(depth=3))
    kept = Candidates()
    kept.keep(start, result, 0.0)
    everything = set(kept.paths(start))
    assert len(everything) > 1
    one = result.hypotheses[0]
    longer = Hypothesis(0, one.moves + (PASS,), None, one.key, True)
    kept.keep(start, Result([longer]), 1.0)  # only the first fits, and one move on
    assert set(kept.paths(start)) == everything - {one.moves} | {longer.moves}
    kept.keep(start, Result([longer]), 1.0 + STALE)
    assert set(kept.paths(start)) == {longer.moves}
    kept.keep(start, Result(), 2.0 + STALE)  # nothing fits: since when
    assert set(kept.paths(start)) == {longer.moves}
    kept.keep(start, Result(), 2.0 + 2 * STALE)  # nothing fitted for a long while: forgotten
    assert kept.paths(start) == ()


def test_a_board_nothing_explains_says_nothing_against_the_kept_games() -> None:
    """Room game 138: K3, empty, read white for 4 s while the players went on; the kept games
    fitted nothing then, were dropped after ``STALE`` seconds, and the true one, ten moves
    past the last commit, fitted the board again a second later. A misread board that no
    sequence explains at all leaves them kept; one that another sequence explains (here: the
    board as it was, nothing moved) counts against them as before."""
    start, after, _ = _scene(3)
    snap = board(after, colours=True)
    result = search(start, snap, limits=Limits(depth=3))
    kept = Candidates()
    kept.keep(start, result, 0.0)
    paths = set(kept.paths(start))
    empty = next(c for c in range(49) if not start.stack(c) and not after.stack(c))
    misread = snap[:empty] + "w" + snap[empty + 1:]
    for t in (1.0, 1.0 + STALE, 1.0 + 2 * STALE):
        assert not kept.search(start, misread, plain=True, prompt=True, t=t).hypotheses
        assert set(kept.paths(start)) == paths
    found = kept.search(start, snap, plain=True, prompt=True, t=2.0 + 2 * STALE)
    assert {h.moves for h in found.hypotheses} == paths
    still = board(start, colours=True)
    for t in (3.0 + 2 * STALE, 3.5 + 3 * STALE):
        kept.search(start, still, plain=True, prompt=True, t=t)
    assert kept.paths(start) == ()


def test_players_who_never_answer_are_followed_by_their_later_moves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated camera session 69 (answers drawn from ranges), its log from ply 62: B4 moved
    on to one of three stacks of its colour, nobody answered, and eight more actions were
    made before B2D4 landed on the stack that told them apart. Each reading extends the
    games the last one allowed, and the whole game is recorded. Searching every sequence
    from the committed game again ran past its bounds and stalled there; and a later hand
    over a blinking cell (A3B3 landing on B3) is no answer to the prompt (it was taken for
    one, and B4B3 recorded)."""
    ctl, position, then = replay_from(LOG, colours=True)
    assert ctl.actions == position + then
    monkeypatch.setattr(Candidates, "_rooted", lambda self, game: {})
    ctl, position, then = replay_from(LOG, colours=True)
    done = ctl.actions[len(position):]
    assert done == then[:len(done)] and len(done) < len(then) // 2


def _two_same_one_other(g: Game) -> tuple[int, list[int], int] | None:
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        other = [c for c in iter_cells(g.destinations(s)) if c not in same]
        if len(same) >= 2 and other:
            return s, same[:2], other[0]
    return None


@pytest.mark.parametrize("under_hand", [True, False])
def test_a_landing_a_hand_hid_as_the_prompt_began_is_kept_until_it_shows(
        under_hand: bool) -> None:
    """Room game 136: G3's stack was set on black G2, the hand still over G2 as G3 read
    empty, so the prompt asked H3 or H4 (white tops: nothing to see), and only those were
    kept; G2 read white next, and no kept game fitted it. What a hand hides as the first
    explanations are kept, where it will show as the hand goes (a top of another colour), is
    kept a while too; a cell read as it was when no hand hid it rules it out."""
    g, found = first(_two_same_one_other)
    assert isinstance(found, tuple)
    s, same, other = found
    lifted = at(board(g, True), s, ".")
    kept = Candidates()
    hid = 1 << other if under_hand else 0

    def down(hyps: list[Hypothesis]) -> list[Hypothesis]:  # the stack was seen set down
        return [h for h in hyps if h.lifted is None]

    first_reading = kept.search(g, lifted, plain=True, prompt=True, t=0.0, covered=hid,
                                hidden=hid, answer=down)
    assert {h.moves for h in first_reading.hypotheses} == {(Move(s, c),) for c in same}
    landed = at(lifted, other, g.turn)
    then = kept.search(g, landed, plain=True, prompt=True, t=1.0, answer=down)
    assert [h.moves for h in then.hypotheses if len(h.moves) == 1] == (
        [(Move(s, other),)] if under_hand else [])


def test_a_piece_named_under_a_spot_leaves_the_readings_plain() -> None:
    """Room game 138: Black's D5, under a lamp's spot, was named as the pieces were placed
    (read '?' alone) and read '.' once they moved. Every reading then differed from the
    stable one there, so none counted as plain, and no game was kept while a prompt went
    unanswered: the players went on, and the table lost them all. A piece named so is part
    of the board as read."""
    g, found = first(_two_same_one_other)
    assert isinstance(found, tuple)
    s, same, _ = found
    near = 0
    for c in (s, *same):
        near |= 1 << c | NEIGHBOUR_MASKS[c]
    named = next(c for c in iter_cells(g.occupied & ~near) if len(g.stack(c)) == 1)
    f = feeder(g, colours=True)
    f.ctl.sight._named |= 1 << named
    f.read(edit_cell(board(g, True), named))
    assert f.ctl.explanation.kind == "idle"
    g1 = after(g, Move.step(s, same[0]))
    f.read(edit_cell(board(g1, True), named))
    assert f.ctl.game.move_stack == g.move_stack  # asked, not committed
    nxt = next(m for m in g1.legal_moves() if not m.is_pass and m.source is not None
               and m.target is not None and not (near | 1 << named) >> m.source & 1
               and not (near | 1 << named) >> m.target & 1)
    f.read(edit_cell(board(after(g1, nxt), True), named))  # the next player went on
    kept = {p[0] for p in f.ctl.candidates.paths(f.ctl.game)}
    assert kept == {Move.step(s, c) for c in same}


def edit_cell(snap: str, cell: int, read: str = ".") -> str:
    """``snap`` with ``cell`` read bare (or ``read``)."""
    return snap[:cell] + read + snap[cell + 1:]
