"""The virtual table: the board in the browser is the table, read by a virtual sensor.

:class:`VirtualTable` is a runner Source. It keeps the stacks standing on an imaginary table
and turns the pages' clicks into what hands would do there: put the next piece down (phase
1), lift a stack and set it down on a legal landing space (phase 2), take cut-off stacks
away. Each change is a snapshot (occupancy, like the hall-sensor board) fed to the SAME
TableController as the real sensors, so placement checks, removal prompts, undo, passes and
the end of the game work exactly as on the table. When the controller asks for something the
clicks already said, the table does it by itself, as a player would: the "lift the
destination and set it back" gesture when a landing is in doubt, restoring the position after
undo or a new game (mismatch roles), and (unless ``auto_remove`` is off) taking cut-off
stacks away.

A click on a stack only picks it up in the page (:meth:`VirtualTable.overlay` shows it as
``source`` and its landing spaces as ``destination``); the lift and the landing reach the
controller together when the landing space is clicked, like a quick hand. So every move is
two clicks, even for a stack with one landing space, and a second click on the stack puts it
back without the controller ever seeing it move.

Computer players: ``agents`` maps a side ('w', 'b') to an :data:`Agent`, a function from a
copy of the game to the action it plays; it runs in a worker thread and its action is carried
out on the table like a click. :func:`agent_for` makes one from a player spec of
:mod:`controller.players.player` (``ai[:LEVEL]``, ``random``, ``greedy``).

Everything here runs in the thread that drives the controller (the runner's); pages reach it
only through :class:`~controller.web.bridge.Inbox` commands.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from controller.i18n import Msg, error_message, in_every_language
from controller.i18n import side as side_name
from controller.table.session import TableController
from controller.web.bridge import CONTROLS, Command, Inbox
from engine.game import Game
from engine.geometry import CELL_NAMES, iter_cells, parse_cell
from engine.move import Move
from hardware.clock import Clock
from hardware.events import ButtonEvent, SensorEvent, SnapshotEvent, StatusEvent

#: A computer player: the action to play in (a copy of) ``game``; called in a worker thread.
Agent = Callable[[Game], Move]
_MAX_NEXT = 8  # next presses before giving up on choosing a landing by the buttons


def agent_for(spec: str, side: str, seed: int = 0) -> Agent | None:
    """The agent for a player spec (controller.players.player): None for ``human``; PlayerError
    (a DvonnError) naming a bad spec. ``cmd:`` programs need every action and take-back
    told to them, which the virtual table does not do (yet): refused."""
    from controller.players.player import PlayerError, check_spec, is_human, make_player

    text = check_spec(spec)
    if is_human(text):
        return None
    if text.startswith("cmd:") or text.startswith("remote"):
        raise PlayerError(Msg("player {spec!r}: the virtual table plays human, ai[:LEVEL], random "
                              "or greedy (an external program plays with 'dvonn-board match', a "
                              "remote player with 'play' or 'demo')", spec=spec))
    player = make_player(text, seed=seed)
    player.new_game(side)
    return player.choose


class VirtualTable:
    """A runner Source: pages' clicks and buttons -> snapshots and ButtonEvents."""

    def __init__(self, ctl: TableController, inbox: Inbox, clock: Clock, *,
                 auto_remove: bool = True, agents: dict[str, Agent] | None = None) -> None:
        #: commands that are no button or click, by name (the live tutor's ``tutor``):
        #: run in the table's thread, answered '' (done) or why not
        self.handlers: dict[str, Callable[[str, str], str]] = {}
        #: what closes with the table (the live tutor and its worker process)
        self.closing: list[Any] = []
        self.ctl = ctl
        self.inbox = inbox
        self.clock = clock
        self.auto_remove = auto_remove
        self.agents = dict(agents or {})
        self.stacks = list(ctl.game.stacks())  # the table shows the (resumed) position
        self.held: tuple[int, str] | None = None  # (source, stack) in the hand
        self.picked: int | None = None  # a stack picked up in the page only (see overlay)
        #: Called when something only the page shows changed (e.g. the web publisher).
        self.on_change: Callable[[], None] | None = None
        self._landing: tuple[int, int, int, str] | None = None  # (cell, ply, stage, stack)
        self._plan: int | None = None  # the computer's landing cell, after its lift
        self._pending: list[tuple[Command, str]] = []  # answered once the controller saw it
        self._started = False
        self._undo_to_human = False  # an undo against the computer goes back to a human turn
        self._thinking: Future[Move] | None = None
        self._thinking_at: tuple[int | None, int] = (None, -1)
        self._executor: ThreadPoolExecutor | None = None
        self.error: str = ""  # a Msg: shown in the player's language

    # ------------------------------------------------------------------ the sensor
    def cells(self) -> str:
        """What the virtual sensor reads: 'x' where a stack stands, '.' where none does."""
        return "".join("x" if s else "." for s in self.stacks)

    def _snap(self) -> list[SensorEvent]:
        return [SnapshotEvent(self.clock.now(), self.cells())]

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        """One round: act by itself if due; else answer the commands whose effects have all
        been fed (so a page that reads the state after its answer sees the table settled),
        then take one command."""
        events = self._by_itself()
        if events:
            return events
        for done, detail in self._pending:
            done.answer(True, detail)
        self._pending = []
        wait = min(timeout, 0.01) if self._thinking is not None else timeout
        cmd = self.inbox.get(wait)
        if cmd is None:
            return []
        if cmd.name in CONTROLS:
            self._pending.append((cmd, cmd.name))
            self._undo_to_human = cmd.name == "undo" and bool(self.agents)
            return [ButtonEvent(self.clock.now(), cmd.name, cmd.name == "new")]
        handler = self.handlers.get(cmd.name)
        if handler is not None:
            why = handler(cmd.arg, cmd.seat)
            cmd.answer(not why, why or cmd.arg)
            return []
        if cmd.name != "click":
            cmd.answer(False, Msg("unknown command {name!r}", name=cmd.name))
            return []
        picked = self.picked
        stacks = list(self.stacks)
        refusal = self._click(cmd.arg, cmd.seat)
        if refusal:
            cmd.answer(False, refusal)
            return []
        if self.picked != picked:
            self._changed()
        if stacks == self.stacks:  # only the page saw it (picked up or put back)
            cmd.answer(True, "done")
            return []
        self._pending.append((cmd, "done"))
        return self._snap()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def overlay(self, state: dict[str, Any]) -> dict[str, Any]:
        """The published state with the stack picked up in the page: ``source`` on it,
        ``destination`` on its landing spaces, and what to do in the message (or, while a
        computer player thinks, that it does)."""
        if self._thinking is not None and not self._thinking.done():
            said = Msg("{side} (computer) is thinking", side=side_name(self.ctl.game.turn))
            return {**state, "message": said, "messages": in_every_language(said)}
        if self.picked is None:
            return state
        source = CELL_NAMES[self.picked]
        roles = dict(state.get("roles") or {})
        roles[source] = "source"
        for c in iter_cells(self.ctl.game.destinations(self.picked)):
            roles[CELL_NAMES[c]] = "destination"
        said = Msg("{side} holds {cell}: click where it lands, or {cell} to put it back",
                   side=side_name(self.ctl.game.turn), cell=source)
        return {**state, "roles": roles, "message": said, "messages": in_every_language(said)}

    # ------------------------------------------------------------------ what the controller says
    def _roles(self, role: str) -> list[int]:
        return sorted(c for c, r in self.ctl.view().roles.items() if r == role)

    def _restored(self) -> list[str]:
        """The stacks the position needs (cut-off stacks taken away)."""
        out = list(self.ctl.game.stacks())
        for c in self._roles("remove"):
            out[c] = ""
        return out

    def _by_itself(self) -> list[SensorEvent]:
        """What the table does without a click (one step per poll), or []."""
        ctl = self.ctl
        if not self._started:
            self._started = True
            return self._snap()
        if self.picked is not None and not self._idle():
            self.picked = None  # undo, a new game...: the page's pick is void
            self._changed()
        if self._roles("mismatch"):  # after undo or a new game: put the position back
            want = self._restored()
            self.held = None
            self._landing = None
            self._plan = None
            if want != self.stacks:
                self.stacks = want
                return self._snap()
            return []
        if self._landing is not None:
            return self._settle_landing()
        if self._plan is not None:
            target, self._plan = self._plan, None
            if self.held is not None:
                self._put(target)
                return self._snap()
        removable = self._roles("remove")
        if self.auto_remove and removable and self.held is None:
            for c in removable:
                self.stacks[c] = ""
            return self._snap()
        if self._undo_to_human:  # the computer's action is taken back too
            if ctl.game.turn in self.agents and ctl.game.move_stack:
                return [ButtonEvent(self.clock.now(), "undo")]
            self._undo_to_human = False
        return self._computer(ctl)

    def _settle_landing(self) -> list[SensorEvent]:
        """After a stack was set down: if the controller is still in doubt where it landed,
        make the gesture on the landing cell, then choose it with next/confirm if needed."""
        assert self._landing is not None
        cell, ply, stage, saved = self._landing
        view = self.ctl.view()
        if self.ctl.game.ply != ply or not (view.prompt or "source" in view.roles.values()):
            self._landing = None
            return []
        if stage == 0:  # lift the landing stack ...
            self._landing = (cell, ply, 1, self.stacks[cell])
            self.stacks[cell] = ""
            return self._snap()
        if stage == 1:  # ... and set it back
            self.stacks[cell] = saved
            self._landing = (cell, ply, 2, "")
            return self._snap()
        if stage - 2 > _MAX_NEXT:
            self._landing = None
            self.error = Msg("could not tell the controller the landing on {cell}",
                             cell=CELL_NAMES[cell])
            return [StatusEvent(self.clock.now(), "virtual table", self.error)]
        self._landing = (cell, ply, stage + 1, "")
        button = "confirm" if self.ctl.suggested == cell else "next"  # (a hint lights others)
        return [ButtonEvent(self.clock.now(), button)]

    # ------------------------------------------------------------------ hands
    def _idle(self) -> bool:
        view = self.ctl.view()
        busy = {"mismatch", "remove", "source", "destination", "suggest"}
        if self.ctl.suggested is None:
            busy.discard("suggest")  # a hint's (the Hint switch), not the table's own
        return (self.held is None and self._landing is None and self._plan is None
                and not view.prompt and not busy & set(view.roles.values()))

    def _click(self, name: str, seat: str) -> str:
        """Do what a click on cell ``name`` means; '' when done, else why it was refused."""
        try:
            cell = parse_cell(name)
        except ValueError:
            return Msg("{name!r} is not a cell", name=name)
        game = self.ctl.game
        if game.is_over():
            return Msg("the game is over")
        removable = self._roles("remove")
        if cell in removable:  # whoever is at the table takes a cut-off stack away
            self.stacks[cell] = ""
            return ""
        turn = game.turn
        if seat and seat != turn:
            return Msg("it is {side}'s turn", side=side_name(turn))
        if turn in self.agents:
            return Msg("it is the computer's turn ({side})", side=side_name(turn))
        if self._roles("mismatch") or self._landing is not None or self.held is not None:
            return Msg("wait: the table is being set right")
        if game.placing:
            if self.stacks[cell]:
                return Msg("{cell} is occupied", cell=CELL_NAMES[cell])
            piece = game.piece_to_place()
            assert piece is not None
            self.stacks[cell] = piece
            return ""
        if removable:
            return Msg("take the cut-off stacks away first")
        source = self.picked
        if source is not None and cell == source:  # put it back: changed one's mind
            self.picked = None
            return ""
        if source is not None and (game.destinations(source) >> cell) & 1:
            self.picked = None  # lift now, land on the next poll (after the lift was read)
            self._lift(source)
            self._plan = cell
            return ""
        if (game.movable() >> cell) & 1:
            self.picked = cell
            return ""
        if source is not None:
            return Msg("{cell} is not a landing space for {source}", cell=CELL_NAMES[cell],
                       source=CELL_NAMES[source])
        if not self.stacks[cell]:
            return Msg("{cell} is empty", cell=CELL_NAMES[cell])
        owner = game.owner(cell)
        if owner is not None and owner != turn:
            return Msg("the stack on {cell} is not yours: {side} moves now",
                       cell=CELL_NAMES[cell], side=side_name(turn))
        return Msg("the stack on {cell} cannot move now", cell=CELL_NAMES[cell])

    def _lift(self, cell: int) -> None:
        self.held = (cell, self.stacks[cell])
        self.stacks[cell] = ""

    def _put(self, cell: int) -> None:
        """Set the held stack down on ``cell``; the landing is then settled by itself."""
        assert self.held is not None
        self.stacks[cell] += self.held[1]
        self.held = None
        self._landing = (cell, self.ctl.game.ply, 0, "")

    # ------------------------------------------------------------------ computer players
    def _computer(self, ctl: TableController) -> list[SensorEvent]:
        game = ctl.game
        agent = self.agents.get(game.turn)
        if agent is None or game.is_over() or self.error or not self._idle():
            self._thinking = None if agent is None else self._thinking
            return []
        key = (ctl.game_id, game.ply)
        if self._thinking is None or self._thinking_at != key:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="dvonn-agent")
            self._thinking = self._executor.submit(agent, game.copy())
            self._thinking_at = key
            self._changed()
            return []
        if not self._thinking.done():
            return []
        future, self._thinking = self._thinking, None
        try:
            move = future.result()
            legal = move in game.legal_moves()
        except Exception as exc:  # a broken agent must not stop the table
            self.error = Msg("{side} (computer) failed: {error}", side=side_name(game.turn),
                             error=error_message(exc))
            return [StatusEvent(self.clock.now(), "computer", self.error)]
        if not legal:
            self.error = Msg("{side} (computer) chose {action}, not legal here",
                             side=side_name(game.turn), action=str(move))
            return [StatusEvent(self.clock.now(), "computer", self.error)]
        if move.is_placement:
            assert move.target is not None
            piece = game.piece_to_place()
            assert piece is not None
            self.stacks[move.target] = piece
            return self._snap()
        if move.source is None or move.target is None:  # a pass goes by itself
            return []
        self._plan = move.target
        self._lift(move.source)
        return self._snap()

    def close(self) -> None:
        """Stop the computer players' worker and what closes with the table (safe twice)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        while self.closing:
            close = getattr(self.closing.pop(), "close", None)
            if close is not None:
                close()

