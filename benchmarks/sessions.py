"""Physical table sessions: exact replays, catch-up figures and search latency.

    python benchmarks/sessions.py [--games N] [--kinds hall,camera] [--first SEED]
        [--snapshot-nodes N] [--search-nodes N]

For each sensor kind, N random games are played meanly on the simulated table
(controller.sim.physical: hands that cover, stacks held in the air, gestures only when the LEDs
ask, missed/repeated/noisy readings, blackouts, moves made while a prompt is pending, knocked
stacks put back, late removals) and each recorded log is replayed by a fresh controller, as
``dvonn-board replay-sensors`` does. Prints plain ``name: value`` lines: the exact-match rate,
how many plies behind the controller was when a catch-up committed (take-backs counted
apart), and the time to answer a stable snapshot that needed the search (median, p99, max).
The recorded sessions of ../shared/sessions (outside evidence) are reported apart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.sim.physical import generate  # noqa: E402
from controller.sim.scoring import replay_events, run_session, same, unseen_order  # noqa: E402
from controller.table.catchup import Limits  # noqa: E402

SHARED = ROOT.parent / "shared" / "sessions"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def run_kind(kind: str, games: int, first: int, limits: Limits) -> None:
    exact = 0
    unseen: list[int] = []
    failed: list[int] = []
    stalled: list[int] = []
    wrong: list[int] = []
    behind: Counter[int] = Counter()
    takebacks = 0
    latency: list[float] = []
    catchup_latency: list[float] = []
    nodes: list[int] = []
    cpu: list[float] = []
    exhausted = 0
    stats: Counter[str] = Counter()
    start = time.perf_counter()
    for seed in range(first, first + games):
        session = generate(seed, kind, limits=limits)
        stats.update(session.stats)
        outcome = replay_events(session.events, limits=limits)
        if same(outcome.lines, session.expected):
            exact += 1
        else:
            failed.append(seed)
            if unseen_order(outcome.lines, session.expected, session.events):
                unseen.append(seed)  # e.g. red pieces placed in one blackout: checked
            else:  # stalled: the record so far is the truth's beginning; else a wrong action
                got = [w for w in " ".join(outcome.lines).split() if not w.startswith("over")]
                want = " ".join(session.expected).split()
                (stalled if want[:len(got)] == got else wrong).append(seed)
        ctl = outcome.controller
        for plies in ctl.caught_up:
            if plies > 1:
                behind[plies] += 1
            else:
                takebacks += 1
        exhausted += ctl.exhausted
        for seconds, plies, used, cpu_seconds in ctl.latencies:
            latency.append(seconds * 1000)
            nodes.append(used)
            cpu.append(cpu_seconds * 1000)
            if plies > 1:
                catchup_latency.append(seconds * 1000)
    took = time.perf_counter() - start
    print(f"{kind} games: {games} (seeds {first}..{first + games - 1}, {took:.0f} s)")
    print(f"{kind} exact replays: {exact}/{games} = {100 * exact / games:.1f} %")
    if failed:
        print(f"{kind} differing seeds: {failed}")
    print(f"{kind} not exact, but the same game but for an order no sensor can observe "
          f"(same actions, same position after them, no reading tells the orders apart): "
          f"{len(unseen)} {unseen}; exact or that: {exact + len(unseen)}/{games}")
    print(f"{kind} the others: stalled (the record a beginning of the truth) {len(stalled)} "
          f"{stalled}; wrong (an action the players did not make) {len(wrong)} {wrong}")
    print(f"{kind} mean events per game: " + ", ".join(
        f"{k} {v / games:.1f}" for k, v in sorted(stats.items())))
    print(f"{kind} catch-ups (plies behind -> count): " + (", ".join(
        f"{k}: {v}" for k, v in sorted(behind.items())) or "none")
          + f"; corrections with a take-back: {takebacks}")
    if latency:
        print(f"{kind} snapshot with a search: median {statistics.median(latency):.2f} ms, "
              f"p99 {pct(latency, 0.99):.2f} ms, max {max(latency):.2f} ms "
              f"({len(latency)} snapshots; wall clock)")
        print(f"{kind} the same, CPU time of this process: median {statistics.median(cpu):.2f} ms,"
              f" p99 {pct(cpu, 0.99):.2f} ms, max {max(cpu):.2f} ms")
    if nodes:
        print(f"{kind} positions searched per answered snapshot: median "
              f"{statistics.median(nodes):.0f}, p99 {pct(nodes, 0.99):.0f}, max {max(nodes)} "
              f"(budget {limits.snapshot} per snapshot, {limits.nodes} per search); "
              f"answers cut by the budget: {exhausted}")
    if catchup_latency:
        print(f"{kind} snapshot that caught up 2+ plies: median "
              f"{statistics.median(catchup_latency):.2f} ms, p99 "
              f"{pct(catchup_latency, 0.99):.2f} ms ({len(catchup_latency)} snapshots)")


def run_shared() -> None:
    if not SHARED.is_dir():
        print("shared sessions: ../shared/sessions not found")
        return
    logs = sorted(SHARED.glob("*.jsonl"))
    ok = checks_ok = 0
    for log in logs:
        outcome, want = run_session(log)
        ok += want is not None and same(outcome.lines, want)
        checks_ok += not outcome.failed_checks
    print(f"shared sessions (outside evidence): {ok}/{len(logs)} replay exactly, "
          f"{checks_ok}/{len(logs)} show every required role in its window")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--kinds", default="hall,camera")
    p.add_argument("--snapshot-nodes", type=int, default=Limits().snapshot,
                   help="positions per stable snapshot (all its searches together)")
    p.add_argument("--search-nodes", type=int, default=Limits().nodes,
                   help="positions per search")
    args = p.parse_args()
    limits = Limits(nodes=args.search_nodes, snapshot=args.snapshot_nodes)
    run_shared()
    for kind in args.kinds.split(","):
        run_kind(kind, args.games, args.first, limits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
