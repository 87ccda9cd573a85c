"""What a camera sees that a hall board does not: a hand held over a cell, and a piece it
cannot name yet.

A camera never sees a lifted stack's cell empty while the stack is held above it: the hand
is over the cell, and the cell reads ``?``. So the prompt's answer with a camera is the same
gesture as on a hall board, as a camera sees it (:meth:`CameraEvidence.observe`): the chosen
stack lifted and set back under the hand, then in view again. A stack set down again never
lands exactly where it stood: the camera tells the one the hand moved from the candidates the
hand only passed over (``touched``, vision.cues.touch), and a hand over it half of ``hold`` is
enough then (players in a hurry: one frame); when it saw none moved, the one blinking cell
that was under the hand at least ``hold`` seconds answers. The answer narrows the
catch-up's explanations (:meth:`CameraEvidence.keep`) until the action is committed; a
prompt that flickers away (a misread cell) and back keeps it.

In the placing phase the side to act fixes the colour of the next piece. A cell that was
empty and reads ``?`` on its own (no unreadable neighbour, so no hand near it) for ``lone``
seconds is that piece (:meth:`CameraEvidence.placement`): a colour the camera's model has
not learned yet (the game's first black piece) must not hold the game up, and committing it
then keeps the placements in the order the camera saw them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from controller.table.catchup import Hypothesis, cells_of
from controller.table.debounce import Debouncer
from controller.table.decision import Decision, taken_back, touches
from controller.table.doubts import unsettled
from controller.table.expected import empty_mask
from controller.table.growth import shows_alone, told_by_growth
from controller.table.landing import Touches
from controller.table.setdown import HAND, SetDowns
from controller.table.turns import TURN, out_of_turn
from engine.game import Game
from engine.geometry import NEIGHBOUR_MASKS, NUM_CELLS, RAYS, iter_cells, spread

_INF = float("inf")
#: Seconds after a prompt began from which a hand over a blinking cell, once a stack left
#: since, is the players going on and no answer any more (answers begin up to about 3 s after
#: it; the next player's lift meanwhile is no reason to ignore one: room games 105, 110).
LATE = 6.0
#: Seconds a hand must stay over a prompted cell (a hand passing over it is not an answer).
HOLD = 0.4
#: Seconds a lone unreadable cell must stay so before it counts as a new piece: an empty
#: cell misread '?' in plain view lasts a second or two now and then (benchmark camera game
#: 20: G2 for 0.4 s became a placement), the first black piece of outside game 8 read '?'
#: for 3.4 s.
LONE = 2.0
#: ... and where the board shows the next piece already placed, of the other colour (the
#: piece to place is down somewhere unseen: room game 158, C1 under a lamp's spot read '?'
#: one reading in two, and A3's white piece followed).
PROVEN = 0.5
#: Seconds a cell may read '?' and still be a hand over it (longer: a cell misread).
HAND_SPELL = 3.0
#: Seconds since a hand was last over the board during which a stack the camera did not see
#: land may still be in it: a lifted stack is held in the air, off the board, now and then
#: (room game 120: D2's stack carried over the board, then held off it 2 s, then set on C2).
AIR = 3.0
#: Seconds the camera must say one prompted cell grown in every reading for that alone to
#: be seen as the landing, where no stack was seen moved there (room game 112: G5, where the
#: last move's one piece landed, read grown for 4 s and never moved; a grown reading for a
#: moment is wrong now and then: room game 129).
STEADY = 3.0


def _sources(d: Decision) -> int:
    """The cells ``d``'s moves leave from."""
    return sum({1 << m.source for m in d.moves if m.source is not None})


def _near(mask: int) -> int:
    """``mask`` and every neighbour of its cells."""
    return mask | spread(mask)


def _differ(before: str, now: str) -> bool:
    """Whether two readings differ on a cell both can read."""
    return any(a != b and "?" not in (a, b) for a, b in zip(before, now, strict=True))


class CameraEvidence:
    """The hand gesture and the unnamed new piece, tracked across readings."""

    def __init__(self, hold: float = HOLD, lone: float = LONE, noise: float = 0.2) -> None:
        self.hold = hold
        self.lone = lone
        self.noise = noise  # a cell read empty for less between two other readings: not emptied
        self._lone: dict[int, float] = {}  # cell -> since when it reads '?' on its own
        self._held: dict[int, float] = {}  # prompted cell -> since when under the hand
        self._named = 0  # pieces named so far (:meth:`placement`)
        self._before = ""  # the board as read when the hand came over a prompted cell
        self._asked = ""  # the board as read when the prompt about this action began
        self._asked_at = self._came = 0.0  # when it began; when the hand came
        self._neared = 0  # the cells under a hand since it began
        self._watch = 0  # the cells the prompt asked about when the hand came
        self._under = 0  # watched cells that read '?' while the hand was there
        self._odd = 0  # watched cells that read another top while the hand was there
        self._hid = 0  # the cells the hand hid
        self._touched = 0  # the stacks seen moved before the hand came
        self._was_touched = 0  # the camera's moved stacks at the last reading
        self._fresh = 0  # stacks seen moved since the last commit (and not covered since)
        self._clear = 0  # ... of those, the ones first seen moved with no hand over the board
        self._cleared = 0  # every stack ``_clear`` held since the last commit
        self.moved = 0  # stacks first seen moved since the last commit (kept when still)
        self.touches = Touches()  # when each was seen moved, and last read a top
        self.set_downs = SetDowns()  # the same since the game began
        self._touch = False  # the camera tells moved stacks (a recording may not say)
        self._hand_at = -_INF  # the last reading with a hand over the board
        #: the cells read '?' for a lamp's glare alone, with no other '?' beside them: no hand
        self.glare = 0
        self._dark = [_INF] * NUM_CELLS  # per cell, since when it reads '?' without a break
        self._unlit = [_INF] * NUM_CELLS  # ... for a reason other than a lamp's glare
        self._spot = 0  # the cells read '?' for a lamp's glare at the last reading
        self._glared = [_INF] * NUM_CELLS  # per cell, when it first read '?' for glare
        self._static = 0  # cells read '?' for glare since before the last piece placed
        self._gap = [_INF] * NUM_CELLS  # per cell, since when it reads empty, and what it
        self._kept = [(_INF, _INF)] * NUM_CELLS  # ... read ``filled`` and ``_dark`` before
        #: Whether the board differs from the committed game by the prompted move's source
        #: alone (set by the controller with the prompt): no other action happened since.
        self.alone = False
        #: The prompted cells a camera seen grown would tell the landing by (:meth:`prompted`).
        self.told = 0
        self._landings = 0  # where stacks gone when the prompt began may land
        self._source: int | None = None  # the prompted move's source
        self.answer = 0  # where a hand said the action not committed yet landed
        self._grown, self._grown_at = 0, _INF  # the cell the camera says grown, and since
        #: per cell, since when it reads other than empty ('?' too) without a break; for a
        #: top read after the hand over it had left (a piece read late), since that hand came
        self.filled = [_INF] * NUM_CELLS
        #: per cell, the first reading of a top since it last read empty
        self._piece = [_INF] * NUM_CELLS
        #: per cell, since the last commit: the earliest reading other than empty that ended
        #: in '.' (a hand came over the cell and left; a piece shown and taken away)
        self._hand = [_INF] * NUM_CELLS

    def reset(self) -> None:
        """A new game: nothing followed any more."""
        self._lone.clear()
        self._named = 0
        self._piece = [_INF] * NUM_CELLS
        self.set_downs = SetDowns()
        self.committed()

    # ----------------------------------------------------------------- the placing phase
    def placement(self, game: Game, snap: str, hidden: int, t: float
                  ) -> tuple[str, int, bool]:
        """``snap`` and ``hidden`` with the unnamed new piece named: the lone unreadable cell
        (empty before, no unreadable neighbour) held longest, if held ``lone`` seconds (or
        ``PROVEN``, the next piece shown), reads as the piece the side to act places (a piece
        named so, as committed while the pieces are placed, and once they move, read empty, as
        unreadable; a lone unreadable cell that last read a piece, as that piece). The third
        value is True while a lone cell is still being timed (the caller looks again at the
        next reading)."""
        piece = game.piece_to_place()
        # a piece named so reads as committed while the pieces are placed (they do not move;
        # a lamp's spot washes it out: room game 158, C1's black piece read '.' one reading
        # in two, 'w' under a sleeve); once they move, an empty reading there (its stack
        # gone, or not) is as unreadable as '?', until a move from or onto it is committed
        # or it reads its top (a piece named before its colour was learned: room game 105's
        # I3, read 'w' for a minute, then its stack moved and every later move waited)
        self._named = sum(1 << c for c in iter_cells(self._named) if len(game.stack(c)) == 1
                          and (piece is not None or snap[c] != game.stack(c)[-1]))
        shown = self._named if piece is not None else self._named & empty_mask(snap)
        for c in iter_cells(shown):
            snap = snap[:c] + game.stack(c)[-1] + snap[c + 1:]
        hidden = hidden & ~shown if piece is not None else hidden | shown
        if piece is not None:
            # a lone unreadable cell that last read a piece: that piece, under glare (room
            # game 103: C5's new white piece read '?' one frame in two, and every commit
            # waited for what it might hide); pieces do not move while they are placed
            hidden &= ~sum(1 << c for c in iter_cells(hidden)
                           if snap[c] in "wbr" and not hidden & NEIGHBOUR_MASKS[c])
        if piece is None or not hidden:
            self._lone.clear()
            self._static = 0
            return snap, hidden, False
        occupied = game.occupied
        # unreadable since before the last piece placed was first seen (by more than a
        # hand hiding both at once): no piece came there since (room game 138: a lamp's spot
        # on D5 and E5 from the first frame; D5's piece read, and E5, alone, became White's);
        # while that piece reads empty, no cell is named
        last = game.move_stack[-1].target if game.move_stack else None
        began = -_INF if last is None else (
            self._piece[last] if self._piece[last] < _INF else self.filled[last]) - TURN
        # (nor one read '?' for glare now that did so then), unless it read '?' for the
        # lamp's glare then, and for another reason since (room game 149: B4 and A3 under a
        # spot from the first frame; Black's piece on B4 read '?' as neither empty nor a
        # piece, no longer glare); a neighbour read '?' for glare alone is no hand beside it
        self._static = sum(1 << c for c in iter_cells(self._spot) if self._glared[c] < began)
        lone = {c for c in iter_cells(hidden)
                if not (occupied >> c) & 1 and not hidden & ~self._spot & NEIGHBOUR_MASKS[c]
                and (snap[c] == "." and self._dark[c] >= began and not self._static >> c & 1
                     or self._glared[c] < began <= self._unlit[c] < _INF)}
        self._lone = {c: self._lone.get(c, t) for c in lone}
        wait = self.lone
        other = {"w": "b", "b": "w"}.get(piece)
        if len(self._lone) == 1 and any(ch == other and not (occupied >> c) & 1
                                        for c, ch in enumerate(snap)):
            wait = min(wait, PROVEN)
        ready = [c for c, since in self._lone.items() if t - since >= wait - 1e-9]
        if not ready:
            return snap, hidden, bool(self._lone)
        cell = min(ready, key=lambda c: (self._lone[c], c))
        self._named |= 1 << cell
        named = snap[:cell] + piece + snap[cell + 1:]
        return named, hidden & ~(1 << cell), len(self._lone) > 1

    # ----------------------------------------------------------------- the prompt's answer
    def prompted(self, game: Game, heights: Sequence[int], d: Decision, choice: int,
                 diff: int, board: str | None) -> None:
        """A prompt ``choice`` (re)opened by ``d``: whether the board shows its move alone
        (:func:`shows_alone`), and the cells whose growth would tell (:func:`told_by_growth`)."""
        self.alone = shows_alone(game, d.source, choice, diff, board, d.options)
        self._landings, self._source = 0, d.source
        source = 0 if d.source is None else 1 << d.source
        for c in iter_cells(game.occupied & ~source):
            h = len(game.stack(c))
            if board is not None and board[c] == ".":  # (either side's, surrounded or not)
                self._landings |= sum(1 << ray[h - 1] for ray in RAYS[c] if len(ray) >= h)
        by = heights[d.source] if d.source is not None else 0
        self.told = told_by_growth(heights, d.options, choice, by) if not d.by_source else 0

    def observe(self, watch: int, hidden: int, touched: int, t: float, board: str,
                settled: str, grown: int = 0, glare: int = 0) -> bool:
        """Follow the hand at every reading. ``watch``: the blinking cells where the first
        action not committed may have landed, when the board cannot tell (0: none);
        ``hidden`` the cells that read '?', ``touched`` the camera's moved stacks, ``board``
        the reading, ``settled`` the stable board, ``grown`` the watched cell the camera sees
        taller by the moved stack's height (0: none), ``glare`` the cells the camera reads '?'
        for a lamp's glare (a '?' beside another that is not is a hand's). When a hand that
        came over or beside a watched cell has gone from every watched cell and its
        neighbours, the cell it answered (if any) is kept as that action's landing
        (:meth:`keep`). True when the stacks' heights answered it just now (the board may
        not change again: look again)."""
        by_height = False
        filled, hand, dark, unlit = self.filled, self._hand, self._dark, self._unlit
        a_hand = 0  # cells under a hand (one unreadable for seconds is misread)
        # (one such cell alone is no hand: room game 149's B4, a piece under the spot)
        odd = hidden & ~glare
        self.glare = glare & hidden & ~_near(odd & spread(odd))
        self._spot = glare & hidden
        for c, ch in enumerate(board):
            if ch == "." and self._gap[c] == _INF:
                self._gap[c], self._kept[c] = t, (filled[c], dark[c])
            elif ch != "." and self._gap[c] < _INF:
                # (a '.' shorter than the debounce noise between: room game 158, C1's new
                # black piece read '?' with a one-frame '.' now and then, and was taken as
                # placed after the white A3 beside it)
                if t - self._gap[c] < self.noise - 1e-9:
                    filled[c], dark[c] = self._kept[c]
                self._gap[c] = _INF
            dark[c] = min(dark[c], t) if ch == "?" else _INF
            unlit[c] = min(unlit[c], t) if ch == "?" and not (glare >> c) & 1 else _INF
            if ch == "?" and (glare >> c) & 1:
                self._glared[c] = min(self._glared[c], t)
            a_hand += ch == "?" and t - dark[c] < HAND_SPELL and not (self.glare >> c) & 1
            if ch in "wbr":
                self._piece[c] = min(self._piece[c], t)
            if ch == ".":
                self._piece[c] = _INF
                if filled[c] < hand[c]:
                    hand[c] = filled[c]
                filled[c] = _INF
            elif filled[c] == _INF:
                filled[c] = min(t, hand[c]) if ch != "?" else t
            elif ch != "?" and hand[c] < filled[c]:
                # a top read at last after a spell of '?': since the hand came too (outside
                # camera game 5: E1 read '?' for 3 s, '.' under the hand placing D1, then w)
                filled[c] = hand[c]
        new = touched & ~self._was_touched
        self._hand_at = t if a_hand > 1 else self._hand_at  # (one cell: a flicker, maybe)
        self.moved |= new
        self.touches.observe(new, board, t)
        self.set_downs.observe(new, board, t)
        self._touch = self._touch or bool(touched)
        self._fresh = (self._fresh | new) & touched
        self._clear = (self._clear | (0 if a_hand else new)) & touched
        self._cleared |= self._clear
        self._was_touched = touched
        if grown != self._grown:  # every reading: a break while nothing blinks counts too
            self._grown, self._grown_at = grown, t
        if watch and not self._asked:
            self._asked, self._asked_at, self._neared = settled, t, 0
        if watch:
            self._neared |= hidden
            # the stack set down a few millimetres off where it landed: when the camera saw
            # exactly one of the blinking cells moved since the last commit, the stack landed
            # there, and no gesture is needed (simulated answers that come early, late or never:
            # the landing itself says where; outside camera game 11's E1)
            # (and only where no other standing stack moved meanwhile, a blinking cell the
            # hand shook and the true landing read wrong: outside game 11's E4; and where the
            # board shows that move alone: the landing of a later action is no answer, simulated
            # camera session 118's D1D2 for G3H4; and only a stack first seen moved with no hand
            # over the board: an arm shades, and the camera's exposure moves, the look of
            # stacks it does not touch, room game 104: H1 read moved as the next player's hand
            # came, 4 s after I2's stack landed on I3, and I2H1 was committed)
            landed = watch & self._clear
            if landed and t > self._asked_at:
                # later while the prompt is up, where a hand came over the cell since it began
                # (room game 108: D3, where E3's stack landed, was first seen moved as a hand
                # that came back a frame left it), and no stack left since (a later move's
                # landing: simulated camera session 132, E3E2 on the blinking E2)
                landed &= self._neared
                if landed and any(b == "." and a not in ".?"
                                  for a, b in zip(self._asked, board, strict=True)):
                    landed = 0
            elif watch & self._cleared & ~landed:
                # (as it opens, none where another blinking stack was seen moved in the clear
                # since the last commit: room game 133, E2 as F2's stack came down on it, then
                # F3 as the hand left)
                landed = 0
            if landed and self._source is not None:
                # (and only while no other blinking cell has been unreadable since the hand
                # came to lift the source: the touch cue cannot see that stack set down; room
                # game 134: the hand lifting D4 shook D2, and F4, where it landed, read '?')
                since = min(self.set_downs.left(self._source), self._asked_at) - HAND
                if any(dark[c] >= since for c in iter_cells(watch & ~landed & hidden)):
                    landed = 0
            if self.alone and landed and not landed & (landed - 1) and not (
                    self._fresh & ~watch & ~sum(1 << c for c, ch in enumerate(board)
                                               if ch == ".")):
                self.answer |= landed
            # the stack set down taller, and seen moved (under a hand too): a player who
            # never answers (room games 102, 112, 132, 135) while the board shows that move
            # alone, as it still reads (a later move may land on a candidate too); either cue
            # alone is wrong now and then (room game 129: I1 read grown by 0.17, the landing
            # H2 by 0.0; 104: H1 read moved as the next player's arm came)
            # (or, the players gone on, where every explanation with that one cell grown
            # has the prompted action land there, :func:`told_by_growth`: room game 135)
            steady = grown if t - self._grown_at >= STEADY - 1e-9 else 0
            if (grown and not grown & ~watch and not grown & (grown - 1) and (
                    self.alone and grown & (self._fresh | steady)
                    or grown & self.told & (self.moved | steady))
                    and not _differ(settled, board)):
                by_height = not self.answer & grown
                self.answer |= grown
        if not self._held:
            if not watch & _near(hidden):
                return by_height
            self._watch, self._before, self._touched = watch, settled, touched
            self._came = t
        cells = self._watch
        for c in iter_cells(cells & _near(hidden)):  # under or beside the hand
            self._held.setdefault(c, t)
        self._under |= cells & hidden
        self._hid |= hidden
        self._odd |= sum(1 << c for c in iter_cells(cells & ~hidden)
                         if board[c] != self._before[c])
        if hidden & _near(cells):
            return by_height
        held = sum(1 << c for c, since in self._held.items() if t - since >= self.hold - 1e-9)
        brief = sum(1 << c for c, since in self._held.items()
                    if t - since >= self.hold / 2 - 1e-9) & self._under
        self._held.clear()
        self.answer |= self._answered(held, brief, touched, board)  # two answers: none
        self._under = self._odd = self._hid = 0
        return by_height

    def _answered(self, held: int, brief: int, touched: int, board: str) -> int:
        """Of the watched cells under or beside the hand long enough (``held``; ``brief``:
        under it half as long): the one the camera saw moved while the hand was there
        (lifted and set back; under a quick hand only while the board reads as when the
        prompt began). Else the only one under the hand itself, when the camera saw no stack
        moved at all, the hand hid only cells round that one, and no other watched cell
        beside it read otherwise or had the hand round it (a sleeve over the stack the hand
        moved reads as a piece, its ring of neighbours as the hand). And only when the hand
        changed nothing else: the board reads as it did when the hand came wherever it is
        readable (a hand that took a stack away, or set one down, was the next player's),
        and came before the players went on (``LATE`` after the prompt, a stack gone since)."""
        if _differ(self._before, board):
            return 0
        if self._asked and self._came - self._asked_at >= LATE and any(
                b == "." and a not in ".?" for a, b in zip(self._asked, self._before,
                                                           strict=True)):
            # long after the prompt, and a stack left since: the players went on, and this is
            # a later action's hand (simulated session 69: A3B3 landed on the blinking B3
            # eight moves after the prompt; the later moves decide)
            return 0
        # a stack set back stands: a watched cell read empty as the hand goes was a stack
        # taken away (room game 115: D1, cut off, taken off under the hand, was the answer)
        gone = sum(1 << c for c in iter_cells(self._watch) if board[c] == ".")
        held, brief = held & ~gone, brief & ~gone
        moved = (held | brief) & touched & ~self._touched  # moved while this hand was there
        if moved & ~held and _differ(self._asked, board):
            # a quick hand after the board changed since the prompt began: the next player's
            # stack, lifted before, landing there (simulated camera session 4: B2A1)
            moved &= held
        if moved & self._landings:
            # where another stack gone when the prompt began may have landed: the stack set
            # down under this hand is that one (simulated camera session 233: D4B4 was taken
            # as the answer to A3's prompt, D4 gone before it showed)
            return 0
        if moved:
            return moved if not moved & (moved - 1) else 0
        under = held & self._under
        if not under or under & (under - 1) or held & self._odd & ~under:
            return 0  # (a cell beside the hand read otherwise: a sleeve over it?)
        if touched & ~self._touched or self._hid & ~_near(under):
            return 0  # the hand moved another stack, or hid cells round another one
        for c in iter_cells(held & ~under):  # the hand round a cell it did not hide: a sleeve?
            ring = NEIGHBOUR_MASKS[c]
            if bin(ring & self._hid).count("1") >= max(3, bin(ring).count("1") / 2):
                return 0
        return under

    def narrow(self, game: Game) -> Callable[[list[Hypothesis]], list[Hypothesis]] | None:
        """What keeps the explanations from ``game`` that agree with where a hand answered and
        where stacks were seen set down (:class:`SetDowns`); None when nothing tells."""
        if not self.answer and not self.set_downs.seen:
            return None
        return lambda hypotheses: self.keep(self.set_downs.keep(game, hypotheses))

    def keep(self, hypotheses: list[Hypothesis]) -> list[Hypothesis]:
        """The explanations that agree with the hand's answer: the first action after the
        committed ones lands on the cell answered (explanations with take-backs are left as
        they are). An answer that leaves none says the board is misread, not that the
        players were wrong: nothing explains it until it reads again (camera benchmark game
        4: two standing stacks read '.', the hand answered C1 for C2C1, and the only
        explanations left committed F5E5)."""
        if not self.answer or self.answer & (self.answer - 1):
            return hypotheses
        cell = self.answer.bit_length() - 1
        kept = [h for h in hypotheses
                if h.back or ((moves := h.real_moves()) and moves[0].target == cell)]
        return kept if any(not h.back for h in kept) else []

    def committed(self) -> None:
        """An action was committed or taken back: the answer was about the one before."""
        self.answer = 0
        self._grown, self._grown_at = 0, _INF
        self._asked = ""
        self._fresh = self._clear = self._cleared = self.moved = 0
        self.touches.clear()
        self._held.clear()
        self._under = self._odd = self._hid = 0
        self._hand = [_INF] * NUM_CELLS

    def held(self, game: Game, d: Decision, readings: Debouncer, hidden: int, named: int,
             t: float, chosen: int, diff: int) -> Decision:
        """Commit ``d`` as far as what the camera sees lets it: a wait while a hand is next
        to what it changes (a sleeve reads like a piece: camera game 3, a white sleeve on D2
        read w, and as the hand left C1C2 was rewritten as C1D2), while readings still settle
        where it may have gone (:func:`unsettled`), or while pieces were seen in another
        order than the turns (:meth:`out_of_turn`), or while a landing showed its new colour
        before the stack left (:mod:`controller.table.landing`); without its last move while
        that stack may still be in the air (:meth:`in_air`; ``chosen``: the cells the players
        answered a prompt with; ``diff``: the cells that read otherwise than the committed
        game). ``named``: cells read '?' that :meth:`placement` named.

        Any take-back waits while a reading round what it takes back still settles
        (:meth:`Debouncer.wavering`; room game 107: E1E2 seen land; F2's stack then landed on
        E2 and F2, vacated, read 'w' by turns: E1E2 was taken back for a prompt that nothing
        later could answer)."""
        if d.kind != "commit":
            return d
        if d.back:
            undone = sum(cells_of(m) for m in game.move_stack[-d.back:])
            if readings.wavering() & _near(undone | diff) & ~named:
                return Decision("wait")
        pending = readings.pending
        # (a cell read '?' that a commit empties is no hand near it: the commit is certain, so
        # the cell was read empty before, or a later action proved that move finished; room
        # game 120: C1, vacated, read '?' and its old top by turns)
        # (nor is a cell read '?' for a lamp's glare alone: room game 138, E5 under a lamp's
        # spot read '.' a moment under the hand that placed F5 beside it, and its '?' after
        # held F5's commit 3 s, long enough for the next pieces to come first)
        near = ((pending | readings.covered(t, HAND_SPELL)) & ~named & ~(hidden & _sources(d))
                & ~self.glare)
        # (in the moving phase an empty cell read '?' with nothing beside it so is a misread,
        # not a hand: room game 110, the empty C2 beside F4D2's landing held it 7 s; a stack
        # so is not: room game 136's landing J3, beside the hidden sources, went I2I3)
        if not game.placing:
            near &= spread(near) | pending | game.occupied
        # (a cell read '?' for a lamp's glare since before the last piece is taken for empty)
        if touches(game, d, near) or unsettled(
                game, d, pending, (hidden | readings.dimmed & ~named) & ~self._static,
                readings.seen_since, readings.uncovered(), readings.flickered(),
                readings.shown_since) or self.out_of_turn(game, d):
            return Decision("wait")
        if d.back and self._unseen(game, d, d.back) or self._touch and \
                self.touches.landed_unseen(taken_back(game, d.back), d.moves):
            return Decision("wait")
        last = self.in_air(game, d, t, chosen, diff)
        if last is None:
            return d
        if any(not m.is_pass for m in d.moves[:last]):
            return replace(d, moves=d.moves[:last])
        return Decision("wait")

    def in_air(self, game: Game, d: Decision, t: float, chosen: int = 0,
               diff: int = 0) -> int | None:
        """The index of commit ``d``'s last move when its stack may still be in the hand: it
        lands on a top of its own colour (the camera sees no landing), the camera did not see
        that stack moved, the players did not choose it, nothing changed on the board but
        what ``d`` explains (``diff``: the cells that read otherwise than the committed game;
        a later action says it landed: the players do not wait, outside camera game lit-1's
        next player came 0.8 s after A3C5 landed on C5 unseen), and a hand was over the board
        less than ``AIR`` seconds ago (room game 120: D2's stack lifted, carried over the
        board and held off it 2 s; D2D1 was committed, and it came down on C2)."""
        if d.kind != "commit" or d.back or t - self._hand_at >= AIR or not self._touch:
            return None
        last = max((i for i, m in enumerate(d.moves) if not m.is_pass), default=None)
        if last is None:
            return None
        source, target = d.moves[last].source, d.moves[last].target
        if source is None or target is None or ((self.answer | chosen) >> target) & 1:
            return None
        g, explained = game.copy(), 1 << source
        for m in d.moves[:last]:
            explained |= g.push(m) | cells_of(m)
        if diff & ~explained or not self._unseen(g, replace(d, moves=d.moves[last:]), 0):
            return None
        return last

    def _unseen(self, game: Game, d: Decision, back: int) -> bool:
        """Whether ``d``'s first move (after taking back ``back`` actions from ``game``) lands
        a stack on a top of its own colour that the camera did not see moved since the last
        commit: nothing the camera saw says it landed there. A take-back that rewrites a move
        onto such a landing waits (room game 120: D2C2, seen land, rewritten as D2D1 when
        D3, vacated by the next move onto C2, read 'w')."""
        if not self._touch:
            return False
        move = next((m for m in d.moves if not m.is_pass), None)
        if move is None or move.source is None or move.target is None or (
                self.moved >> move.target) & 1:
            return False
        g = taken_back(game, back)
        top = g.stack(move.target)
        return bool(top) and top[-1] == g.stack(move.source)[-1]

    def began(self, seen: Callable[[int], float]) -> Callable[[int], float]:
        """When each cell began to fill: when the hand came over it, where the camera saw
        that (a piece read late, seconds after the hand that put it there left: outside
        camera game 5's E1, read after D1 though placed before it), else when it was read;
        the first time since the last commit, whatever the cell reads now (room game 150:
        White's I1, a clipped new top read '?' for 6 s with a '.' between, counted from its
        last spell of '?' and went after White's C4, placed 5 s later and read at once)."""
        filled, hand = self.filled, self._hand
        return lambda c: min(seen(c), filled[c], hand[c])

    def out_of_turn(self, game: Game, d: Decision) -> bool:
        """Whether several placements must wait: the pieces the camera did see began to fill
        (the hand came over their cells) in another order than the turns, so a piece the
        camera never saw came between (camera benchmark game 25: White's piece on G4 read '.',
        and J4, placed after Black's F5, would have been committed as White's piece before
        F5; game 37: White's E3 never read, Black's J2 came, then White's G1, committed as
        White's E3). A piece read late counts from when the hand came over it (camera game
        30: White's I4 read only after Black's piece; the hand had been there before)."""
        cells = [m.target for m in d.moves if m.source is None and m.target is not None]
        if d.kind != "commit" or len(cells) < 2 or len(cells) != len(d.moves):
            return False
        return out_of_turn(game, cells, self.filled)

