"""Game records: Little Golem records, plain move lists, and JSON positions and games.

Little Golem records leave out the 49th placement (forced: the one empty space) and may end in
``resign``; import inserts the forced placement, export leaves it out again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import IllegalMoveError, InvalidMoveError, RecordError
from engine.game import PLACEMENTS, Game
from engine.geometry import CELL_NAMES, NUM_CELLS, iter_cells
from engine.move import Move

_TAG = re.compile(r"([A-Za-z]+)\s*\[([^\]]*)\]")
_NUMBER = re.compile(r"^\d+\.+$")


@dataclass
class GameRecord:
    """A parsed record: the actions (forced placement included) and what else it said."""

    moves: list[Move]
    tags: dict[str, str] = field(default_factory=dict)
    #: 'w' or 'b' when that side resigned at the end.
    resigned: str | None = None

    @property
    def white(self) -> str:
        return self.tags.get("White", "")

    @property
    def black(self) -> str:
        return self.tags.get("Black", "")

    def game(self) -> Game:
        """Replay the actions; raises IllegalMoveError naming the ply."""
        return replay(self.moves)


def replay(moves: Sequence[Move]) -> Game:
    """Play ``moves`` from the empty board, raising IllegalMoveError that names the ply."""
    game = Game()
    for m in moves:
        game.push(m)
    return game


def parse_record(text: str) -> GameRecord:
    """Read a Little Golem record or a plain move list (numbers like ``12.`` are skipped).

    Raises RecordError naming the token and its position when something is not notation, and
    IllegalMoveError naming the ply when an action is not legal.
    """
    tags = {m.group(1): m.group(2).strip() for m in _TAG.finditer(text)}
    body = _TAG.sub(" ", text)
    tokens = body.replace(",", " ").replace(";", " ").split()
    moves: list[Move] = []
    resigned: str | None = None
    game = Game()
    for index, token in enumerate(tokens, start=1):
        if _NUMBER.match(token):
            continue
        if resigned is not None:
            raise RecordError(f"token {index} {token!r}: nothing may follow 'resign'")
        if token.lower() == "resign":
            if game.ply == PLACEMENTS - 1:
                _insert_forced_placement(game, moves)
            resigned = game.turn
            continue
        if token.lower() in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        try:
            move = Move.parse(token)
        except InvalidMoveError as exc:
            raise RecordError(f"token {index} {token!r} is not a DVONN action: {exc}") from None
        if game.ply == PLACEMENTS - 1 and not move.is_placement:
            _insert_forced_placement(game, moves)
        try:
            game.push(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"record token {index}: {exc}", move=exc.move, ply=exc.ply,
                                   side=exc.side) from None
        moves.append(move)
    return GameRecord(moves=moves, tags=tags, resigned=resigned)


def _insert_forced_placement(game: Game, moves: list[Move]) -> None:
    """Little Golem leaves out the forced last placement (the one empty cell): put it in."""
    forced = Move.place(next(iter_cells(~game.occupied & ((1 << NUM_CELLS) - 1))))
    game.push(forced)
    moves.append(forced)


def export_littlegolem(moves: Sequence[Move], *, white: str = "", black: str = "",
                       resigned: str | None = None, event: str = "") -> str:
    """A Little Golem record: tags, then numbered pairs of lower-case actions.

    The forced 49th placement is left out when an action or ``resign`` follows it;
    ``resigned`` (the side to act, 'w' or 'b') appends ``resign``.
    """
    # The forced 49th placement is left out when play goes on after it, as Little Golem does;
    # a record that ends right there keeps it, so that it reads back exactly.
    skip = PLACEMENTS - 1 if len(moves) > PLACEMENTS or resigned is not None else -1
    actions = [str(m).lower() for i, m in enumerate(moves) if i != skip]
    if resigned is not None:
        actions.append("resign")
    parts = [f"Event [{event}]", "Site [www.littlegolem.net]", f"White [{white}]",
             f"Black [{black}]"]
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
                 resigned: str | None = None) -> dict[str, Any]:
    """A whole game: players, actions, and the final position and score."""
    w, b = game.score()
    return {
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


def game_from_json(data: str | dict[str, Any]) -> GameRecord:
    """Read the form written by game_to_json; RecordError names the field that is wrong."""
    try:
        obj = json.loads(data) if isinstance(data, str) else data
    except json.JSONDecodeError as exc:
        raise RecordError(f"game JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") \
            from None
    if not isinstance(obj, dict) or not isinstance(obj.get("moves"), list):
        raise RecordError("game JSON: expected an object with a 'moves' list")
    moves = []
    for i, token in enumerate(obj["moves"]):
        if not isinstance(token, str):
            raise RecordError(f"game JSON: moves[{i}] is {token!r}, not a string")
        try:
            moves.append(Move.parse(token))
        except InvalidMoveError as exc:
            raise RecordError(f"game JSON: moves[{i}]: {exc}") from None
    resigned = obj.get("resigned")
    if resigned not in (None, "w", "b"):
        raise RecordError(f"game JSON: 'resigned' is {resigned!r}, expected 'w', 'b' or null")
    replay(moves)
    tags = {k.capitalize(): str(obj[k]) for k in ("white", "black") if obj.get(k)}
    return GameRecord(moves=moves, tags=tags, resigned=resigned)


def position_from_json(data: str | dict[str, Any]) -> dict[int, str]:
    """Stacks by cell from position_to_json output (validated): {cell: 'wbr...'}."""
    try:
        obj = json.loads(data) if isinstance(data, str) else data
    except json.JSONDecodeError as exc:
        raise RecordError(f"position JSON: {exc.msg} at line {exc.lineno}") from None
    stacks = obj.get("stacks") if isinstance(obj, dict) else None
    if not isinstance(stacks, dict):
        raise RecordError("position JSON: expected an object with a 'stacks' object")
    out: dict[int, str] = {}
    for name, stack in stacks.items():
        try:
            cell = CELL_NAMES.index(str(name).upper())
        except ValueError:
            raise RecordError(f"position JSON: {name!r} is not a cell") from None
        if not isinstance(stack, str) or not stack or set(stack) - set("wbr"):
            raise RecordError(f"position JSON: stack at {name} is {stack!r}; use 'w','b','r'")
        out[cell] = stack
    return out


def load_record_file(text: str) -> GameRecord:
    """A record in any supported form: JSON game, Little Golem record, or a move list."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return game_from_json(stripped)
    return parse_record(text)
