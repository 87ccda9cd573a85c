"""The tables of a club as the broadcast page shows them, made of what arrives from the broker.

Messages come from anyone who can publish under ``CLUB/``: each is checked before it is
used, and one that is not right is ignored with a log line (a rogue client can never break
the page). The topics (controller.remote.publisher):

- ``CLUB/TABLE/state``: a ``table_state``. At most :data:`MAX_STATE` bytes of UTF-8 JSON, an
  object of the format ``dvonn-board/table-state``; its ``actions`` must be a legal game (the
  engine replays them), and ``stacks``, ``score``, ``ply``, ``turn``, ``phase`` and
  ``winner`` must be that game's; the other keys the page reads must have their types (texts
  at most :data:`MAX_TEXT` characters). Only the keys of a ``table_state`` are kept. An empty
  payload clears the table's state: it shows as left.
- ``CLUB/TABLE/presence``: ``online`` or ``offline`` (a table shows once it sent a state; it
  shows as left when offline).
- ``CLUB/TABLE/result/KEY``: a finished game; its actions must replay to a game that is over
  (score and winner are the engine's, not the message's). An empty payload takes it back.

TABLE and KEY are letters, digits and ``-_.`` (at most 64). At most :data:`MAX_TABLES` tables
and :data:`MAX_RESULTS` results are kept (beyond, new ones are ignored).

Standings: every finished game gives its winner 1 point and its loser 0, 0.5 each for a tie;
players are ranked by points, then by pieces (the sum of their scores over their games), then
by name. A player is the name the table gave that side; where a game's two sides have the
same name (two copies of one program, say), each side is a player of its own (``side``: ``w``
or ``b``; else None), shown with its colour.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from engine.errors import DvonnError
from engine.game import Game
from engine.geometry import CELL_NAMES, NUM_CELLS
from engine.move import Move
from engine.records import export_littlegolem

log = logging.getLogger("dvonn.broadcast")

MAX_STATE = 64 * 1024  # bytes of a state or result message
MAX_TEXT = 400  # characters of a text in a state (a message, a player's name)
MAX_ACTIONS = 200  # a DVONN game has well under this many actions
MAX_TABLES = 64
MAX_RESULTS = 2000
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
STATE_FORMAT = "dvonn-board/table-state"
RESULT_FORMAT = "dvonn-board/result"
PHASES = ("placing", "moving", "over")
#: The keys of a table_state the broadcast keeps (controller.publish).
KEYS = ("format", "version", "game_id", "players", "ply", "phase", "turn", "piece_to_place",
        "stacks", "actions", "score", "winner", "roles", "blink", "prompt", "message",
        "messages", "hints", "colours", "last_move", "removed", "analysis")


class Rejected(ValueError):
    """A message that is not what its topic carries; the text says why."""


@dataclass
class Table:
    """One table: its last good state (None: cleared or none yet) and whether it is online."""

    name: str
    state: dict[str, Any] | None = None
    online: bool | None = None  # None: no presence heard
    seq: int = 0  # the club's change count when this table last changed
    shown: bool = False  # it had a state once (a presence alone does not show a table)
    game: Game | None = field(default=None, repr=False)

    def entry(self) -> dict[str, Any]:
        """What /api/tables and the page get: name, presence and state."""
        status = ("left" if self.state is None or self.online is False else "online")
        return {"name": self.name, "online": self.online is not False and self.state is not None,
                "status": status, "seq": self.seq, "state": self.state}


@dataclass(frozen=True)
class Result:
    """A finished game of a table."""

    table: str
    key: str
    white: str
    black: str
    actions: tuple[str, ...]
    score: tuple[int, int]
    winner: str  # 'w', 'b' or 'tie'

    def entry(self) -> dict[str, Any]:
        return {"table": self.table, "key": self.key, "white": self.white, "black": self.black,
                "score": {"white": self.score[0], "black": self.score[1]},
                "winner": self.winner, "actions": len(self.actions)}


class Club:
    """The tables and finished games of one club (thread-safe: the broker's messages come in
    on one thread, the server reads on another)."""

    def __init__(self, club: str) -> None:
        self.club = club
        self.tables: dict[str, Table] = {}
        self.results: dict[tuple[str, str], Result] = {}
        self.ignored = 0
        self.seq = 0  # changes of tables so far
        self._lock = threading.Lock()
        self._logged: list[float] = []

    # ------------------------------------------------------------------ messages in
    def apply(self, topic: str, payload: bytes) -> tuple[str | None, bool]:
        """Take in one message: (the table whose entry changed or None, whether the
        results changed). A message that is not right is ignored with a log line."""
        try:
            name, results = self._apply(topic, payload)
        except Rejected as exc:
            self.ignored += 1
            self._warn(f"ignored a message on {topic[:120]!r} ({len(payload)} bytes): {exc}")
            return None, False
        if name is not None:
            with self._lock:
                self.seq += 1
                self.tables[name].seq = self.seq
        return name, results

    def _apply(self, topic: str, payload: bytes) -> tuple[str | None, bool]:
        levels = topic.split("/")
        if len(levels) < 3 or levels[0] != self.club:
            raise Rejected("not a topic of this club")
        name, kind = levels[1], levels[2:]
        if not NAME.match(name):
            raise Rejected("the table's name is not letters, digits, - _ .")
        if len(payload) > MAX_STATE:
            raise Rejected(f"larger than {MAX_STATE} bytes")
        with self._lock:
            if kind == ["state"]:
                return self._state(name, payload), False
            if kind == ["presence"]:
                text = payload.decode("utf-8", "replace").strip()
                if text not in ("online", "offline", ""):
                    raise Rejected("presence is online or offline")
                table = self._table(name)
                online = None if not text else text == "online"
                if table.online == online:
                    return None, False
                table.online = online
                return (name if table.shown else None), False
            if len(kind) == 2 and kind[0] == "result":
                return None, self._result(name, kind[1], payload)
        raise Rejected("not a state, presence or result topic")

    def _table(self, name: str) -> Table:
        table = self.tables.get(name)
        if table is None:
            if len(self.tables) >= MAX_TABLES:
                raise Rejected(f"the club has {MAX_TABLES} tables already")
            table = self.tables[name] = Table(name)
        return table

    def _state(self, name: str, payload: bytes) -> str | None:
        if not payload:
            table = self.tables.get(name)
            if table is None or table.state is None:
                return None
            table.state, table.game = None, None
            return name
        data = _json(payload)
        previous = self.tables.get(name)
        game = check_state(data, previous.game if previous else None,
                           previous.state if previous else None)
        table = self._table(name)
        kept = {k: data.get(k) for k in KEYS}
        if kept == table.state:
            return None
        table.state, table.game, table.shown = kept, game, True
        return name

    def _result(self, name: str, key: str, payload: bytes) -> bool:
        if not NAME.match(key):
            raise Rejected("a result's key is letters, digits, - _ .")
        if not payload:
            return self.results.pop((name, key), None) is not None
        data = _json(payload)
        if data.get("format") != RESULT_FORMAT:
            raise Rejected(f"not a {RESULT_FORMAT}")
        players = data.get("players")
        if not isinstance(players, dict):
            raise Rejected("no players")
        white, black = (_text(players.get(s), f"players.{s}") for s in ("white", "black"))
        actions = _actions(data.get("actions"))
        game = _replay(actions)
        if not game.is_over():
            raise Rejected("its game is not over")
        if (name, key) not in self.results and len(self.results) >= MAX_RESULTS:
            raise Rejected(f"{MAX_RESULTS} results are kept already")
        result = Result(name, key, white or "White", black or "Black", tuple(actions),
                        game.score(), game.winner() or "tie")
        if self.results.get((name, key)) == result:
            return False
        self.results[(name, key)] = result
        return True

    def _warn(self, line: str) -> None:
        """Log ``line``, at most 20 lines a minute (a flood of bad messages is counted only)."""
        now = time.monotonic()
        self._logged = [t for t in self._logged if now - t < 60.0]
        if len(self._logged) < 20:
            self._logged.append(now)
            log.warning("%s", line)

    # ------------------------------------------------------------------ what the page reads
    def entries(self) -> list[dict[str, Any]]:
        """Every table's entry, by name."""
        with self._lock:
            return [self.tables[n].entry() for n in sorted(self.tables) if self.tables[n].shown]

    def entry(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            table = self.tables.get(name)
            return None if table is None or not table.shown else table.entry()

    def games(self) -> list[dict[str, Any]]:
        """The finished games, by table and key."""
        with self._lock:
            return [self.results[k].entry() for k in sorted(self.results)]

    def standings(self) -> list[dict[str, Any]]:
        """The players' standings (see the module docstring), best first."""
        with self._lock:
            rows: dict[tuple[str, str | None], dict[str, Any]] = {}
            for r in self.results.values():
                same = r.white.casefold() == r.black.casefold()  # one name, two players
                for side, name, pieces in (("w", r.white, r.score[0]),
                                           ("b", r.black, r.score[1])):
                    key = (name, side if same else None)
                    row = rows.setdefault(key, {"player": name, "side": key[1], "games": 0,
                                                "wins": 0, "ties": 0, "losses": 0,
                                                "points": 0.0, "pieces": 0})
                    row["games"] += 1
                    row["pieces"] += pieces
                    if r.winner == "tie":
                        row["ties"] += 1
                        row["points"] += 0.5
                    elif r.winner == side:
                        row["wins"] += 1
                        row["points"] += 1.0
                    else:
                        row["losses"] += 1
        ranked = sorted(rows.values(), key=lambda x: (-x["points"], -x["pieces"], x["player"],
                                                      x["side"] or ""))
        for place, row in enumerate(ranked, 1):
            row["place"] = place
        return ranked

    def record(self, name: str, key: str | None = None) -> str | None:
        """A Little Golem record of a table's game (``key``: a finished one; None: the
        current one), or None when there is no such game."""
        with self._lock:
            if key is not None:
                r = self.results.get((name, key))
                if r is None:
                    return None
                moves, white, black = list(r.actions), r.white, r.black
            else:
                table = self.tables.get(name)
                if table is None or table.state is None:
                    return None
                moves = list(table.state.get("actions") or [])
                players = table.state.get("players") or {}
                white, black = players.get("white") or "", players.get("black") or ""
        return export_littlegolem([Move.parse(m) for m in moves], white=white, black=black,
                                  event=f"{self.club}/{name}") + "\n"


# ---------------------------------------------------------------------------- checks
def _json(payload: bytes) -> dict[str, Any]:
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Rejected("not UTF-8 JSON") from None
    if not isinstance(data, dict):
        raise Rejected("not a JSON object")
    return data


def _text(value: object, what: str, *, optional: bool = True) -> str:
    if value is None and optional:
        return ""
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise Rejected(f"{what} is not a text of at most {MAX_TEXT} characters")
    return value


def _actions(value: object) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_ACTIONS or not all(
            isinstance(a, str) and 0 < len(a) <= 8 for a in value):
        raise Rejected(f"actions are not a list of at most {MAX_ACTIONS} actions")
    return list(value)


def _replay(actions: list[str]) -> Game:
    game = Game()
    try:
        for text in actions:
            game.push(Move.parse(text))
    except (DvonnError, ValueError) as exc:
        raise Rejected(f"its actions are not a legal game ({str(exc)[:80]})") from None
    return game


def _int(value: object, what: str, lo: int = 0, hi: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise Rejected(f"{what} is not a whole number {lo}-{hi}")
    return value


def check_state(data: dict[str, Any], game: Game | None = None,
                before: dict[str, Any] | None = None) -> Game:
    """The game of a table_state, or Rejected saying what is wrong with it. ``game`` and
    ``before``: the table's last good game and state (its actions are not replayed again)."""
    if data.get("format") != STATE_FORMAT:
        raise Rejected(f"not a {STATE_FORMAT}")
    _int(data.get("version"), "version", 1, 1000)
    actions = _actions(data.get("actions"))
    if game is None or before is None or before.get("actions") != actions:
        game = _replay(actions)
    stacks = data.get("stacks")
    want = {CELL_NAMES[c]: game.stack(c) for c in range(NUM_CELLS) if game.stack(c)}
    if stacks != want:
        raise Rejected("its stacks are not its actions' position")
    score = data.get("score")
    w, b = game.score()
    if not isinstance(score, dict) or score.get("white") != w or score.get("black") != b:
        raise Rejected("its score is not its actions' score")
    phase = "over" if game.is_over() else "placing" if game.placing else "moving"
    if (data.get("phase"), data.get("ply"), data.get("turn"), data.get("winner")) != (
            phase, game.ply, game.turn, game.winner()):
        raise Rejected("its phase, ply, turn or winner is not its actions'")
    players = data.get("players")
    if not isinstance(players, dict):
        raise Rejected("players is not an object")
    for side in ("white", "black"):
        _text(players.get(side), f"players.{side}")
    for key in ("message", "prompt"):
        _text(data.get(key), key)
    messages = data.get("messages")
    if messages is not None and (not isinstance(messages, dict) or len(messages) > 8):
        raise Rejected("messages is not an object of a few languages")
    for lang, text in (messages or {}).items():
        _text(text, f"messages.{str(lang)[:8]}", optional=False)
    roles = data.get("roles")
    if roles is not None and (not isinstance(roles, dict) or not all(
            k in CELL_NAMES and isinstance(v, str) and len(v) <= 16 for k, v in roles.items())):
        raise Rejected("roles is not cell -> role")
    for key in ("blink",):
        cells = data.get(key)
        if cells is not None and (not isinstance(cells, list) or not all(
                c in CELL_NAMES for c in cells)):
            raise Rejected(f"{key} is not a list of cells")
    if data.get("game_id") is not None:
        _int(data.get("game_id"), "game_id", 0, 1 << 62)
    return game
