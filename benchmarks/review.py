"""Game review (``dvonn-board analyze``, engine.review) on real games (issue 26).

Takes a sample of the boardspace.net games in ../shared/games/boardspace (every k-th of the
index, so the same games every run) and reviews each within a budget, as ``analyze`` does.
Prints per game the time taken and the marks, then:

* the time a review takes (mean and slowest; it must stay within the budget),
* how often the engine's best action is the one the winner played (for information: the
  site's players were people and its robots, not the engine), over the winner's actions that
  had a choice (forced actions left out), in the moving phase and over all actions.

Run ``python benchmarks/review.py`` (3 games at analyze's default budget, about 90 s) or
``--games 30 --time 10`` (about 5 minutes). Without ../shared it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import accel  # noqa: E402
from engine.game import PLACEMENTS  # noqa: E402
from engine.records import decode_record, load_record_file  # noqa: E402
from engine.review import DEFAULT_TIME, review  # noqa: E402

SHARED_GAMES = Path(__file__).resolve().parents[2] / "shared" / "games" / "boardspace"


def sample(folder: Path, games: int) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in (folder / "index.jsonl").read_text().splitlines()]
    step = max(1, len(rows) // games)
    return rows[::step][:games]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games in the sample (3)")
    parser.add_argument("--time", type=float, default=DEFAULT_TIME,
                        help=f"seconds a game (default {DEFAULT_TIME:g}, analyze's default)")
    parser.add_argument("--folder", default=str(SHARED_GAMES), help="SGF games and index.jsonl")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if not (folder / "index.jsonl").exists():
        print(f"no games: {folder / 'index.jsonl'} is missing (../shared not here)")
        return 0
    print(f"search: {accel.backend()}; budget {args.time:g} s a game; {args.games} games",
          flush=True)
    times: list[float] = []
    agree = {"moving": [0, 0], "all": [0, 0]}
    for entry in sample(folder, args.games):
        path = folder / str(entry["file"])
        record = load_record_file(decode_record(path.read_bytes()), path.name)
        game = record.game()
        w, b = game.score()
        winner = "w" if w > b else "b" if b > w else None
        start = time.perf_counter()
        result = review(record.moves, budget=args.time)
        seconds = time.perf_counter() - start
        times.append(seconds)
        marks = [a.mark for a in result.actions]
        same = total = 0
        for a in result.actions:
            if a.side != winner or a.forced or a.best is None:
                continue
            hit = int(a.best == a.move)
            for key in ("all", "moving") if a.ply > PLACEMENTS else ("all",):
                agree[key][0] += hit
                agree[key][1] += 1
            same += hit
            total += 1
        print(f"{path.name}: {len(result.actions)} actions in {seconds:.1f} s, "
              f"{marks.count('?')} ?, {marks.count('??')} ??, winner's actions as the engine "
              f"would: {same}/{total}", flush=True)
    print(f"review time a game: mean {statistics.mean(times):.1f} s, slowest "
          f"{max(times):.1f} s (budget {args.time:g} s)")
    for key, (hit, n) in agree.items():
        print(f"engine's best = the winner's action ({key} actions with a choice): "
              f"{hit}/{n} = {100 * hit / max(n, 1):.1f} %")
    return 0 if max(times) <= args.time + 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
