"""Game-tree search: iterative deepening alpha-beta with PVS, a transposition table on the
game's Zobrist hash, killer and history move ordering, late-move reductions in the moving
phase, and a budget that never overruns.

Late-move reductions (``LMR``, ``LMR_DEPTH``): at a node of the moving phase with 3 or more
plies left, the moves from the 9th on in the ordering (after the TT move, killers, attacks and
DVONN landings) are searched one ply shallower with a null window first; only one that beats
alpha there gets the full-depth search. At equal nodes it won 61.5 of 100 self-play games
against no reductions (from the 4th move on: 40.5, from the 6th: 49.5; benchmarks/RESULTS.md).
At nodes with 4 or more plies left the late moves (``LMR2``, ``LMR2_DEPTH``) are searched two
plies shallower first (62 of 100 self-play games at 100,000 nodes a move against one ply).
Null moves (``NULL_R``): 120.5 of 200 self-play games at 100,000 nodes; 93.5 of 120 against
PrimaDvonna at CodeCup time, where the search without them scored 87 on the same seeds.

The budget is nodes and/or seconds on an injected clock (``clock() -> seconds``). The clock is
read every ``check_every`` nodes; the search stops at the first check past the deadline and
unwinds, so a real search overruns by at most one check interval plus the unwinding (the time
control leaves a margin for that). The result is the best move of the deepest iteration that
finished, improved by a move of the unfinished iteration only when that move was searched
completely and beat it.

With the optional compiled core (engine/accel.py, engine/_dvonncore.c) each iteration's
fixed-depth search runs in C with the same tables, move order, node counting and clock checks,
so the results are the same as here; iterative deepening and the budget stay in this module.

Threads (``Searcher(threads=N)``, the compiled core only): each iteration runs as lazy SMP
(engine/_dvonnsmp.h): the main thread searches it as on one thread while N - 1 helpers search
the same root (deeper, or in another order) and fill a shared lock-free table; the result is
the main thread's. Such a search is not deterministic. A search with a node budget (the levels
1-6) always runs on one thread, so a level stays the same on any machine; so does any search
with one thread, or without the core (the pure-Python engine ignores ``threads``).

Determinism: for a given position, seed and node budget the result is always the same (time
budgets depend on the machine's speed, node budgets do not). The seed only breaks ties among
root moves and perturbs leaf values for the weak levels (``noise``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from engine import accel
from engine.evaluate import WIN, evaluate, moving_value_and_over, terminal_value
from engine.game import PLACEMENTS, Game
from engine.geometry import NUM_CELLS
from engine.move import PASS, Move
from engine.searchtypes import Limits, SearchResult, score_pieces

Clock = Callable[[], float]

INF = 10 * WIN
#: Ply of the 49th placement: White makes it and then White moves first, so the side to act
#: does not change across it (the one place where negamax must not negate).
LAST_PLACEMENT = PLACEMENTS - 1
MAX_DEPTH = 64
#: The most threads a search may use (the compiled core's MAX_THREADS).
MAX_THREADS = 64
#: Late-move reductions (both engines): from this move index on (0 = off) ...
LMR = 8
#: ... at nodes with at least this much depth left, in the moving phase.
LMR_DEPTH = 3
#: Two plies instead of one from this move index on (0 = off) ...
LMR2 = 8
#: ... at nodes with at least this much depth left.
LMR2_DEPTH = 4
#: Null moves (R, 0 = off): at a null-window node of the moving phase with NULL_DEPTH plies
#: left whose leaf value is >= beta, the side passes and the reply is searched R + 1 plies
#: shallower; a fail high ends the node. Never two in a row, nor with fewer than
#: NULL_MIN_STACKS stacks or NULL_MIN_MOVES moves (where having to move may hurt).
NULL_R = 2
NULL_DEPTH = 3
NULL_MIN_STACKS = 16
NULL_MIN_MOVES = 6
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Stop(Exception):
    """The budget ran out inside the tree."""


class Searcher:
    """An alpha-beta searcher with state kept between moves (TT, history).

    ``noise`` > 0 adds a deterministic pseudo-random amount in [-noise, noise] centipieces to
    every leaf value (from the position hash and the seed): the weak levels.

    ``accelerated``: None uses the compiled core (engine/accel.py) when it is built and not
    turned off by ``DVONN_ENGINE=python``; True requires it to be built (even when turned
    off); False is pure Python. Both give the same results (move, score, PV, nodes); the core
    keeps the tables in C (the transposition table, killers and history; it computes leaf values
    again instead of keeping them, which was faster than looking them up).

    ``threads`` (1..MAX_THREADS): searches without a node budget run on that many threads in
    the compiled core (lazy SMP, see the module's docstring; their ``nodes`` count all threads).
    """

    def __init__(self, *, seed: int = 0, clock: Clock = time.monotonic, tt_size: int = 400_000,
                 max_entries: int = 2_000_000,
                 check_every: int = 32, noise: int = 0, use_tt: bool = True,
                 use_pvs: bool = True, use_ordering: bool = True, lmr: int = LMR,
                 lmr2: int | None = None, lmr2_depth: int | None = None,
                 nullmove: int | None = None,
                 accelerated: bool | None = None, threads: int = 1) -> None:
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be 1..{MAX_THREADS}, got {threads}")
        self.threads = threads
        self.seed = seed
        self.clock = clock
        self.tt_size = tt_size
        # A table that reaches this many entries inside a search is emptied before it grows:
        # memory stays bounded in long searches (about 130 MB a table in the compiled core).
        self.max_entries = max(1, max_entries)
        self.check_every = max(1, check_every)
        self.noise = noise
        self.use_tt = use_tt
        self.use_pvs = use_pvs
        self.use_ordering = use_ordering
        # Late-move reductions: in the moving phase, at depth >= LMR_DEPTH, the moves from
        # index ``lmr`` on are first searched one ply shallower with a null window (0: off);
        # at depth >= ``lmr2_depth`` those from index ``lmr2`` on (0: off) two plies shallower.
        self.lmr = max(0, lmr)
        self.lmr2 = max(0, LMR2 if lmr2 is None else lmr2)
        self.lmr2_depth = LMR2_DEPTH if lmr2_depth is None else lmr2_depth
        self.null_r = max(0, NULL_R if nullmove is None else nullmove)
        self.null_depth = max(1, NULL_DEPTH)
        self.null_min_stacks = NULL_MIN_STACKS
        self.null_min_moves = NULL_MIN_MOVES
        self._salt = random.Random(seed).getrandbits(64)
        self.tt: dict[int, tuple[int, int, int, Move | None]] = {}
        self.evals: dict[int, int] = {}  # leaf values by position hash
        self.history = [0] * (NUM_CELLS * NUM_CELLS)
        self.killers: list[list[Move | None]] = [[None, None] for _ in range(MAX_DEPTH + 2)]
        self.nodes = 0
        self._helper_nodes = 0  # the helper threads' nodes of this search
        self._smp = 1  # the threads of this search
        self._deadline = 0.0
        self._last_check = 0.0
        self._check_at = 0
        self._game = Game()
        module = accel.CORE if accelerated is None else accel.BUILT if accelerated else None
        if accelerated and module is None:
            raise ValueError(f"no compiled search core: {accel.WHY}")
        self._core = module.Core() if module is not None else None

    @property
    def accelerated(self) -> bool:
        """True when this searcher runs in the compiled core."""
        return self._core is not None

    # ------------------------------------------------------------------ public
    def reset(self) -> None:
        """Forget what earlier searches learnt (a new game)."""
        self.tt.clear()
        self.evals.clear()
        self.history = [0] * (NUM_CELLS * NUM_CELLS)
        if self._core is not None:
            self._core.reset()

    def search(self, game: Game, limits: Limits, *, forced_fast: bool = True,
               first: Move | None = None) -> SearchResult:
        """The best action for the side to act in ``game`` within ``limits``.

        ``game`` is left exactly as it was. A finished game gives ``move=None``; with
        ``forced_fast`` a position with one legal action answers at once (depth 0, a static
        score) instead of searching it. ``first`` (a legal action) is searched first in every
        iteration, with the full window: its score in ``root_scores`` is exact, not a bound
        (a review compares the action played with the best on one scale).
        """
        start = self.clock()
        self.nodes = self._helper_nodes = 0
        # Several threads only on the compiled core, with the table, and never on a node
        # budget (the levels must stay the same on every machine).
        self._smp = (self.threads if self._core is not None and self.use_tt
                     and limits.nodes is None else 1)
        self._node_limit = limits.nodes if limits.nodes is not None else 1 << 62
        # Stop a little early: unwinding and answering still take time.
        self._deadline = (start + max(0.0, limits.time - min(0.005, limits.time * 0.05))
                          if limits.time is not None else float("inf"))
        self._last_check = start
        self._check_at = min(self.check_every, self._node_limit)
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        moves = game.legal_moves()
        if not moves:
            return SearchResult(None, terminal_value(game), (), 0, 0, self.clock() - start, True)
        if len(moves) == 1 and forced_fast:  # forced: no search, a static value for the record
            sign = -1 if game._ply != LAST_PLACEMENT else 1
            game.push_unchecked(moves[0])
            value = sign * (terminal_value(game) if game.is_over() else evaluate(game))
            game.pop()
            return SearchResult(moves[0], value, (moves[0],), 0, 0, self.clock() - start)
        core = self._core
        if (core.tt_len() if core is not None else len(self.tt)) > self.tt_size:
            self.tt.clear()
            if core is not None:
                core.clear_tt()
        if len(self.evals) > self.tt_size:  # (the compiled core keeps no leaf values)
            self.evals.clear()
        for k in self.killers:
            k[0] = k[1] = None
        # Age the history so old games do not dominate.
        self.history = [h >> 2 for h in self.history]
        if core is not None:
            core.new_search()  # the same two steps on the core's tables
        run_root = self._root if core is None else self._core_root
        # Seeded root order: ties between equal moves are broken the same way every time.
        rng = random.Random(self.seed ^ game.zobrist)
        root = moves[:]
        rng.shuffle(root)
        if game._ply >= PLACEMENTS:  # attacks first, should the first iteration not finish
            enemy = game._black if game._ply % 2 else game._white
            root.sort(key=lambda m: -((enemy >> m.target) & 1) if m.target is not None else 0)
        if first not in root:
            first = None
        _to_front(root, first)
        self._game = game
        best_move = root[0]
        best_score = -INF
        best_pv: tuple[Move, ...] = (best_move,)
        done_depth = 0
        root_scores: tuple[tuple[Move, int], ...] = ()
        exact = False
        base_len = len(game.move_stack)
        depth = 1
        while depth <= max_depth:
            scored: list[tuple[Move, int]] = []
            try:
                score, move = run_root(root, depth, scored)
            except _Stop:
                while len(game.move_stack) > base_len:
                    game.pop()
                # A move of the unfinished iteration that was searched completely and beat the
                # last iteration's best is better than that best.
                if scored and done_depth:
                    top = max(scored, key=lambda ms: ms[1])
                    if top[1] > best_score and top[0] is not best_move:
                        best_move, best_score = top
                        best_pv = (best_move,)
                break
            best_move, best_score, done_depth = move, score, depth
            best_pv = self._pv(game, depth)
            if best_pv[:1] != (move,):  # (a shared table may have lost the root's entry)
                best_pv = (move,)
            scored.sort(key=lambda ms: -ms[1])
            root_scores = tuple(scored)
            # Put the best first for the next iteration, the rest by this iteration's scores.
            order = {m: i for i, (m, _) in enumerate(scored)}
            root.sort(key=lambda m: order.get(m, len(order)))
            _to_front(root, first)
            if abs(score) >= WIN // 2 and self._proven(game, depth):
                exact = True
                break
            if limits.time is not None and depth >= 2:
                # The next iteration usually costs several times this one: do not start what
                # cannot finish.
                soft = limits.time * 0.5 if limits.soft is None else min(limits.soft,
                                                                         limits.time)
                if self.clock() - start > soft:
                    break
            depth += 1
        return SearchResult(best_move, best_score, best_pv, done_depth,
                            self.nodes + self._helper_nodes, self.clock() - start, exact,
                            root_scores)

    # ------------------------------------------------------------------ internals
    def _check(self) -> None:
        if self.nodes >= self._node_limit:
            raise _Stop
        now = self.clock()
        # Stop when the next check would come too late (the last interval predicts the next;
        # one more interval covers unwinding and answering).
        if now + 2 * (now - self._last_check) >= self._deadline:
            raise _Stop
        self._last_check = now
        self._check_at = min(self.nodes + self.check_every, self._node_limit)

    def _proven(self, game: Game, depth: int) -> bool:
        """True when the principal variation ends in a finished game within ``depth``."""
        pushed = 0
        try:
            for _ in range(depth + 1):
                if not game.legal_moves():
                    return True
                entry = self._tt_get(game.zobrist)
                if entry is None or entry[3] is None or entry[1] != _EXACT or (
                        self._smp > 1 and entry[3] not in game.legal_moves()):
                    return False
                game.push_unchecked(entry[3])
                pushed += 1
            return not game.legal_moves()
        finally:
            for _ in range(pushed):
                game.pop()

    def _pv(self, game: Game, depth: int) -> tuple[Move, ...]:
        """The principal variation from the transposition table (legal moves only)."""
        out: list[Move] = []
        seen: set[int] = set()
        try:
            while len(out) < depth:
                key = game.zobrist
                entry = self._tt_get(key)
                if entry is None or entry[3] is None or key in seen:
                    break
                move = entry[3]
                if move not in game.legal_moves():
                    break
                seen.add(key)
                game.push_unchecked(move)
                out.append(move)
        finally:
            for _ in out:
                game.pop()
        return tuple(out)

    def _tt_get(self, key: int) -> tuple[int, int, int, Move | None] | None:
        """The transposition table entry of ``key`` (depth, flag, value, move)."""
        if self._core is None:
            return self.tt.get(key)
        entry = self._core.tt_get(key)
        if entry is None:
            return None
        depth, flag, value, code = entry
        return depth, flag, value, accel.move(code) if code >= 0 else None

    def _core_root(self, root: list[Move], depth: int,
                   scored: list[tuple[Move, int]]) -> tuple[int, Move]:
        """_root in the compiled core: the same iteration, node count and clock checks."""
        assert self._core is not None
        params = (self._node_limit, self._check_at, self.check_every, self._deadline,
                  self._last_check, self.clock, self.use_tt, self.use_pvs, self.use_ordering,
                  self.noise, self._salt, self.max_entries, self.lmr, self.lmr2,
                  self.lmr2_depth, self.null_r, self.null_depth, self.null_min_stacks,
                  self.null_min_moves)
        stopped, best, best_code, pairs, nodes, check_at, last_check, helpers = self._core.root(
            accel.position(self._game), [accel.code(m) for m in root], depth, params,
            self.nodes, self._smp, self.clock is time.monotonic)
        self.nodes, self._check_at, self._last_check = nodes, check_at, last_check
        self._helper_nodes += helpers
        scored.extend((accel.move(c), v) for c, v in pairs)
        if stopped:
            raise _Stop
        return best, accel.move(best_code)

    def _root(self, root: list[Move], depth: int,
              scored: list[tuple[Move, int]]) -> tuple[int, Move]:
        game = self._game
        alpha, beta = -INF, INF
        best_move = root[0]
        best = -INF
        push, pop = game.push_unchecked, game.pop
        first = True
        for m in root:
            if game._ply == LAST_PLACEMENT:  # White acts again after it: no change of sides
                push(m)
                value = self._negamax(depth - 1, alpha, beta, 1)
                pop()
                scored.append((m, value))
                best, best_move = value, m
                continue
            push(m)
            if first or not self.use_pvs:
                value = -self._negamax(depth - 1, -beta, -alpha, 1)
            else:
                value = -self._negamax(depth - 1, -alpha - 1, -alpha, 1)
                if value > alpha:
                    value = -self._negamax(depth - 1, -beta, -alpha, 1)
            pop()
            first = False
            scored.append((m, value))
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
        if self.use_tt:
            self._store(game.zobrist, (depth, _EXACT, best, best_move))
        return best, best_move

    def _store(self, key: int, entry: tuple[int, int, int, Move | None]) -> None:
        """A transposition table entry; a new key in a full table empties it first."""
        tt = self.tt
        if len(tt) >= self.max_entries and key not in tt:
            tt.clear()
        tt[key] = entry

    def _leaf(self, game: Game) -> int:
        value = evaluate(game)
        if self.noise:
            value += self._noise(game)
        return value

    def _noise(self, game: Game) -> int:
        h = (game.zobrist ^ self._salt) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFF
        return h % (2 * self.noise + 1) - self.noise

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int,
                 can_null: bool = True) -> int:
        self.nodes += 1
        if self.nodes >= self._check_at:
            self._check()
        game = self._game
        if depth <= 0:
            leaf_key = game.zobrist
            value = self.evals.get(leaf_key)
            if value is None:
                if game._ply >= PLACEMENTS:
                    value, over = moving_value_and_over(game)
                    if over:
                        value = terminal_value(game)
                    elif self.noise:
                        value += self._noise(game)
                else:
                    value = self._leaf(game)
                if len(self.evals) >= self.max_entries:
                    self.evals.clear()
                self.evals[leaf_key] = value
            return value
        moves = game.legal_moves()
        if not moves:
            return terminal_value(game)
        key = game.zobrist
        tt_move: Move | None = None
        if self.use_tt:
            entry = self.tt.get(key)
            if entry is not None:
                e_depth, flag, value, tt_move = entry
                if e_depth >= depth:
                    if flag == _EXACT:
                        return value
                    if flag == _LOWER:
                        if value >= beta:
                            return value
                    elif value <= alpha:
                        return value
        # A null move: only at null-window nodes of the moving phase, far from the end.
        if (self.null_r and can_null and beta - alpha == 1 and game._ply >= PLACEMENTS
                and -WIN // 2 < alpha < WIN // 2 and depth >= self.null_depth
                and len(moves) >= max(2, self.null_min_moves)
                and game._occ.bit_count() >= self.null_min_stacks):
            if moving_value_and_over(game)[0] + (self._noise(game) if self.noise else 0) >= beta:
                game.push_unchecked(PASS)
                value = -self._negamax(depth - 1 - self.null_r, -beta, -beta + 1, ply + 1, False)
                game.pop()
                if value >= beta:
                    return beta if value >= WIN // 2 else value
        if len(moves) > 1 and self.use_ordering:
            moves = self._order(moves, tt_move, ply, game)
        if game._ply == LAST_PLACEMENT:  # forced, and White acts again after it
            game.push_unchecked(moves[0])
            value = self._negamax(depth - 1, alpha, beta, ply + 1)
            game.pop()
            return value
        alpha0 = alpha
        best = -INF
        best_move: Move | None = None
        push, pop = game.push_unchecked, game.pop
        pvs = self.use_pvs
        # Late moves (after the TT move, killers and attacks, by the ordering) are tried one
        # ply shallower first (the later ones deep in the tree two plies); only one that beats
        # alpha there is searched to full depth.
        late = (self.lmr if self.lmr and pvs and depth >= LMR_DEPTH and game._ply >= PLACEMENTS
                else len(moves))
        later = (max(self.lmr2, late) if self.lmr2 and depth >= self.lmr2_depth
                 else len(moves))
        for i, m in enumerate(moves):
            push(m)
            if i == 0 or not pvs:
                value = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            else:
                if i >= late:
                    value = -self._negamax(depth - 3 if i >= later else depth - 2,
                                           -alpha - 1, -alpha, ply + 1)
                else:
                    value = alpha + 1
                if value > alpha:
                    value = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < value < beta:
                        value = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            pop()
            if value > best:
                best, best_move = value, m
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if m.source is not None:
                            self.history[m.source * NUM_CELLS + m.target] += depth * depth  # type: ignore[operator]
                            killers = self.killers[ply] if ply <= MAX_DEPTH else None
                            if killers is not None and killers[0] is not m:
                                killers[1] = killers[0]
                                killers[0] = m
                        break
        if self.use_tt:
            flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
            self._store(key, (depth, flag, best, best_move))
        return best

    def _order(self, moves: list[Move], tt_move: Move | None, ply: int, game: Game) -> list[Move]:
        """TT move, killers, then moves onto enemy / DVONN stacks, then by history."""
        if game._ply < PLACEMENTS:
            if tt_move is not None and tt_move in moves:
                moves = moves[:]
                moves.remove(tt_move)
                moves.insert(0, tt_move)
            return moves
        history = self.history
        killers = self.killers[ply] if ply <= MAX_DEPTH else [None, None]
        k0, k1 = killers
        enemy = game._black if game._ply % 2 else game._white
        red = game._red
        keyed = []
        for i, m in enumerate(moves):
            t = m.target
            if m is tt_move:
                k = 1 << 60
            elif m is k0:
                k = 1 << 59
            elif m is k1:
                k = 1 << 58
            elif t is None:
                k = 0
            else:
                k = history[m.source * NUM_CELLS + t]  # type: ignore[operator]
                if (enemy >> t) & 1:
                    k += 1 << 40
                if (red >> t) & 1:
                    k += 1 << 39
            keyed.append((-k, i, m))
        keyed.sort()
        return [m for _, _, m in keyed]


def _to_front(root: list[Move], move: Move | None) -> None:
    """Move ``move`` (when given) to the front of ``root``."""
    if move is not None:
        root.remove(move)
        root.insert(0, move)


def plain_alphabeta(game: Game, depth: int, alpha: int = -INF, beta: int = INF) -> int:
    """Fixed-depth negamax alpha-beta with no table, ordering or PVS: the reference value the
    tests compare the full search with."""
    if depth <= 0:
        return terminal_value(game) if game.is_over() else evaluate(game)
    moves = game.legal_moves()
    if not moves:
        return terminal_value(game)
    if game._ply == LAST_PLACEMENT:  # White places the last piece and moves first
        game.push_unchecked(moves[0])
        value = plain_alphabeta(game, depth - 1, alpha, beta)
        game.pop()
        return value
    best = -INF
    for m in moves:
        game.push_unchecked(m)
        value = -plain_alphabeta(game, depth - 1, -beta, -alpha)
        game.pop()
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


__all__ = ["MAX_THREADS", "PASS", "Limits", "SearchResult", "Searcher", "plain_alphabeta",
           "score_pieces"]
