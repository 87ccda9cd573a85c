"""What the controller does with the catch-up search's explanations: commit only what every
explanation agrees on, prompt where they differ, wait where a cell they change is unseen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.table.catchup import Hypothesis, Result, cells_of
from engine.game import Game
from engine.geometry import spread
from engine.move import PASS, Move

#: Seconds a sequence may run against the order its cells were seen to empty in, when no
#: sequence in that order explains the board (camera benchmark game 22: 1.1 s, a vacated cell
#: flickering between empty and a top).
MAX_DISORDER = 3.0


@dataclass(frozen=True)
class Decision:
    """What the controller should do with a search result.

    ``kind``: 'idle' (nothing happened), 'commit' (take back ``back`` actions and play
    ``moves``: certain), 'lifted' (a stack of the side to act is in the hand: ``source``),
    'choose' (sequences that differ: ``choice`` are the cells that tell them apart, the
    targets of their first differing action; ``source`` its common source if any), 'wait'
    (an explanation touches an unreadable cell) or 'none' (nothing explains the board, or the
    search was cut short by its node bound: then it is not known what else would).
    """

    kind: str
    back: int = 0
    moves: tuple[Move, ...] = ()
    source: int | None = None
    choice: int = 0
    options: tuple[Hypothesis, ...] = ()
    by_source: bool = False  # 'choose': the cells are the sources (the targets are the same)


def _first_difference(pool: Sequence[Hypothesis]) -> int:
    """Index of the first action on which the sequences of ``pool`` (same ``back``) differ."""
    i = 0
    while True:
        seen = {h.moves[i] if i < len(h.moves) else None for h in pool}
        if len(seen) != 1 or None in seen:
            return i
        i += 1


def decide(result: Result, *, pick: int | None = None, slack: int = 0,
           picks: Sequence[int] = ()) -> Decision:
    """Turn hypotheses into one decision: commit only what every explanation agrees on.

    ``pick``: a cell the players pointed at (gesture, next/confirm) among the cells that tell
    the sequences apart; it keeps the sequences whose first differing action lands there.
    When every first action lands on the same cell but they start from different stacks
    (a blackout, then everything cut off: the board cannot tell), the cells that tell them
    apart are the sources (``by_source``), and a pick keeps the sequences starting there.
    ``picks``: the cells pointed at so far for this prompt, one per stage, in order.
    ``slack``: explanations with up to that many more actions than the fewest still count
    (while a prompt is unanswered, a cut-off stack taken away and the next player's lift
    read the same).
    """
    hyps = result.hypotheses
    if not hyps or result.truncated and not result.level_done:
        return Decision("none")  # a search cut short may miss explanations: no guess
    cut = result.truncated  # only the longer sequences are missing: prompt, never commit
    none = Decision("none")
    back = min(h.back for h in hyps)
    hyps = [h for h in hyps if h.back == back]
    # what was seen to empty first happened first: sequences out of that order only count
    # when nothing else explains the board, and never rewrite the record: a take-back is the
    # undo button or a board that only a take-back explains (hall seed 420: a stack knocked
    # read as two moves taken back and another that cut off stacks gone long before)
    ordered = [h for h in hyps if h.ordered]
    if back and not ordered:
        return Decision("none")
    # and only as far out of that order as a flickering cell can put it: a cell seen empty
    # for seconds while another stood is a misread board, not a move (camera benchmark game
    # 20: a vacated cell never read empty, and the only explanation left had a stack land on
    # a cell seen empty 8 s before that stack was lifted)
    hyps = ordered or [h for h in hyps if h.disorder <= MAX_DISORDER]
    if not hyps:
        return Decision("none")
    if back == 0 and any(h.complete and not h.moves for h in hyps):
        return Decision("idle")
    # the fewest actions explain it best (a stack in the hand counts as one): a cut-off stack
    # taken away reads like a stack lifted, and is not also a move of the opponent
    cost = min(h.cost for h in hyps)
    hyps = [h for h in hyps if h.cost <= cost + slack]
    complete = [h for h in hyps if h.complete]
    pool = complete or hyps
    if complete and any(h.moves and h.moves[:1] not in {c.moves[:1] for c in complete}
                        for h in hyps):
        # a stack still in the hand explains it as well, after another first move: the
        # explanations that set every stack down do not decide that move (simulated camera
        # session 422: F4E3, then E3 on to a stack of its colour, for F4G5 and E3 lifted)
        pool = hyps
    lifts = [h for h in hyps if not h.moves and h.lifted is not None and h.certain]
    wait = Decision("wait", source=lifts[0].lifted if lifts else None)
    certain = all(h.certain for h in pool)
    if len({(h.key, h.lifted) for h in pool}) == 1:
        if not certain:
            return wait
        h = pool[0]
        if not h.moves and h.lifted is not None:
            if h.back:
                return none if cut else Decision("commit", back=h.back)
            return Decision("lifted", source=h.lifted)
        return none if cut else Decision("commit", back=h.back, moves=h.moves)
    i = _first_difference(pool)
    if i > 0 or back:
        if not certain:
            return wait
        return none if cut else Decision("commit", back=back, moves=pool[0].moves[:i])
    firsts = {h.moves[0] if h.moves else None for h in pool}
    choice = 0
    sources = set()
    for m in firsts:
        if m is not None and m.target is not None:
            choice |= 1 << m.target
            sources.add(m.source)
    by_source = (None not in firsts and not choice & (choice - 1) and len(sources) > 1
                 and None not in sources)
    if by_source:
        choice = sum(1 << c for c in sources if c is not None)
    chain = list(picks) if picks else ([] if pick is None else [pick])
    if chain and (choice >> chain[0]) & 1:
        p = chain[0]
        kept = [h for h in pool if h.moves and
                (h.moves[0].source if by_source else h.moves[0].target) == p]
        if cut and len({h.moves[0] for h in kept}) == 1:
            # the players chose the first action: that one is theirs, what follows it is not
            # known to be all there
            if not all(h.certain for h in kept):
                return wait
            return Decision("commit", moves=kept[0].moves[:1])
        return decide(Result(kept, result.nodes, result.truncated, result.seconds,
                             result.level_done), picks=chain[1:])
    if None in firsts:  # a lifted stack still in the air versus a landing: wait for it
        lifts = [h for h in pool if not h.moves]
        return Decision("lifted", source=lifts[0].lifted, choice=choice, options=tuple(pool))
    source = sources.pop() if len(sources) == 1 else None
    return Decision("choose", source=source, choice=choice, options=tuple(pool),
                    by_source=by_source)


def lands(d: Decision, cell: int, by_source: bool) -> bool:
    """Whether the first move a commit plays starts (``by_source``) or lands on ``cell``."""
    first = next((m for m in d.moves if not m.is_pass), None)
    if d.back or first is None:
        return False
    return (first.source if by_source else first.target) == cell


def taken_back(game: Game, n: int) -> Game:
    """A copy of ``game`` with its last ``n`` actions taken back, each with the forced passes
    after it."""
    g = game.copy()
    for _ in range(n):
        while g.move_stack and g.move_stack[-1].is_pass:
            g.pop()
        if g.move_stack:
            g.pop()
    return g


def touches(game: Game, d: Decision, cells: int) -> bool:
    """Whether a commit changes a stack at or next to one of ``cells`` (a commit is held back
    while such a cell is not settled: a sleeve or a hand over it can read like a piece, and
    what it read must not become a move or rewrite one)."""
    if d.kind != "commit" or not cells:
        return False
    g = game.copy()
    changed = 0  # the cells of the moves taken back or made, and the stacks they cut off
    for _ in range(d.back):
        while g.move_stack and g.move_stack[-1] == PASS:
            g.pop()
        if g.move_stack:
            changed |= g.last_removed | cells_of(g.move_stack[-1])
            g.pop()
    for move in d.moves:
        changed |= g.push(move) | cells_of(move)
    return bool((changed | spread(changed)) & cells)
