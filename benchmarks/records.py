"""Record parsing time against input size: every shape of input must read in linear time.

For each shape (a long single word, dense tags, unclosed brackets, blank lines and comments,
a real game followed by junk, JSON with a huge string) and each size from 1 KB to 10 MB,
times ``engine.records.load_record_file`` (an error is a result too: what matters is that it
comes quickly and short). Each time is the best of three runs (the machine may be shared).
Prints ``shape size: seconds, ns/byte`` lines, then per shape the growth of the time per
byte over the last tenfold size step (about 1 for a linear parser, 10 for a quadratic one:
the old tag pattern took 165 s on 100 KB).

Bound, scaled by size: every parse within 0.05 s + 2 µs per byte (10 MB: 20 s), and no shape's
time per byte growing more than 3x over the last tenfold step (when that step takes 10 ms or
more: shorter times are noise). Exit code 1 if one is broken.
Run ``python benchmarks/records.py`` (about a minute) or ``--quick`` (up to 1 MB).

``--games [FOLDER]`` times the import of real games instead (default
../shared/games/boardspace, issue 26): per file, reading the SGF into actions and replaying
them (best of three), then ``dvonn-board games import`` of all of them into a fresh journal
in one process (one transaction), per game.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.errors import DvonnError  # noqa: E402
from engine.records import decode_record, load_record_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED_GAMES = ROOT.parent / "shared" / "games" / "boardspace"

KB = 1024
SIZES = (KB, 10 * KB, 100 * KB, KB * KB, 10 * KB * KB)
FIXED, PER_BYTE = 0.05, 2e-6
MAX_GROWTH = 3.0
RUNS = 3
GAME = ("Event [] Site [www.littlegolem.net] White [ann] Black [bob] 1. g2 e3 2. a3 j3 "
        "3. h3 h2 4. d4 i4 5. k3 g3 6. c1 b2 ")


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


SHAPES: dict[str, Callable[[int], str]] = {
    "one word": lambda n: _fill("q", n),
    "dense tags": lambda n: _fill("White [Ann] ", n),
    "unclosed brackets": lambda n: _fill("a[", n),
    "nested brackets": lambda n: _fill("[", n - 1) + "]",
    "blank and comments": lambda n: "c3\n" + _fill("   \n# a comment [\n", n - 4) + "\nq",
    "game then junk": lambda n: GAME + _fill("zz ", n - len(GAME)),
    "json huge string": lambda n: '{"moves": ["' + _fill("Q", n - 15) + '"]}',
    "json long list": lambda n: '{"moves": [' + _fill('"C3", ', n - 20) + '"Q9"]}',
    "sgf unclosed value": lambda n: "(;GM[" + _fill("x", n - 5),
    "sgf escaped brackets": lambda n: "(;C[" + _fill("\\]", n - 6) + "])",
    "sgf empty nodes": lambda n: "(;GM[Dvonn]" + _fill(";", n - 12) + ")",
    "sgf open trees": lambda n: _fill("(;", n),
    "sgf steps then junk": lambda n: "(;GM[Dvonn]\n; P0[1 dropb C 3]\n; P0[2 done]\n" + _fill(
        "; C[note]\n", n - 60) + "?",
}


def parse_time(text: str) -> tuple[float, str]:
    """Best of RUNS timings of reading ``text``, and what came of it."""
    best = float("inf")
    outcome = ""
    for _ in range(RUNS):
        start = time.perf_counter()
        try:
            record = load_record_file(text)
            outcome = f"read {len(record.moves)} actions"
        except DvonnError as exc:
            outcome = f"error of {len(str(exc))} characters"
        best = min(best, time.perf_counter() - start)
    return best, outcome


def import_games(folder: Path) -> int:
    """Per-game read time of every SGF file in ``folder`` and a whole ``games import``."""
    files = sorted(folder.glob("*.sgf"))
    if not files:
        print(f"no .sgf files in {folder}")
        return 1
    times = []
    for path in files:
        data = path.read_bytes()
        best = float("inf")
        for _ in range(RUNS):
            start = time.perf_counter()
            load_record_file(decode_record(data), path.name).game()
            best = min(best, time.perf_counter() - start)
        times.append(best)
    times.sort()
    print(f"read and replay, {len(files)} games (best of {RUNS}): mean "
          f"{1000 * statistics.mean(times):.2f} ms, median {1000 * statistics.median(times):.2f}"
          f" ms, slowest {1000 * times[-1]:.2f} ms a game", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(tmp) / "games.sqlite3"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "controller.cli", "games", "import",
                               "--journal", str(journal), *map(str, files)], cwd=ROOT,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(f"games import failed: {done.stderr.strip()}")
        return 1
    print(f"games import of all {len(files)} in one process: {seconds:.2f} s, "
          f"{1000 * seconds / len(files):.2f} ms a game (start-up and journal included)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 1 MB only")
    parser.add_argument("--games", nargs="?", const=str(SHARED_GAMES), metavar="FOLDER",
                        help="time the import of real SGF games instead (default "
                             "../shared/games/boardspace)")
    args = parser.parse_args(argv)
    if args.games is not None:
        return import_games(Path(args.games))
    sizes = SIZES[:-1] if args.quick else SIZES
    broken = []
    for shape, make in SHAPES.items():
        per_byte: dict[int, float] = {}
        seconds = 0.0
        for size in sizes:
            text = make(size)
            seconds, outcome = parse_time(text)
            per_byte[size] = seconds / len(text)
            bound = FIXED + PER_BYTE * len(text)
            verdict = "ok" if seconds <= bound else f"OVER the bound {bound:.2f} s"
            print(f"{shape} {size // KB} KB: {seconds:.4f} s, {per_byte[size] * 1e9:.0f} ns/byte "
                  f"({outcome}; {verdict})", flush=True)
            if seconds > bound:
                broken.append(f"{shape} {size // KB} KB")
        growth = per_byte[sizes[-1]] / max(per_byte[sizes[-2]], 1e-12)
        print(f"{shape} growth of time per byte, {sizes[-2] // KB} KB -> {sizes[-1] // KB} KB: "
              f"x{growth:.2f}", flush=True)
        if growth > MAX_GROWTH and seconds >= 0.01:
            broken.append(f"{shape} growth x{growth:.1f}")
    print("records bound: " + ("all within" if not broken else "BROKEN: " + ", ".join(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
