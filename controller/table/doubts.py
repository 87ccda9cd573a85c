"""What a camera reading leaves in doubt: a commit that must wait for readings still settling
where its action may have gone (:func:`unsettled`), and tops read where no stack can stand
(:func:`phantoms`)."""

from __future__ import annotations

from collections.abc import Callable, Collection

from controller.table.decision import Decision
from engine.game import Game
from engine.geometry import iter_cells


def unsettled(game: Game, d: Decision, pending: int, hidden: int = 0,
              seen: Callable[[int], float] | None = None, fresh: int = 0,
              flickered: int = 0, shown: Callable[[int], float] | None = None) -> bool:
    """Whether a commit must wait for readings still settling where its first action may
    have gone: another landing cell of the moved stack, or another empty cell for a
    placement (a hand just leaving shows the landing cell a moment after the source: camera
    benchmark game 10 committed I1K3 while I3's new top was still settling, for I1I3).

    Several placements at once wait while an empty cell reads '?' (``hidden``) since before
    the last of them was seen (``seen``): the piece the camera cannot name yet may come
    before some of them, and the order is the game (camera benchmark game 19: C4 read '?'
    under glare, then C5 and F1 came, and F1 C5 was committed for C4 C5 F1). A '?' that
    began later is a hand or a flicker, not an earlier piece. So do they while a cell empty in
    the game that read a new top before the last of them (``shown``) reads '?' now: that piece
    came before (room game 138: Black's D5 under a lamp's spot read '.'; White's D1 and
    Black's H5 were read, then hidden by a hand when J5 I4 C3 were, committed for Black's
    piece and the two after it).

    A move also waits while another landing cell of its stack shows what it shows for the first
    time since a hand left it (``fresh``): a stack grown under the hand, read at its old
    height, shows its old top a moment (room game 112: E4, and E1H1 was committed for E1E4).

    A take-back waits while a cell its moves land on read empty in the last half second
    (``flickered``): a vacated cell flickering a top is no landing (room game 123: C4,
    vacated, read 'w' by turns, and C5D5 was rewritten as C5C4)."""
    first = next((m for m in d.moves if not m.is_pass), None)
    if d.kind != "commit" or first is None:
        return False
    if d.back and any(m.target is not None and (flickered >> m.target) & 1 for m in d.moves):
        return True
    cells = [m.target for m in d.moves if m.source is None and m.target is not None]
    if first.source is None and len(cells) > 1 and seen is not None:
        last = max(seen(c) for c in cells)
        # (a top read by turns with '?' is seen again at each read: its first read counts)
        tops = [shown(c) for c in cells] if shown is not None else []
        lastshown = max((x for x in tops if x < float("inf")), default=-float("inf"))
        if any(seen(c) < last or shown is not None and shown(c) < lastshown
               for c in iter_cells(hidden & ~game.occupied)):
            return True
    if first.source is None:
        return bool(pending & ~game.occupied)
    return bool((pending | fresh & ~(1 << first.target if first.target is not None else 0))
                & game.destinations(first.source))


def phantoms(game: Game, snap: str, removals: Collection[int], moved: int = 0) -> str:
    """``snap`` with the tops read on empty cells in the moving phase unknown: an empty cell
    never fills again, so a top read there (not a cut-off stack still standing, nor the
    source of one of the last two moves, which a take-back refills) is something else the
    camera sees: a neighbour taller than the heights say seen past it, a stack carried over
    it, a sleeve (camera benchmark game 13: C1C4 made C4 taller, its side read as a black top
    on C5, and no explanation fitted the board again). A red top there is never a stack: a
    stack topped by a DVONN piece is nobody's to move, and what a take-back refills, or a
    cut-off stack, holds none (room game 116: H5, behind the tall G5 its stack went onto,
    read red now and then, and that kept every later explanation away).

    Nor does a move leave a red top where the top was white or black: such a stack the
    camera saw moved (``moved``) and now reads red is gone, its cell's print read red (room
    game 115: C2 and B1 vacated on a salmon-filled print, read red to the end of the game)."""
    if game.placing:
        return snap
    refill = {m.source for m in [m for m in game.move_stack if not m.is_pass][-2:]}
    occupied = game.occupied
    out = list(snap)
    for c, ch in enumerate(snap):
        if ch in "wbr" and not (occupied >> c) & 1 and (
                ch == "r" or c not in removals and c not in refill):
            out[c] = "?"
        elif ch == "r" and (occupied & moved) >> c & 1 and game.stack(c)[-1] != "r":
            out[c] = "."
    return "".join(out)
