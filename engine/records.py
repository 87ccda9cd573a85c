"""Game records: Little Golem records, plain move lists, and JSON positions and games.

Little Golem records leave out the 49th placement (forced: the one empty space) and may end in
``resign``; import inserts the forced placement, export leaves it out again. They have no place
for time: a game lost on time carries a tag ``Result [B+T]`` (``W+T``: White won on time, as
SGF writes it), which import reads back.

Reading takes time linear in the input, whatever it holds (one pass, no backtracking
pattern), and an error quotes at most EXCERPT characters of it. A UTF-8 byte order mark and
lines starting with ``#`` (comments) are accepted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from engine.boardspace import TIME_RESULT, parse_boardspace
from engine.errors import IllegalMoveError, InvalidMoveError, RecordError
from engine.game import PLACEMENTS, Game
from engine.gamerecord import EXCERPT as EXCERPT  # re-exported: the readers share it
from engine.gamerecord import GameRecord, GameTime, excerpt, replay
from engine.geometry import CELL_NAMES, NUM_CELLS, iter_cells
from engine.move import Move
from engine.sgf import looks_like_sgf

_NUMBER = re.compile(r"^\d+\.+$")
_TOKEN = re.compile(r"[^\s,;]+")
_TAG_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
BOM = "\ufeff"
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
#: Versions of the JSON game form this program reads.
JSON_VERSIONS = (1,)
JSON_FORMAT = "dvonn-board/game"


def _strip_comments(text: str) -> str:
    """Drop a leading byte order mark and blank out ``#`` comment lines (lines keep count)."""
    text = text.removeprefix(BOM)
    if "#" not in text:
        return text
    lines = text.split("\n")
    return "\n".join("" if line.lstrip().startswith("#") else line for line in lines)


def _split_tags(text: str) -> tuple[dict[str, str], str]:
    """``Name [value]`` tags and the text around them (tags blanked, line breaks kept).

    One pass: each ``[`` looks for the next ``]`` once, and the tag name is the run of
    letters just before it, so the time is linear in the text.
    """
    tags: dict[str, str] = {}
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find("[", pos)
        if start < 0:
            parts.append(text[pos:])
            break
        end = text.find("]", start + 1)
        if end < 0:
            line = text.count("\n", 0, start) + 1
            raise RecordError(f"line {line}: '[' is never closed by ']' "
                              f"(after {excerpt(text[max(pos, start - 20):start])})")
        before = text[pos:start]
        name_end = len(before.rstrip())
        name_start = name_end
        while name_start > 0 and before[name_start - 1] in _TAG_LETTERS:
            name_start -= 1
        if name_start == name_end:  # no name: not a tag, left for the tokens (an error there)
            parts.append(text[pos:end + 1])
        else:
            tags[before[name_start:name_end]] = text[start + 1:end].strip()
            parts.append(before[:name_start])
            parts.append("\n" * text.count("\n", pos + name_start, end + 1) or " ")
        pos = end + 1
    return tags, "".join(parts)


def _where(body: str, found: re.Match[str], index: int) -> str:
    """'line L, token N' for an error (counting lines only then keeps reading linear)."""
    return f"line {body.count(chr(10), 0, found.start()) + 1}, token {index}"


def parse_record(text: str) -> GameRecord:
    """Read a Little Golem record or a plain move list (numbers like ``12.`` are skipped).

    Raises RecordError naming the line and the token when something is not notation, and
    IllegalMoveError naming the ply when an action is not legal. No actions: an empty game.
    """
    tags, body = _split_tags(_strip_comments(text))
    moves: list[Move] = []
    resigned: str | None = None
    game = Game()
    index = 0
    for found in _TOKEN.finditer(body):
        index += 1
        token = found.group()
        if _NUMBER.match(token):
            continue
        if resigned is not None:
            raise RecordError(f"{_where(body, found, index)} {excerpt(token)}: "
                              "nothing may follow 'resign'")
        if token.lower() == "resign":
            if game.ply == PLACEMENTS - 1:
                _insert_forced_placement(game, moves)
            resigned = game.turn
            continue
        if token.lower() in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        try:
            move = Move.parse(token)
        except InvalidMoveError:
            raise RecordError(f"{_where(body, found, index)} {excerpt(token)} is not a DVONN "
                              "action (expected e.g. C3, C3D3 or PASS)") from None
        if game.ply == PLACEMENTS - 1 and not move.is_placement:
            _insert_forced_placement(game, moves)
        try:
            game.push(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"record {_where(body, found, index)}: {exc}", move=exc.move,
                                   ply=exc.ply, side=exc.side) from None
        moves.append(move)
    timeout = _timeout(tags.get("Result", "")) if resigned is None else None
    return GameRecord(moves=moves, tags=tags, resigned=resigned, timeout=timeout)


def _timeout(result: str) -> str | None:
    """The side whose flag fell by a ``Result`` tag (``B+T``: White's), or None."""
    flag = {text: side for side, text in TIME_RESULT.items()}
    return flag.get(result.strip().upper().replace("TIME", "T"))


def _insert_forced_placement(game: Game, moves: list[Move]) -> None:
    """Little Golem leaves out the forced last placement (the one empty cell): put it in."""
    forced = Move.place(next(iter_cells(~game.occupied & ((1 << NUM_CELLS) - 1))))
    game.push(forced)
    moves.append(forced)


def export_littlegolem(moves: Sequence[Move], *, white: str = "", black: str = "",
                       resigned: str | None = None, event: str = "",
                       timeout: str | None = None) -> str:
    """A Little Golem record: tags, then numbered pairs of lower-case actions.

    The forced 49th placement is left out when an action or ``resign`` follows it;
    ``resigned`` (the side to act, 'w' or 'b') appends ``resign``; ``timeout`` (whose flag
    fell) adds the tag ``Result [B+T]`` / ``Result [W+T]`` (the form has no other place).
    """
    # The forced 49th placement is left out when play goes on after it, as Little Golem does;
    # a record that ends right there keeps it, so that it reads back exactly.
    skip = PLACEMENTS - 1 if len(moves) > PLACEMENTS or resigned is not None else -1
    actions = [str(m).lower() for i, m in enumerate(moves) if i != skip]
    if resigned is not None:
        actions.append("resign")
    parts = [f"Event [{event}]", "Site [www.littlegolem.net]", f"White [{white}]",
             f"Black [{black}]"]
    if timeout is not None and resigned is None:
        parts.append(f"Result [{TIME_RESULT[timeout]}]")
    for i in range(0, len(actions), 2):
        parts.append(f"{i // 2 + 1}. " + " ".join(actions[i:i + 2]))
    return " ".join(parts)


def export_moves(moves: Sequence[Move]) -> str:
    """A plain move list, upper case, one line."""
    return " ".join(str(m) for m in moves)


# ----------------------------------------------------------------- JSON
def position_to_json(game: Game) -> dict[str, Any]:
    """The position only: stacks by cell name, ply, side to act, phase."""
    return {
        "ply": game.ply,
        "turn": game.turn,
        "phase": "placing" if game.placing else "moving",
        "stacks": {CELL_NAMES[c]: game.stack(c) for c in range(NUM_CELLS) if game.stack(c)},
    }


def game_to_json(game: Game, *, white: str = "", black: str = "",
                 resigned: str | None = None, time: GameTime | None = None,
                 timeout: str | None = None) -> dict[str, Any]:
    """A whole game: players, actions, and the final position and score; for a game played
    with a clock also ``clock`` (``limit`` and ``increment`` in seconds, ``left``: the acting
    side's seconds left after each action, null where unknown) and, when a flag fell,
    ``timeout`` (whose: 'w' or 'b'). ``result`` stays the rules' verdict on the position."""
    w, b = game.score()
    data: dict[str, Any] = {
        "format": "dvonn-board/game",
        "version": 1,
        "white": white,
        "black": black,
        "moves": [str(m) for m in game.move_stack],
        "resigned": resigned,
        "result": game.winner(),
        "score": {"white": w, "black": b},
        "position": position_to_json(game),
    }
    if time is not None:
        data["clock"] = {"limit": time.limit, "increment": time.increment,
                         "left": list(time.left)}
    if timeout is not None and resigned is None:
        data["timeout"] = timeout
    return data


def _json_error(what: str, exc: json.JSONDecodeError) -> RecordError:
    """'Unterminated string starting at line 1, column 9' (json's own messages may end in
    'at' already: say it once)."""
    at = "" if exc.msg.endswith(" at") else " at"
    return RecordError(f"{what}: {exc.msg}{at} line {exc.lineno}, column {exc.colno}")


def _load_json(what: str, data: str | dict[str, Any]) -> Any:
    if not isinstance(data, str):
        return data
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise _json_error(what, exc) from None
    except RecursionError:
        raise RecordError(f"{what}: nested too deeply to be a record") from None


def game_from_json(data: str | dict[str, Any]) -> GameRecord:
    """Read the form written by game_to_json; RecordError names the field that is wrong.

    ``format`` and ``version``, when present, must be this program's (JSON_FORMAT, one of
    JSON_VERSIONS): a game written by a newer program is refused, not read as something else.
    """
    obj = _load_json("game JSON", data)
    if isinstance(obj, dict) and "format" in obj and obj["format"] != JSON_FORMAT:
        raise RecordError(f"game JSON: 'format' is {excerpt(obj['format'])}, "
                          f"expected {JSON_FORMAT!r}")
    if isinstance(obj, dict) and "version" in obj and (
            isinstance(obj["version"], bool) or obj["version"] not in JSON_VERSIONS):
        raise RecordError(f"game JSON: version {excerpt(obj['version'])} is not one this "
                          f"program reads ({', '.join(map(str, JSON_VERSIONS))}); "
                          "update dvonn-board")
    if not isinstance(obj, dict) or not isinstance(obj.get("moves"), list):
        raise RecordError("game JSON: expected an object with a 'moves' list")
    moves = []
    for i, token in enumerate(obj["moves"]):
        if not isinstance(token, str):
            raise RecordError(f"game JSON: moves[{i}] is {excerpt(token)}, not a string")
        try:
            moves.append(Move.parse(token))
        except InvalidMoveError:
            raise RecordError(f"game JSON: moves[{i}] {excerpt(token)} is not DVONN notation "
                              "(expected e.g. C3, C3D3 or PASS)") from None
    resigned = obj.get("resigned")
    if resigned not in (None, "w", "b"):
        raise RecordError(f"game JSON: 'resigned' is {excerpt(resigned)}, "
                          "expected 'w', 'b' or null")
    timeout = obj.get("timeout")
    if timeout not in (None, "w", "b"):
        raise RecordError(f"game JSON: 'timeout' is {excerpt(timeout)}, "
                          "expected 'w', 'b' or null")
    replay(moves)
    tags = {k.capitalize(): str(obj[k]) for k in ("white", "black") if obj.get(k)}
    journal = obj.get("journal")
    if isinstance(journal, dict) and isinstance(journal.get("started"), str):
        tags["Date"] = journal["started"]  # written by 'games export --format json'
    return GameRecord(moves=moves, tags=tags, resigned=resigned, format="json",
                      timeout=None if resigned is not None else timeout,
                      time=_json_time(obj.get("clock"), len(moves)))


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_time(clock: object, plies: int) -> GameTime | None:
    """The ``clock`` of a JSON game (game_to_json); RecordError names a bad field."""
    if clock is None:
        return None
    if not isinstance(clock, dict):
        raise RecordError(f"game JSON: 'clock' is {excerpt(clock)}, expected an object")
    limit, increment, left = clock.get("limit"), clock.get("increment", 0), clock.get("left", [])
    if limit is not None and not _number(limit):
        raise RecordError(f"game JSON: clock.limit is {excerpt(limit)}, not seconds")
    if not _number(increment):
        raise RecordError(f"game JSON: clock.increment is {excerpt(increment)}, not seconds")
    if not isinstance(left, list) or len(left) > plies or \
            not all(v is None or _number(v) for v in left):
        raise RecordError(f"game JSON: clock.left is {excerpt(left)}, expected a list of "
                          f"seconds (or null), at most one per action ({plies})")
    return GameTime(limit=None if limit is None else float(limit), increment=float(increment),
                    left=tuple(None if v is None else float(v) for v in left))


def position_from_json(data: str | dict[str, Any]) -> dict[int, str]:
    """Stacks by cell from position_to_json output (validated): {cell: 'wbr...'}."""
    obj = _load_json("position JSON", data)
    stacks = obj.get("stacks") if isinstance(obj, dict) else None
    if not isinstance(stacks, dict):
        raise RecordError("position JSON: expected an object with a 'stacks' object")
    out: dict[int, str] = {}
    for name, stack in stacks.items():
        try:
            cell = CELL_NAMES.index(str(name).upper())
        except ValueError:
            raise RecordError(f"position JSON: {excerpt(name)} is not a cell") from None
        if not isinstance(stack, str) or not stack or set(stack) - set("wbr"):
            raise RecordError(f"position JSON: stack at {name} is {excerpt(stack)}; "
                              "use 'w','b','r'")
        out[cell] = stack
    return out


def load_record_file(text: str, name: str = "") -> GameRecord:
    """A record in any supported form: JSON game, boardspace.net SGF, Little Golem record,
    or a move list. ``name`` (the file's name) helps an SGF record without a full date.

    A file with nothing in it (no action, no tag: empty, blank, comments only) is a
    RecordError, not the empty board.
    """
    stripped = text.removeprefix(BOM).lstrip()
    if stripped.startswith("{"):
        return game_from_json(stripped)
    if looks_like_sgf(stripped):
        return parse_boardspace(stripped, name)
    record = parse_record(text)
    if not record.moves and not record.tags and record.resigned is None:
        raise RecordError("empty record: no actions (expected a Little Golem record, a move "
                          "list, a boardspace.net SGF file or a JSON game)")
    return record


def decode_record(data: bytes | str) -> str:
    """The text of a record file: UTF-8 (a byte order mark is dropped later); an SGF file
    that is not UTF-8 is read as Latin-1 (boardspace.net saved games in its server's
    encoding). Binary data (control characters other than line breaks and tabs) is a
    RecordError naming the byte offset. Text (standard input) is only checked."""
    if isinstance(data, str):
        text = data
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("latin-1")
            if not looks_like_sgf(text):
                raise RecordError(f"not UTF-8 text (byte offset {exc.start})") from None
    bad = _CONTROL.search(text)
    if bad is not None:
        offset = len(text[:bad.start()].encode("utf-8"))
        raise RecordError(f"binary data, not a game record (byte {ord(bad.group()):#04x} at "
                          f"byte offset {offset})")
    return text
