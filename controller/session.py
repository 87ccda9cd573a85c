"""TableController: the game on the table, driven by sensor events, guiding with a BoardView.

It debounces snapshots, asks :func:`controller.inference.explain` what the stable readings
mean, commits the actions they prove to the engine and the journal (durably, before the next
turn is shown), passes forced passes, takes back what the players take back, and keeps the
state the BoardView is built from (:mod:`controller.guide`). Time comes only from the events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from controller import guide
from controller.debounce import Debouncer, Timing
from controller.expected import Expected, has_colours, names, strip_colours
from controller.inference import IDLE, LIFTED, MISMATCH, Explanation, explain
from controller.view import BoardView
from engine.game import Game
from engine.move import PASS, Move
from hardware.events import ButtonEvent, SensorEvent, SnapshotEvent, StatusEvent

Trace = Callable[[dict[str, Any]], None]
_MAX_CHAIN = 100


class JournalLike(Protocol):
    """The part of controller.journal.Journal the controller uses."""

    def new_game(self, *, white: str = ..., black: str = ..., source: str = ...) -> int: ...
    def append(self, game_id: int, action: str) -> int: ...
    def take_back(self, game_id: int) -> str | None: ...
    def finish(self, game_id: int, *, white_score: int, black_score: int, result: str) -> None: ...
    def abandon(self, game_id: int) -> None: ...
    def actions(self, game_id: int) -> list[str]: ...


class TableController:
    """Turns sensor events into committed actions and a BoardView.

    ``colours``: True (a camera: top colours known), False (occupancy only: colours in
    readings are ignored) or None (known as soon as a reading names a colour).
    With a ``journal`` its unfinished game resumes (or a new one starts); the players must then
    make the table match the stored position (mismatch roles) before anything is inferred.
    ``game`` starts from a given position instead (tests, demos; not journaled unless new).
    ``trace`` receives the --trace records (roles, prompt, mismatch) as dicts.
    """

    def __init__(
        self,
        *,
        journal: JournalLike | None = None,
        game: Game | None = None,
        colours: bool | None = None,
        timing: Timing | None = None,
        hints: bool = False,
        players: tuple[str, str] = ("White", "Black"),
        source: str = "table",
        resume: bool = True,
        new_needs_long: bool = False,
        trace: Trace | None = None,
    ) -> None:
        self.journal = journal
        self.colours = colours
        self.debouncer = Debouncer(timing)
        self.hints = hints
        self.players = players
        self.source = source
        self.new_needs_long = new_needs_long
        self._trace = trace
        #: Called with the controller after every event it handled (e.g. the web view's
        #: publisher); they run in the thread that drives the controller.
        self.listeners: list[Callable[[TableController], None]] = []
        self.game = game.copy() if game is not None else Game()
        self.game_id: int | None = None
        self.resumed = False
        if journal is not None and game is not None:
            self.game_id = journal.new_game(white=players[0], black=players[1], source=source)
            for move in self.game.move_stack:
                journal.append(self.game_id, str(move))
        elif journal is not None:
            info = _unfinished(journal) if resume else None
            if info is not None:
                self.game_id = info
                self.game = Game.from_moves(journal.actions(info))
                self.resumed = True
            else:
                self.game_id = journal.new_game(white=players[0], black=players[1], source=source)
        self.stable: str | None = None
        self.removals: dict[int, str] = {}
        self.blocked = True  # the table must match the position before anything is inferred
        self.explanation = Explanation(IDLE)
        self.lift_source: int | None = None
        self.gesture = 0
        self.suggested: int | None = None
        self.message = ""
        self.status = ""
        self.finished = False
        self._before: tuple[Expected, int, dict[int, str]] | None = None
        self._last_trace: tuple[dict[str, str], tuple[str, tuple[str, ...]], tuple[str, ...]] = (
            {}, ("", ()), ())
        self._auto_pass()
        self._check_over()

    # ----------------------------------------------------------------- inputs
    def handle(self, event: SensorEvent) -> None:
        """Take one event from a sensor source or button panel (times non-decreasing)."""
        if isinstance(event, SnapshotEvent):
            self.advance(event.t)
            cells = event.cells
            if self.colours is None and has_colours(cells):
                self.colours = True
            if self.colours is False:
                cells = strip_colours(cells)
            snap = self.debouncer.feed(event.t, cells)
            if snap is not None:
                self._on_stable(event.t, snap)
        elif isinstance(event, ButtonEvent):
            self.advance(event.t)
            self._on_button(event)
            self._emit(event.t)
        elif isinstance(event, StatusEvent):
            self.status = "" if event.kind in ("connected", "reconnected") else (
                f"{event.kind}: {event.detail}" if event.detail else event.kind)
            self._emit(event.t)

    def advance(self, t: float) -> None:
        """Let time pass up to ``t``, settling every debounce deadline on the way in order."""
        while (d := self.debouncer.next_deadline()) is not None and d <= t:
            snap = self.debouncer.advance(d)
            if snap is not None:
                self._on_stable(d, snap)
        snap = self.debouncer.advance(t)
        if snap is not None:  # a deadline within float rounding of t
            self._on_stable(t, snap)

    def settle(self) -> float | None:
        """Let every pending change settle (the end of a replay); returns the last time used."""
        last = None
        while (d := self.debouncer.next_deadline()) is not None:
            snap = self.debouncer.advance(d)
            last = d
            if snap is not None:
                self._on_stable(d, snap)
        return last

    def next_deadline(self) -> float | None:
        """When :meth:`advance` may next change something (for an event loop's timeout)."""
        return self.debouncer.next_deadline()

    # ----------------------------------------------------------------- state read-outs
    @property
    def expected(self) -> Expected:
        """The board the table should show now."""
        return Expected.of(self.game, self.removals)

    @property
    def actions(self) -> list[str]:
        """The current game's actions in notation."""
        return [str(m) for m in self.game.move_stack]

    def view(self) -> BoardView:
        """The BoardView for the current state (a pure function of it)."""
        return guide.compose(self)

    # ----------------------------------------------------------------- inference
    def _on_stable(self, t: float, snap: str) -> None:
        self.stable = snap
        self._infer()
        self._emit(t)

    def _infer(self) -> None:
        snap = self.stable
        if snap is None:
            return
        for _ in range(_MAX_CHAIN):
            expected = self.expected
            cleared = expected.cleared(snap)
            if cleared:
                for c in list(self.removals):
                    if (cleared >> c) & 1:
                        del self.removals[c]
                expected = self.expected
            diff = expected.diff(snap)
            if diff and self._before is not None and not self._before[0].diff(snap):
                self._take_back_to(self._before[1], self._before[2])
                self.message = "taken back"
                continue
            if self.blocked:
                if diff:
                    self._set(Explanation(MISMATCH, mismatch=diff))
                    return
                self.blocked = False
            e = explain(self.game, expected, snap, source_hint=self.lift_source)
            if e.kind == MISMATCH:
                self.blocked = True
                self._set(e)
                return
            if e.kind == LIFTED:
                if self._lifted(e):
                    continue
                return
            self._set(e)
            if e.move is None:
                return
            self._commit(e.move)
        raise RuntimeError("inference did not settle")  # pragma: no cover - a bug guard

    def _set(self, e: Explanation) -> None:
        if e.kind != LIFTED or e.source != self.lift_source:
            self.lift_source = e.source if e.kind == LIFTED else None
            self.gesture = 0
            self.suggested = None
        self.explanation = e

    def _lifted(self, e: Explanation) -> bool:
        """Track a lifted stack; True when a finished gesture committed its move."""
        assert e.source is not None
        self._set(e)
        if self.suggested is not None and not (e.candidates >> self.suggested) & 1:
            self.suggested = None
        if e.returning:
            self.gesture |= e.returning
            return False
        back = self.gesture & e.candidates
        self.gesture = 0
        if back and not back & (back - 1):
            self._commit(Move.step(e.source, back.bit_length() - 1))
            return True
        return False

    # ----------------------------------------------------------------- actions
    def _commit(self, move: Move) -> None:
        """Play ``move`` on the engine, journal it, then pass forced passes."""
        before = (self.expected, self.game.ply, dict(self.removals))
        board = before[0].board
        removed = self.game.push(move)
        for c in range(49):
            if (removed >> c) & 1:
                self.removals[c] = board[c]
        self._journal_append(str(move))
        self._before = before
        self._set(Explanation(IDLE))
        self.message = ""
        self._auto_pass()
        self._check_over()

    def _auto_pass(self) -> None:
        while not self.game.placing and self.game.legal_moves() == [PASS]:
            side = "White" if self.game.turn == "w" else "Black"
            self.game.push(PASS)
            self._journal_append("PASS")
            self.message = f"{side} cannot move: PASS"

    def _check_over(self) -> None:
        if self.finished or not self.game.is_over():
            return
        w, b = self.game.score()
        winner = self.game.winner()
        result = {"w": "white", "b": "black"}.get(winner or "", "tie")
        if self.journal is not None and self.game_id is not None:
            self.journal.finish(self.game_id, white_score=w, black_score=b, result=result)
        self.finished = True
        self.message = f"game over: white {w} black {b}: " + (
            "tie" if result == "tie" else f"{result} wins")

    def _journal_append(self, action: str) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.append(self.game_id, action)

    def _pop(self) -> None:
        self.game.pop()
        if self.journal is not None and self.game_id is not None:
            self.journal.take_back(self.game_id)
        self.finished = False

    def _take_back_to(self, ply: int, removals: dict[int, str]) -> None:
        while self.game.ply > ply:
            self._pop()
        self.removals = dict(removals)
        self._before = None
        self._set(Explanation(IDLE))

    def undo(self) -> bool:
        """Take back the last action (and the forced passes after it); the table must follow."""
        if not self.game.move_stack:
            return False
        while self.game.move_stack and self.game.move_stack[-1] == PASS:
            self._pop()
        if self.game.move_stack:
            self._pop()
        self.removals = {}
        self._before = None
        self.blocked = True
        self._set(Explanation(IDLE))
        self.message = "undone: restore the board"
        self._auto_pass()
        self._infer()
        return True

    def new_game(self) -> None:
        """Close the current game (finished or abandoned) and start an empty one."""
        if self.journal is not None and self.game_id is not None:
            if not self.finished:
                self.journal.abandon(self.game_id)
            self.game_id = self.journal.new_game(
                white=self.players[0], black=self.players[1], source=self.source)
        self.game = Game()
        self.removals = {}
        self._before = None
        self.finished = False
        self.blocked = True
        self._set(Explanation(IDLE))
        self.message = "new game: clear the board"
        self._infer()

    def _on_button(self, event: ButtonEvent) -> None:
        name = event.button
        if name == "hint":
            self.hints = not self.hints
        elif name == "undo":
            self.undo()
        elif name == "new":
            if event.long or not self.new_needs_long:
                self.new_game()
        elif name in ("next", "confirm"):
            self._choose(name)

    def _choose(self, name: str) -> None:
        e = self.explanation
        if e.kind != LIFTED or e.source is None or not e.candidates & (e.candidates - 1):
            return
        cells = [c for c in range(49) if (e.candidates >> c) & 1]
        if name == "confirm" and self.suggested is not None:
            self._commit(Move.step(e.source, self.suggested))
            self._infer()
            return
        if self.suggested is None or self.suggested not in cells:
            self.suggested = cells[0]
        else:
            self.suggested = cells[(cells.index(self.suggested) + 1) % len(cells)]

    # ----------------------------------------------------------------- trace
    def _emit(self, t: float) -> None:
        for listener in self.listeners:
            listener(self)
        if self._trace is None:
            return
        view = self.view()
        roles = view.named_roles()
        prompt = (view.prompt, tuple(names(sum(1 << c for c in view.blink))) if view.prompt
                  else ())
        mismatch = tuple(n for n, r in roles.items() if r == "mismatch")
        last_roles, last_prompt, last_mismatch = self._last_trace
        if roles != last_roles:
            self._trace({"t": round(t, 6), "roles": roles})
        if prompt != last_prompt and view.prompt:
            self._trace({"t": round(t, 6), "prompt": view.prompt, "cells": list(prompt[1])})
        if mismatch != last_mismatch and mismatch:
            self._trace({"t": round(t, 6), "mismatch": list(mismatch)})
        self._last_trace = (roles, prompt, mismatch)


def _unfinished(journal: JournalLike) -> int | None:
    """The id of the journal's unfinished game, if it has one."""
    info = getattr(journal, "unfinished", lambda: None)()
    return None if info is None else int(info.id)
