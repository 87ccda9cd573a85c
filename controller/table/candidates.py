"""The games the readings allow, kept while a prompt goes unanswered.

A player who never answers ``choose-destination`` leaves the table with two or more games
that differ in where a stack landed, and the players play on. Each later move onto a stack of
the mover's colour may double them again, so a search from the committed game runs past its
depth and its node bound after a few moves (players who never answer: #41), though the later
moves are what tell the games apart. So the table keeps the explanations of the readings so
far and the next search only extends them (``catchup.search``'s ``paths``): the same answers
as the full search where the readings only add to what was seen (a cell once empty in the
moving phase stays empty), at the cost of the few moves since.

Readings are not always right: a vacated cell flickers back to its old top, a hand hides the
cells that tell the games apart. So a kept game that one reading does not fit is kept a while
(``STALE`` seconds) rather than dropped, and while any is kept a full search's explanations
count only where they agree with one of them; when none has fitted for ``STALE`` seconds, they
are forgotten and the full search decides as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from controller.table.catchup import Hypothesis, Limits, Result, search
from engine.game import Game
from engine.geometry import iter_cells, spread
from engine.move import Move

#: At most this many explanations are kept (more: the ones before stay). Each reading walks
#: them again: at 512 the answers from ranges (seeds 2-99 that stalled) took up to 0.47 s of
#: CPU a reading here, at 192 0.17 s, and as many games were followed.
CAP = 192
#: Positions the search along the kept explanations may visit for each of them, on top of
#: the usual bound (walking them again is most of its work; still positions, not seconds).
PER_PATH = 16

#: Seconds a kept game may go unexplained by the readings before it is dropped.
STALE = 3.0

Path = tuple[Move, ...]


class Candidates:
    """The explanations (action sequences from the committed game) of the readings, each with
    since when the readings stopped fitting it (None: the last one fits)."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._paths: dict[Path, float | None] = {}

    def clear(self) -> None:
        self._root, self._paths = None, {}

    def paths(self, game: Game) -> tuple[Path, ...]:
        """The kept explanations from ``game`` (past what was committed since they were found;
        those that disagree with it are gone); () when none is kept or one is empty (nothing
        to narrow: every sequence may follow it)."""
        return tuple(self._rooted(game))

    def _rooted(self, game: Game) -> dict[Path, float | None]:
        if self._root is None:
            return {}
        now = tuple(game.move_stack)
        n = len(self._root)
        if now[:n] != self._root:
            return {}
        done = len(now) - n
        out = {p[done:]: since for p, since in self._paths.items() if p[:done] == now[n:]}
        return {} if () in out else out

    def keep(self, game: Game, result: Result, t: float, unseen: tuple[Path, ...] = ()) -> None:
        """Keep what ``result`` found from ``game`` at time ``t``, when it is all there is (not
        cut by its node bound, no take-back, at most ``CAP`` sequences), and the earlier ones
        it does not extend for ``STALE`` seconds; ``unseen`` (what cells under a hand may
        hide, given as a prompt's first explanations are kept) as if it had stopped fitting
        now."""
        hyps = result.hypotheses
        if result.truncated or any(h.back for h in hyps):
            return
        found = dict.fromkeys(h.moves for h in hyps)
        kept: dict[Path, float | None] = dict.fromkeys(found)
        for p in unseen:
            kept.setdefault(p, t)
        for p, since in self._rooted(game).items():
            if p in kept or any(f[:len(p)] == p for f in found):
                continue  # fitted now, or one of its extensions did
            since = t if since is None else since
            if t - since < STALE:
                kept[p] = since
        if kept and len(kept) <= CAP:
            self._root = tuple(game.move_stack)
            self._paths = kept
        elif not kept:
            self.clear()

    def search(self, game: Game, snap: str, *, plain: bool, prompt: bool, t: float,
               answer: Callable[[list[Hypothesis]], list[Hypothesis]] | None = None,
               covered: int = 0, keep: bool = False, **kwargs: Any) -> Result:
        """``catchup.search`` at time ``t``; on a ``plain`` reading (the whole board as read,
        nothing masked) first along the kept explanations, then, where they explain nothing or
        their search is cut short, every sequence as before (the positions of both are
        counted), keeping only the sequences that agree with a kept explanation as far as both
        go (simulated camera session 386: G1 read its old top a moment, and B1C1 was committed
        under a hand while every kept game began with H1's move). A plain reading's
        explanations are kept while a ``prompt`` is open or some are kept already; ``answer``
        keeps those that agree with where a hand said the action landed (before anything is
        kept: the players said it). ``covered``: the cells a hand hides on a plain reading;
        as the first explanations are kept (later, the readings since have shown what a hand
        hid before), what it may hide that will show as the hand goes is kept a while too (room
        game 136: G3's lift opened a prompt on H3 and H4 while the hand that had set the white stack
        on black G2 still hid G2; kept without G3G2, only G3H4 was left to fit once G2's
        stack was cut off and taken away). ``keep``: its one explanation is kept whatever the
        reading, where the unreadable cells are apart (a cell misread, no hand: what only it
        explains, where the board as read has none; the next readings may lose what told the
        games apart; room game 120: C1 read '?' while D1 showed C1D1, and when D1's stack, cut
        off, went, C1C2 fitted as well; under a hand many sequences do, outside game 11)."""
        rooted = self._rooted(game)
        spent = 0
        if rooted and plain:
            more = PER_PATH * len(rooted)
            limits = kwargs.get("limits") or Limits()
            # (its own bound, whatever the masked readings of this snapshot took before it)
            wide = dict(kwargs, limits=replace(limits, nodes=limits.nodes + more), nodes=None)
            result = search(game, snap, paths=tuple(rooted), **wide)
            if answer is not None:
                result.hypotheses = answer(result.hypotheses)
            if result.hypotheses and not result.truncated:
                self.keep(game, result, t)
                return result
            spent = result.nodes
            if kwargs.get("nodes") is not None:
                kwargs["nodes"] = max(0, kwargs["nodes"] - spent)
        result = search(game, snap, **kwargs)
        result.nodes += spent
        if answer is not None:
            result.hypotheses = answer(result.hypotheses)
        if rooted and plain and result.hypotheses:
            # none fits, where the board as read has explanations: since when (a board that
            # nothing explains is misread, and says nothing against them: room game 138, K3
            # read white for 4 s, the kept games were dropped, and the true one, 10 moves
            # past the last commit, fitted again a second later)
            self.keep(game, Result(), t)
            rooted = self._rooted(game)
        if rooted:
            result.hypotheses = [h for h in result.hypotheses if h.back or any(
                h.moves[:len(p)] == p[:len(h.moves)] for p in rooted)]
        elif plain and prompt:
            self.keep(game, result, t, self._unseen(game, snap, covered, result, answer, kwargs))
        hidden = kwargs.get("hidden", 0)
        if keep and len(result.hypotheses) == 1 and not hidden & spread(hidden):
            self.keep(game, result, t)
        return result

    @staticmethod
    def _unseen(game: Game, snap: str, covered: int, result: Result,
                answer: Callable[[list[Hypothesis]], list[Hypothesis]] | None,
                kwargs: dict[str, Any]) -> tuple[Path, ...]:
        """The explanations ``result`` lacks of ``snap`` with the ``covered`` cells unread that
        change the top of one of them (what the hand hides that will show as it goes), when
        that search is complete and takes nothing back; its positions count in ``result``."""
        if not covered:
            return ()
        unread = "".join("?" if (covered >> c) & 1 else ch for c, ch in enumerate(snap))
        more = search(game, unread, **dict(kwargs, unseen=True))
        result.nodes += more.nodes
        hyps = answer(more.hypotheses) if answer is not None else more.hypotheses
        if more.truncated or any(h.back for h in hyps):
            return ()
        seen = {h.moves for h in result.hypotheses}
        out = []
        for h in hyps:
            if h.moves in seen:
                continue
            g = game.copy()
            for m in h.moves:
                g.push(m)
            if any((g.stack(c)[-1:] or ".") != snap[c] for c in iter_cells(covered)):
                out.append(h.moves)
        return tuple(out)
