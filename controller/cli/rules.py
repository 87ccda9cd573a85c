"""Engine tools: ``moves``, ``perft`` and ``replay`` (their output formats are contracts)."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

from controller.cli.numbers import seconds
from controller.cli.recordfile import load_record_path
from controller.i18n import Msg, _
from engine.diagram import diagram
from engine.errors import InvalidMoveError
from engine.game import Game
from engine.move import Move
from engine.perft import estimate_tree, perft

SIDE_NAMES = {"w": "White", "b": "Black"}
#: perft refuses a depth estimated to take longer than this (seconds) unless told otherwise.
DEFAULT_MAX_TIME = 600.0
#: Depths below this always finish in moments (at most 49 x 48 x 47 leaves): not estimated.
ESTIMATE_FROM_DEPTH = 4
#: Seconds before perft starts reporting progress on stderr, and between lines (not a tty).
PROGRESS_AFTER, PROGRESS_EVERY = 2.0, 30.0


def register(sub: Any) -> None:
    p = sub.add_parser("moves", help=_("list the legal actions after some actions"))
    p.add_argument("--each-ply", action="store_true",
                   help=_("print the line before every action and after the last"))
    p.add_argument("actions", nargs="*", metavar="MOVE")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("perft", help=_("count the leaves of the game tree to a depth"))
    p.add_argument("depth", type=int)
    p.add_argument("actions", nargs="*", metavar="MOVE")
    p.add_argument("--divide", action="store_true", help=_("one count per first action"))
    p.add_argument("--max-time", type=seconds(), default=DEFAULT_MAX_TIME, metavar="SECONDS",
                   help=_("refuse a depth estimated to take longer (default {default}; "
                          "0 = no limit)").format(default=f"{DEFAULT_MAX_TIME:g}"))
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("replay", help=_("replay a game record and show the final position"))
    p.add_argument("file", help=_("Little Golem record, move list, boardspace.net SGF or JSON "
                     "game; '-' for stdin"))
    p.set_defaults(func=cmd_replay)


def parse_actions(tokens: Sequence[str]) -> list[Move]:
    """Parse notation tokens, naming the ply of a bad one."""
    out = []
    for ply, token in enumerate(tokens, start=1):
        try:
            out.append(Move.parse(token))
        except InvalidMoveError as exc:
            raise InvalidMoveError(Msg("ply {ply}: {exc}", ply=ply, exc=exc)) from None
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
        raise InvalidMoveError(Msg("perft depth must be 0 or more, got {depth}", depth=args.depth))
    game = play_actions(parse_actions(args.actions))
    if args.depth >= ESTIMATE_FROM_DEPTH and args.max_time > 0:
        check_perft_time(game, args.depth, args.max_time)
    counts = divide_with_progress(game, args.depth, sys.stderr)
    if args.divide:
        for name in sorted(counts):
            print(f"{name} {counts[name]}")
    print(sum(counts.values()) if counts else 1)
    return 0


def _duration(seconds: float) -> str:
    """'40 s', '12 min', '3.5 h', '2 days', '1e+12 years'."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= 2 * size:
            n = seconds / size
            count = f"{n:.3g}" if n < 1e6 else f"{n:.1e}"
            if unit == "years":  # a Msg: in the player's language where it is shown
                return Msg("{n} years", n=count)
            return Msg("{n} days", n=count) if unit == "days" else f"{count} {unit}"
    return f"{seconds:.0f} s"


def check_perft_time(game: Game, depth: int, limit: float) -> None:
    """Refuse (InvalidMoveError) a perft estimated to run longer than ``limit`` seconds.

    The tree is sized by random probes (engine.perft.estimate_tree) and the speed measured
    on a small perft of the same position, so the refusal comes in about a second.
    """
    levels = estimate_tree(game, depth)
    interior = [0.0]
    for count in levels[:-1]:
        interior.append(interior[-1] + count)  # interior[k]: nodes a perft(k) expands
    small = max((k for k in range(1, len(interior)) if interior[k] <= 3000), default=1)
    start = time.perf_counter()
    perft(game, small)
    rate = max(interior[small], 1.0) / max(time.perf_counter() - start, 1e-6)

    def seconds(k: int) -> float:
        return interior[min(k, len(interior) - 1)] / rate

    if seconds(depth) <= limit:
        return
    deepest = max((k for k in range(len(interior)) if seconds(k) <= limit), default=0)
    raise InvalidMoveError(
        Msg("perft depth {depth} would visit about {value:.1e} positions, about {value2} here; "
            "the deepest that finishes within --max-time {limit:g} s is about {deepest} "
            "(--max-time 0 runs it anyway, Ctrl-C stops it)",
            depth=depth, value=levels[-1], value2=_duration(seconds(depth)), limit=limit,
            deepest=deepest))


class _Progress:
    """Says on ``err`` how far a long perft is: after PROGRESS_AFTER s, then every second on
    a terminal (one line rewritten) or every PROGRESS_EVERY s elsewhere. A daemon thread, so
    the count itself stays pure and Ctrl-C still stops it at once."""

    def __init__(self, err: TextIO, depth: int, total: int) -> None:
        self.err, self.depth, self.total = err, depth, total
        self.done = 0
        self.tty = bool(getattr(err, "isatty", lambda: False)())
        self.shown = False
        self._stop = threading.Event()
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="perft-progress", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self._stop.wait(PROGRESS_AFTER):
            return
        while True:
            elapsed = time.monotonic() - self._start
            done = self.done
            left = f", about {_duration(elapsed / done * (self.total - done))} left" \
                if done else ""
            line = (f"perft {self.depth}: {done} of {self.total} first actions counted, "
                    f"{_duration(elapsed)}{left} (Ctrl-C stops)")
            self.err.write(f"\r{line}\x1b[K" if self.tty else line + "\n")
            self.err.flush()
            self.shown = True
            if self._stop.wait(1.0 if self.tty else PROGRESS_EVERY):
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        if self.shown and self.tty:
            self.err.write("\r\x1b[K")
            self.err.flush()


def divide_with_progress(game: Game, depth: int, err: TextIO) -> dict[str, int]:
    """perft split by first action, saying on ``err`` how far it is when it takes long.

    An empty dict means the game is over (perft is 1) or depth 0.
    """
    if depth == 0:
        return {}
    moves = game.legal_moves()
    if depth == 1:
        return {str(m): 1 for m in moves}
    progress = _Progress(err, depth, len(moves))
    out: dict[str, int] = {}
    try:
        for m in moves:
            game.push_unchecked(m)
            try:
                out[str(m)] = perft(game, depth - 1)
            finally:
                game.pop()
            progress.done += 1
    finally:
        progress.stop()
    return out


def result_line(game: Game, resigned: str | None, timeout: str | None = None) -> str:
    w, b = game.score()
    if resigned is not None:
        loser, winner = SIDE_NAMES[resigned], SIDE_NAMES["b" if resigned == "w" else "w"]
        return f"Result: {loser} resigned, {winner} wins (pieces on the board {w}-{b})"
    if timeout is not None:  # the side whose flag fell (a record's RE[B+T])
        loser, winner = SIDE_NAMES[timeout], SIDE_NAMES["b" if timeout == "w" else "w"]
        return f"Result: {loser}'s time ran out, {winner} wins on time (pieces on the board " \
               f"{w}-{b})"
    outcome = game.winner()
    if outcome is None:
        side = SIDE_NAMES[game.turn]
        phase = "placing" if game.placing else "moving"
        return f"Result: not finished ({phase}, {side} to act, ply {game.ply + 1})"
    if outcome == "tie":
        return f"Result: tie {w}-{b}"
    return f"Result: {SIDE_NAMES[outcome]} wins {max(w, b)}-{min(w, b)}"


def cmd_replay(args: argparse.Namespace) -> int:
    record, game = load_record_path(args.file)
    if record.white or record.black:
        print(f"White: {record.white or '?'}  Black: {record.black or '?'}")
    if record.date:
        print(f"Date: {record.date}")
    print(diagram(game))
    w, b = game.score()
    print(f"Actions: {game.ply}")
    print(f"Score: white={w} black={b}")
    print(result_line(game, record.resigned, record.timeout))
    if record.resigned is None and record.timeout is None and game.is_over():
        print(moves_line(game))  # 'over white=N black=M': the line a finished game ends with
    return 0
