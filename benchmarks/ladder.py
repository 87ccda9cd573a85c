"""The level ladder: each level against the next, turned into a rating per level.

    python benchmarks/ladder.py --games 100                # pairs 1-2 .. 5-6 and 6-7, and level 1
                                                         # against random and greedy
    python benchmarks/ladder.py --pairs 6-7 --games 40 --move-time 1
    python benchmarks/ladder.py --pairs 1-2,2-3 --jobs 2  # games in 2 processes

Levels 1-6 are node budgets (engine/ai.py LEVELS): their games are the same on any machine and
under any load. Level 7 is a time budget: it gets ``--move-time`` seconds a move (no game
budget), so its games depend on the machine and its load; the node levels never get a time
limit here. Game k of a pair has seed ``--seed + 1000 * H + k`` (H: the higher level's
number; 8 and 9 for level 1 against random and greedy; the higher side's seed ``+ 7919``), and
the lower side plays White in the even games (0, 2, ...): colours alternate, and every pair
has its own seeds.

A pair's score is the higher side's (a tie counts half), with a 95 % Wilson interval; the Elo
step is ``400 log10(s / (1 - s))``, its interval the Wilson bounds turned into Elo. A level's
rating is level 1's (0) plus the steps below it; its interval adds the steps' variances (the
delta method: sd = 400 / ln 10 / sqrt(n s (1 - s))). A pair won every game has no Elo
estimate: its step is the interval's lower end (the 95 % bound), the ratings above it are
lower bounds (``≥``), and their intervals count only the other steps. ``--from FILE ...``
prints the tables again from the JSON lines ``--out`` wrote (several runs' games add up).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.cli.ai import wilson  # noqa: E402
from controller.players.player import make_player, play_game  # noqa: E402
from engine import accel  # noqa: E402
from engine.ai import LEVELS, MAX_LEVEL  # noqa: E402

Pair = tuple[str, str]
#: One game: the pair, game number, seed, colours, score, margin, actions, seconds.
Result = dict[str, Any]


def spec(name: str, move_time: float) -> tuple[str, float | None]:
    """The player spec and its move time (only the time level gets one)."""
    if name in ("random", "greedy"):
        return name, None
    number = int(name)
    return f"ai:{number}", (move_time if LEVELS[number - 1].nodes is None else None)


def pair_number(low: str, high: str) -> int:
    """A pair's own block of seeds: the higher level's number; level N against random or
    greedy 10 N - 2 and 10 N - 1 (8 and 9 for level 1)."""
    baselines = {"random": 2, "greedy": 1}
    if low in baselines and high.isdigit():
        return 10 * int(high) - baselines[low]
    return int(high) if high.isdigit() else 99


def play_one(low: str, high: str, k: int, seed: int, move_time: float) -> Result:
    """Game ``k`` of ``low`` against ``high``; the result from ``high``'s side."""
    low_spec, low_time = spec(low, move_time)
    high_spec, high_time = spec(high, move_time)
    pl = make_player(low_spec, seed=seed, move_time=low_time)
    ph = make_player(high_spec, seed=seed + 7919, move_time=high_time)
    low_white = k % 2 == 0
    start = time.perf_counter()
    try:
        result = play_game(pl, ph) if low_white else play_game(ph, pl)
    finally:
        pl.close()
        ph.close()
    w, b = result.score
    high_side = "b" if low_white else "w"
    score = 0.5 if result.winner == "tie" else 1.0 if result.winner == high_side else 0.0
    return {"low": low, "high": high, "game": k, "seed": seed, "high_white": not low_white,
            "white": w, "black": b, "score": score,
            "margin": (b - w) if low_white else (w - b),
            "moves": " ".join(str(m) for m in result.moves),
            "seconds": round(time.perf_counter() - start, 2)}


def elo(score: float) -> float:
    return 400 * math.log10(score / (1 - score))


def step_of(score: float, n: int) -> tuple[float, float, float, float, bool]:
    """Elo step, its 95 % interval (Wilson bounds in Elo), variance, and whether it is only a
    bound (a score of 0 or n: the step is then the interval's inner end, variance 0)."""
    lo, hi = wilson(score, n)
    edge = 1 / (2 * n)
    lo_elo, hi_elo = elo(max(lo, edge)), elo(min(hi, 1 - edge))
    if score in (0, n):
        return (lo_elo if score else hi_elo), lo_elo, hi_elo, 0.0, True
    s = score / n
    return elo(s), lo_elo, hi_elo, (400 / math.log(10)) ** 2 / (n * s * (1 - s)), False


def summarise(results: Sequence[Result]) -> None:
    """Per pair: the higher side's score, interval, Elo step; then the ladder of ratings."""
    pairs: dict[Pair, list[Result]] = {}
    for r in results:
        pairs.setdefault((str(r["low"]), str(r["high"])), []).append(r)
    steps: dict[int, tuple[float, float, bool]] = {}  # level -> (step from below, var, bound)
    print("\n| pair (higher side first) | games | wins-ties-losses | score (95 % CI) "
          "| Elo step (95 % CI) | mean margin | distinct games |")
    print("|---|---|---|---|---|---|---|")
    for (low, high), rs in sorted(pairs.items(), key=lambda kv: _order(kv[0])):
        n = len(rs)
        score = sum(float(r["score"]) for r in rs)
        wins = sum(1 for r in rs if r["score"] == 1.0)
        ties = sum(1 for r in rs if r["score"] == 0.5)
        lo, hi = wilson(score, n)
        step, lo_elo, hi_elo, var, bound = step_of(score, n)
        margin = sum(int(r["margin"]) for r in rs) / n
        distinct = len({r["moves"] for r in rs})
        shown = (f"{'≥' if score else '≤'} {step:+.0f} (95 % bound)" if bound
                 else f"{step:+.0f} ({lo_elo:+.0f} to {hi_elo:+.0f})")
        print(f"| {_name(high)} vs {_name(low)} | {n} | {wins}-{ties}-{n - wins - ties} | "
              f"{100 * score / n:.1f} % ({100 * lo:.1f}-{100 * hi:.1f} %) | {shown} | "
              f"{margin:+.1f} | {distinct} |")
        if low.isdigit() and high.isdigit() and int(high) == int(low) + 1:
            steps[int(high)] = (step, var, bound and score > 0)
    if not steps:
        return
    print("\n| level | budget | rating (Elo, level 1 = 0; 95 % CI) |")
    print("|---|---|---|")
    rating, var, at_least = 0.0, 0.0, False
    for lv in LEVELS:
        if lv.number > 1:
            if lv.number not in steps:
                break
            step, step_var, bound = steps[lv.number]
            rating += step
            var += step_var
            at_least = at_least or bound
        half = 1.96 * math.sqrt(var)
        budget = (f"{lv.nodes:,} nodes" if lv.nodes is not None else "time") + (
            f", noise ±{lv.noise / 100:g}" if lv.noise else "")
        interval = f" ({rating - half:+.0f} to {rating + half:+.0f})" if var else ""
        print(f"| {lv.number} {lv.name} | {budget} | {'≥ ' if at_least else ''}"
              f"{rating:+.0f}{interval} |")


def _name(player: str) -> str:
    return f"level {player}" if player.isdigit() else player


def _order(pair: Pair) -> tuple[int, int]:
    low, high = pair
    return (int(high) if high.isdigit() else 0, 0 if low.isdigit() else 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games a pair")
    parser.add_argument("--seed", type=int, default=1)
    default_pairs = ",".join(f"{n}-{n + 1}" for n in range(1, MAX_LEVEL)) + \
        ",random-1,greedy-1"
    parser.add_argument("--pairs", default=default_pairs,
                        help="LOW-HIGH pairs: levels 1-7, random, greedy")
    parser.add_argument("--move-time", type=float, default=1.0,
                        help="level 7's seconds a move (default 1, its default)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing games (level 7: keep 1, it plays on time)")
    parser.add_argument("--out", help="append each game as a JSON line to this file")
    parser.add_argument("--from", dest="inputs", nargs="+", metavar="FILE",
                        help="only print the tables from these --out files")
    args = parser.parse_args(argv)
    if args.inputs:
        rows = [json.loads(line) for name in args.inputs
                for line in Path(name).read_text(encoding="utf-8").splitlines() if line.strip()]
        summarise(rows)
        return 0
    print(f"# search: {accel.backend()}; level 7: {args.move_time:g} s a move; "
          f"{args.games} games a pair, seed {args.seed}", flush=True)
    pairs: list[Pair] = []
    for item in args.pairs.split(","):
        low, high = item.split("-")
        for p in (low, high):
            spec(p, args.move_time)  # validates
        pairs.append((low, high))
    tasks = [(low, high, k, args.seed + 1000 * pair_number(low, high) + k, args.move_time)
             for low, high in pairs for k in range(args.games)]
    out = open(args.out, "a", encoding="utf-8") if args.out else None
    results: list[Result] = []
    start = time.perf_counter()
    try:
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for r in pool.map(play_one, *zip(*tasks, strict=True)):
                results.append(r)
                if out is not None:
                    out.write(json.dumps(r) + "\n")
                    out.flush()
                print(f"{_name(str(r['high']))} vs {_name(str(r['low']))} game "
                      f"{int(r['game']) + 1} ({'White' if r['high_white'] else 'Black'}): "
                      f"{r['score']} ({r['white']}-{r['black']}, {r['seconds']} s)", flush=True)
    finally:
        if out is not None:
            out.close()
    print(f"# {time.perf_counter() - start:.0f} s", flush=True)
    summarise(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
