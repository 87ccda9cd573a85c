"""Phase 2 with occupancy only: lifts, unique commits, prompts, gestures, cancels, mistakes."""

from __future__ import annotations

from table_helpers import Feeder, board, find_position, popcount, step_moves

from controller.table.expected import Expected
from controller.table.inference import LIFTED, MISMATCH, MOVE, explain
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import Move


def lifted(snap: str, cell: int, value: str = ".") -> str:
    return snap[:cell] + value + snap[cell + 1:]


def start(game: Game, **kw: object) -> Feeder:
    f = Feeder(game=game, **kw)  # type: ignore[arg-type]
    f.read(board(game))
    assert f.ctl.explanation.kind == "idle"
    return f


def played(f: Feeder) -> list[str]:
    """Actions committed after the 49 placements."""
    return f.ctl.actions[49:]


def unique_source(g: Game) -> int | None:
    for s in iter_cells(g.movable()):
        if popcount(g.destinations(s)) == 1:
            return s
    return None


def multi_source(g: Game, n: int = 2) -> int | None:
    for s in iter_cells(g.movable()):
        if popcount(g.destinations(s)) >= n:
            return s
    return None


def test_lift_shows_source_and_destinations(placed: Game) -> None:
    f = start(placed)
    s = next(iter_cells(placed.movable()))
    f.read(lifted(board(placed), s))
    roles = f.roles()
    assert roles[CELL_NAMES[s]] == "source"
    dests = {CELL_NAMES[c] for c in iter_cells(placed.destinations(s))}
    assert {n for n, r in roles.items() if r == "destination"} == dests
    view = f.ctl.view()
    assert view.prompt == "choose-destination" and view.blink == frozenset(
        iter_cells(placed.destinations(s)))
    prompts = [r for r in f.trace if "prompt" in r]
    assert prompts[-1]["cells"] == sorted(dests, key=CELL_NAMES.index)
    assert played(f) == []


def test_unique_destination_commits_on_lift() -> None:
    g = find_position(lambda g: unique_source(g) is not None)
    s = unique_source(g)
    assert s is not None
    d = g.destinations(s).bit_length() - 1
    f = start(g)
    f.read(lifted(board(g), s))
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]
    # setting it down on the target changes nothing a hall sensor sees
    f.read(lifted(board(g), s))
    assert f.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]


def test_set_back_after_a_committed_move_takes_it_back() -> None:
    g = find_position(lambda g: unique_source(g) is not None)
    s = unique_source(g)
    assert s is not None
    f = start(g)
    n = len(f.ctl.actions)
    f.read(lifted(board(g), s))
    assert len(f.ctl.actions) > n
    f.read(board(g))
    assert len(f.ctl.actions) == n and f.ctl.game == g
    assert f.roles() == {CELL_NAMES[c]: "last" for c in _last(g)}


def _last(g: Game) -> list[int]:
    for m in reversed(g.move_stack):
        if m.is_step:
            assert m.source is not None and m.target is not None
            return [m.source, m.target]
    return []


def test_gesture_on_a_candidate_commits(placed: Game) -> None:
    f = start(placed)
    s = next(iter_cells(placed.movable()))
    d = list(iter_cells(placed.destinations(s)))[-1]
    snap = lifted(board(placed), s)
    f.read(snap)
    f.read(lifted(snap, d))  # lift the destination stack ...
    assert played(f) == [] and f.roles()[CELL_NAMES[d]] == "destination"
    f.read(snap)  # ... and set it back
    assert played(f) == [CELL_NAMES[s] + CELL_NAMES[d]]
    assert f.roles() == {CELL_NAMES[s]: "last", CELL_NAMES[d]: "last"}


def test_next_and_confirm_buttons_commit_the_suggestion(placed: Game) -> None:
    f = start(placed)
    s = next(iter_cells(placed.movable()))
    cands = list(iter_cells(placed.destinations(s)))
    f.read(lifted(board(placed), s))
    f.press("confirm")  # nothing suggested yet: suggests the first
    assert f.roles()[CELL_NAMES[cands[0]]] == "suggest" and played(f) == []
    f.press("next")
    assert f.roles()[CELL_NAMES[cands[1]]] == "suggest"
    assert f.roles()[CELL_NAMES[cands[0]]] == "destination"
    f.press("confirm")
    assert played(f) == [CELL_NAMES[s] + CELL_NAMES[cands[1]]]


def test_next_cycles_back_to_the_first(placed: Game) -> None:
    f = start(placed)
    s = next(iter_cells(placed.movable()))
    cands = list(iter_cells(placed.destinations(s)))
    f.read(lifted(board(placed), s))
    for _ in range(len(cands) + 1):
        f.press("next")
    assert f.ctl.suggested == cands[0]


def test_buttons_do_nothing_when_idle(placed: Game) -> None:
    f = start(placed)
    f.press("next")
    f.press("confirm")
    assert f.ctl.actions == list(map(str, placed.move_stack))


def test_set_back_on_source_cancels(placed: Game) -> None:
    f = start(placed)
    s = next(iter_cells(placed.movable()))
    f.read(lifted(board(placed), s))
    f.press("next")
    f.read(board(placed))
    assert f.ctl.actions == list(map(str, placed.move_stack))
    assert f.roles() == {} and f.ctl.suggested is None


def test_opponents_stack_lifted_is_a_mismatch(placed: Game) -> None:
    f = start(placed)
    theirs = next(iter_cells(placed.black_stacks))
    f.read(lifted(board(placed), theirs))
    assert f.roles() == {CELL_NAMES[theirs]: "mismatch"}
    f.read(board(placed))
    assert f.roles() == {}


def test_immobile_stack_lifted_is_a_mismatch(placed: Game) -> None:
    stuck = next(c for c in iter_cells(placed.white_stacks) if not (placed.movable() >> c) & 1)
    f = start(placed)
    f.read(lifted(board(placed), stuck))
    assert f.roles() == {CELL_NAMES[stuck]: "mismatch"}


def test_knock_while_lifted_is_a_mismatch_until_restored(placed: Game) -> None:
    f = start(placed)
    s, k = list(iter_cells(placed.movable()))[:2]  # the same side cannot move twice
    snap = lifted(board(placed), s)
    f.read(snap)
    f.read(lifted(snap, k))
    assert f.roles() == {CELL_NAMES[s]: "mismatch", CELL_NAMES[k]: "mismatch"}
    f.read(snap)  # knocked piece back, stack still in the hand: the lift is seen again
    assert f.roles()[CELL_NAMES[s]] == "source"
    f.read(board(placed))
    assert f.roles() == {}
    f.read(snap)
    assert f.roles()[CELL_NAMES[s]] == "source"


def test_piece_on_an_empty_space_in_phase_2_is_a_mismatch() -> None:
    g = find_position(lambda g: g.occupied != (1 << 49) - 1 and bool(_far_holes(g)))
    hole = _far_holes(g)[0]  # a take-back of the last actions does not refill it
    f = start(g)
    f.read(lifted(board(g), hole, "x"))
    assert f.roles() == {CELL_NAMES[hole]: "mismatch"}
    f.read(board(g))
    assert f.ctl.explanation.kind == "idle"


def _far_holes(g: Game) -> list[int]:
    """Empty cells that taking back the last two actions would not fill."""
    back = g.copy()
    for _ in range(3):
        while back.move_stack and back.move_stack[-1].is_pass:
            back.pop()
        if back.move_stack:
            back.pop()
    return [c for c in range(49) if not ((back.occupied | g.occupied) >> c) & 1]


def test_explain_removal_read_empty_is_evidence() -> None:
    """With occupancy only, a cut-off stack already taken away tells the moves apart."""

    def pick(g: Game) -> bool:
        return _removal_case(g) is not None

    g = find_position(pick, seed=3)
    case = _removal_case(g)
    assert case is not None
    move, cut = case
    assert move.source is not None
    snap = lifted(board(g), move.source)
    assert explain(g, Expected.of(g), snap).kind == LIFTED
    for c in iter_cells(cut):
        snap = lifted(snap, c)
    e = explain(g, Expected.of(g), snap)
    assert e.kind == MOVE and e.move == move


def _removal_case(g: Game) -> tuple[Move, int] | None:
    """A move whose cut-off cells no other move from its source cuts off."""
    for s in iter_cells(g.movable()):
        moves = [m for m in step_moves(g) if m.source == s]
        if len(moves) < 2:
            continue
        cuts = {m: g.removal_if(m) for m in moves}
        for m, cut in cuts.items():
            if cut and all(not cut & ~o or o & cut != cut for mm, o in cuts.items() if mm != m):
                if all(o & cut != cut for mm, o in cuts.items() if mm != m):
                    return m, cut
    return None


def test_two_sources_lifted_is_a_mismatch(placed: Game) -> None:
    a, b = list(iter_cells(placed.movable()))[:2]
    snap = lifted(lifted(board(placed), a), b)
    e = explain(placed, Expected.of(placed), snap)
    assert e.kind == MISMATCH and e.mismatch == (1 << a) | (1 << b)
