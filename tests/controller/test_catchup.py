"""Inference from all the evidence and catching up, each case from a hand-built position.

Camera: a top that did not change is evidence; a stack in the hand; a hand over the board.
Hall: a lift that starts a legal move is a lift, even of the 49th piece just placed.
Catch-up: missed actions committed in order; differing explanations prompt, never guess;
nothing explains it -> mismatch, and the next stable snapshot is looked at again; a pending
prompt does not block the next player; take-backs only when nothing forward explains it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from table_helpers import PLACEMENT, Feeder, board, edit, playouts

from controller.table.catchup import Limits, search
from controller.table.decision import decide
from controller.table.expected import Expected
from controller.table.inference import LIFTED, MISMATCH, explain
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import CELL_NAMES, NEIGHBOURS, iter_cells
from engine.move import PASS, Move
from hardware.events import SnapshotEvent


def at(snap: str, cell: int, value: str) -> str:
    return snap[:cell] + value + snap[cell + 1:]


def positions(seed: int = 7, limit: int = 40000) -> Iterator[Game]:
    for i, g in enumerate(playouts(seed)):
        if i > limit:
            return
        if not g.placing and not g.is_over():
            yield g


def first(pred: Callable[[Game], object], seed: int = 7) -> tuple[Game, object]:
    for g in positions(seed):
        found = pred(g)
        if found:
            return g.copy(), found
    raise AssertionError("no such position")


def after(g: Game, *moves: Move) -> Game:
    out = g.copy()
    for m in moves:
        out.push(m)
    return out


def steps(g: Game) -> list[Move]:
    return [m for m in g.legal_moves() if m.is_step]


def same_colour_targets(g: Game, s: int) -> list[int]:
    """Legal targets of ``s`` whose top already shows the mover's colour."""
    return [c for c in iter_cells(g.destinations(s)) if g.stack(c)[-1] == g.turn]


def feeder(g: Game, colours: bool) -> Feeder:
    f = Feeder(game=g, colours=colours)
    f.read(board(g, colours))
    assert f.ctl.explanation.kind == "idle"
    return f


# ----------------------------------------------------------------------- camera evidence
def _one_same_colour(g: Game) -> tuple[int, int, int] | None:
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        other = [c for c in iter_cells(g.destinations(s)) if c not in same]
        if len(same) == 1 and other:
            return s, same[0], other[0]
    return None


def test_camera_an_unchanged_top_proves_the_move() -> None:
    """Only one destination already shows the mover's colour: every other one would now show
    it and does not, so the source read empty proves the move at once."""
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, _ = found
    f = feeder(g, True)
    f.read(at(board(g, True), s, "."))
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]
    assert f.ctl.view().prompt == ""


def test_camera_a_stack_still_in_the_hand_lands_elsewhere() -> None:
    """Committed at once on the only same-colour target, it then lands on another one: the
    board only a take-back explains corrects the move."""
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, other = found
    f = feeder(g, True)
    f.read(at(board(g, True), s, "."))
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]
    landed = after(g, Move.step(s, other))
    f.read(board(landed, True))
    assert f.ctl.actions == [str(m) for m in landed.move_stack]
    assert "mismatch" not in f.roles().values()


def _two_same_colour(g: Game) -> tuple[int, list[int]] | None:
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        if len(same) >= 2:
            return s, same
    return None


def test_camera_prompts_only_between_same_colour_targets_and_the_gesture_chooses() -> None:
    g, found = first(_two_same_colour)
    assert isinstance(found, tuple)
    s, same = found
    f = feeder(g, True)
    lifted = at(board(g, True), s, ".")
    f.read(lifted)
    view = f.ctl.view()
    assert view.prompt == "choose-destination" and view.blink == frozenset(same)
    assert f.ctl.actions == [str(m) for m in g.move_stack]  # no guess
    d = same[-1]
    f.read(at(lifted, d, "."))  # the gesture: lift the destination ...
    f.read(lifted)  # ... and set it back
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]


def test_camera_a_hand_over_another_target_holds_the_commit() -> None:
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, other = found
    f = feeder(g, True)
    lifted = at(board(g, True), s, ".")
    f.read(at(lifted, other, "?"))  # the hand covers a place where it may have landed
    assert f.ctl.actions == [str(m) for m in g.move_stack]
    assert f.ctl.explanation.kind == LIFTED and f.ctl.explanation.source == s
    f.read(lifted)  # the hand is gone: what the cell shows first is not yet a reading ...
    assert f.ctl.actions == [str(m) for m in g.move_stack]
    f.read(lifted)  # ... the same reading again proves it
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]


def test_camera_a_grown_stack_shows_its_old_top_as_the_hand_leaves() -> None:
    """Room game 112: the stack landed on a stack of the other colour under the hand; read
    at its old height it showed its old top the frame the hand left, which made the other
    landing (a stack of the mover's colour, unchanged) the only one that fitted."""
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, other = found
    f = feeder(g, True)
    lifted = at(board(g, True), s, ".")
    f.read(at(lifted, other, "?"))  # the hand sets the stack down on ``other``
    f.read(lifted, hold=0.1)  # it leaves: ``other`` shows its old top one frame
    assert f.ctl.actions == [str(m) for m in g.move_stack]
    mover = g.stack(s)[-1]
    f.read(at(lifted, other, mover))  # then the new one
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[other]


def test_explain_uses_every_readable_cell() -> None:
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, other = found
    e = explain(g, Expected.of(g), at(board(g, True), s, "."))
    assert e.move == Move.step(s, d)
    theirs = "b" if g.turn == "w" else "w"  # no single move puts this on top there
    wrong = at(at(board(g, True), s, "."), other, "r" if g.stack(other)[-1] != "r" else theirs)
    assert explain(g, Expected.of(g), wrong).kind == MISMATCH


# ----------------------------------------------------------------------- hall: forward first
def test_hall_the_49th_piece_lifted_at_once_is_a_lift_not_a_take_back() -> None:
    g = Game.from_moves(PLACEMENT[:-1])
    last = Move.parse(PLACEMENT[-1]).target
    assert last is not None
    f = feeder(g, False)
    full = board(Game.from_moves(PLACEMENT))
    f.read(full)
    assert f.ctl.actions == PLACEMENT
    f.read(at(full, last, "."))
    assert f.ctl.actions[:49] == PLACEMENT  # the placement stays
    e = f.ctl.explanation
    assert e.kind == LIFTED and e.source == last or f.ctl.actions[-1].startswith(PLACEMENT[-1])


def test_hall_undo_button_takes_back_even_when_a_lift_would_explain() -> None:
    g = Game.from_moves(PLACEMENT)
    f = feeder(g, False)
    f.press("undo")
    assert f.ctl.actions == PLACEMENT[:-1]
    last = Move.parse(PLACEMENT[-1]).target
    assert last is not None
    f.read(at(board(g), last, "."))
    assert f.ctl.actions == PLACEMENT[:-1] and "mismatch" not in f.roles().values()


# ----------------------------------------------------------------------- catch-up
def _unique_pair(colours: bool) -> Callable[[Game], object]:
    def pred(g: Game) -> tuple[Move, Move] | None:
        for m1 in steps(g)[:6]:
            g1 = after(g, m1)
            if g1.is_over() or g1.placing:
                continue
            for m2 in steps(g1)[:6]:
                snap = board(after(g1, m2), colours)
                d = decide(search(g, snap))
                if d.kind == "commit" and d.moves and [m for m in d.moves if not m.is_pass] \
                        == [m1, m2]:
                    return m1, m2
        return None
    return pred


@pytest.mark.parametrize("colours", [True, False], ids=["camera", "hall"])
def test_two_missed_moves_are_committed_in_order(colours: bool) -> None:
    g, found = first(_unique_pair(colours))
    assert isinstance(found, tuple)
    m1, m2 = found
    f = feeder(g, colours)
    f.read(board(after(g, m1, m2), colours))  # nothing was seen in between
    played = [a for a in f.ctl.actions if a != "PASS"]
    assert played == [str(m) for m in after(g, m1, m2).move_stack if not m.is_pass]
    assert f.ctl.caught_up and f.ctl.caught_up[-1] == 2


def _ambiguous_then_lift(g: Game) -> tuple[int, Move, int] | None:
    """Hall: a move whose destination the readings cannot see, then the next player's lift,
    with two destinations still possible."""
    for s in iter_cells(g.movable()):
        dests = list(iter_cells(g.destinations(s)))
        if len(dests) < 2:
            continue
        truth = Move.step(s, dests[0])
        g1 = after(g, truth)
        if g1.is_over() or g.removal_if(truth):
            continue
        for s2 in iter_cells(g1.movable()):
            snap = at(at(board(g), s, "."), s2, ".")
            d = decide(search(g, snap))
            if d.kind == "choose" and (d.choice >> dests[0]) & 1 and d.source == s:
                return s, truth, s2
    return None


def test_a_pending_prompt_does_not_block_the_next_player() -> None:
    g, found = first(_ambiguous_then_lift)
    assert isinstance(found, tuple)
    s, truth, s2 = found
    assert truth.target is not None
    f = feeder(g, False)
    lifted = at(board(g), s, ".")
    f.read(lifted)
    assert f.ctl.view().prompt == "choose-destination"
    both = at(lifted, s2, ".")  # nobody answered; the next player lifts a stack
    f.read(both)
    assert f.ctl.actions == [str(m) for m in g.move_stack]  # never a guess
    assert (f.ctl.explanation.choice >> truth.target) & 1
    f.read(at(both, truth.target, "."))  # the gesture on the first move's destination
    f.read(both)
    assert f.ctl.actions[-1] == str(truth)
    assert f.ctl.explanation.kind == LIFTED and f.ctl.explanation.source == s2


def test_a_budget_cut_while_looking_one_action_further_still_prompts() -> None:
    """While a prompt is unanswered one action more still counts; when the node budget runs
    out on those longer sequences (hall seed 49: 23 stacks cut off and taken away one by
    one read like as many lifts), every sequence of the fewest actions is still there: the
    prompt stays (no mismatch flickering on and off), a choice commits that first action
    only, and nothing is committed unasked."""
    g, found = first(_ambiguous_then_lift)
    assert isinstance(found, tuple)
    s, truth, s2 = found
    assert truth.target is not None
    snap = at(at(board(g), s, "."), s2, ".")
    fewest = search(g, snap)  # every sequence of the fewest actions
    cut = search(g, snap, extra=1, nodes=fewest.nodes + 1)
    assert cut.truncated and cut.level_done
    assert {h.moves for h in cut.hypotheses} == {h.moves for h in fewest.hypotheses}
    d = decide(cut, slack=1)
    assert d.kind == "choose" and (d.choice >> truth.target) & 1
    chosen = decide(cut, slack=1, pick=truth.target)
    assert chosen.kind == "commit" and chosen.moves == (truth,)
    short = search(g, snap, extra=1, nodes=fewest.nodes - 1)  # the fewest not all seen
    assert short.truncated and not short.level_done and decide(short).kind == "none"


def test_nothing_explains_it_is_a_mismatch_then_the_next_snapshot_is_looked_at() -> None:
    g = Game.from_moves(PLACEMENT)
    f = feeder(g, False)
    stuck = next(c for c in iter_cells(g.occupied) if not (g.movable() >> c) & 1)
    f.read(at(board(g), stuck, "."))  # a stack that cannot move is knocked off
    assert f.roles() == {CELL_NAMES[stuck]: "mismatch"}
    s = next(iter_cells(g.movable()))
    f.read(at(board(g), s, "."))  # put back, and White lifts a stack
    assert f.ctl.explanation.kind == LIFTED and f.ctl.explanation.source == s


def test_too_far_behind_is_a_mismatch_until_the_board_allows() -> None:
    snap = edit(board(Game()), A1="x", B1="x", C1="x", D1="x")  # four placements missed
    f = Feeder()
    f.read(board(Game()))
    f.read(snap)
    assert f.ctl.actions == [] and set(f.roles().values()) == {"mismatch"}
    assert decide(search(Game(), snap, limits=Limits(depth=4))).kind != "none"


def test_the_search_is_bounded_and_says_so() -> None:
    g = Game.from_moves(PLACEMENT)
    snap = board(g)
    for c in list(iter_cells(g.movable()))[:3]:
        snap = at(snap, c, ".")
    r = search(g, snap, limits=Limits(nodes=2))
    assert r.truncated and r.nodes == 2
    assert decide(r).kind == "none"  # cut short: it may miss explanations, so no guess
    assert search(g, snap, nodes=5).nodes == 5  # what is left of a snapshot's budget
    full = search(g, snap)
    assert not full.truncated and full.nodes <= Limits().nodes
    assert search(g, snap).nodes == full.nodes  # positions, not seconds: the same every time


def test_one_budget_per_snapshot_then_the_next_reading_goes_on() -> None:
    """All the searches answering one stable snapshot share one node budget: when it runs
    out the board is a mismatch (never a guess, never a stall), and the next reading that
    differs is answered afresh. The same log gives the same answers on any machine."""
    g, found = first(_unique_pair(False))
    assert isinstance(found, tuple)
    m1, m2 = found
    both = board(after(g, m1, m2), False)
    need = search(g, both).nodes
    f = feeder(g, False)
    f.ctl.limits = Limits(snapshot=need - 1)  # one position short of the catch-up
    spent = len(f.ctl.searches)
    f.read(both)
    assert sum(r.nodes for r in f.ctl.searches[spent:]) <= need - 1
    assert f.ctl.actions == [str(m) for m in g.move_stack]
    assert "mismatch" in f.roles().values() and f.ctl.exhausted
    f.read(both)  # the same reading again: nothing new to answer (it was answered)
    assert f.ctl.actions == [str(m) for m in g.move_stack]
    f.ctl.limits = Limits()
    g2 = after(g, m1, m2)
    while not g2.is_over() and g2.legal_moves() == [PASS]:
        g2.push(PASS)
    s3 = next(iter_cells(g2.movable()))
    f.read(at(both, s3, "."))  # the next player lifts a stack: a new reading, a new budget
    played = [a for a in f.ctl.actions if a != "PASS"]
    assert played == [str(m) for m in g2.move_stack if not m.is_pass]
    assert f.ctl.explanation.kind == LIFTED and f.ctl.explanation.source == s3


# ----------------------------------------------------------------------- polarity
def _feed(ctl: TableController, t: float, cells: str, polarity: str) -> float:
    ctl.handle(SnapshotEvent(t, cells, polarity))
    ctl.advance(t + 1.0)
    return t + 1.0


def _polarity(g: Game) -> str:
    return "".join(("s" if s[0] == "b" else "n") if s else "." for s in g.stacks())


def test_polarity_names_a_wrong_colour_placement() -> None:
    g = Game.from_moves(PLACEMENT[:5])  # White places next
    ctl = TableController(game=g, colours=False)
    t = _feed(ctl, 0.0, board(g), _polarity(g))
    cell = Move.parse(PLACEMENT[5]).target
    assert cell is not None
    wrong = after(g, Move.place(cell))
    piece = g.piece_to_place()
    bad = at(_polarity(wrong), cell, "n" if piece == "b" else "s")  # the other colour
    t = _feed(ctl, t, board(wrong), bad)
    assert ctl.actions == PLACEMENT[:5]
    assert ctl.view().named_roles() == {CELL_NAMES[cell]: "mismatch"}
    _feed(ctl, t, board(wrong), _polarity(wrong))  # swapped for a white one
    assert ctl.actions == PLACEMENT[:6]


def test_polarity_check_can_be_turned_off() -> None:
    g = Game.from_moves(PLACEMENT[:5])
    ctl = TableController(game=g, colours=False, polarity=False)
    t = _feed(ctl, 0.0, board(g), _polarity(g))
    cell = Move.parse(PLACEMENT[5]).target
    assert cell is not None
    wrong = after(g, Move.place(cell))
    _feed(ctl, t, board(wrong), at(_polarity(wrong), cell, "s"))
    assert ctl.actions == PLACEMENT[:6]


def _two_movers(g: Game) -> tuple[int, int, int] | None:
    """Two stacks of the side to act, apart, the second with a landing that changes its top."""
    for s in iter_cells(g.movable()):
        if g.stack(s)[-1] != g.turn or same_colour_targets(g, s):
            continue  # (lifted, it may land anywhere: every landing shows)
        for t in iter_cells(g.movable() & ~(1 << s)):
            if g.stack(t)[-1] != g.turn or t in NEIGHBOURS[s]:
                continue
            for x in iter_cells(g.destinations(t)):
                if g.stack(x)[-1] != g.turn and x != s and x not in NEIGHBOURS[s]:
                    return s, t, x
    return None


def test_camera_a_stack_gone_for_seconds_is_not_put_back_under_a_hand() -> None:
    """Room game 101: A3 lifted (read empty for 8 s), then a hand over it and I5 moved; I5I3
    was committed as if A3 had been put back under the hand (a stack put back is only seen
    when the hand leaves)."""
    g, found = first(_two_movers)
    assert isinstance(found, tuple)
    s, t, x = found
    f = feeder(g, True)
    lifted = at(board(g, True), s, ".")
    f.read(lifted, hold=3.0)
    assert f.ctl.explanation.kind == LIFTED and f.ctl.explanation.source == s
    moved = at(at(lifted, t, "."), x, g.stack(t)[-1])
    f.read(at(moved, s, "?"))  # a hand over the lifted stack's cell; t moved onto x
    assert f.ctl.actions == [str(m) for m in g.move_stack]  # no guess
    f.read(at(moved, s, g.stack(s)[-1]))  # the hand leaves: s stands again
    assert f.ctl.actions[-1] == CELL_NAMES[t] + CELL_NAMES[x]
