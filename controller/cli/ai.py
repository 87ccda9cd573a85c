"""``dvonn-board engine`` (the built-in engine over the CodeCup protocol) and
``dvonn-board match`` (two players, alternating colours, with a confidence interval).

engine: if the first line is ``Start`` it plays White and writes its first action, otherwise
that line is White's first action and it plays Black; then one action per line each way
(``C3``, ``C3D3``, ``PASS``: it sends its own passes and all 49 placements). ``Quit`` ends it;
it exits by itself when the game is over. Diagnostics go to stderr only. ``--game-time`` is
the budget for all its thinking in the game (start-up included); it is never exceeded.
``--threads N`` searches on N threads at full strength (lazy SMP in the compiled core); the
default, one, keeps a CodeCup match fair and the engine's games reproducible by node count.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from controller.cli.numbers import seconds, whole
from controller.i18n import Msg, _
from engine import accel
from engine.ai import MAX_LEVEL, Engine
from engine.errors import DvonnError, InvalidMoveError
from engine.game import Game
from engine.move import Move
from engine.search import MAX_THREADS, score_pieces


def register(sub: Any) -> None:
    """Add engine and match."""
    p = sub.add_parser(
        "engine", help=_("the built-in engine over the CodeCup protocol (stdin/out)"))
    p.add_argument("--game-time", type=seconds(above=True), default=None,
                   help=_("seconds of thinking for the whole game (CodeCup: 5)"))
    p.add_argument("--move-time", type=seconds(above=True), default=None,
                   help=_("at most this many seconds a move"))
    p.add_argument("--level", type=int, default=MAX_LEVEL,
                   help=_("1 (beginner) .. {max} (full strength, the default)").format(
                       max=MAX_LEVEL))
    p.add_argument("--seed", type=int, default=0, help=_("seed (same seed, same game)"))
    p.add_argument("--threads", type=whole(1, MAX_THREADS), default=1,
                   help=_("search threads at full strength (default 1; levels 1-6 use one)"))
    p.add_argument("--quiet", action="store_true", help=_("no diagnostics on stderr"))
    p.set_defaults(func=cmd_engine)

    p = sub.add_parser("match", help=_("play two players against each other"))
    p.add_argument("a", metavar="A", help=_("ai[:LEVEL], greedy, random or 'cmd:PROGRAM ARGS'"))
    p.add_argument("b", metavar="B", help=_("the other player, same forms"))
    p.add_argument("--games", type=int, default=2, help=_("games (colours alternate; default 2)"))
    p.add_argument("--game-time", type=seconds(above=True), default=None,
                   help=_("each player's thinking seconds per game"))
    p.add_argument("--move-time", type=seconds(above=True), default=None,
                   help=_("the built-in engine's seconds per move"))
    p.add_argument("--seed", type=int, default=0, help=_("seed of the first game"))
    p.add_argument("--save", metavar="DIR", help=_("write each game as a Little Golem record"))
    p.set_defaults(func=cmd_match)


# ----------------------------------------------------------------------- engine
def cmd_engine(args: argparse.Namespace) -> int:
    if not 1 <= args.level <= MAX_LEVEL:
        raise DvonnError(Msg("--level {level}: use 1 (beginner) .. {MAX_LEVEL}",
                             level=args.level, MAX_LEVEL=MAX_LEVEL))
    return run_engine(sys.stdin, sys.stdout, sys.stderr, level=args.level, seed=args.seed,
                      game_time=args.game_time, move_time=args.move_time, quiet=args.quiet,
                      threads=args.threads)


def run_engine(inp: TextIO, out: TextIO, err: TextIO, *, level: int = MAX_LEVEL, seed: int = 0,
               game_time: float | None = None, move_time: float | None = None,
               quiet: bool = False, startup: float | None = None, threads: int = 1) -> int:
    """The CodeCup protocol loop; returns the exit code (0 after a finished game or Quit)."""
    engine = Engine(level, seed=seed, game_time=game_time, move_time=move_time, threads=threads)
    # The interpreter's start-up counts against the game budget too.
    engine.time.used = time.process_time() if startup is None else startup
    game = Game()

    def say(text: str) -> None:
        if not quiet:
            print(text, file=err, flush=True)

    def read() -> str | None:
        while True:
            line = inp.readline()
            if not line:
                return None
            if line.strip():
                return line.strip()

    first = read()
    if first is None:
        say("engine: no input (expected Start or White's first action)")
        return 1
    if first == "Quit":
        return 0
    if first == "Start":
        me = "w"
    else:
        me = "b"
        if not _apply(game, first, say):
            return 2
    say(f"engine: level {level}, playing {'White' if me == 'w' else 'Black'}, "
        f"search {accel.backend()}" + (f", {threads} threads" if threads > 1 else ""))
    while not game.is_over():
        if game.turn == me:
            move = engine.choose(game)
            game.push_unchecked(move)
            out.write(f"{move}\n")
            out.flush()
            say(_diagnostic(engine, game, move))
        else:
            line = read()
            if line is None:
                say("engine: input ended before the game did")
                return 1
            if line == "Quit":
                say("engine: Quit")
                return 0
            if not _apply(game, line, say):
                return 2
    w, b = game.score()
    say(f"engine: game over, white {w} black {b}; thought {engine.time.used:.2f} s")
    return 0


def _apply(game: Game, text: str, say: Any) -> bool:
    try:
        game.push(Move.parse(text))
    except (InvalidMoveError, DvonnError) as exc:
        say(f"engine: {exc}")
        return False
    return True


def _diagnostic(engine: Engine, game: Game, move: Move) -> str:
    r = engine.last
    used = f"used {engine.time.used:.2f}"
    if engine.time.game_time is not None:
        used += f"/{engine.time.game_time:g} s"
    if r is None:
        return f"ply {game.ply}: {move} (DVONN placement) {used}"
    return (f"ply {game.ply}: {move} score {score_pieces(r.score):+.2f} depth {r.depth} "
            f"nodes {r.nodes} in {r.elapsed:.3f} s, {used}")


# ----------------------------------------------------------------------- match
def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson interval of a success rate ``score / n`` (a tie counts half)."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def cmd_match(args: argparse.Namespace) -> int:
    from controller.players.player import check_spec

    if args.games < 1:
        raise DvonnError(Msg("--games {games}: play at least 1 game", games=args.games))
    check_spec(args.a)
    check_spec(args.b)
    save = Path(args.save) if args.save else None
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    summary = run_match(args.a, args.b, games=args.games, game_time=args.game_time,
                        move_time=args.move_time, seed=args.seed, save=save, out=sys.stdout)
    return 0 if summary.games == args.games else 1


class MatchSummary:
    """A's results over the games played."""

    def __init__(self) -> None:
        self.games = 0
        self.wins = 0
        self.ties = 0
        self.losses = 0
        self.margin = 0

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.ties


def run_match(a: str, b: str, *, games: int, game_time: float | None = None,
              move_time: float | None = None, seed: int = 0, save: Path | None = None,
              out: TextIO = sys.stdout) -> MatchSummary:
    """Play ``games`` games, A White in the odd ones; prints one line a game and the total."""
    from controller.players.player import make_player, play_game
    from engine.records import export_littlegolem

    summary = MatchSummary()
    for i in range(games):
        game_seed = seed + i
        pa = make_player(a, seed=game_seed, game_time=game_time, move_time=move_time)
        pb = make_player(b, seed=game_seed + 7919, game_time=game_time, move_time=move_time)
        a_white = i % 2 == 0
        white, black = (pa, pb) if a_white else (pb, pa)
        try:
            result = play_game(white, black)
        finally:
            pa.close()
            pb.close()
        w, bl = result.score
        a_side = "w" if a_white else "b"
        margin = (w - bl) if a_white else (bl - w)
        summary.games += 1
        summary.margin += margin
        if result.winner == "tie":
            summary.ties += 1
            verdict = "tie"
        elif result.winner == a_side:
            summary.wins += 1
            verdict = f"{a} wins"
        else:
            summary.losses += 1
            verdict = f"{b} wins"
        print(f"game {i + 1}: {result.white} (White) {w} - {bl} {result.black} (Black): "
              f"{verdict} ({len(result.moves)} actions)", file=out, flush=True)
        if save is not None:
            record = export_littlegolem(result.moves, white=result.white, black=result.black,
                                        event=f"dvonn-board match game {i + 1}")
            (save / f"game-{i + 1:03d}.txt").write_text(record + "\n", encoding="utf-8")
    lo, hi = wilson(summary.score, summary.games)
    n = summary.games
    print(f"total: {a} {summary.wins} wins, {summary.ties} ties, {summary.losses} losses vs {b} "
          f"in {n} games: {summary.score:g}/{n} = {100 * summary.score / n:.1f} % "
          f"(95 % CI {100 * lo:.1f}-{100 * hi:.1f} %), mean margin {summary.margin / n:+.1f}",
          file=out, flush=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.cli.ai engine ...``: the same commands without loading the rest
    of the command line (a quicker start when an arbiter counts start-up time)."""
    parser = argparse.ArgumentParser(prog="dvonn-board")
    register(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except DvonnError as exc:
        print(f"dvonn-board {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
