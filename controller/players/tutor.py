"""The live tutor (``--tutor [LEVEL]``): each action of a person judged as ``analyze`` does.

After every committed action of a side played at the table by a person (in ``demo``: the
simulated hands), the tutor hands it to the :class:`~controller.players.judging.Judge`
(a worker process, a small node budget) and goes on; the table never waits for it. When the
verdict comes (:meth:`Tutor.poll`, a Runner source) and the action is still in the game, a
``?`` (a loss of 2 pieces or more against the engine's best) or ``??`` (5 or more; never for
the best or a forced action) shows at once, written after the action as the review writes
it (``C3D4??``): in the message (terminal, page), in the published state (the page's action
list) and, at the levels ``better`` and ``warn``, with the better action, which the LEDs
show as ``suggest`` for ``show_seconds`` (the injected clock) while the position is still
the one the action made. A verdict that arrives after the next action is still shown for
the action it judged (its mark, its message); only its LEDs are left out then (their cells
meant the position before). A verdict for an action taken back meanwhile is dropped.

The table offers to take a marked action back while the erring side has not acted again:
``undo`` at the table takes back to the position before it (the computer's reply too);
from the page the erring side asks (``takeback``), a computer opponent accepts at once, a
person opponent answers ``allow`` or ``refuse`` (a refusal keeps the action). Remote sides
(another table, a phone elsewhere) are not tutored and are never asked.

Level ``warn`` also warns before an action: while a person holds a lifted stack, each landing
space that loses 2 pieces or more blinks as ``mismatch`` (judged when the stack is lifted).
Only moving-phase actions are judged: a placement's score is a rough guess at this budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TextIO

from controller.i18n import Msg, localize
from controller.i18n import side as side_name
from controller.players.judging import Job, Judge, Judgement
from controller.players.overlay import install
from controller.remote.seat import is_remote
from controller.table.inference import LIFTED
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import Move
from engine.review import MISTAKE

if TYPE_CHECKING:
    from controller.table.session import TableController

LEVELS = ("marks", "better", "warn")
DEFAULT_LEVEL = "better"
#: Seconds the better action stays lit (suggest) after a mark.
SHOW_SECONDS = 4.0


class Clock(Protocol):
    """The table's clock (hardware.clock): seconds on a monotonic scale."""

    def now(self) -> float: ...


def check_level(level: str) -> str:
    """``level`` if it is one (ValueError naming the choices otherwise)."""
    if level not in LEVELS:
        raise ValueError(Msg("tutor level {level!r}: marks, better or warn", level=level))
    return level


def mover(index: int) -> str:
    """The side that took action number ``index`` (0-based) of a game."""
    if index < 49:
        return "w" if index % 2 == 0 else "b"
    return "w" if index % 2 == 1 else "b"


class Tutor:
    """The live tutor of one table (see the module docstring)."""

    def __init__(self, level: str = DEFAULT_LEVEL, *, clock: Clock, judge: Judge | None = None,
                 show_seconds: float = SHOW_SECONDS, out: TextIO | None = None,
                 sides: str | None = None) -> None:
        self.level = check_level(level)
        self.clock = clock
        self.judge = judge if judge is not None else Judge()
        self.show_seconds = show_seconds
        self.out = out
        self.sides = sides  # the tutored sides ('wb'); None: those the table's people play
        self.on = True  # the page's switch
        self.ctl: TableController | None = None
        self.judged: dict[int, Judgement] = {}  # by ply (1 = the first action)
        self.latest: Judgement | None = None  # the latest marked action
        self.shown_until = float("-inf")
        self.offer: Judgement | None = None  # the marked action the table offers to take back
        self.asking = False  # the erring side asked; a person opponent must answer
        self.note: Msg | None = None  # a refusal, until the next action
        self.warnings: dict[tuple[int, int, int], dict[int, float]] = {}
        self.dropped = 0  # verdicts for actions no longer in the game
        self._sent: dict[int, str] = {}
        self._seen: list[Move] = []
        self._texts: list[str] = []  # the notation of each of _seen (what a job carries)
        self._from = 0
        self._busy = False
        self._lit = False

    # ------------------------------------------------------------------ wiring
    def attach(self, ctl: TableController) -> None:
        """Tutor ``ctl``'s people from now on (the actions before are not judged)."""
        self.ctl = ctl
        overlay = install(ctl, self)
        if self.sides is None:
            players = getattr(overlay.inner, "players", {}) or {}
            self.sides = "".join(s for s in "wb" if players.get(s) is None)
        self._seen = list(ctl.game.move_stack)
        self._texts = [str(m) for m in self._seen]
        self._from = len(self._seen)
        ctl.listeners.append(self.update)
        self._notify()  # a page already served hears of the tutor (its switch) at once

    def close(self) -> None:
        self.judge.close()

    def _computer(self, side: str) -> bool:
        players = getattr(getattr(self.ctl, "opponent", None), "players", None) or {}
        return players.get(side) is not None

    # ------------------------------------------------------------------ after each event
    def update(self, ctl: TableController) -> None:
        """A controller listener: judge new actions, follow take-backs, warn on a lift."""
        if self._busy:
            return
        moves = ctl.game.move_stack
        # most events commit nothing: the game's actions are the very objects seen last
        # time, compared in C (the table's answer must not wait on the tutor)
        if moves != self._seen and self._moved(ctl, moves):
            return
        self._warn(ctl, moves)

    def _moved(self, ctl: TableController, moves: list[Move]) -> bool:
        """The game's actions changed: follow take-backs, judge the new actions. True when
        it took the offered action back (nothing else to do then)."""
        seen = self._seen
        self._seen = list(moves)
        if len(moves) >= len(seen) and moves[:len(seen)] == seen:  # (the usual: one more)
            self._texts += [str(m) for m in moves[len(seen):]]
        else:
            self._texts = [str(m) for m in moves]
        offer = self.offer
        if offer is not None and len(moves) < len(seen) and ctl.blocked and \
                self._holds(offer) and len(moves) >= offer.ply:
            self._take_back(ctl)  # undo while the offer stands: back to before the action
            return True
        for ply in [p for p, a in self._sent.items() if p > len(moves)
                    or str(moves[p - 1]) != a]:
            del self._sent[ply]
            self.judged.pop(ply, None)
        if self.latest is not None and not self._holds(self.latest):
            self.latest = None
        if offer is not None and (not self._holds(offer) or self._acted_since(offer)):
            self.offer, self.asking = None, False
        if len(moves) > len(seen) or moves[:len(seen)] != seen:
            self.note = None
        for i in range(self._from, len(moves)):
            move = moves[i]
            if i + 1 in self._sent or move.is_pass or move.is_placement or \
                    mover(i) not in (self.sides or ""):
                continue
            self._sent[i + 1] = str(move)
            self.judge.submit(Job(("action", i + 1, str(move)), tuple(self._texts[:i]),
                                  (str(move),)))
        return False

    def _warn(self, ctl: TableController, moves: list[Move]) -> None:
        """Level ``warn``: judge each landing space of a lifted stack (once a lift)."""
        e = ctl.explanation
        game = ctl.game
        if self.level == "warn" and e.kind == LIFTED and e.source is not None and \
                not game.placing and game.turn in (self.sides or "") and not game.is_over():
            key = (game.ply, game.zobrist, e.source)
            if key not in self.warnings:
                self.warnings[key] = {}
                played = tuple(str(Move.step(e.source, d))
                               for d in iter_cells(game.destinations(e.source)))
                if played:
                    self.judge.submit(Job(("warn", *key), tuple(str(m) for m in moves),
                                          played))

    def _holds(self, j: Judgement) -> bool:
        """The judged action is still in the game."""
        moves = self.ctl.game.move_stack if self.ctl is not None else []
        return len(moves) >= j.ply and str(moves[j.ply - 1]) == j.action

    def _acted_since(self, j: Judgement) -> bool:
        moves = self.ctl.game.move_stack if self.ctl is not None else []
        return any(mover(i) == j.side and not moves[i].is_pass
                   for i in range(j.ply, len(moves)))

    # ------------------------------------------------------------------ verdicts
    def poll(self, timeout: float = 0.0) -> list[object]:
        """A Runner source: take the verdicts ready, let a shown action's LEDs go out when
        their time is up; the table hears of any change (reports no events)."""
        changed = False
        for verdict in self.judge.take():
            changed = self._verdict(verdict) or changed
        lit = self._leds_due()
        if lit != self._lit:
            self._lit = lit
            changed = True
        if changed and self.ctl is not None:
            self._notify()
        return []

    def settle(self, timeout: float = 10.0) -> None:
        """Wait (real time, up to ``timeout`` s) for every verdict asked for (the end of a
        demo, tests)."""
        import time

        deadline = time.monotonic() + timeout
        while self.judge.pending > 0 and time.monotonic() < deadline:
            for verdict in self.judge.take(0.05):
                self._verdict(verdict)
        self.poll()

    def _verdict(self, verdict: Any) -> bool:
        kind = verdict.key[0]
        if kind == "warn":
            key = tuple(verdict.key[1:])
            if key in self.warnings:
                self.warnings[key] = {Move.parse(j.action).target or 0: j.loss
                                      for j in verdict.judgements}
                return True
            return False
        _kind, ply, action = verdict.key
        if not verdict.judgements or self._sent.get(ply) != action:
            self.dropped += 1  # taken back meanwhile (or the search failed): dropped
            return False
        j = verdict.judgements[0]
        if not self._holds(j):
            self.dropped += 1
            return False
        self.judged[ply] = j
        if not j.mark:
            return True
        self.latest = j
        self.shown_until = self.clock.now() + self.show_seconds
        if not self._acted_since(j) and not self._remote():
            self.offer, self.asking = j, False
        if self.out is not None and self.on:
            print(localize(Msg("tutor: {n}. {text}", n=ply, text=j.text)) + " " +
                  localize(self._said(j)), file=self.out, flush=True)
        return True

    def _remote(self) -> bool:
        players = getattr(getattr(self.ctl, "opponent", None), "players", None) or {}
        return any(is_remote(p) for p in players.values())

    def _said(self, j: Judgement) -> Msg:
        loss = f"{j.loss:g}"
        if self.level == "marks" or not j.best:
            return Msg("{side} loses {loss} pieces", side=side_name(j.side), loss=loss)
        return Msg("{side} loses {loss} pieces; better: {best}", side=side_name(j.side),
                   loss=loss, best=j.best)

    # ------------------------------------------------------------------ take-backs
    def command(self, name: str, seat: str = "") -> str:
        """A page's request (``takeback``, ``allow``, ``refuse``, ``on``, ``off``) from a
        device of ``seat`` ('w', 'b'; '' for both): '' when done, else why not."""
        if name in ("on", "off"):
            self.on = name == "on"
            self._notify()
            return ""
        offer = self.offer
        if offer is None:
            return Msg("there is no marked action to take back")
        other = "b" if offer.side == "w" else "w"
        if name == "takeback":
            if seat not in ("", offer.side):
                return Msg("only {side} may ask to take {action} back",
                           side=side_name(offer.side), action=offer.action)
            if self._computer(other):
                self._take_back(self.ctl)  # the computer accepts
            else:
                self.asking = True
                self._notify()
            return ""
        if name in ("allow", "refuse"):
            if not self.asking:
                return Msg("nobody asked to take an action back")
            if seat not in ("", other):
                return Msg("only {side} may answer", side=side_name(other))
            if name == "allow":
                self._take_back(self.ctl)
            else:
                self.offer, self.asking = None, False
                self.note = Msg("{side} refused: {action} stays", side=side_name(other),
                                action=offer.action)
                self._notify()
            return ""
        return Msg("no tutor command {name!r}", name=name)

    def _take_back(self, ctl: TableController | None) -> None:
        """Take back to the position before the offered action (the table must follow)."""
        offer = self.offer
        self.offer, self.asking = None, False
        if ctl is None or offer is None:
            return
        self._busy = True
        try:
            while ctl.game.ply >= offer.ply and ctl.game.move_stack:
                if not ctl.undo():
                    break
            self._seen = list(ctl.game.move_stack)
            self._texts = [str(m) for m in self._seen]
            ctl.message = Msg("{action} taken back: restore the board", action=offer.action)
        finally:
            self._busy = False
        self._notify()

    def _notify(self) -> None:
        if self.ctl is None or self._busy:
            return
        self._busy = True
        try:
            self.ctl.notify()
        finally:
            self._busy = False

    # ------------------------------------------------------------------ what it shows
    def _leds_due(self) -> bool:
        j = self.latest
        if j is None or self.level == "marks" or not j.best or not self.on:
            return False
        if self.clock.now() >= self.shown_until or self.ctl is None:
            return False
        moves = self.ctl.game.move_stack
        return self._holds(j) and all(m.is_pass for m in moves[j.ply:])

    def roles(self, ctl: TableController, lifted: int | None,
              shown: dict[int, str]) -> tuple[dict[int, str], int]:
        """The better action's cells (``suggest``) while due, and at ``warn`` the landing
        spaces of the lifted stack that lose 2 pieces or more (``mismatch``, blinking)."""
        roles: dict[int, str] = {}
        blink = 0
        if not self.on:
            return roles, blink
        game = ctl.game
        if lifted is not None and self.level == "warn":
            for target, loss in self.warnings.get((game.ply, game.zobrist, lifted), {}).items():
                if loss >= MISTAKE and shown.get(target) == "destination":
                    roles[target] = "mismatch"
                    blink |= 1 << target
        j = self.latest
        if j is not None and self._leds_due() and "suggest" not in shown.values():
            best = Move.parse(j.best)
            for c in (best.source, best.target):
                if c is not None:
                    roles[c] = "suggest"
        return roles, blink

    def message(self, ctl: TableController) -> str:
        if not self.on:
            return ""
        parts: list[str] = []
        j = self.latest
        if j is not None and (self.clock.now() < self.shown_until or self.offer is j):
            parts.append(Msg("{text}: {said}", text=j.text, said=self._said(j)))
        if self.offer is not None:
            o = self.offer
            other = "b" if o.side == "w" else "w"
            if self.asking:
                parts.append(Msg("{side} asks to take {action} back: {other}, allow or refuse "
                                 "on the page", side=side_name(o.side), action=o.action,
                                 other=side_name(other)))
            else:
                parts.append(Msg("undo takes {action} back", action=o.action))
        if self.note is not None:
            parts.append(self.note)
        e = ctl.explanation
        if self.level == "warn" and e.kind == LIFTED and e.source is not None:
            game = ctl.game
            bad = {t: loss for t, loss in
                   self.warnings.get((game.ply, game.zobrist, e.source), {}).items()
                   if loss >= MISTAKE}
            for target, loss in sorted(bad.items()):
                parts.append(Msg("careful: {action} loses {loss} pieces",
                                 action=str(Move.step(e.source, target)), loss=f"{loss:g}"))
        return Msg.joined(" | ", parts)

    def state(self) -> dict[str, Any]:
        """The published ``tutor`` state: the level, the switch, each marked action's mark
        by its index in ``actions``, the latest mark and the take-back offer."""
        j = self.latest
        o = self.offer
        return {
            "level": self.level,
            "on": self.on,
            "marks": {str(p - 1): v.mark for p, v in sorted(self.judged.items()) if v.mark},
            "last": None if j is None else {
                "ply": j.ply, "side": j.side, "action": j.action, "mark": j.mark,
                "text": j.text, "loss": j.loss, "best": j.best or None},
            "offer": None if o is None else {
                "side": o.side, "action": o.action, "asking": self.asking,
                "computer": self._computer("b" if o.side == "w" else "w")},
            "lit": self._lit_cells(),
        }

    def _lit_cells(self) -> list[str]:
        """The better action's cells while the LEDs show them."""
        j = self.latest
        if j is None or not self._leds_due():
            return []
        best = Move.parse(j.best)
        return sorted(CELL_NAMES[c] for c in (best.source, best.target) if c is not None)
