"""Table to table through an MQTT broker: ``remote:mqtt://HOST[:PORT]/MATCH``.

The match's action list is the state, kept on the broker (retained). Topics, for a match
``M``: each table publishes on the topic of the side(s) it plays itself, and reads the other:

- ``M/white`` and ``M/black``: a table's whole committed action list, retained, as JSON:
  ``{"v": 1, "table": ID, "side": "white", "seq": N, "actions": ["D3", ..., "PASS", ...],
  "over": false}`` (``score`` when over; ``clock``: the game clock of the table's own side
  after its latest action, ``{"control": "15+10", "side": "w", "ply": N, "left": SECONDS}``,
  ``flag`` once it fell). ``actions`` are ``str(Move)`` in the game's order,
  forced passes included (both tables pass by themselves alike, so the lists stay comparable
  index by index). ``table`` is new every time a table starts; ``seq`` counts its messages.
- ``M/white/presence``, ``M/black/presence``: ``online``, retained; the broker's last will
  sets ``offline`` when a table drops without saying goodbye.

The table at ``--black remote:mqtt://HOST/M`` plays White: it publishes ``M/white`` and
reads ``M/black``. Rules:

- The other table's list is accepted when it agrees with this table's (one a prefix of the
  other). The remote side's action is the first one beyond this table's list when it is that
  side's turn here and the action is legal: :meth:`MqttSeat.poll` returns it, the table lights
  it (``suggest``) and its person carries it out.
- Full lists make duplicated, late and reordered messages harmless; an older ``seq`` of the
  same table is ignored outright.
- A table that drops off (Wi-Fi, reboot, a resumed journal at ply k) comes back, reads the
  retained list and goes on from where it is; its link republishes its own list.
- Two lists that differ at some index (a different action for the local side than the other
  table recorded, a take-back followed by another action) stop the match for good on this
  seat: the note says where, poll returns None from then on. The same for two tables playing
  the same side: each also reads its own topic, and a live (not retained) list there from
  another table id stops it (a retained one is its own from before a restart).
- A take-back of the remote side's action lights it again; a table that resumed behind the
  other with its own side to act is told what the other table recorded (the note).
- The match ends with its game: a table that goes back to ply 0 after the game ended (a new
  game) leaves the match (the final list stays on the broker); a seat that joins a match whose
  game is over while its own table is at ply 0 says so. Another game: another match name.
"""

from __future__ import annotations

import json
import uuid
from typing import Protocol

from controller.i18n import Msg
from controller.i18n import side as side_name
from controller.remote.link import Message, MqttLink
from controller.remote.seat import RemoteSeat
from controller.remote.url import BrokerURL, Credentials
from engine.errors import DvonnError
from engine.game import Game
from engine.move import Move

VERSION = 1
SIDE_TOPIC = {"w": "white", "b": "black"}
ONLINE, OFFLINE = "online", "offline"
OK, DISAGREE, ENDED = "ok", "disagree", "ended"


class Link(Protocol):
    """What the seat needs of a broker link (:class:`MqttLink`; tests pass a fake)."""

    connected: bool
    error: str

    def subscribe(self, topic: str) -> None: ...
    def publish(self, topic: str, payload: str | bytes, *, retain: bool = True) -> None: ...
    def messages(self) -> list[Message]: ...
    def wait_message(self, timeout: float) -> Message | None: ...
    def news(self) -> list[str]: ...
    def close(self) -> None: ...


def other(side: str) -> str:
    return "b" if side == "w" else "w"


def mover_of(index: int) -> str:
    """The side that takes action number ``index`` (0-based, forced passes counted) of a
    game: both phases alternate, each beginning with White (49 placements, then moves)."""
    if index < 49:
        return "w" if index % 2 == 0 else "b"
    return "w" if index % 2 == 1 else "b"


def payload(table: str, side: str, seq: int, actions: list[str], *, over: bool = False,
            score: tuple[int, int] | None = None, clock: dict[str, object] | None = None) -> str:
    """The JSON a table publishes for the side it plays (``side``: 'w' or 'b'); ``clock``:
    its own side's game clock after its latest action (controller.table.timer)."""
    data: dict[str, object] = {"v": VERSION, "table": table, "side": SIDE_TOPIC[side],
                               "seq": seq, "actions": actions, "over": over}
    if score is not None:
        data["score"] = list(score)
    if clock is not None:
        data["clock"] = clock
    return json.dumps(data, separators=(",", ":"))


def _read(text: bytes) -> tuple[str, int, list[str], bool] | None:
    """(table, seq, actions, over) from a message, None when it is not one of ours."""
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        return None
    table, seq, actions = data.get("table"), data.get("seq"), data.get("actions")
    if not isinstance(table, str) or not isinstance(seq, int) or isinstance(seq, bool) or \
            not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        return None
    try:
        norm = [str(Move.parse(a)) for a in actions]
    except DvonnError:
        return None
    return table, seq, norm, data.get("over") is True


def _clock(text: bytes) -> dict[str, object] | None:
    """The game clock a table sent with its actions (``{"control", "side", "ply", "left"}``
    and ``flag`` once its flag fell), None when it sent none."""
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    clock = data.get("clock") if isinstance(data, dict) else None
    if not isinstance(clock, dict) or not isinstance(clock.get("ply"), int) or \
            not isinstance(clock.get("left"), int | float):
        return None
    return {k: clock[k] for k in ("control", "side", "ply", "left", "flag") if k in clock}


class MqttSeat(RemoteSeat):
    """The side ``side`` is played at another table that meets this one in match
    ``url.prefix`` on the broker. ``link``: an already made link (tests); by default an
    :class:`MqttLink` with a last will that marks this table offline."""

    name = "remote-table"

    def __init__(self, url: BrokerURL, side: str, *, credentials: Credentials | None = None,
                 link: Link | None = None) -> None:
        super().__init__(side)
        self.url = url
        self.match = url.prefix
        self.table_id = uuid.uuid4().hex[:12]
        mine = SIDE_TOPIC[other(side)]
        self.out_topic = f"{self.match}/{mine}"
        self.in_topic = f"{self.match}/{SIDE_TOPIC[side]}"
        self.out_presence = f"{self.out_topic}/presence"
        self.in_presence = f"{self.in_topic}/presence"
        self.seq = 0
        #: the game clock: this table's own side's time, sent with its actions (set by
        #: controller.table.timer.TableClock), and the other table's, as it arrived
        self.clock_out: dict[str, object] | None = None
        self.their_clock: dict[str, object] | None = None
        self._clock_sent: dict[str, object] | None = None
        self.state = OK
        self.ours: list[str] | None = None  # what this table has (the last tell)
        self.theirs: list[str] | None = None  # the other table's list (None: not heard yet)
        self.their_over = False
        self.their_online: bool | None = None
        self.connected = False
        self._ever = False  # connected at least once
        self.refused = ""
        self._seen: dict[str, int] = {}  # table id -> highest seq taken
        self._inbox: list[Message] = []
        self._published: list[str] | None = None
        self._final: list[str] | None = None  # this table's list when its game ended
        self._why = ""  # the disagreement or the end of the match, once stopped
        if link is None:
            link = MqttLink(url, name=f"dvonn-{mine}", credentials=credentials,
                            will=(self.out_presence, OFFLINE))
        self.link: Link = link
        self.link.subscribe(self.in_topic)
        self.link.subscribe(self.in_presence)
        self.link.subscribe(self.out_topic)  # (another table live there: the same side twice)
        self.link.publish(self.out_presence, ONLINE)
        self._refresh_note()

    # ------------------------------------------------------------------ state
    @property
    def stopped(self) -> bool:
        """True when this seat will give no more actions (the tables disagree, or the match
        is over)."""
        return self.state != OK

    def _stop(self, state: str, why: str) -> None:
        self.state = state
        self._why = why

    def _check(self) -> None:
        """Compare the two lists; stop at the first difference."""
        if self.state != OK or self.ours is None or self.theirs is None:
            return
        ours, theirs = self.ours, self.theirs
        for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            if a != b:
                self._stop(DISAGREE, Msg("the tables disagree at ply {ply}: here {here}, there "
                                         "{there}; match {match} stopped", ply=i + 1, here=a,
                                         there=b, match=self.match))
                return
        if not ours and theirs and self.their_over:
            self._stop(ENDED, Msg("match {match} ended with its game; start both tables with a "
                                  "new match name for another game", match=self.match))

    def _take(self, msg: Message) -> bool:
        """One message in; True when it changed what the seat knows."""
        if msg.topic == self.in_presence:
            online = msg.text() != OFFLINE if msg.payload else None
            changed = online != self.their_online
            self.their_online = online
            return changed
        if msg.topic == self.out_topic:
            return self._twin(msg)
        if msg.topic != self.in_topic or not msg.payload:
            return False
        read = _read(msg.payload)
        if read is None:
            return False
        table, seq, actions, over = read
        if seq <= self._seen.get(table, -1):
            return False  # a duplicate or an older message of that table
        self._seen[table] = seq
        clock = _clock(msg.payload)
        changed = actions != self.theirs or over != self.their_over or clock != self.their_clock
        self.their_clock = clock
        self.theirs, self.their_over = actions, over
        if self.their_online is None:
            self.their_online = True
        self._check()
        return changed

    def _twin(self, msg: Message) -> bool:
        """A live (not retained) list on this table's own topic from another table: two
        tables play the same side. (A retained one is this table's own from before a
        restart.)"""
        read = _read(msg.payload) if msg.payload and not msg.retained else None
        if read is None or read[0] == self.table_id or self.state != OK:
            return False
        mine = other(self.side)
        self._stop(DISAGREE, Msg("another table plays {side} in match {match} too: one of the "
                                 "two must play {other}", side=side_name(mine),
                                 match=self.match, other=side_name(self.side)))
        if self._published is not None:  # once more, live: the other table learns it too
            self.seq += 1
            self.link.publish(self.out_topic, payload(self.table_id, mine, self.seq,
                                                      self._published))
        return True

    def _refresh_note(self) -> None:
        side = side_name(self.side)
        if self._why:
            self.note = self._why
        elif self.refused:
            self.note = Msg("the broker refused the connection ({error}); check the [remote] "
                            "user name and password", error=self.refused)
        elif not self.connected:
            self.note = Msg("connecting to the broker {url} (match {match})", url=str(self.url),
                            match=self.match) if not self._ever \
                else Msg("connection to the broker lost; reconnecting")
        elif self.their_online is False and not (self.their_over or self._final):
            self.note = Msg("{side}'s table is offline; waiting for it to come back", side=side)
        elif self.theirs is None:
            self.note = Msg("waiting for {side}'s table to join match {match}", side=side,
                            match=self.match)
        else:
            self.note = self._catch_up_note()

    def _catch_up_note(self) -> str:
        """When the other table is ahead with an action of this table's side (this table
        resumed behind it): say what to play to catch up."""
        ours, theirs = self.ours, self.theirs
        if ours is None or theirs is None or len(theirs) <= len(ours) or self._final:
            return ""
        n = len(ours)
        mover = mover_of(n)
        if mover == self.side or theirs[n] == "PASS":
            return ""
        return Msg("the other table has {action} for {side} next: play it to catch up",
                   action=theirs[n], side=side_name(mover))

    # ------------------------------------------------------------------ the seat
    def pump(self) -> bool:
        changed = False
        for news in self.link.news():
            if news == "connected":
                changed = changed or not self.connected or bool(self.refused)
                self.connected, self.refused, self._ever = True, "", True
            elif news == "disconnected":
                changed = changed or self.connected
                self.connected = False
            elif news == "refused":
                self.refused = getattr(self.link, "error", "") or "refused"
                changed = True
        inbox, self._inbox = self._inbox + self.link.messages(), []
        for msg in inbox:
            changed = self._take(msg) or changed
        note = self.note
        self._refresh_note()
        return changed or note != self.note

    def wait(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds for a message from the broker (for a loop that
        has nothing else to do, like the fast demo's); :meth:`pump` takes it in. True when
        one came."""
        msg = self.link.wait_message(timeout)
        if msg is None:
            return False
        self._inbox.append(msg)
        return True

    def tell(self, game: Game) -> None:
        if self.state == ENDED:
            return
        actions = [str(m) for m in game.move_stack]
        if self._final is not None and not actions and self._final:
            self._stop(ENDED, Msg("match {match} ended with its game; start both tables with a "
                                  "new match name for another game", match=self.match))
            self._refresh_note()
            return
        over = game.is_over()
        if over:
            self._final = actions
        self.ours = actions
        self._check()
        if actions != self._published or self.clock_out != self._clock_sent:
            self.seq += 1
            self._published = actions
            self._clock_sent = None if self.clock_out is None else dict(self.clock_out)
            self.link.publish(self.out_topic, payload(
                self.table_id, other(self.side), self.seq, actions, over=over,
                score=game.score() if over else None, clock=self._clock_sent))
        self._refresh_note()

    def poll(self, game: Game) -> Move | None:
        theirs = self.theirs
        if self.state != OK or theirs is None or game.is_over() or game.turn != self.side:
            return None
        actions = [str(m) for m in game.move_stack]
        n = len(actions)
        if len(theirs) <= n or theirs[:n] != actions:
            return None
        move = Move.parse(theirs[n])
        return move if move in game.legal_moves() else None

    def end_game(self, game: Game) -> None:
        self.tell(game)

    def close(self) -> None:
        """Say goodbye: mark this table offline (retained) and close the link."""
        try:
            self.link.publish(self.out_presence, OFFLINE)
        finally:
            self.link.close()
