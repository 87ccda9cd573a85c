"""TableController: the game on the table, driven by sensor events, guiding with a BoardView.

It debounces snapshots, asks the catch-up search (:mod:`controller.table.catchup`) which action
sequences explain the stable readings (cells a hand covers are unreadable), commits what all
agree on to the engine and the journal (durably, before the next turn shows), passes forced
passes, takes back what only a take-back explains, lights what tells the rest apart, and keeps
the state of the BoardView (:mod:`controller.table.guide`). Time comes only from the events."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from controller.i18n import Msg, status_line
from controller.table import gesture, guide
from controller.table.camera import CameraEvidence
from controller.table.candidates import Candidates
from controller.table.catchup import Limits, Result
from controller.table.debounce import Debouncer, Timing
from controller.table.decision import Decision, decide, lands
from controller.table.doubts import phantoms
from controller.table.expected import Expected, empty_mask, has_colours, strip_colours
from controller.table.inference import IDLE, LIFTED, MISMATCH, WAIT, Explanation
from controller.table.journaling import JournalLike, unfinished
from controller.table.trace import RoleTrace, Trace
from controller.table.turns import in_order
from controller.table.view import BoardView
from engine.game import Game
from engine.move import PASS, Move
from hardware.events import ButtonEvent, SensorEvent, SnapshotEvent, StatusEvent

_INF, _MAX_CHAIN = float("inf"), 100


class TableController:
    """Turns sensor events into committed actions and a BoardView.

    ``colours``: True (a camera: top colours known), False (occupancy only: colours in
    readings are ignored) or None (known as soon as a reading names a colour).
    With a ``journal`` its unfinished game resumes (or a new one starts); the players must then
    make the table match the stored position (mismatch roles) before anything is inferred.
    ``game`` starts from a given position instead (tests, demos; not journaled unless new).
    ``trace`` receives the --trace records (roles, prompt, mismatch) as dicts."""

    def __init__(
        self, *,
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
        polarity: bool = True,
        limits: Limits | None = None,
    ) -> None:
        self.journal = journal
        self.check_polarity = polarity
        self.limits = limits or Limits()
        self.polarity: str | None = None  # the hall board's latest per-cell magnet polarity
        self.searches: list[Result] = []  # the last catch-up searches (for benchmarks)
        self.search_count = 0
        self._budget = self.limits.snapshot  # positions left for the current answer
        #: the next reading (even the same) is explained again: the budget ran out after
        #: something was committed (each reading's work stays bounded), or a hand holds a commit
        self._resume = False
        self._t = self._acted = 0.0  # the stable snapshot explained; the last action's
        self._cut = False  # a search of this inference pass was cut by its node bound
        self.exhausted = 0  # answers whose node budget ran out (for benchmarks)
        self.caught_up: list[int] = []  # plies committed at once by one catch-up
        #: stable snapshots that needed a search: (seconds, plies moved, positions searched,
        #: CPU seconds of this process: the cost without the machine's other load)
        self.latencies: list[tuple[float, int, int, float]] = []
        self.colours = colours
        self.debouncer = Debouncer(timing)
        self.hints = hints
        self.players = players
        self.source = source
        self.new_needs_long = new_needs_long
        self._trace = RoleTrace(trace) if trace is not None else None
        #: Called with the controller after every event it handled (e.g. the web view's
        #: publisher); they run in the thread that drives the controller.
        self.listeners: list[Callable[[TableController], None]] = []
        #: The computer players and hints (controller.players.opponent.Opponent.attach), or None.
        self.opponent: Any = None
        self.timer: Any = None  # the game clock (controller.table.timer.TableClock), or None
        self.game = game.copy() if game is not None else Game()
        self.game_id: int | None = None
        self.resumed = False
        if journal is not None and game is not None:
            self.game_id = journal.new_game(white=players[0], black=players[1], source=source)
            for move in self.game.move_stack:
                journal.append(self.game_id, str(move))
        elif journal is not None:
            info = unfinished(journal) if resume else None
            if info is not None:
                self.game_id = info
                self.game = Game.from_moves(journal.actions(info))
                self.resumed = True
            else:
                self.game_id = journal.new_game(white=players[0], black=players[1], source=source)
        self.stable: str | None = None
        #: per cell, since when it reads empty (inf: it does not; ``emptied``: found by a second
        #: reading, table.heightcheck): what emptied first came first
        self._since: list[float] = [_INF] * 49
        self.emptied: dict[int, float] = {}
        self.removals: dict[int, str] = {}
        self._tall: dict[int, int] = {}  # the height of each stack cut off when it was
        # the removals as they were before each action of the game (for take-backs)
        self._history: list[dict[int, str]] = [{} for _ in self.game.move_stack]
        self.blocked = False  # True after undo/new: the table must match before inferring
        self.explanation = Explanation(IDLE)
        self.lift_source: int | None = None
        self.gesture = self._unreadable = 0
        self.suggested: int | None = None
        self._pick: int | None = None  # a cell chosen with confirm
        self._picks: list[int] = []  # the cells chosen so far for the current prompt
        self.message = self.status = self._plain = ""
        self.finished = False
        self._choice_empty = 0  # cells already empty when the current prompt began
        self.sight = CameraEvidence(noise=self.debouncer.timing.noise)  # a hand, a piece unnamed
        self.candidates = Candidates()  # the games the readings allow while a prompt is open
        self._watch = 0  # the cells a prompt asks the hands about
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
            polarity = getattr(event, "polarity", None)
            turned = False  # a piece turned over or swapped: the same cells, a new polarity
            if polarity and polarity != self.polarity:
                turned = self.check_polarity and self.polarity is not None
                self.polarity = polarity
            snap = self.debouncer.feed(event.t, cells)
            hidden = self.debouncer.unreadable
            answered = self.colours and self.sight.observe(
                self._watch, hidden, event.touched, event.t, cells, self.stable or cells,
                event.grown, event.glare)
            if snap is None and (hidden != self._unreadable or turned or self._resume
                                 or answered):
                snap = self.debouncer.stable
            if snap is not None:
                self._on_stable(event.t, snap)
        elif isinstance(event, ButtonEvent):
            self.advance(event.t)
            self._on_button(event)
            self._emit(event.t)
        elif isinstance(event, StatusEvent):
            self.status = "" if event.kind in ("connected", "reconnected") else (
                status_line(event.kind, event.detail))
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
        while (d := self.debouncer.next_deadline(held=True)) is not None:
            last, snap = d, self.debouncer.advance(d, held=True)
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

    def heights(self) -> list[int]:
        """The stacks' heights as the table shows them (cut-off stacks not yet taken away)."""
        tall, stacks = self._tall, self.game.stacks()
        return [tall.get(c, 1) if c in self.removals else len(s) for c, s in enumerate(stacks)]

    def height_question(self) -> tuple[int, int] | None:
        """While a prompt asks where the first action not committed landed: the prompted
        cells and the moved stack's height, which a camera may tell by the stacks' heights."""
        e = self.explanation
        by = len(self.game.stack(e.source)) if e.kind == LIFTED and e.source is not None else 0
        return (self._watch, by) if self._watch and by else None

    def view(self) -> BoardView:
        """The BoardView for the current state (a pure function of it)."""
        return guide.compose(self)

    # ----------------------------------------------------------------- inference
    def _on_stable(self, t: float, snap: str) -> None:
        self.stable = snap
        self._t = t
        since = self._since
        for c, ch in enumerate(snap):
            if ch == ".":
                if since[c] == _INF:
                    since[c] = min(t, self.debouncer.seen_since(c), self.emptied.get(c, t),
                                   self.debouncer.first_empty(c))
            elif ch != "?":
                since[c] = _INF
        searched = self.search_count
        start = time.perf_counter()
        cpu = time.process_time()
        ply = self.game.ply
        self._infer()
        if self.search_count > searched and len(self.latencies) < 100000:
            # (seconds to answer this snapshot, plies it moved the game by, positions)
            self.latencies.append((time.perf_counter() - start, self.game.ply - ply,
                                   self.limits.snapshot - self._budget,
                                   time.process_time() - cpu))
        self._emit(t)

    def _search(self, snap: str, hidden: int, unseen: bool = False, keep: bool = False) -> Result:
        """The catch-up search from the committed game (along the games the readings allowed
        while a prompt is open or since ``keep``). Once a stack of the side to act was seen
        lifted, the game goes on with its move (not another that cut it off) while they allow."""
        e = self.explanation
        first = e.source if e.kind == LIFTED and not self.game.placing else None
        for start in (first, None) if first is not None else (None,):
            result = self.candidates.search(
                self.game, snap, plain=snap == self._plain and not unseen,
                prompt=e.kind == LIFTED and bool(e.choice), removals=self.removals,
                history=self._history, polarity=self.polarity if self.check_polarity else None,
                limits=self.limits, hidden=hidden, first=start, extra=self._slack,
                nodes=self._budget, since=self._since, unseen=unseen, t=self._t,
                loose=self.debouncer.flicker_empty(self._since),
                answer=self.sight.narrow(self.game),  # (a hand said where; stacks set down)
                covered=hidden if self.colours and snap == self._plain else 0, keep=keep)
            self._budget -= result.nodes
            self._cut = self._cut or result.truncated
            self.search_count += 1
            del self.searches[:-999]  # (the last thousand)
            self.searches.append(result)
            if result.hypotheses:
                break
        return result

    @property
    def _slack(self) -> int:
        """While a prompt is unanswered the next player may act, and in a blind spell whole
        actions may pass unseen (camera session 320): one action more counts (never a guess)."""
        e = self.explanation
        return 1 if e.kind == LIFTED and e.choice or self.debouncer.blind_at > self._acted else 0

    def _infer(self) -> None:
        """Explain the stable snapshot (cells unreadable right now keep their last stable
        reading, but nothing that changes them is committed while they are hidden)."""
        snap = self.stable
        if snap is None or self.finished and not self.game.is_over():  # a flag fell
            return
        hidden = self._unreadable = self.debouncer.unreadable
        # one node budget for this answer, shared by every search of the chain below: the
        # worst case is bounded, and the same log gives the same game on any machine
        self._budget = self.limits.snapshot
        self._resume = False
        if self.colours:  # a lone '?' where the side to act places: its piece
            snap, hidden, self._resume = self.sight.placement(self.game, snap, hidden, self._t)
            snap = phantoms(self.game, snap, self.removals, self.sight.moved)
        self._plain = snap  # (a plain reading: pieces under a lamp's spot named, nothing masked)
        named = self._unreadable & ~hidden
        ply = self.game.ply
        for _ in range(_MAX_CHAIN):
            expected = self.expected
            cleared = expected.cleared(snap)
            if cleared:
                for c in list(self.removals):
                    if (cleared >> c) & 1:
                        del self.removals[c]
                expected = self.expected
            diff = expected.diff(snap)
            if self.blocked:
                if diff:
                    self._set(Explanation(MISMATCH, mismatch=diff))
                    return
                self.blocked = False
            if not diff:
                self._set(Explanation(IDLE))
                return
            e = self.explanation
            slack = self._slack
            empty = empty_mask(snap)
            choice = e.choice if e.kind == LIFTED else 0
            raised = gesture.raised(choice, empty, self._choice_empty, self._since,
                                    self.debouncer.patchy() if self.colours and choice & empty
                                    else 0)  # (a camera's; only asked when it may matter)
            self.gesture |= raised
            result = d = None
            from_masked = False  # the decision was read with the raised cells hidden
            answered = None  # a prompted cell the players chose while another one is up
            self._cut = False
            if raised:
                masked = "".join("?" if (raised >> c) & 1 else ch for c, ch in enumerate(snap))
                result = self._search(masked, hidden)
                d = decide(result, slack=slack)
                if d.kind == "commit":  # nothing is settled while the gesture is under way
                    answered = self._answer(e.choice, empty)
                    # unless the players answered the prompt on another cell (a completed
                    # gesture, next/confirm): then the raised cells that stay up are stacks
                    # gone (cut off and taken away: hall seeds 362, 364, 468, 502), and the
                    # board as read, with that answer, says what happened
                    d = None if answered is not None else Decision("wait")
                elif d.kind in ("choose", "lifted") and (
                        d.choice & ~e.choice or not d.choice & raised):
                    # not the prompt whose gesture this would be: the cell may be the
                    # source of the next player's move, and the board itself says (the
                    # same prompt narrowed, the raised cell still in it, is the gesture's:
                    # hall seed 364, another prompted cell the next move's source)
                    d = None
                from_masked = d is not None and d.kind != "none"
            if result is None or d is None or d.kind == "none":
                result = self._search(snap, hidden)
                d = decide(result, slack=slack, picks=self._picks)
                if answered is not None and d.kind == "commit" and not lands(
                        d, answered, e.by_source):
                    d = Decision("wait")  # the board as read disputes the players' answer
            if hidden and d.kind in ("none", "commit"):
                # cells a hand covers now keep their last reading; what they may hide (a stack
                # gone too) must not be able to change the decision: no mismatch, and no commit
                # it would dispute; what only the unseen cells explain, and a later move of the
                # other side proves finished, is committed (camera game 7); kept (room game 120)
                covered = "".join("?" if (hidden >> c) & 1 else ch for c, ch in enumerate(snap))
                d2 = decide(self._search(covered, hidden, True, keep=d.kind == "none"),
                            slack=slack, picks=self._picks)
                if d.kind == "none" and d2.kind != "none":
                    d = d2 if d2.kind == "commit" else Decision("wait")
                elif d.kind == "commit" and (d2.kind, d2.back, d2.moves) != (
                        d.kind, d.back, d.moves):
                    d = Decision("wait", source=d2.source)
            if d.choice & (d.choice - 1):
                chosen = self.gesture & d.choice & ~empty  # lifted and set back
                pick = self._pick
                if chosen and not chosen & (chosen - 1):
                    pick = chosen.bit_length() - 1
                if pick is not None and (d.choice >> pick) & 1 and from_masked:
                    # a choice is applied to the whole board as read, not to the board with
                    # the prompted cells that are up hidden: one of them may have been the
                    # next move's source (hall seed 884: its move was lost)
                    result = self._search(snap, hidden)
                    base = decide(result, slack=slack, picks=self._picks)
                    if not (base.choice >> pick) & 1:
                        pick = None
                        if base.kind == "commit" and not hidden:
                            d = base  # the board alone says it: the cell was a source
                if pick is not None and (d.choice >> pick) & 1:
                    # one stage answered; a next stage (where from, when every candidate
                    # landed on the picked cell) keeps what was answered so far
                    self._picks = [*self._picks, pick]
                    d = decide(result, slack=slack, picks=self._picks)
            # with a camera a commit waits while a hand is next to what it changes, and for
            # the readings there to settle: a sleeve reads like a piece (camera game 3: a white
            # sleeve on D2 read w, and as the hand left C1C2 was rewritten as C1D2)
            if self.colours:
                d = in_order(self.game, d, self.sight.began(self.debouncer.seen_since),
                             self.debouncer.shown_since)
                chosen = sum(1 << c for c in self._picks) | self.gesture
                held = self.sight.held(self.game, d, self.debouncer, hidden, named, self._t,
                                       chosen, diff)
                self._resume = self._resume or held is not d  # look again at each reading
                d = held
            if self._cut and d.kind != "commit":
                # a search was cut by its node bound: decide() made that a mismatch (or a
                # wait), never a guess; a new reading goes on from here, the same reading too
                # when this answer committed something (progress, so no busy loop)
                self.exhausted += 1
                self._resume = self._resume or self.game.ply != ply
            if not self._apply(d, diff):
                return
        raise RuntimeError("inference did not settle")  # pragma: no cover - a bug guard

    def _answer(self, choice: int, empty: int) -> int | None:
        """The prompted cell the players chose: the one lifted and set back, or the one
        confirmed with the buttons (None when they have not answered)."""
        chosen = self.gesture & choice & ~empty
        if chosen and not chosen & (chosen - 1):
            return chosen.bit_length() - 1
        if self._pick is not None and (choice >> self._pick) & 1:
            return self._pick
        return None

    def _apply(self, d: Decision, diff: int) -> bool:
        """Act on a decision; True when it committed something (infer again from there)."""
        if d.kind == "commit":
            if self.opponent is not None and self.opponent.refuse(self, list(d.moves), d.back):
                # not the computer's action: never accepted (the opponent lights its own)
                self._set(Explanation(MISMATCH, mismatch=diff))
                return False
            if d.back:
                self._take_back(d.back)
                self.message = Msg("taken back")
            plies = 0
            for move in d.moves:
                if move == PASS:
                    continue  # forced: _commit passes it
                self._commit(move)
                plies += 1
            if plies > 1 or d.back:
                self.caught_up.append(plies)
            self._pick = None
            self._picks = []
            return True
        if d.kind in ("lifted", "choose"):
            candidates = d.choice
            if d.source is not None and not self.game.placing:
                candidates |= self.game.destinations(d.source)
            choice = d.choice if d.choice & (d.choice - 1) else 0
            if choice != self.explanation.choice:  # a new prompt
                # a prompted cell still up (its gesture half made) stays a gesture: the
                # prompt may change while it is up and come back when it is set down
                up = self.gesture & empty_mask(self.stable or "")
                self._choice_empty = empty_mask(self.stable or "") & ~up
                self.gesture = up
            self._watch = 0 if d.by_source else choice  # where the first action landed
            self.sight.prompted(self.game, self.heights(), d, choice, diff, self.stable)
            self._set(Explanation(LIFTED, source=d.source, candidates=candidates, choice=choice,
                                  by_source=d.by_source and bool(choice)))
            if self.suggested is not None and not (choice >> self.suggested) & 1:
                self.suggested = None
            return False
        if d.kind == "wait":
            if d.source is not None and self.explanation.kind != LIFTED:
                self._set(Explanation(LIFTED, source=d.source,
                                      candidates=self.game.destinations(d.source)))
            elif self.explanation.kind == MISMATCH:
                self._set(Explanation(WAIT))
            return False
        if d.kind == "idle":
            self._set(Explanation(IDLE))
            return False
        self._set(Explanation(MISMATCH, mismatch=diff))
        return False

    def _set(self, e: Explanation) -> None:
        if e.kind != LIFTED or e.source != self.lift_source:
            self.suggested = None
        if not e.choice:
            self.gesture = 0
            self._picks = []
        self.lift_source = e.source if e.kind == LIFTED else None
        self.explanation = e

    # ----------------------------------------------------------------- actions
    def _commit(self, move: Move) -> None:
        """Play ``move`` on the engine, journal it, then pass forced passes."""
        board = self.expected.board
        tall = [len(s) for s in self.game.stacks()]
        self._history.append(dict(self.removals))
        removed = self.game.push(move)
        self.sight.committed()  # a hand's answer was about this action
        self._acted = self._t
        self._watch = 0
        for c in range(49):
            if (removed >> c) & 1:  # a target cut off shows the moved stack's top
                src = move.source if c == move.target and move.source is not None else c
                self.removals[c] = board[src]
                self._tall[c] = tall[c] + (tall[src] if src != c else 0)
        self._journal_append(str(move))
        self._set(Explanation(IDLE))
        self.message = ""
        self._auto_pass()
        self._check_over()

    def _auto_pass(self) -> None:
        while not self.game.placing and self.game.legal_moves() == [PASS]:
            white = self.game.turn == "w"
            self._history.append(dict(self.removals))
            self.game.push(PASS)
            self._journal_append("PASS")
            self.message = Msg(guide.PASSED[white])

    def _check_over(self) -> None:
        if self.finished or not self.game.is_over():
            return
        w, b = self.game.score()
        result = {"w": "white", "b": "black"}.get(self.game.winner() or "", "tie")
        if self.journal is not None and self.game_id is not None:
            self.journal.finish(self.game_id, white_score=w, black_score=b, result=result)
        self.finished = True
        self.message = Msg(guide.OVER[result], w=w, b=b)

    def _journal_append(self, action: str) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.append(self.game_id, action)

    def _pop(self) -> None:
        self.game.pop()
        self.sight.committed()
        self._watch = 0
        self.removals = self._history.pop() if self._history else {}
        if self.journal is not None and self.game_id is not None:
            self.journal.take_back(self.game_id)
        self.finished = False

    def _take_back(self, n: int) -> None:
        """Take back ``n`` actions, each with the forced passes after it."""
        for _ in range(n):
            while self.game.move_stack and self.game.move_stack[-1] == PASS:
                self._pop()
            if self.game.move_stack:
                self._pop()
        self._set(Explanation(IDLE))

    def undo(self) -> bool:
        """Take back the last action (and the forced passes after it); the table must follow."""
        if not self.game.move_stack:
            return False
        self._take_back(1)
        self.removals = {}
        self.blocked = True
        self.message = Msg("undone: restore the board")
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
        self.sight.reset()
        self._watch = 0
        self._history = []
        self.removals = {}
        self.finished = False
        self.blocked = True
        self._set(Explanation(IDLE))
        self.message = Msg("new game: clear the board")
        self._infer()

    def _on_button(self, event: ButtonEvent) -> None:
        name = event.button
        if name == "hint":
            self.hints = not self.hints
            if self.opponent is not None:
                self.opponent.on_hint(self)
        elif name == "undo":
            self.undo()
        elif name == "new":
            if event.long or not self.new_needs_long:
                self.new_game()
        elif name in ("next", "confirm"):
            self._choose(name)
        elif self.timer is not None:  # ``clock``: the player hands the clock over
            self.timer.button(event)

    def _choose(self, name: str) -> None:
        e = self.explanation
        if e.kind != LIFTED or not e.choice:
            return
        # next cycles over every lit destination (a recorded session's presses keep their
        # meaning); only a prompted (blinking) cell can be confirmed
        cells = [c for c in range(49) if ((e.candidates | e.choice) >> c) & 1]
        if name == "confirm" and self.suggested is not None:
            self._pick = self.suggested
            self._infer()
            self._pick = None
            return
        if self.suggested is None or self.suggested not in cells:
            self.suggested = cells[0]
        else:
            self.suggested = cells[(cells.index(self.suggested) + 1) % len(cells)]

    def notify(self) -> None:
        """Something outside the table changed (a remote action arrived): tell listeners."""
        self._emit(self._t)

    def _emit(self, t: float) -> None:
        for listener in self.listeners:
            listener(self)
        if self._trace is not None:
            self._trace(t, self.view())
