"""boardspace.net game records: SGF files whose nodes are the steps of the site's interface.

Each step is a property ``P0[...]`` (the first player, White) or ``P1[...]`` (Black) whose
value is a step number and a step (the number may be missing)::

    P0[1 pick wr 2]     a piece taken from the reserve         P0[2 dropb C 4]  put on C4
    P0[3 done]          the end of the turn                    P0[108 pickb C 5]  C5 lifted
    P1[111 move F 1 F 2]  a robot's move in one step           P0[183 pass]       a pass
    P0[9 drop br 1]     a piece put back into the reserve      P0[40 reset]  the turn taken back
    P1[77 resign]       a resignation (it counts at 'done')    P0[0 Start P0]   the start

Only what stands at ``done`` counts: a stack set back on its own cell, a piece picked up
again, a step taken back by ``reset`` are no action. A ``done`` with nothing done is a pass
(when the player has to pass). A step of the player who is not to act, while the other has
to pass, is read as that pass first (the site sometimes leaves forced passes out).
``P0[id "name"]`` names a player; ``DT`` is the date, ``GN`` the site's name of the game,
``RE`` its result in words. A record may end before the game does (an unfinished game).

Time (SGF's standard properties, which this project writes for a game played with a clock):
``TM[900]`` seconds per side in the root, ``OT[Fischer 10]`` the increment, ``WL[871.5]`` /
``BL[...]`` in the node that ends an action: that side's seconds left after it, and
``RE[B+T]`` / ``RE[W+T]`` (also ``B+Time``): a win on time, the other side's flag fell.

Errors name the node (counted from 0, the root), its line and the step, and say why:
RecordError for what is not a boardspace DVONN record, IllegalMoveError for an action the
rules do not allow there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from engine.errors import IllegalMoveError, RecordError
from engine.game import BLACK, WHITE, Game
from engine.gamerecord import GameRecord, GameTime, excerpt
from engine.geometry import CELL_NAMES, parse_cell
from engine.move import PASS, Move
from engine.sgf import Node, Property, escape, parse_sgf

SITE = "boardspace.net"
#: What export_boardspace writes as the application (AP): its records are not the site's.
APPLICATION = "dvonn-board"
#: Properties a root node may hold (boardspace's own and SGF's standard game information).
ROOT_PROPERTIES = frozenset(
    "GM VV DT GN SU RE P0 P1 FF CA AP SO PC EV RO US AN CP GC ON TM OT PW PB WR BR C".split())
#: Properties any other node may hold: the players' steps, a comment, time left (SGF's).
NODE_PROPERTIES = frozenset({"P0", "P1", "C", "WL", "BL"})
#: SGF's time left properties: whose time they give.
TIME_LEFT: dict[str, str] = {"WL": WHITE, "BL": BLACK}
#: SGF's result of a win on time (RE), by the side whose flag fell.
TIME_RESULT: dict[str, str] = {WHITE: "B+T", BLACK: "W+T"}
_TIME_RESULT = re.compile(r"^\s*([WB])\s*\+\s*T(?:ime)?\s*$", re.IGNORECASE)
_FISCHER = re.compile(r"^\s*fischer\s+(\d+(?:\.\d+)?)\s*(?:s|sec|seconds)?\s*$",
                      re.IGNORECASE)
PLAYERS: dict[str, str] = {"P0": WHITE, "P1": BLACK}
PLAYER_OF: dict[str, str] = {WHITE: "P0", BLACK: "P1"}
STEPS = frozenset({"start", "pick", "drop", "pickb", "dropb", "move", "pass", "done", "reset",
                   "resign"})
SIDE_NAMES: dict[str, str] = {WHITE: "White", BLACK: "Black"}
_STAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)-(\d\d)(\d\d)")
_CLOCK = re.compile(r"^(\d\d?):(\d\d):(\d\d)$")
_GMT = re.compile(r"^(?:GMT|UTC)([+-])(\d\d?):?(\d\d)$")
_MONTHS = {m: i + 1 for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split())}
#: Time zone names in boardspace dates, as hours east of UTC.
ZONES = {
    "UTC": 0, "GMT": 0, "WET": 0, "BST": 1, "WEST": 1, "CET": 1, "CEST": 2, "EET": 2,
    "EEST": 3, "MSK": 3, "MSD": 4, "IRST": 3.5, "IRDT": 4.5, "YEKT": 5, "NOVT": 6,
    "NOVST": 7, "WST": 8, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
    "BRT": -3, "BRST": -2, "ADT": -3, "AST": -4, "EDT": -4, "EST": -5, "CDT": -5, "CST": -6,
    "MDT": -6, "MST": -7, "PDT": -7, "PST": -8,
}


def parse_date(text: str, name: str = "") -> str:
    """A boardspace date as ISO 8601 in UTC: ``DT[Mon Nov 03 00:21:29 CET 2008]`` gives
    ``2008-11-02T23:21:29+00:00``.

    The site names its games with the UTC minute they started (``DV-a-b-2008-11-02-2321``,
    in ``GN`` or the file's ``name``), and writes ``DT`` in its server's local time with a
    zone name that may be ambiguous (``CST``, ``EST`` and ``MSK`` have meant several
    offsets). So the stamp sets the offset when there is one (DT adds the seconds); the zone
    table serves only without it. A date without its time (``DT[May 24, 2017]``) takes the
    stamp; with neither, the text is kept as written.
    """
    stamp = _stamp(name)
    parts = text.split()
    local = _local_time(parts) if len(parts) == 6 else None
    if local is not None:
        if stamp is not None:
            minutes = round((local - stamp.replace(tzinfo=None)).total_seconds() / 900) * 15
            if abs(minutes) <= 14 * 60:
                return _iso(local - timedelta(minutes=minutes))
            return _iso(stamp)
        offset = _zone_hours(parts[4])
        if offset is not None:
            return _iso(local - timedelta(hours=offset))
    if stamp is not None:
        return _iso(stamp)
    return text.strip()


def _iso(utc: datetime) -> str:
    return utc.replace(tzinfo=UTC).isoformat(timespec="seconds")


def _stamp(name: str) -> datetime | None:
    found = _STAMP.search(name)
    if found is None:
        return None
    try:
        year, month, day, hour, minute = map(int, found.groups())
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        return None


def _local_time(parts: list[str]) -> datetime | None:
    """``Mon Nov 03 00:21:29 CET 2008`` as a time without its zone, or None."""
    _, month, day, clock, _, year = parts
    hms = _CLOCK.match(clock)
    if month[:3].lower() not in _MONTHS or not hms or not day.isdigit() or not year.isdigit():
        return None
    try:
        hour, minute, second = map(int, hms.groups())
        return datetime(int(year), _MONTHS[month[:3].lower()], int(day), hour, minute, second)
    except ValueError:
        return None


def _zone_hours(zone: str) -> float | None:
    gmt = _GMT.match(zone)
    if gmt:
        hours = int(gmt.group(2)) + int(gmt.group(3)) / 60
        return -hours if gmt.group(1) == "-" else hours
    return ZONES.get(zone.upper())


def format_date(iso: str) -> str:
    """An ISO 8601 time as a boardspace ``DT`` (``Sun Nov 02 23:21:29 UTC 2008``); text that
    is not such a time (with its zone) is kept as it is."""
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if when.tzinfo is None:
        return iso
    when = when.astimezone(UTC)
    return when.strftime("%a %b %d %H:%M:%S UTC %Y")


class _Turn:
    """The steps of the turn in progress (what would count at ``done``)."""

    def __init__(self) -> None:
        self.side: str | None = None
        self.held: int | None = None  # cell a stack was lifted from
        self.from_reserve = False  # a piece taken from the reserve is in hand
        self.placed: int | None = None
        self.moved: tuple[int, int] | None = None
        self.passed = False
        self.resign = False

    @property
    def empty(self) -> bool:
        return (self.held is None and not self.from_reserve and self.placed is None
                and self.moved is None and not self.passed and not self.resign)


class _Reader:
    """Plays the steps of the nodes on a Game, node by node."""

    def __init__(self) -> None:
        self.game = Game()
        self.moves: list[Move] = []
        self.sides: list[str] = []  # who took each action
        self.left: dict[int, float] = {}  # ply -> the acting side's seconds left (WL/BL)
        self.turn = _Turn()
        self.resigned: str | None = None
        self.names: dict[str, str] = {}
        self.node: Node = Node(0, 1)
        self.prop: Property = Property("", "", 1)

    # -- errors ----------------------------------------------------------------------------
    def where(self) -> str:
        step = excerpt(f"{self.prop.name}[{self.prop.value}]")
        return f"node {self.node.number} (line {self.prop.line}) {step}"

    def error(self, why: str) -> RecordError:
        return RecordError(f"{self.where()}: {why}")

    def push(self, move: Move) -> None:
        """Play ``move``; IllegalMoveError names the node and the step."""
        side = str(self.game.turn)
        try:
            self.game.push(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"{self.where()}: {exc}", move=exc.move, ply=exc.ply,
                                   side=exc.side) from None
        self.moves.append(move)
        self.sides.append(side)

    def check(self, move: Move) -> None:
        """Raise (naming this step) unless ``move`` is legal now."""
        self.push(move)
        self.game.pop()
        self.moves.pop()
        self.sides.pop()

    def cell(self, args: Sequence[str]) -> int:
        if len(args) < 2:
            raise self.error("expected a cell such as 'C 4'")
        try:
            return parse_cell(args[0] + args[1])
        except ValueError:
            raise self.error(f"{excerpt(' '.join(args[:2]))} is not a cell of the board "
                             "(A-K and 1-5)") from None

    # -- nodes -----------------------------------------------------------------------------
    def read(self, nodes: list[Node]) -> None:
        if not nodes:
            raise RecordError("node 0: the game has no nodes (expected '(;GM[Dvonn] ...')")
        for node in nodes:
            self.node = node
            before = len(self.moves)
            allowed = ROOT_PROPERTIES if node.number == 0 else NODE_PROPERTIES
            for prop in node.properties:
                self.prop = prop
                if prop.name not in allowed:
                    kind = "a root" if node.number == 0 else "a step"
                    raise self.error(f"unknown property {excerpt(prop.name)} in {kind} node "
                                     f"(expected {', '.join(sorted(allowed))})")
                if prop.name in PLAYERS:
                    self.player_value(PLAYERS[prop.name], prop.value)
                elif prop.name == "GM" and prop.value.strip().lower() not in ("dvonn", ""):
                    raise self.error("not a DVONN game")
            for prop in node.properties:
                if prop.name in TIME_LEFT:
                    self.prop = prop
                    self.time_left(TIME_LEFT[prop.name], prop.value, before)

    def time_left(self, side: str, value: str, before: int) -> None:
        """``WL``/``BL``: ``side``'s seconds left after its action in this node (a reading in
        a node where that side completed no action says nothing about an action: skipped)."""
        seconds = _seconds(value)
        if seconds is None:
            raise self.error("time left is not a number of seconds (e.g. WL[871.5])")
        for index in range(len(self.moves) - 1, before - 1, -1):
            if self.sides[index] == side:
                self.left[index] = seconds
                return

    def player_value(self, side: str, value: str) -> None:
        words = value.split()
        if not words:
            raise self.error("an empty step")
        if words[0].isdigit():
            words = words[1:]
            if not words:
                raise self.error("a step number with no step")
        elif words[0].lower() not in STEPS:
            if words[0] == "id":  # player information: id "name", ranking, time, ...
                self.names[side] = value.split(None, 1)[1].strip().strip('"') \
                    if len(words) > 1 else ""
            return
        step, args = words[0].lower(), words[1:]
        if step not in STEPS:
            raise self.error(f"unknown step {excerpt(words[0])} (expected one of "
                             f"{', '.join(sorted(STEPS))})")
        if step == "start":
            return
        self.step(side, step, args)

    def step(self, side: str, step: str, args: list[str]) -> None:
        game, turn = self.game, self.turn
        if self.resigned is not None:
            raise self.error(f"a step after {SIDE_NAMES[self.resigned]} resigned")
        if step == "resign":
            turn.resign = not turn.resign  # a second 'resign' takes the first back
            turn.side = side
            return
        if step == "reset":
            self.turn = _Turn()
            return
        if step == "done" and turn.resign:
            self._done(args)
            return
        if game.is_over():
            if step in ("done", "pass") and not turn.resign:
                return  # a 'done' (or a pass) after the last action
            raise self.error("the game is over (no one can move)")
        if turn.side is None and side != game.turn:
            if game.must_pass():  # the site left the other player's forced pass out
                self.push(PASS)
            else:
                raise self.error(f"{PLAYER_OF[side]} acts, but it is "
                                 f"{SIDE_NAMES[game.turn]}'s turn (ply {game.ply + 1})")
        elif turn.side is not None and side != turn.side:
            raise self.error(f"{PLAYER_OF[side]} acts before {PLAYER_OF[turn.side]}'s turn "
                             "ended with 'done'")
        turn.side = side
        getattr(self, f"_{step}")(args)

    # -- steps -----------------------------------------------------------------------------
    def _pick(self, args: list[str]) -> None:
        if not self.game.placing:
            raise self.error("a piece taken from the reserve in the moving phase (all "
                             "pieces are placed)")
        self.turn.placed = None
        self.turn.from_reserve = True

    def _drop(self, args: list[str]) -> None:
        if not self.game.placing:
            raise self.error("a piece put into the reserve in the moving phase")
        self.turn.from_reserve = False

    def _dropb(self, args: list[str]) -> None:
        cell, turn = self.cell(args), self.turn
        if self.game.placing:
            if turn.placed is not None:
                raise self.error(f"a second placement in one turn ({CELL_NAMES[turn.placed]} "
                                 "is placed already)")
            self.check(Move.place(cell))
            turn.placed, turn.from_reserve = cell, False
            return
        if turn.held is None:
            raise self.error("a stack set down, but none was lifted (expected 'pickb' "
                             "before it)")
        source, turn.held = turn.held, None
        if cell != source:  # set back on its own cell: no move
            self.check(Move.step(source, cell))
            turn.moved = (source, cell)

    def _pickb(self, args: list[str]) -> None:
        cell, turn = self.cell(args), self.turn
        if self.game.placing:
            if turn.placed != cell:
                raise self.error("a piece lifted in the placing phase, but "
                                 + ("no piece was placed this turn" if turn.placed is None
                                    else f"this turn's piece is on {CELL_NAMES[turn.placed]}"))
            turn.placed, turn.from_reserve = None, True
            return
        if turn.moved is not None:  # the stack just set down is lifted again
            turn.held, turn.moved = turn.moved[0], None
            return
        if turn.held is not None:
            raise self.error(f"a stack lifted while the one from {CELL_NAMES[turn.held]} is "
                             "still in hand")
        if self.game.owner(cell) != self.game.turn:
            whose = "empty" if not self.game.stack(cell) else "not the player's"
            raise self.error(f"the stack on {CELL_NAMES[cell]} is {whose}")
        turn.held = cell

    def _move(self, args: list[str]) -> None:
        if self.game.placing:
            raise self.error("a stack moved in the placing phase (expected 'dropb')")
        if len(args) < 4:
            raise self.error("expected two cells, e.g. 'move F 1 F 2'")
        source, target = self.cell(args[:2]), self.cell(args[2:4])
        if source == target:
            raise self.error("a move onto its own cell")
        self.check(Move.step(source, target))
        self.turn.moved, self.turn.held = (source, target), None

    def _pass(self, args: list[str]) -> None:
        if self.game.placing or not self.game.must_pass():
            raise self.error(self._no_pass())
        self.turn.passed = True

    def _no_pass(self) -> str:
        if self.game.placing:
            return "a pass in the placing phase"
        moves = len(self.game.legal_moves())
        return f"a pass, but {SIDE_NAMES[self.game.turn]} has {moves} legal moves"

    def _done(self, args: list[str]) -> None:
        turn, game = self.turn, self.game
        if turn.resign:
            self.resigned = turn.side
        elif turn.held is not None:
            raise self.error(f"'done' with the stack from {CELL_NAMES[turn.held]} still in "
                             "hand")
        elif turn.placed is not None:
            self.push(Move.place(turn.placed))
        elif turn.moved is not None:
            self.push(Move.step(*turn.moved))
        elif not game.placing and game.must_pass():
            self.push(PASS)
        else:
            raise self.error("'done' with no action (" + (
                "nothing placed" if game.placing else self._no_pass().removeprefix("a pass, but ")
            ) + ")")
        self.turn = _Turn()

    def time(self, root: dict[str, str]) -> GameTime | None:
        """The root's ``TM`` and ``OT`` and the nodes' ``WL``/``BL`` (None: none of them)."""
        limit = _seconds(root.get("TM", ""))
        fischer = _FISCHER.match(root.get("OT", ""))
        increment = float(fischer.group(1)) if fischer else 0.0
        if limit is None and not fischer and not self.left:
            return None
        left = tuple(self.left.get(i) for i in range(len(self.moves))) if self.left else ()
        return GameTime(limit=limit, increment=increment, left=left)

    def finish(self) -> None:
        """The end of the file: a resignation not yet confirmed by 'done' still counts;
        other steps of an unfinished turn do not."""
        if self.turn.resign and self.resigned is None:
            self.resigned = self.turn.side


def parse_boardspace(text: str, name: str = "") -> GameRecord:
    """Read a boardspace.net DVONN game (SGF) into the project's actions and tags.

    ``name`` (the file's name) only helps with the date when the record's own has no time.
    Tags: White, Black, Date (ISO 8601, UTC when the date could be read), Site (boardspace.net;
    Application instead when the record names the program that wrote it, AP), Game (GN),
    Result (RE, the site's words). ``RE[B+T]`` / ``RE[W+T]`` is a loss on time (``timeout``);
    ``TM``, ``OT`` and ``WL``/``BL`` give ``time``.
    """
    reader = _Reader()
    nodes = parse_sgf(text)
    reader.read(nodes)
    reader.finish()
    root = {p.name: p.value for p in nodes[0].properties} if nodes else {}
    # A record another program wrote in the site's form names itself (AP[dvonn-board]).
    tags = {"Application": root["AP"].strip()} if root.get("AP", "").strip() else \
        {"Site": SITE}
    for side, tag in ((WHITE, "White"), (BLACK, "Black")):
        if reader.names.get(side):
            tags[tag] = reader.names[side]
    for prop, tag in (("GN", "Game"), ("RE", "Result")):
        if root.get(prop, "").strip():
            tags[tag] = root[prop].strip()
    date = parse_date(root.get("DT", ""), f"{root.get('GN', '')} {name}")
    if date:
        tags["Date"] = date
    won = _TIME_RESULT.match(root.get("RE", ""))
    timeout = None if won is None or reader.resigned is not None else \
        (BLACK if won.group(1).upper() == "W" else WHITE)
    return GameRecord(moves=reader.moves, tags=tags, resigned=reader.resigned, format="sgf",
                      timeout=timeout, time=reader.time(root))


def _seconds(value: str) -> float | None:
    """An SGF real number of seconds (``900``, ``871.5``), or None."""
    text = value.strip()
    if not text or len(text) > 20:
        return None
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if seconds == seconds and abs(seconds) != float("inf") else None


def format_seconds(seconds: float) -> str:
    """Seconds as an SGF real, to a tenth: ``871.5``, ``900`` (never below 0)."""
    text = f"{max(0.0, seconds):.1f}"
    return text.removesuffix(".0")


def export_boardspace(moves: Sequence[Move], *, white: str = "", black: str = "",
                      date: str = "", resigned: str | None = None, name: str = "",
                      time: GameTime | None = None, timeout: str | None = None) -> str:
    """A boardspace.net SGF record of the game (read back by parse_boardspace): placements
    as ``dropb``, moves as ``move``, passes as ``pass``, each ended by ``done``; the
    resigning side's ``resign`` and ``done`` at the end when ``resigned`` is 'w' or 'b'.

    With ``time`` (a game played with a clock): ``TM`` (seconds per side) and ``OT[Fischer
    S]`` in the root, and the acting side's time left after each action (``WL``/``BL``) on
    its ``done`` node. ``timeout`` ('w' or 'b', whose flag fell): ``RE[B+T]`` / ``RE[W+T]``.
    Without them the record is as it always was."""
    lines = ["(;", "GM[Dvonn]VV[1]", f"AP[{APPLICATION}]"]
    if date:
        lines.append(f"DT[{escape(format_date(date))}]")
    if name:
        lines.append(f"GN[{escape(name)}]")
    lines.append("SU[dvonn]")
    if time is not None and time.limit is not None:
        lines.append(f"TM[{format_seconds(time.limit)}]"
                     + (f"OT[Fischer {format_seconds(time.increment)}]"
                        if time.increment > 0 else ""))
    if timeout is not None and resigned is None:
        lines.append(f"RE[{TIME_RESULT[timeout]}]")
    for prop, player in (("P0", white), ("P1", black)):
        if player:
            lines.append(f'{prop}[id "{escape(player)}"]')
    lines.append("; P0[0 Start P0]")
    game = Game()
    number = 1
    for ply, move in enumerate(moves):
        prop = PLAYER_OF[game.turn]
        cells = " ".join(str(move))  # 'C3D4' -> 'C 3 D 4'
        step = "pass" if move.is_pass else f"dropb {cells}" if move.is_placement else \
            f"move {cells}"
        left = time.left_after(ply) if time is not None else None
        clock = "" if left is None else \
            f"{'WL' if game.turn == WHITE else 'BL'}[{format_seconds(left)}]"
        lines.append(f"; {prop}[{number} {step}]")
        lines.append(f"; {prop}[{number + 1} done]{clock}")
        number += 2
        game.push(move)
    if resigned is not None:
        prop = PLAYER_OF[resigned]
        lines.append(f"; {prop}[{number} resign]")
        lines.append(f"; {prop}[{number + 1} done]")
    lines.append(")")
    return "\n".join(lines) + "\n"
