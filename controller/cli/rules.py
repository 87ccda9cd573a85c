"""Engine tools: ``moves``, ``perft`` and ``replay`` (their output formats are contracts)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.diagram import diagram
from engine.errors import IllegalMoveError, InvalidMoveError, RecordError
from engine.game import Game
from engine.move import Move
from engine.perft import divide, perft
from engine.records import load_record_file

SIDE_NAMES = {"w": "White", "b": "Black"}


def register(sub: Any) -> None:
    p = sub.add_parser("moves", help="list the legal actions after some actions")
    p.add_argument("--each-ply", action="store_true",
                   help="print the line before every action and after the last")
    p.add_argument("actions", nargs="*", metavar="MOVE")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("perft", help="count the leaves of the game tree to a depth")
    p.add_argument("depth", type=int)
    p.add_argument("actions", nargs="*", metavar="MOVE")
    p.add_argument("--divide", action="store_true", help="one count per first action")
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("replay", help="replay a game record and show the final position")
    p.add_argument("file", help="Little Golem record, move list or JSON game; '-' for stdin")
    p.set_defaults(func=cmd_replay)


def parse_actions(tokens: Sequence[str]) -> list[Move]:
    """Parse notation tokens, naming the ply of a bad one."""
    out = []
    for ply, token in enumerate(tokens, start=1):
        try:
            out.append(Move.parse(token))
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"ply {ply}: {exc}") from None
    return out


def moves_line(game: Game) -> str:
    """``W 46 C1B1 C1D1 ...`` or ``over white=N black=M``."""
    moves = game.legal_moves()
    if not moves:
        w, b = game.score()
        return f"over white={w} black={b}"
    names = sorted(str(m) for m in moves)
    return f"{game.turn.upper()} {len(names)} {' '.join(names)}"


def play_actions(moves: Sequence[Move], each_ply: bool = False) -> Game:
    game = Game()
    for m in moves:
        if each_ply:
            print(moves_line(game))
        game.push(m)
    return game


def cmd_moves(args: argparse.Namespace) -> int:
    game = play_actions(parse_actions(args.actions), each_ply=args.each_ply)
    print(moves_line(game))
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise InvalidMoveError(f"perft depth must be 0 or more, got {args.depth}")
    game = play_actions(parse_actions(args.actions))
    if args.divide:
        counts = divide(game, args.depth)
        for name in sorted(counts):
            print(f"{name} {counts[name]}")
        print(sum(counts.values()) if counts else 1)
    else:
        print(perft(game, args.depth))
    return 0


def read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path!r} is not UTF-8 text (byte offset {exc.start})") from None


def result_line(game: Game, resigned: str | None) -> str:
    w, b = game.score()
    if resigned is not None:
        loser, winner = SIDE_NAMES[resigned], SIDE_NAMES["b" if resigned == "w" else "w"]
        return f"Result: {loser} resigned, {winner} wins (pieces on the board {w}-{b})"
    outcome = game.winner()
    if outcome is None:
        side = SIDE_NAMES[game.turn]
        phase = "placing" if game.placing else "moving"
        return f"Result: not finished ({phase}, {side} to act, ply {game.ply + 1})"
    if outcome == "tie":
        return f"Result: tie {w}-{b}"
    return f"Result: {SIDE_NAMES[outcome]} wins {max(w, b)}-{min(w, b)}"


def cmd_replay(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    name = "standard input" if args.file == "-" else args.file
    try:
        record = load_record_file(text)
    except IllegalMoveError as exc:
        raise IllegalMoveError(f"{name}: {exc}", move=exc.move, ply=exc.ply,
                               side=exc.side) from None
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}") from None
    game = record.game()
    if record.white or record.black:
        print(f"White: {record.white or '?'}  Black: {record.black or '?'}")
    print(diagram(game))
    w, b = game.score()
    print(f"Actions: {game.ply}")
    print(f"Score: white={w} black={b}")
    print(result_line(game, record.resigned))
    return 0
