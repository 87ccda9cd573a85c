"""A mean generator of physical table sessions: sensor logs of whole games with their truth.

Two players play a random game on a simulated table read by hall sensors ('.'/'x', with the
magnets' polarity on some boards) or a camera ('.'/'w'/'b'/'r', and '?' where a hand
covers). They behave like real people at a real table, not like the controller's friends:

- hands cover the acting cell and its neighbours (camera) before and while acting;
- a lifted stack is sometimes held in the air, seen as an empty source, before it lands;
- the gesture (lift the destination, set it back) or next/confirm only when the LEDs prompt,
  and now and then the prompt is left unanswered and the next player moves first (answering
  it later, while it still blinks); at a camera table the gesture is mostly made under the
  hand (the camera sees a hand over the cell, never the cell empty: it tells the stack set
  back by ``touched``, as vision.cues.touch does, and misses one now and then), else the stack is
  held up aside (the cell seen empty) and set back;
- cut-off stacks are sometimes taken away only after the next player has started;
- a knocked stack is put back; a wrong piece is put down and swapped;
- readings are missed (dropped frames, a blackout over a whole action), repeated, or noisy
  (a cell flips for 0.1 s; a sensor reads '?').

Behind switches of :func:`generate` (off: the sessions are exactly as before): ``answers``
(prompts answered on timings drawn from ranges, some players never answering),
``lights`` (the sensor told what a lit table's LEDs show), ``record`` (a real game's actions).

The players look at the controller's BoardView (a live TableController fed the same frames)
only to know whether a prompt asks them for something. :func:`generate` returns the log
events and the true actions; replaying the log must give exactly those actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.sensorlog import LogEvent
from controller.sim.answers import (
    AnswerRanges,
    Habit,
    Lit,
    candidates,
    habits,
    lit_roles,
    record_actions,
    will_ask,
)
from controller.sim.timed import TimedAnswers
from controller.table.catchup import Limits
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import NEIGHBOURS
from engine.move import PASS, Move
from hardware.events import ButtonEvent, SnapshotEvent

FRAME = 0.1
POLARITY = {"w": "n", "r": "n", "b": "s"}


@dataclass(frozen=True)
class Meanness:
    """How often the unusual things happen (per frame, per action or per prompt)."""

    noise: float = 0.01  # per frame: one cell flips for one frame
    drop: float = 0.03  # per frame: the reading is missed
    repeat: float = 0.03  # per frame: the reading comes twice
    blackout: float = 0.02  # per action: no readings at all while it happens
    hold: float = 0.3  # per move: the stack is held in the air (source seen empty) a while
    knock: float = 0.03  # per action: a stack knocked off and put back
    wrong_piece: float = 0.03  # per placement: the wrong colour first, then swapped
    unanswered: float = 0.25  # per prompt: the next player acts before anyone answers
    buttons: float = 0.4  # per answer: next/confirm instead of the gesture
    late_removal: float = 0.2  # per move with cut-off stacks: taken after the next lift
    sleeve: float = 0.05  # per hand (camera): one covered cell reads a colour while covered
    hidden_gesture: float = 0.8  # per gesture (camera): made under the hand, not held aside
    touch_missed: float = 0.1  # per stack set down under a hand (camera): not seen moved


class GiveUp(Exception):
    """Raised by a sensor to end the game early (say the controller lost it long ago): the
    session then holds the true actions up to there, and ``stats["given_up"]`` is 1."""


@dataclass(frozen=True)
class Sight:
    """What a camera over the table films beside the stacks and the covered cells."""

    #: Per cell, how many times a stack has been set down there (placed, landed, set back):
    #: each time it stands a few millimetres elsewhere.
    set_downs: tuple[int, ...]
    hand: str  # whose hand is over the board: 'w' (row-1 side), 'b' (row 5), '' none
    over: int | None  # the cell that hand acts on (a carried stack's destination), or None
    t: float = 0.0  # the table's time (s)
    #: Per cell, how many times a stack was set back where it stood (a gesture with
    #: ``AnswerRanges``), and the last such set-back's shift (mm) from where it stood.
    set_backs: tuple[int, ...] = ()
    shifts: tuple[tuple[float, float], ...] = ()
    #: (cell, role) the table's LEDs would light for the true game now (``lights``).
    roles: tuple[tuple[int, str], ...] = ()


#: A real sensor in place of the ideal one: (true stacks, cells a hand covers, the live
#: controller, what else a camera films) -> the snapshot it reads, or the snapshot, the mask
#: of stacks it saw moved under a hand (``SnapshotEvent.touched``) and the prompted stack it
#: saw taller (``SnapshotEvent.grown``), and perhaps the cells it read '?' for a lamp's glare
#: (``SnapshotEvent.glare``); e.g. a rendered frame read by the camera reader. A bare snapshot
#: gets the ideal camera's ``touched`` (and no height, no glare).
Sensor = Callable[[list[str], frozenset[int], TableController, Sight],
                  "str | tuple[str, int, int] | tuple[str, int, int, int]"]


@dataclass
class Session:
    """A generated session: the log, the true actions, the expected output, what happened."""

    kind: str
    seed: int
    events: list[LogEvent]
    truth: list[str]
    expected: list[str]
    stats: dict[str, int] = field(default_factory=dict)
    #: Each answer timed from ``AnswerRanges`` (start, reach, hold, linger, shift, early).
    answers: list[dict[str, float]] = field(default_factory=list)


class _Table:
    """The physical table and its sensor, feeding a live controller and the log at once."""

    def __init__(self, kind: str, rng: random.Random, mean: Meanness, polarity: bool,
                 limits: Limits | None = None, sensor: Sensor | None = None) -> None:
        self.kind = kind
        self.sensor = sensor
        self.rng = rng
        self.mean = mean
        self.polarity = polarity
        self.stacks = [""] * 49
        self.covered: set[int] = set()
        self.t = 0.0
        self.events: list[LogEvent] = []
        self.ctl = TableController(colours=kind == "camera", limits=limits)
        self.dark = False  # a blackout: no readings
        # A sleeve or a hand the colour of a piece: a covered cell read as that colour. Its
        # own stream, so the players' and the other mishaps' draws stay as they were.
        self.sleeves = random.Random(hash(rng.getstate()[1][:8]))
        self.sleeve: dict[int, str] = {}
        # A camera sees a stack set down under a hand as moved once the hand is gone (and
        # misses one now and then): its own stream too.
        self.touches = random.Random(hash(rng.getstate()[1][8:16]))
        self.set_downs = [0] * 49
        self.moved: set[int] = set()  # set down under the hand that is there now
        self.touched = 0  # the camera's moved stacks, each until a hand covers it again
        self.hand = ""  # whose hand acts: 'w', 'b'
        self.over: int | None = None  # the cell it acts on
        self.stats: dict[str, int] = {}
        self.set_backs = [0] * 49
        self.shifts: list[tuple[float, float]] = [(0.0, 0.0)] * 49
        self.lit: Lit | None = None  # what the LEDs follow beside the game (``lights``)
        self.roles: Callable[[], tuple[tuple[int, str], ...]] = tuple

    def count(self, what: str) -> None:
        self.stats[what] = self.stats.get(what, 0) + 1

    def reading(self) -> tuple[str, int, int, int]:
        """What the sensor reads now: the snapshot, the stacks it saw moved, the prompted
        stack it saw taller, the cells it read '?' for a lamp's glare."""
        if self.sensor is not None:
            sight = Sight(tuple(self.set_downs), self.hand if self.covered else "",
                          self.over if self.covered else None, self.t,
                          tuple(self.set_backs), tuple(self.shifts), self.roles())
            got = self.sensor(self.stacks, frozenset(self.covered), self.ctl, sight)
            if isinstance(got, str):
                return got, self.touched, 0, 0
            return (got[0], got[1], got[2], got[3] if len(got) > 3 else 0)
        return self.cells(), self.touched, 0, 0

    def cells(self) -> str:
        """What an ideal sensor reads now."""
        out = []
        for c, s in enumerate(self.stacks):
            if self.kind == "camera" and c in self.covered:
                out.append(self.sleeve.get(c, "?"))
            elif not s:
                out.append(".")
            else:
                out.append(s[-1] if self.kind == "camera" else "x")
        return "".join(out)

    def polarities(self) -> str:
        if not self.polarity:
            return ""
        return "".join(POLARITY[s[0]] if s else "." for s in self.stacks)

    def _emit(self, event: LogEvent) -> None:
        self.events.append(event)
        self.ctl.handle(event)

    def frames(self, seconds: float) -> None:
        """Readings every 0.1 s for ``seconds`` (missed, repeated, noisy now and then)."""
        m, rng = self.mean, self.rng
        for _ in range(max(1, round(seconds / FRAME))):
            self.t = round(self.t + FRAME, 6)
            if self.dark or rng.random() < m.drop:
                continue
            cells, touched, grown, glare = self.reading()
            if rng.random() < m.noise:
                c = rng.randrange(49)
                flip = "?" if rng.random() < 0.3 else ("." if cells[c] != "." else (
                    "x" if self.kind == "hall" else rng.choice("wb")))
                cells = cells[:c] + flip + cells[c + 1:]
                self.count("noise")
            event = SnapshotEvent(self.t, cells, self.polarities(), touched, grown, glare)
            self._emit(event)
            if rng.random() < m.repeat:
                self._emit(event)

    def clean(self) -> None:
        """One last reading, without noise, missed frames or hands."""
        self.uncover()
        self.t = round(self.t + FRAME, 6)
        self._emit(SnapshotEvent(self.t, *self._read()))

    def press(self, button: str) -> None:
        self.t = round(self.t + FRAME, 6)
        self._emit(ButtonEvent(self.t, button))
        if not self.dark:
            # The sensor goes on scanning while a button is pressed: a noisy reading just
            # before a run of presses is answered by the next scan, not held for seconds.
            self._emit(SnapshotEvent(self.t, *self._read()))

    def _read(self) -> tuple[str, str, int, int, int]:
        cells, touched, grown, glare = self.reading()
        return cells, self.polarities(), touched, grown, glare

    def put(self, cell: int, stack: str, back: tuple[float, float] | None = None) -> None:
        """Set ``stack`` down on ``cell`` (a piece placed, a stack landed or set back, ``back``
        mm from where it stood): it never stands exactly where the last one did, and a camera
        that saw the hand over it sees it moved once the hand is gone (now and then it lands
        where it stood)."""
        self.stacks[cell] = stack
        self.set_downs[cell] += 1
        if back is not None:
            self.set_backs[cell] += 1
            self.shifts[cell] = back
        if self.kind == "camera" and cell in self.covered and not self.dark:
            if self.touches.random() < self.mean.touch_missed:
                self.count("touch_missed")
            else:
                self.moved.add(cell)

    def cover(self, *cells: int) -> None:
        if self.kind == "camera":
            for c in cells:
                self.covered.add(c)
                self.covered.update(NEIGHBOURS[c])
                self.over = c
            for c in self.covered:
                self.touched &= ~(1 << c)
            if not self.sleeve and self.sleeves.random() < self.mean.sleeve:
                cell = self.sleeves.choice(sorted(self.covered))
                self.sleeve = {cell: self.sleeves.choice("wbr")}
                self.count("sleeve")

    def uncover(self) -> None:
        for c in self.moved:
            self.touched |= 1 << c
        self.moved.clear()
        self.covered.clear()
        self.over = None
        self.sleeve = {}


class _Players(TimedAnswers):
    table: _Table

    def __init__(self, table: _Table, rng: random.Random, mean: Meanness,
                 ranges: AnswerRanges | None = None, record: list[Move] | None = None
                 ) -> None:
        self.table = table
        self.rng = rng
        self.mean = mean
        #: Answers timed from ranges (their own stream: the other draws stay as they were).
        self.ranges = ranges
        self.timer = random.Random(f"answers-{rng.random()}") if ranges else rng
        self.habits: dict[str, Habit] = (
            {side: habits(ranges, self.timer) for side in "wb"} if ranges else {})
        self.answers: list[dict[str, float]] = []  # each timed answer, as drawn
        self.record = record  # the actions to play (a real game), else random ones
        self.game = Game()
        self.truth: list[Move] = []
        self.sides: list[str] = []  # who made each true action
        self.late: list[int] = []  # cut-off stacks still standing, to take after the next lift

    def pause(self, lo: float, hi: float) -> None:
        self.table.frames(self.rng.uniform(lo, hi))

    def push(self, move: Move) -> int:
        """Play ``move`` (the side to act's) in the true game; returns the cut-off mask."""
        self.sides.append(self.game.turn)
        self.truth.append(move)
        return self.game.push(move)

    def push_passes(self) -> None:
        while not self.game.placing and self.game.legal_moves() == [PASS]:
            self.push(PASS)

    # -- answering prompts -----------------------------------------------------------------
    def pending_target(self) -> int | None:
        """Where the first action the controller has not committed really went (or, when the
        LEDs ask where it came from, its source), if the controller's game is a prefix of the
        truth and a prompt asks about it."""
        pending = self.pending()
        return None if pending is None else pending[0]

    def pending(self) -> tuple[int, str] | None:
        """:meth:`pending_target` and who made that action (whose hand answers)."""
        ctl = self.table.ctl
        view = ctl.view()
        if view.prompt not in ("choose-destination", "choose-source"):
            return None
        done = ctl.game.move_stack
        if [str(m) for m in done] != [str(m) for m in self.truth[:len(done)]]:
            # players read the LEDs, not the record: red pieces placed in one blackout may be
            # recorded in the other order (the same position), and the prompt still asks
            prefix = Game.from_moves([str(m) for m in self.truth[:len(done)]])
            if prefix.zobrist != ctl.game.zobrist or prefix.stacks() != ctl.game.stacks():
                return None
        if len(done) >= len(self.truth):
            return None
        move = self.truth[len(done)]
        target = move.source if view.prompt == "choose-source" else move.target
        if target is None or target not in view.blink:
            return None
        return target, self.sides[len(done)]

    def answer(self) -> None:
        """Answer a prompt the LEDs show (gesture or next/confirm)."""
        for _ in range(4):
            pending = self.pending()
            if pending is None:
                return
            target, t = pending[0], self.table
            t.hand = pending[1]
            habit = self.habits.get(pending[1])
            if habit is not None and habit.never:
                t.count("never_answered")
                return
            if habit is not None and t.stacks[target] and self.rng.random() >= self.mean.buttons:
                timing = habit.draw(self.timer)
                t.frames(max(0.0, timing.start))
                if self.pending() == pending:
                    self.gesture(target, timing, early=False)
                continue
            if self.rng.random() < self.mean.buttons or not t.stacks[target]:
                t.count("buttons")
                for _ in range(12):
                    if t.ctl.suggested == target:
                        break
                    t.press("next")
                # (only with its choice lit: the table may have had the move meanwhile and
                # asked the next prompt, room game 153: eleven presses meant for G2's landing
                # cycled H3's candidates, and the confirm took H4 for G3)
                if t.ctl.suggested == target:
                    t.press("confirm")
                self.pause(0.3, 0.6)
            elif t.kind == "camera" and t.touches.random() < self.mean.hidden_gesture:
                # lifted and held over the cell, the hand over it: the camera sees a hand,
                # then the stack back a little off where it stood
                t.count("gesture")
                t.count("hidden_gesture")
                self.set_back(target, (0.4, 0.9), (0.1, 0.3))
                self.pause(0.7, 1.0)
            else:
                t.count("gesture")
                t.cover(target)
                self.pause(0.3, 0.5)
                held, t.stacks[target] = t.stacks[target], ""
                t.uncover()  # held up and aside: the camera sees the empty cell
                self.pause(0.7, 1.0)
                t.cover(target)
                self.pause(0.2, 0.4)
                t.put(target, held)
                self.pause(0.2, 0.4)
                t.uncover()
                self.pause(0.7, 1.0)

    # -- acting ------------------------------------------------------------------------------
    def play(self, max_actions: int = 200) -> None:
        t = self.table
        t.frames(1.0)
        skipped = dark_next = False
        for _ in range(max_actions):
            if self.game.is_over():
                break
            if self.pending_target() is not None:
                # one prompt at a time is left for the next player to act first
                if not skipped and self.rng.random() < self.mean.unanswered:
                    t.count("unanswered")
                    skipped = True
                else:
                    self.answer()
                    skipped = False
            else:
                skipped = False
            if self.rng.random() < self.mean.knock and not self.game.placing:
                self.knock()  # (in phase 1 a piece gone is a take-back: only one explains it)
            if dark_next:  # the blackout lasts over a second action (a Pi rebooting)
                t.count("long_blackout")
                t.dark, dark_next = True, False
            elif self.rng.random() < self.mean.blackout:
                t.count("blackout")
                t.dark = True
                dark_next = self.rng.random() < 0.3 and self.pending_target() is None
            if self.record is None:
                move = self.rng.choice(self.game.legal_moves())
            elif len(self.truth) - self.truth.count(PASS) < len(self.record):
                move = self.record[len(self.truth) - self.truth.count(PASS)]
            else:
                break  # the record ends here (a resignation)
            if t.lit is not None:
                t.lit.prompt = None  # the next player acts: the LEDs show their turn
            t.hand = self.game.turn
            if move == PASS:
                self.push(move)
                self.pause(0.8, 1.2)
            elif move.is_placement:
                self.place(move)
            else:
                self.move(move)
            if not dark_next:
                t.dark = False
            self.pause(0.6, 1.0)
        # the game is over: a blackout meant to last over the next action ends here (a Pi
        # rebooting comes back, shows its prompt and the players answer it; before, the log
        # ended in the dark with one last reading and the last move never answered: hall
        # seeds 220, 658, camera 321, 719)
        t.dark = False
        self.answer()
        self.take_late()
        t.frames(2.0)
        self.answer()
        t.frames(2.0)
        t.clean()  # a log ends with a true reading (a replay holds the last one for ever)

    def place(self, move: Move) -> None:
        t = self.table
        cell = move.target
        assert cell is not None
        piece = self.game.piece_to_place()
        assert piece is not None
        t.cover(cell)
        self.pause(0.3, 0.8)
        if piece != "r" and self.rng.random() < self.mean.wrong_piece:
            t.count("wrong_piece")
            t.put(cell, "b" if piece == "w" else "w")
            t.uncover()
            self.pause(1.0, 1.6)
            t.cover(cell)
            self.pause(0.3, 0.6)
        t.put(cell, piece)
        self.pause(0.1, 0.3)
        t.uncover()
        self.push(move)
        self.push_passes()

    def move(self, move: Move) -> None:
        t = self.table
        s, d = move.source, move.target
        assert s is not None and d is not None
        t.cover(s)
        self.pause(0.3, 0.8)
        stack, t.stacks[s] = t.stacks[s], ""
        asks = self.ranges is not None and will_ask(self.game, move)
        cands = candidates(self.game, move) if asks else []
        if t.lit is not None:
            t.lit.held = s
        self.take_late()
        if self.rng.random() < self.mean.hold:
            t.count("held")
            t.uncover()
            if self.rng.random() < 0.5:
                t.cover(d)
            self.pause(0.6, 1.5)
            t.cover(d)
        else:
            t.cover(d)
            self.pause(0.1, 0.3)
        t.put(d, t.stacks[d] + stack)
        if t.lit is not None:
            t.lit.held = None
            t.lit.prompt = (s, tuple(cands)) if asks else None
        self.pause(0.1, 0.3)
        t.uncover()
        side = self.game.turn
        cut = self.push(move)
        self.push_passes()
        cells = [c for c in range(49) if (cut >> c) & 1]
        if t.lit is not None:
            t.lit.remove = frozenset(cells)
        if asks:
            self.respond(d, side)
        if not cells:
            return
        self.pause(0.6, 0.9)
        if self.rng.random() < self.mean.late_removal and not self.game.is_over():
            t.count("late_removal")
            self.late.extend(cells)
            return
        self.remove(cells)

    def remove(self, cells: list[int]) -> None:
        t = self.table
        for c in cells:
            t.cover(c)
            self.pause(0.2, 0.4)
            t.stacks[c] = ""
            if t.lit is not None:
                t.lit.remove = t.lit.remove - {c}
            self.pause(0.1, 0.2)
            t.uncover()
            self.pause(0.6, 0.9)

    def take_late(self) -> None:
        if self.late:
            cells, self.late = self.late, []
            self.pause(0.6, 0.9)
            self.remove(cells)

    def knock(self) -> None:
        t = self.table
        # a blinking cell lifted and set back is the gesture itself: knock something else
        blinking = t.ctl.view().blink
        cells = [c for c in range(49) if t.stacks[c] and c not in blinking]
        if not cells:
            return
        t.count("knock")
        c = self.rng.choice(cells)
        t.hand = self.game.turn
        self.set_back(c, (0.6, 1.5), (0.2, 0.4))
        self.pause(0.8, 1.2)

    def set_back(self, cell: int, up: tuple[float, float], down: tuple[float, float]) -> None:
        """Lift the stack on ``cell`` under the hand, hold it ``up`` seconds and set it back
        (a little off where it stood), the hand there ``down`` seconds more."""
        t = self.table
        t.cover(cell)
        self.pause(0.2, 0.4)
        held, t.stacks[cell] = t.stacks[cell], ""
        self.pause(*up)
        t.put(cell, held)
        self.pause(*down)
        t.uncover()


def expected_lines(truth: list[Move]) -> list[str]:
    """What ``replay-sensors`` must print for a game that went ``truth``."""
    g = Game.from_moves(truth)
    lines = [str(m) for m in truth]
    if g.is_over():
        w, b = g.score()
        lines.append(f"over white={w} black={b}")
    return lines


def generate(seed: int, kind: str, mean: Meanness | None = None,
             limits: Limits | None = None, sensor: Sensor | None = None, *,
             answers: AnswerRanges | None = None, lights: bool = False,
             record: Sequence[Move | str] | None = None) -> Session:
    """One whole random game on a ``kind`` ('hall' or 'camera') table, played meanly
    (``limits``: the search bounds of the live controller whose LEDs the players read;
    ``sensor``: what reads the table, instead of a perfect sensor; ``answers``: prompts
    answered with timings drawn from these ranges, by the mover, and never by some players;
    ``lights``: the sensor is told what the LEDs light for the true game (``Sight.roles``);
    ``record``: these actions (a real game) instead of random ones). Without the last three
    the sessions are exactly as before."""
    if kind not in ("hall", "camera"):
        raise ValueError(f"kind must be 'hall' or 'camera', got {kind!r}")
    rng = random.Random(f"{kind}-{seed}")
    mean = mean or Meanness()
    table = _Table(kind, rng, mean, polarity=kind == "hall" and rng.random() < 0.5,
                   limits=limits, sensor=sensor)
    players = _Players(table, rng, mean, answers,
                       None if record is None else record_actions(record))
    if lights:
        table.lit = Lit()
        table.roles = lit_roles(players.game, table.lit)
    try:
        players.play()
    except GiveUp:
        table.count("given_up")
    truth = [str(m) for m in players.truth]
    return Session(kind, seed, table.events, truth, expected_lines(players.truth), table.stats,
                   players.answers)
