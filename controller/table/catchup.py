"""Catch-up search: the short action sequences whose resulting board explains a snapshot.

Each candidate sequence (some of the last actions taken back, then a few legal actions
forward, forced passes included, optionally ending with a stack of the side to act held in
the air) predicts the whole board: every occupied cell and, with a camera, its top colour;
stacks cut off on the way may still stand or be gone. A sequence is kept when its prediction
agrees with every readable cell of the snapshot; unchanged cells are evidence too.

Pruning follows the sensors: in phase 2 an empty cell never fills again, so every source of a
forward move must read empty, and a cell that reads occupied must be occupied (or a cut-off
stack still standing) at the end; a stack that reads empty beside the stacks that stay, linked
through them to a DVONN piece, is never cut off, so each such stack costs an action of its
own (room game 116: a move that cut off 16 stacks, all taken away, then a stack lifted: every
stack read empty was a source, and the search ran out of positions). In phase 1 a placement
goes on a cell that reads occupied, with the right colour (camera) or magnet polarity (hall
board). Take-backs are searched only when nothing forward explains the snapshot (a forward
explanation always wins).

The search is bounded by plies and by positions visited (nodes), never by the clock: the
same log gives the same game on any machine, however loaded. A search cut by its node bound
has not seen every explanation, so ``decision.decide`` commits nothing from it (``truncated``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.game import Game
from engine.geometry import NUM_CELLS, flood, iter_cells, spread
from engine.move import PASS, Move

EMPTY = "."
UNKNOWN = "?"
#: Bottom-magnet polarity each piece shows on the hall board: 'n' white or red, 's' black.
POLARITY = {"w": "n", "r": "n", "b": "s"}


@dataclass(frozen=True)
class Limits:
    """Bounds of the search: forward plies (forced passes not counted), actions taken back,
    positions visited by one search (``nodes``) and by all the searches that answer one stable
    snapshot together (``snapshot``: the controller's chain of inference passes shares it).
    Positions, not seconds: a replay must not depend on the machine's load."""

    depth: int = 3
    back: int = 2
    nodes: int = 2000
    snapshot: int = 3000


#: In the placing phase, how many placements past ``Limits.depth`` one search may explain.
PLACING_BEHIND = 5
#: While a prompt is unanswered, how many actions past ``Limits.depth`` (and ``extra``).
UNANSWERED_BEHIND = 4


@dataclass(frozen=True)
class Hypothesis:
    """One explanation of a snapshot: take back ``back`` actions (each with the forced passes
    after it), then play ``moves`` (forced passes included); ``lifted`` is a stack of the side
    to act then held in the air (None: nothing in the hand). ``key`` identifies the resulting
    position and record (hash, ply, cut-off cells still to go, the stacks cut off);
    ``certain`` is False when a cell whose reading the sequence changes is unreadable now
    (then it must not be committed), unless a later move of the other side, on cells read
    now, shows that action finished (camera game 7: J5 behind a grown stack moved to J4,
    which kept its colour, and Black's next move followed). ``ordered`` is False when the
    sequence disagrees with the order in which cells were seen to empty (a later move's
    source, or a stack cut off and taken away, seen empty before the source of the move that
    made it possible), both as seen and as far as a flickering cell may have hidden it."""

    back: int
    moves: tuple[Move, ...]
    lifted: int | None
    key: tuple[int, int, int, int]
    certain: bool
    ordered: bool = True
    #: seconds by which the sequence runs against that order at the most (the less of the
    #: order as seen and as ``search``'s ``loose`` has it; 0: ordered)
    disorder: float = 0.0

    @property
    def complete(self) -> bool:
        """True when no stack is still in the hand."""
        return self.lifted is None

    def real_moves(self) -> tuple[Move, ...]:
        """The moves without the forced passes."""
        return tuple(m for m in self.moves if not m.is_pass)

    @property
    def cost(self) -> int:
        """Actions the players must have made: moves (passes are forced) and a lift."""
        return sum(not m.is_pass for m in self.moves) + (self.lifted is not None)


@dataclass
class Result:
    """What a search found, and what it cost (``seconds`` is measured, never used to decide).
    ``truncated``: a node bound cut it, so ``hypotheses`` may miss explanations."""

    hypotheses: list[Hypothesis] = field(default_factory=list)
    nodes: int = 0
    truncated: bool = False
    seconds: float = 0.0
    #: truncated, but only while looking for sequences of ``extra`` more actions: every
    #: sequence of the fewest actions is there (enough to prompt, not to commit unasked)
    level_done: bool = False


class _Reading:
    """The snapshot as bit masks (and colours), for fast per-position checks."""

    def __init__(self, snap: str, polarity: str | None) -> None:
        self.snap = snap
        self.empty = 0
        self.full = 0
        self.colour = 0  # cells that read a top colour
        for c, ch in enumerate(snap):
            if ch == EMPTY:
                self.empty |= 1 << c
            elif ch != UNKNOWN:
                self.full |= 1 << c
                if ch != "x":
                    self.colour |= 1 << c
        self.readable = self.empty | self.full
        self.polarity = polarity if polarity and len(polarity) == NUM_CELLS else None


def _popcount(x: int) -> int:
    return bin(x).count("1")


class _Search:
    def __init__(self, game: Game, removals: Mapping[int, str],
                 history: Sequence[Mapping[int, str]], reading: _Reading, limits: Limits,
                 hidden: int = 0, first: int | None = None, nodes: int | None = None,
                 since: Sequence[float] | None = None, unseen: bool = False,
                 loose: Sequence[float] | None = None,
                 paths: Sequence[tuple[Move, ...]] = ()) -> None:
        self.g = game.copy()
        self.first = first
        self.removals = dict(removals)
        self.history = list(history)
        self.r = reading
        self.limits = limits
        self.out: list[Hypothesis] = []
        self.nodes = 0
        self.truncated = False
        self.max_nodes = limits.nodes if nodes is None else max(0, min(nodes, limits.nodes))
        self.moves: list[Move] = []
        self.cut: list[tuple[int, str]] = []  # stacks cut off on the way (the record differs)
        self.cut_by: list[tuple[int, int]] = []  # (cell cut off, source of the move that cut it)
        self.since = since
        self.loose = since if loose is None else loose  # (for Hypothesis.disorder)
        #: prune sequences out of the order cells were seen to empty in as they are built
        #: (the first pass; only when it finds nothing is every order searched)
        self.strict = False
        self.order: list[float] = []  # when each move's source was first seen empty
        self._after_cache: dict[float, int] = {}
        self.back = 0
        self.root = game.snapshot(bool(reading.colour))
        self.hidden = (~reading.readable | hidden) & ((1 << NUM_CELLS) - 1)
        #: stacks on unreadable cells may be sources too (they are never seen empty)
        self.unseen = ~reading.readable & ((1 << NUM_CELLS) - 1) if unseen else 0
        #: ``paths``: the only ways forward from the root are these sequences (each move
        #: with its forced passes), then anything from the end of one of them
        self.trie: dict[tuple[Move, ...], set[Move]] | None = None
        self.leaves = set(paths)
        self.past_leaf = False
        if paths and not game.placing:
            self.trie = {}
            for p in paths:
                for i, m in enumerate(p):
                    if not m.is_pass:
                        self.trie.setdefault(p[:i], set()).add(m)

    # -- the checks ---------------------------------------------------------------------------
    def _fits(self, removals: dict[int, str], lifted: int | None) -> bool:
        """Whether the current position (with ``removals`` standing or gone and ``lifted`` in
        the hand) agrees with every readable cell."""
        g, r = self.g, self.r
        occ = g.occupied
        rm = 0
        for c in removals:
            rm |= 1 << c
        lbit = 0 if lifted is None else 1 << lifted
        if r.empty & occ & ~lbit or r.full & ~(occ | rm) or r.full & lbit:
            return False
        if r.colour:
            snap = r.snap
            for c in iter_cells(r.colour):
                s = g.stack(c)
                top = s[-1] if s else removals.get(c, "x")
                if top != "x" and top != snap[c]:
                    return False
        return True

    def _record(self, removals: dict[int, str], lifted: int | None) -> None:
        rm = 0
        for c in removals:
            rm |= 1 << c
        certain = True
        hidden = self.hidden & ~rm
        if hidden:
            stacks = self.g.stacks()
            colours = bool(self.r.colour)
            changed = 0
            since = self.since
            acted = 0
            for m in self.moves:
                acted |= cells_of(m)
            for c in iter_cells(hidden):
                s = stacks[c]
                now = (s[-1] if colours else "x") if s else EMPTY
                if now != self.root[c] or s and c != lifted and since is not None \
                        and since[c] != math.inf and not (acted >> c) & 1 \
                        and not self.g.moves_from(1 << c):
                    # (a stack standing, no move of it, where it was last seen gone: put
                    # back under the hand, never proven by the moves around it; room game
                    # 101: A3 empty for 8 s, then under a hand, and I5I3 committed as if A3
                    # had stayed. A stack the side to act may have lifted since is in the
                    # hand, and one that moves or is landed on is the moves' to prove)
                    changed |= 1 << c
            certain = not changed or self._proven(changed)
        key = (self.g.zobrist, self.g.ply, rm, hash(tuple(self.cut)))
        # in order as seen, or as far as a flickering cell may have hidden it (simulated
        # camera session 118: E3 read its old top 1 s after it emptied, while the stacks its
        # move cut off were taken away; the longer ordered explanation was wrong)
        disorder = min(self._disorder(lifted, self.since), self._disorder(lifted, self.loose))
        self.out.append(Hypothesis(self.back, tuple(self.moves), lifted, key, certain,
                                   disorder == 0, disorder))

    def _proven(self, changed: int) -> bool:
        """Whether the last move acting on a ``changed`` cell (or cutting one off) is followed
        by a move of the other side whose cells are read now: that action is finished. A cell
        that only a take-back changes (its stack put back under a hand) is never proven."""
        cut = acted = 0
        for c, src in self.cut_by:
            acted |= 1 << c
            if (changed >> c) & 1:
                cut |= 1 << src
        for m in self.moves:
            acted |= cells_of(m)
        if changed & ~acted:
            return False
        last, mover = -1, 0
        turn = self.g.ply - len(self.moves)  # the ply of the first move (it alternates)
        for i, m in enumerate(self.moves):
            if not m.is_pass and (cells_of(m) & changed or m.source is not None
                                  and (cut >> m.source) & 1):
                last, mover = i, (turn + i) & 1
        return any(not m.is_pass and (turn + i) & 1 != mover and not cells_of(m) & self.hidden
                   for i, m in enumerate(self.moves[last + 1:], last + 1))

    def _disorder(self, lifted: int | None, since: Sequence[float] | None) -> float:
        """0 when the sources of the moves (then the stack in the hand) were seen to empty in
        the order of the moves, and every stack cut off and gone was seen to empty no sooner
        than the source of the move that cut it off (ties: seen in the same reading); else
        the most seconds by which a cell emptied before one it should have followed."""
        if since is None:
            return 0.0
        worst = 0.0
        last = float("-inf")
        for m in self.moves:
            if m.source is not None and (self.r.empty >> m.source) & 1:  # (else unseen)
                worst = max(worst, last - since[m.source])
                last = max(last, since[m.source])
        if lifted is not None:
            worst = max(worst, last - since[lifted])
        for c, src in self.cut_by:
            if (self.r.empty >> src) & 1:  # (else unseen: it has no time it emptied)
                worst = max(worst, since[src] - since[c])
        return worst

    def _spent(self) -> bool:
        if self.truncated:
            return True
        if self.nodes >= self.max_nodes:
            self.truncated = True
            return True
        self.nodes += 1
        return False

    # -- forward ------------------------------------------------------------------------------
    def forward(self, removals: dict[int, str], depth: int) -> None:
        """Record the explanations of at most ``depth`` actions from here (a stack in the hand
        counts as one)."""
        past = self.past_leaf
        allowed = None  # on the way along ``paths``: only their next moves
        if self.trie is not None and not self.back and not past:
            key = tuple(self.moves)
            if key in self.leaves:
                self.past_leaf = True  # the end of one: any sequence may follow
            else:
                allowed = self.trie.get(key, set())
        self._forward(removals, depth, allowed)
        self.past_leaf = past

    def _forward(self, removals: dict[int, str], depth: int, allowed: set[Move] | None
                 ) -> None:
        g, r = self.g, self.r
        occ = g.occupied
        gone = r.empty & occ
        if not g.placing and _popcount(gone) > depth:
            stay = occ & r.full  # (never a source again, so a DVONN piece's link for good)
            if _popcount(gone & spread(flood(g.red_stacks & stay, stay))) > depth:
                return  # more stacks must leave by their own moves than actions are left
        if self._spent():
            return
        rm = 0
        for c in removals:
            rm |= 1 << c
        missing = r.full & ~(occ | rm)  # read occupied, empty here: placements still to come
        placing = g.placing
        if not placing and missing:
            return  # phase 2 never fills an empty cell
        if placing and _popcount(missing) > min(depth, 49 - g.ply):
            return
        # the stacks that may have left (in the hand, or moved): they read empty, the first
        # one seen lifted comes first, and no sooner seen empty than the last move's source
        # (strict); only their moves are generated (the cost of a position is mostly move
        # generation: hall seeds 500, 991, camera 715)
        sources = 0
        moves: list[Move] = []
        if not placing:
            sources = (r.empty | self.unseen) & occ
            if self.first is not None and not self.moves and not self.back:
                sources &= 1 << self.first
            if self.strict and self.order and sources:
                sources &= self._after(self.order[-1]) | self.unseen
            if sources:
                moves = g.moves_from(sources)
            if allowed is not None:
                moves = [m for m in moves if m in allowed]
        if not missing and allowed is None:
            if self._fits(removals, None):
                self._record(removals, None)
            lifts = sources
            if depth >= 1 and not placing and lifts:
                movable = 0
                for m in moves:
                    if m.source is not None:
                        movable |= 1 << m.source
                for s in iter_cells(lifts & movable):
                    if self._fits(removals, s):
                        self._record(removals, s)
        if depth <= 0:
            return
        if placing:
            piece = g.piece_to_place()
            assert piece is not None
            cells = missing
            if not missing and depth >= 2 and g.ply == NUM_CELLS - 1:
                # the 49th piece on the last empty cell, then lifted at once by the first
                # move, all unseen (a blackout): its cell reads empty (hall seed 601), or
                # nothing under a lamp's glare (room game 113: C1, placed and moved to D1
                # within 1.4 s, then read '?' to the end)
                cells = (r.empty | ~r.readable) & ~occ & ((1 << NUM_CELLS) - 1)
            for c in iter_cells(cells):
                read = r.snap[c]
                if read not in ("x", piece, EMPTY, UNKNOWN):
                    continue
                if r.polarity is not None and r.polarity[c] in "ns" and \
                        r.polarity[c] != POLARITY[piece]:
                    continue
                self._step(Move.place(c), removals, depth)
            return
        for m in moves:
            self._step(m, removals, depth)

    def _after(self, t: float) -> int:
        """Mask of the cells first seen empty no sooner than ``t`` (cached per time)."""
        out = self._after_cache.get(t)
        if out is None:
            since = self.since
            assert since is not None
            out = 0
            for c in iter_cells(self.r.empty):
                if since[c] >= t:
                    out |= 1 << c
            self._after_cache[t] = out
        return out

    def _step(self, move: Move, removals: dict[int, str], depth: int) -> None:
        g = self.g
        cut = g.push_unchecked(move)
        after = removals
        ncut = len(self.cut)
        if cut:  # rare: read the cut-off stacks before the move, then play it again
            src = move.source
            assert src is not None
            since, loose = self.since, self.loose
            if self.strict and since is not None and loose is not None and any(
                    since[c] < loose[src] for c in iter_cells(cut & self.r.empty)):
                g.pop()  # a stack it cuts off was seen gone before its source emptied
                return
            g.pop()
            stacks = g.stacks()
            g.push_unchecked(move)
            after = dict(removals)
            for c in iter_cells(cut):  # a target cut off shows the moved stack's top
                stack = stacks[c] + (stacks[src] if c == move.target else "")
                after[c] = stack[-1]
                self.cut.append((c, stack))
                self.cut_by.append((c, src))
        passes = 0
        while g.must_pass():
            g.push_unchecked(PASS)
            passes += 1
        self.moves.append(move)
        self.moves.extend([PASS] * passes)
        ordered = (self.since is not None and move.source is not None
                   and bool((self.r.empty >> move.source) & 1))
        if ordered:  # (the next source no sooner than this one, as seen or as flickered)
            assert self.loose is not None and move.source is not None
            self.order.append(self.loose[move.source])
        self.forward(after, depth - 1)
        if ordered:
            self.order.pop()
        del self.moves[len(self.moves) - passes - 1:]
        del self.cut[ncut:]
        del self.cut_by[ncut:]
        for _ in range(passes + 1):
            g.pop()

    # -- take-backs then forward ----------------------------------------------------------
    def backward(self, k: int) -> bool:
        """Take back ``k`` actions (each with its forced passes), then search forward."""
        g = self.g.copy()
        saved_game = self.g
        self.g = g
        history = self.history
        removals: dict[int, str] = dict(self.removals)
        for _ in range(k):
            if not g.move_stack:
                self.g = saved_game
                return False
            while g.move_stack and g.move_stack[-1] == PASS:
                g.pop()
                history = history[:-1]
            if not g.move_stack:
                self.g = saved_game
                return False
            g.pop()
            removals = dict(history[-1]) if history else {}
            history = history[:-1]
        self.back = k
        # taken back, then at most the corrected action (a lift counts as one): a board that
        # needs more than that is a knock or a mistake, not a take-back
        for depth in range(min(1, self.limits.depth) + 1):  # the fewest actions first
            self.forward(removals, depth)
            if self.out or self.truncated:
                break
        self.g = saved_game
        return True


def search(
    game: Game,
    snap: str,
    *,
    removals: Mapping[int, str] | None = None,
    history: Sequence[Mapping[int, str]] = (),
    polarity: str | None = None,
    limits: Limits | None = None,
    hidden: int = 0,
    first: int | None = None,
    extra: int = 0,
    nodes: int | None = None,
    since: Sequence[float] | None = None,
    unseen: bool = False,
    loose: Sequence[float] | None = None,
    paths: Sequence[tuple[Move, ...]] = (),
) -> Result:
    """Every bounded action sequence from ``game`` whose board agrees with ``snap``.

    ``removals``: cut-off stacks that may still stand (cell -> top colour). ``history``: the
    removals as they were before each action of ``game.move_stack`` (aligned at the end; used
    by take-backs). ``polarity``: the hall board's per-cell magnet polarity, checked for
    placements. ``hidden``: cells unreadable right now (their last stable reading is in
    ``snap``): a sequence that changes one of them is not certain. ``first``: a stack seen
    lifted before: forward sequences must start with its move (or its lift). ``extra``:
    also the sequences of up to that many more actions than the fewest that fit. ``nodes``:
    at most that many positions (what is left of a snapshot's budget; ``limits.nodes`` caps
    it). ``since``: per cell, when it was first seen empty in the readings that led here
    (infinity: not empty); sequences that disagree with that order are not ``ordered``, and
    the search goes deeper for ordered ones; ``loose``: the same as far as a flickering cell
    may have hidden it (each out-of-order sequence's ``disorder`` is measured against it;
    default ``since``). ``unseen``: stacks on cells that read '?' may have moved too (never
    certain). ``paths``: only sequences that begin with one of these (the explanations of an
    earlier reading of this game: ``controller.table.candidates``), as far past their end as
    ``limits.depth``; no take-backs. Forward sequences come first; take-backs only when none
    fits.
    """
    limits = limits or Limits()
    base = limits.depth
    start = time.perf_counter()
    reading = _Reading(snap, polarity)
    behind = reading.full & ~game.occupied
    if (game.placing and not hidden and UNKNOWN not in snap
            and not any(snap[c] == "x" for c in iter_cells(behind))):
        # each top read on an empty cell is a placement still to come, however far the
        # readings fell behind players who do not wait, where the colours say the order
        # (outside camera game 5: four pieces down before the first white one read); a hall
        # board's 'x' does not; and only on a board read whole: a piece under a hand now may
        # be one of them (room game 103: E5, read for 5 s, then under the next hand, and
        # C5 B4 B3 A3 committed without it)
        deep = min(_popcount(behind), limits.depth + PLACING_BEHIND)
        limits = replace(limits, depth=max(limits.depth, deep))
    elif extra > 0:
        # a prompt unanswered: the players go on, and the later actions decide where the
        # stack went (the one that fits them all), however many they are by then
        limits = replace(limits, depth=limits.depth + UNANSWERED_BEHIND)
    first_level = 1
    if paths and not game.placing:
        lengths = [sum(not m.is_pass for m in p) for p in paths]
        first_level = max(1, min(lengths))
        limits = replace(limits, depth=max(limits.depth, max(lengths) + base), back=0)
    s = _Search(game, removals or {}, history, reading, limits, hidden, first,
                nodes, since, unseen, loose, paths)
    best: list[Hypothesis] = []
    level_done = False
    if since is not None:  # first only the sequences in the order the cells emptied in
        s.strict = True
        best, level_done = _levels(s, limits.depth + extra, extra, first_level)
        s.strict = False
    if not best and not s.truncated:
        best, level_done = _levels(s, limits.depth, extra, first_level)
        if best and since is not None and not s.truncated and not any(
                h.ordered for h in best):
            # only explanations out of that order (a stack cut off that was gone before the
            # move that cut it off): one action more, in order, is a move not found (camera
            # session 241: F3G3 H5G4 G2G3 with I5 cut off, for F3G3 H5G4 I5H4 G2G3)
            s.strict, s.out = True, []
            s.forward(dict(s.removals), limits.depth + extra + 1)
            s.strict = False
            if s.out and not s.truncated:
                best = s.out
    s.out = best
    k = 1
    while not s.out and k <= limits.back and not s.truncated:
        if not s.backward(k):
            break
        k += 1
    return Result(s.out, s.nodes, s.truncated, time.perf_counter() - start, level_done)


def _levels(s: _Search, max_depth: int, extra: int, start: int = 1
            ) -> tuple[list[Hypothesis], bool]:
    """Forward sequences, the fewest actions first (decide() keeps those), then up to
    ``extra`` actions more (from ``start`` actions: none is shorter); returns them and
    whether only a level past the fewest was cut by the node bound."""
    found: int | None = None
    best: list[Hypothesis] = []
    for depth in range(start, max_depth + 1):
        if found is not None and (depth > found + extra or depth > s.limits.depth):
            break  # (past the usual depth only to find the fewest: a prompt unanswered)
        s.out = []
        s.forward(dict(s.removals), depth)
        if s.truncated:  # a deeper level cut short: keep the last complete one
            # only the ``extra`` level was cut when the fewest-action level was complete
            return best or s.out, found is not None and bool(best)
        if s.out:
            best = s.out
            if found is None and any(h.ordered for h in s.out):
                found = depth  # (only sequences out of order: look deeper for ordered ones)
    return best, False


def cells_of(move: Move) -> int:
    """The cells a move or placement acts on."""
    return sum(1 << c for c in (move.source, move.target) if c is not None)
