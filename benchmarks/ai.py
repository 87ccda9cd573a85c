"""The computer opponent: search speed, levels against greedy/random, other DVONN programs.

Prints plain ``name: value`` lines and match totals (recorded in benchmarks/RESULTS.md).

    python benchmarks/ai.py speed                 # nodes/s and depth in 1 s, RULES.md position,
                                                  # compiled core and pure Python
    python benchmarks/ai.py speed --backends compiled --threads 1,2
                                                  # the same on 1 and 2 search threads
    python benchmarks/ai.py threads --games 20 --threads 2 --game-time 5
                                                  # engine --threads 2 vs --threads 1, equal time
    python benchmarks/ai.py threads --cpu-clock ...   # the same in this process, each engine's
                                                  # clock its search thread's CPU time
    python benchmarks/ai.py strength --games 40   # ai at 0.2 s a move vs greedy and random
    python benchmarks/ai.py levels --games 10     # each level vs greedy and random
    DVONN_PRIMADVONNA=/path/to/player python benchmarks/ai.py primadvonna --games 10 \
        --odds 1,2,4,8                            # CodeCup conditions (5 s a game each)
    DVONN_PRIMADVONNA=... python benchmarks/ai.py depth --games 10 --depths 4,5
                                                  # both at the same fixed depth
    python benchmarks/ai.py program --cmd '/path/to/program --seed={seed}' --name NAME \
        --games 40 [--game-time 5] [--match-time 60]
                                                  # any program speaking the CodeCup protocol

PrimaDvonna (github maksverver/PrimaDvonna) is not part of this project: build it yourself
(``make player CFLAGS='-O2 -DZOBRIST -DNDEBUG' LDFLAGS=``) and name the binary. Nor is any
program for ``program``: build it outside the project. Its command line may hold ``{seed}``
(the game's seed) and ``{time}`` (--game-time); it gets ``Start`` when it plays White, else
White's first action, then one action a line each way, and ``Quit``. --match-time is the
thinking time a game the match allows each side (+2 s grace) before it counts as hung: raise
it for a program that thinks longer than --game-time. Our engine runs as ``dvonn-board
engine --game-time 5`` (times the --odds) in its own process, exactly as an arbiter runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli.ai import run_match, wilson  # noqa: E402
from controller.players.player import ExternalPlayer, PlayerError  # noqa: E402
from engine import accel  # noqa: E402
from engine.ai import LEVELS, Engine, dvonn_placement  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.perft import perft  # noqa: E402
from engine.search import Limits, Searcher  # noqa: E402

RULES_PLACEMENT = (
    "G2 E3 A3 J3 H3 H2 D4 I4 K3 G3 C1 B2 C5 I1 J2 G4 D2 D1 G1 C4 E2 A1 I5 H1 B3 F1 D3 K5 E1 "
    "E5 F3 B1 J4 F2 J5 K4 F5 I3 I2 C3 D5 H4 G5 H5 F4 C2 E4 A2 B4"
).split()


def bench_speed(seconds: float, backends: Sequence[str], threads: Sequence[int] = (1,),
                cpu_clock: bool = False) -> None:
    """Nodes/s and depth in ``seconds`` on the RULES.md position, for each backend (the
    compiled core and pure Python give the same nodes for the same search; only time differs)
    and each number of search threads (the compiled core's lazy SMP; nodes of all threads).
    ``cpu_clock``: the time budget is the searching thread's CPU time (as bench_threads)."""
    game = Game.from_moves(RULES_PLACEMENT)
    clock = time.thread_time if cpu_clock else time.monotonic
    for backend, n in ((b, n) for b in backends for n in threads):
        compiled = backend == "compiled"
        if compiled and accel.BUILT is None:
            print(f"[compiled] not built: {accel.WHY}", flush=True)
            continue
        if n > 1 and not compiled:
            continue  # the pure-Python engine searches on one thread
        name = backend if n == 1 else f"{backend}, {n} threads"
        searcher = Searcher(accelerated=compiled, threads=n, clock=clock)
        start = time.perf_counter()
        result = searcher.search(game, Limits(time=seconds))
        wall = time.perf_counter() - start
        cpu = f" ({result.elapsed:.3f} s CPU of the main thread)" if cpu_clock else ""
        print(f"[{name}] search {seconds:g} s on the RULES.md position: depth {result.depth}, "
              f"{result.nodes:,} nodes in {wall:.3f} s{cpu} = {result.nodes / wall:,.0f} nodes/s, "
              f"best {result.move} ({result.pieces:+.2f} pieces), pv "
              + " ".join(str(m) for m in result.pv), flush=True)
        for depth in (2, 3, 4, 5, 6, 7, 8, 9) if compiled else (2, 3, 4):
            s = Searcher(accelerated=compiled, threads=n)
            start = time.perf_counter()
            r = s.search(game, Limits(depth=depth))
            wall = time.perf_counter() - start
            main = f", main thread {s.nodes:,}" if n > 1 else ""
            print(f"[{name}] fixed depth {depth}: {r.nodes:,} nodes{main} in {wall:.3f} s "
                  f"({r.nodes / wall:,.0f} nodes/s), best {r.move} ({r.pieces:+.2f})",
                  flush=True)
        if n > 1:
            continue
        start = time.perf_counter()
        count = (accel.BUILT.perft(accel.position(game), 4) if compiled and accel.BUILT
                 else perft(game, 3))
        wall = time.perf_counter() - start
        depth = 4 if compiled else 3
        print(f"[{backend}] perft {depth}: {count:,} leaves in {wall:.3f} s "
              f"({count / wall:,.0f} leaves/s)", flush=True)


def bench_strength(games: int, move_time: float, seed: int) -> None:
    for opponent in ("greedy", "random"):
        print(f"# ai at {move_time:g} s a move vs {opponent}, {games} games", flush=True)
        run_match("ai", opponent, games=games, move_time=move_time, seed=seed, out=sys.stdout)


def bench_levels(games: int, seed: int, levels: Sequence[int]) -> None:
    for lv in LEVELS:
        if lv.number not in levels:
            continue
        for opponent in ("greedy", "random"):
            print(f"# level {lv.number} ({lv.name}, {lv.nodes or 'time'} nodes) vs {opponent}",
                  flush=True)
            start = time.perf_counter()
            run_match(f"ai:{lv.number}", opponent, games=games, seed=seed, move_time=1.0,
                      out=cast(TextIO, _Totals()))
            print(f"  ({time.perf_counter() - start:.0f} s)", flush=True)


class _Totals:
    """A text sink that passes only the total line through."""

    def write(self, text: str) -> int:
        if text.startswith("total:"):
            sys.stdout.write("  " + text)
            sys.stdout.flush()
        return len(text)

    def flush(self) -> None:
        sys.stdout.flush()


class _Named:
    """A text sink that shows the players' names instead of their command lines (the spec,
    and the name the match gives a ``cmd:`` player, any seed)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names: list[tuple[re.Pattern[str], str]] = []
        for spec, name in names.items():
            argv = shlex.split(spec[4:])
            shown = f"cmd:{Path(argv[0]).name} {' '.join(argv[1:])}".strip()
            seeded = re.escape(shown).replace(re.escape("{seed}"), r"\d+")
            self.names.append((re.compile(f"{re.escape(spec)}|{seeded}"), name))

    def write(self, text: str) -> int:
        for pattern, name in self.names:
            text = pattern.sub(name, text)
        sys.stdout.write(text)
        return len(text)

    def flush(self) -> None:
        sys.stdout.flush()


def bench_program(command: str, name: str, games: int, odds: Sequence[float], seed: int,
                  game_time: float, match_time: float | None = None) -> None:
    """Our engine at ``game_time`` x each factor of ``odds`` a game against a CodeCup
    program (``command``, with ``{seed}`` and ``{time}``), colours alternating."""
    engine = shlex.join([sys.executable, "-m", "controller.cli", "engine"])
    print(f"# our search: {accel.backend()} ({accel.WHY})", flush=True)
    theirs = "cmd:" + command.replace("{time}", f"{game_time:g}")
    for factor in odds:
        ours = game_time * factor
        limit = match_time or max(ours, game_time)
        print(f"# dvonn-board engine {ours:g} s/game vs {name} ({theirs[4:]}), {games} games, "
              f"match limit {limit:g} s/game each", flush=True)
        # Each side keeps its own time: ours by --game-time, the program by its arguments.
        a = f"cmd:{engine} --game-time {ours:g} --seed {{seed}} --quiet"
        start = time.perf_counter()
        try:
            run_match(a, theirs, games=games, game_time=limit, seed=seed,
                      out=cast(TextIO, _Named({a: "dvonn-board", theirs: name})))
        except PlayerError as exc:  # e.g. a program overrunning its time: say so, go on
            print(f"aborted: {exc}", flush=True)
        print(f"  ({time.perf_counter() - start:.0f} s)", flush=True)


def bench_threads(games: int, threads: int, game_time: float, seed: int,
                  cpu_clock: bool = False) -> None:
    """``dvonn-board engine --threads N`` against ``--threads 1`` at the same game time, each
    in its own process as an arbiter runs them, colours alternating, fresh seeds each game.
    The N-thread engine needs N free cores (play one game at a time on a small machine).
    ``cpu_clock``: both engines in this process, each timed by the CPU time of the thread that
    searches (``time.thread_time``): on a busy machine, where the helpers take the main
    thread's share of the cores, that is the wall time they would have on free cores."""
    if cpu_clock:
        _threads_on_cpu_clock(games, threads, game_time, seed)
        return
    engine = shlex.join([sys.executable, "-m", "controller.cli", "engine"])
    print(f"# our search: {accel.backend()} ({accel.WHY}); {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    many = f"cmd:{engine} --game-time {game_time:g} --threads {threads} --seed {{seed}} --quiet"
    one = f"cmd:{engine} --game-time {game_time:g} --threads 1 --seed {{seed}} --quiet"
    print(f"# engine --threads {threads} vs --threads 1, {game_time:g} s a game each, "
          f"{games} games", flush=True)
    start = time.perf_counter()
    run_match(many, one, games=games, game_time=game_time, seed=seed,
              out=cast(TextIO, _Named({many: f"threads-{threads}", one: "threads-1"})))
    print(f"  ({time.perf_counter() - start:.0f} s; load now {os.getloadavg()[0]:.2f})",
          flush=True)


def _threads_on_cpu_clock(games: int, threads: int, game_time: float, seed: int) -> None:
    print(f"# engine threads {threads} vs 1, {game_time:g} s a game each of the searching "
          f"thread's CPU time, {games} games; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    score = 0.0
    margin = 0
    start = time.perf_counter()
    for k in range(games):
        white = k % 2 == 0  # the engine on threads plays White in the odd games
        many = Engine(seed=seed + k, game_time=game_time, clock=time.thread_time,
                      threads=threads)
        one = Engine(seed=seed + k + 7919, game_time=game_time, clock=time.thread_time)
        game = Game()
        while not game.is_over():
            engine = many if (game.turn == "w") == white else one
            game.push(engine.choose(game))
        w, b = game.score()
        mine, theirs = (w, b) if white else (b, w)
        score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        margin += mine - theirs
        print(f"game {k + 1}: threads-{threads} ({'White' if white else 'Black'}) {mine} - "
              f"{theirs} threads-1; CPU s {many.time.used:.2f} / {one.time.used:.2f}",
              flush=True)
    low, high = wilson(score, games)
    print(f"total: threads-{threads} {score:g}/{games} = {100 * score / games:.1f} % (95 % CI "
          f"{100 * low:.1f}-{100 * high:.1f} %), mean margin {margin / games:+.1f} "
          f"({time.perf_counter() - start:.0f} s; load now {os.getloadavg()[0]:.2f})",
          flush=True)


def bench_primadvonna(binary: str, games: int, odds: Sequence[float], seed: int,
                      game_time: float) -> None:
    bench_program(f"{shlex.quote(binary)} --time={{time}} --seed={{seed}}", "PrimaDvonna",
                  games, odds, seed, game_time)


def bench_depth(binary: str, games: int, depths: Sequence[int], seed: int) -> None:
    """Our search and PrimaDvonna's at the same fixed depth in the moving phase (ours places
    at that depth too; PrimaDvonna's placing search is its own, about 1,000 evaluations): what
    the evaluation and the search are worth apart from speed. Our engine runs in this process
    (the compiled core unless DVONN_ENGINE=python), PrimaDvonna through the protocol."""
    print(f"# our search: {accel.backend()} ({accel.WHY})", flush=True)
    for depth in depths:
        score = 0.0
        margin = 0
        ours_time = theirs_time = 0.0
        for k in range(games):
            game_seed = seed + k
            white = k % 2 == 0
            searcher = Searcher(seed=game_seed)
            prima = ExternalPlayer([binary, f"--depth={depth}", f"--seed={game_seed + 7919}"],
                                   game_time=3600.0)
            try:
                prima.new_game("b" if white else "w")
                game = Game()
                while not game.is_over():
                    start = time.perf_counter()
                    if (game.turn == "w") == white:
                        move = dvonn_placement(game, game_seed) or searcher.search(
                            game, Limits(depth=depth)).move
                        assert move is not None
                        prima.observe(game, move)
                        ours_time += time.perf_counter() - start
                    else:
                        move = prima.choose(game)
                        theirs_time += time.perf_counter() - start
                    game.push(move)
            finally:
                prima.close()
            w, b = game.score()
            mine, theirs = (w, b) if white else (b, w)
            score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            margin += mine - theirs
            print(f"depth {depth} game {k + 1}: ours ({'White' if white else 'Black'}) "
                  f"{mine} - {theirs} PrimaDvonna", flush=True)
        low, high = wilson(score, games)
        print(f"total depth {depth}: {score:g}/{games} = {100 * score / games:.1f} % "
              f"(95 % CI {100 * low:.1f}-{100 * high:.1f} %), mean margin "
              f"{margin / games:+.1f}; thinking ours {ours_time:.1f} s, PrimaDvonna "
              f"{theirs_time:.1f} s", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("speed", "strength", "levels", "primadvonna", "depth",
                                         "program", "threads"))
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1.0, help="speed: search time")
    parser.add_argument("--backends", default="compiled,python",
                        help="speed: compiled and/or python (the others use the default: the "
                        "compiled core when built, unless DVONN_ENGINE=python)")
    parser.add_argument("--threads", default="1",
                        help="speed: thread counts (1,2); threads: the one against 1 (2)")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="threads, speed: timed by the searching thread's CPU time")
    parser.add_argument("--move-time", type=float, default=0.2, help="strength: s a move")
    parser.add_argument("--levels", default="1,2,3,4,5,6", help="levels: which")
    parser.add_argument("--odds", default="1", help="primadvonna, program: our time factors")
    parser.add_argument("--depths", default="4,5", help="depth: fixed search depths")
    parser.add_argument("--game-time", type=float, default=5.0,
                        help="primadvonna, program: seconds a game (CodeCup: 5)")
    parser.add_argument("--cmd", help="program: its command line ({seed}, {time})")
    parser.add_argument("--name", default="program", help="program: its name in the output")
    parser.add_argument("--match-time", type=float, default=None,
                        help="program: the match's limit on each side's seconds a game")
    args = parser.parse_args(argv)
    odds = [float(x) for x in args.odds.split(",")]
    if args.part == "speed":
        bench_speed(args.seconds, args.backends.split(","),
                    [int(x) for x in args.threads.split(",")], args.cpu_clock)
    elif args.part == "threads":
        bench_threads(args.games, max(2, int(args.threads.split(",")[-1])), args.game_time,
                      args.seed, args.cpu_clock)
    elif args.part == "strength":
        bench_strength(args.games, args.move_time, args.seed)
    elif args.part == "levels":
        bench_levels(args.games, args.seed, [int(x) for x in args.levels.split(",")])
    elif args.part == "program":
        if not args.cmd:
            print("program: name the program's command with --cmd '/path/to/program "
                  "--seed={seed}' (built outside this project)")
            return 0
        bench_program(args.cmd, args.name, args.games, odds, args.seed, args.game_time,
                      args.match_time)
    else:
        binary = os.environ.get("DVONN_PRIMADVONNA")
        if not binary:
            print("primadvonna: set DVONN_PRIMADVONNA to the path of its built player binary "
                  "(github maksverver/PrimaDvonna; not shipped with this project)")
            return 0
        if args.part == "depth":
            bench_depth(binary, args.games, [int(x) for x in args.depths.split(",")],
                        args.seed)
        else:
            bench_primadvonna(binary, args.games, odds, args.seed, args.game_time)
    return 0


if __name__ == "__main__":
    sys.exit(main())
