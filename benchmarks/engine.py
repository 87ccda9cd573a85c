"""Engine speed: perft, random games, move generation, push/pop.

Prints plain ``name: value unit`` lines (recorded in benchmarks/RESULTS.md).
Run ``python benchmarks/engine.py`` (about 15 s) or ``--quick`` (a few seconds).
Targets: perft(4) < 10 s on the RULES.md position; >= 2,000 random games per minute.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import accel  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.move import Move  # noqa: E402
from engine.perft import perft  # noqa: E402
from engine.playout import random_game  # noqa: E402

RULES_PLACEMENT = (
    "G2 E3 A3 J3 H3 H2 D4 I4 K3 G3 C1 B2 C5 I1 J2 G4 D2 D1 G1 C4 E2 A1 I5 H1 B3 F1 D3 K5 E1 "
    "E5 F3 B1 J4 F2 J5 K4 F5 I3 I2 C3 D5 H4 G5 H5 F4 C2 E4 A2 B4"
).split()
RULES_PERFT = {1: 46, 2: 1968, 3: 94210, 4: 4318998}


def line(name: str, value: float, unit: str, fmt: str = ",.0f") -> None:
    print(f"{name}: {value:{fmt}} {unit}", flush=True)


def bench_perft(depth: int) -> None:
    game = Game.from_moves(RULES_PLACEMENT)
    start = time.perf_counter()
    leaves = perft(game, depth)
    seconds = time.perf_counter() - start
    if leaves != RULES_PERFT[depth]:
        raise SystemExit(f"perft({depth}) = {leaves}, expected {RULES_PERFT[depth]}")
    line(f"perft{depth}_time", seconds, "s", ".2f")
    line(f"perft{depth}_leaves_per_second", leaves / seconds, "leaves/s")


def bench_compiled_perft(depths: Sequence[int]) -> None:
    """perft in the optional compiled core (engine/_dvonncore.c), same counts as Python."""
    if accel.BUILT is None:
        print(f"compiled_perft: not built ({accel.WHY})", flush=True)
        return
    pos = accel.position(Game.from_moves(RULES_PLACEMENT))
    for depth in depths:
        start = time.perf_counter()
        leaves = accel.BUILT.perft(pos, depth)
        seconds = time.perf_counter() - start
        if depth in RULES_PERFT and leaves != RULES_PERFT[depth]:
            raise SystemExit(f"compiled perft({depth}) = {leaves}, expected {RULES_PERFT[depth]}")
        line(f"compiled_perft{depth}_leaves", leaves, "leaves")
        line(f"compiled_perft{depth}_time", seconds, "s", ".3f")
        line(f"compiled_perft{depth}_leaves_per_second", leaves / seconds, "leaves/s")


def bench_random_games(seconds: float) -> list[Game]:
    rng = random.Random(12345)
    games: list[Game] = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        games.append(random_game(rng))
    elapsed = time.perf_counter() - start
    n = len(games)
    plies = sum(g.ply for g in games)
    results = [g.winner() for g in games]
    line("random_games_per_minute", n * 60 / elapsed, "games/min")
    line("random_games_played", n, "games")
    line("plies_per_game", plies / n, "plies", ".1f")
    line("moving_phase_plies_per_game", plies / n - 49, "plies", ".1f")
    for key, name in (("w", "white"), ("b", "black"), ("tie", "tie")):
        line(f"{name}_share", 100 * results.count(key) / n, "%", ".1f")
    return games


def sample_positions(games: list[Game], count: int, rng: random.Random) -> list[Game]:
    """Moving-phase positions replayed from the sampled games at random plies."""
    out = []
    while len(out) < count:
        g = rng.choice(games)
        if g.ply <= 50:
            continue
        cut = rng.randrange(49, g.ply)
        out.append(Game.from_moves(g.move_stack[:cut]))
    return out


def bench_movegen(positions: list[Game], seconds: float) -> None:
    calls = 0
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for p in positions:
            moves += len(p.legal_moves())
        calls += len(positions)
    elapsed = time.perf_counter() - start
    line("legal_moves_calls_per_second", calls / elapsed, "calls/s")
    line("branching_factor_sampled", moves / calls, "moves", ".1f")


def bench_push_pop(positions: list[Game], seconds: float) -> None:
    work: list[tuple[Game, list[Move]]] = [(p, p.legal_moves()) for p in positions]
    work = [(p, ms) for p, ms in work if ms]
    pairs = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for p, ms in work:
            push, pop = p.push_unchecked, p.pop
            for m in ms:
                push(m)
                pop()
            pairs += len(ms)
    elapsed = time.perf_counter() - start
    line("push_pop_pairs_per_second", pairs / elapsed, "pairs/s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="shorter runs, perft(3)")
    args = parser.parse_args(argv)
    seconds = 1.0 if args.quick else 5.0
    bench_perft(3 if args.quick else 4)
    bench_compiled_perft((4,) if args.quick else (4, 5))
    games = bench_random_games(seconds)
    positions = sample_positions(games, 200, random.Random(7))
    bench_movegen(positions, seconds / 2)
    bench_push_pop(positions, seconds / 2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
