"""Remote play and the club's broadcast through a real Mosquitto on loopback (issue 27).

Parts (``--part match|broadcast|all``):

- ``match``: an action committed on one table -> lit (``suggest``) on the other, through a
  local Mosquitto: two simulated tables in two processes play whole games against each other
  until ``--actions`` (200) actions were carried across; median, p99 and max, for the test
  broker's config (``set_tcp_nodelay true``) and for Mosquitto's defaults.

    python benchmarks/remote.py --part match [--actions 200]
- ``broadcast``: a table's state change -> every broadcast page. ``--tables`` (8) tables
  publish through a local Mosquitto (StatePublisher, as ``--publish``) to one broadcast server
  (BroadcastServer, as ``dvonn-board broadcast``); a child process holds ``--pages`` (100)
  real HTTP connections to ``/api/events`` and notes when each table's state arrives on
  each. The tables take turns: one state change every ``--spacing`` seconds (each table's
  next action of a random game). Reported: the latency of a change reaching *all* pages
  (publish -> the last page has the whole frame; both on the system's monotonic clock) as
  median, p99 and max, the same per page and delivery, and whether every page got every
  change.

    python benchmarks/remote.py --part broadcast [--pages 100] [--tables 8] [--changes 400]

Needs Debian's mosquitto. Prints plain ``name: value unit`` lines (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
MAX_SECONDS = 300.0  # a run never takes longer than this


# ------------------------------------------------------------------------------ match
def _match_table(args: argparse.Namespace) -> int:
    """A child process: one simulated table (``demo --fast --direct``) playing ``--games``
    games, one match each, against the other child; prints its timestamps as JSON: when it
    published each list length (a commit) and when it lit each remote action."""
    import io

    from controller.remote.match import MqttSeat
    from controller.sim.demo import DemoOptions, run_demo
    from hardware.leds import RecordingStrip

    commits: dict[str, dict[int, float]] = {}
    lit: dict[str, dict[int, float]] = {}
    tell, poll = MqttSeat.tell, MqttSeat.poll

    def timed_tell(seat: MqttSeat, game: Any) -> None:
        before = seat._published
        now = time.monotonic()  # (before the publish: the other table may light it first)
        tell(seat, game)
        if seat._published is not before and seat._published:
            commits.setdefault(seat.match, {}).setdefault(len(seat._published) - 1, now)

    def timed_poll(seat: MqttSeat, game: Any) -> Any:
        move = poll(seat, game)
        if move is not None:
            lit.setdefault(seat.match, {}).setdefault(game.ply, time.monotonic())
        return move

    MqttSeat.tell = timed_tell  # type: ignore[method-assign]
    MqttSeat.poll = timed_poll  # type: ignore[method-assign]
    results = []
    for k in range(args.games):
        name = f"{args.match_name}{k}"
        spec = f"remote:{args.url}{name}"
        opts = DemoOptions(fast=True, direct=True, quiet=True, seed=args.seed + k,
                           strip=RecordingStrip(), remote_timeout=60.0)
        if args.match_table == "white":
            opts.black = spec
        else:
            opts.white = spec
        result = run_demo(opts, io.StringIO())
        results.append({"match": name, "actions": result.actions,
                         "commits": commits.get(name, {}), "lit": lit.get(name, {})})
    sys.stdout.write(json.dumps(results) + "\n")
    return 0


def _match_run(broker_url: str, args: argparse.Namespace, games: int, name: str
               ) -> list[float]:
    """Two child tables play ``games`` games; the latencies (ms) commit -> lit."""
    children = [subprocess.Popen(
        [sys.executable, __file__, "--match-table", side, "--url", broker_url, "--games",
         str(games), "--match-name", name, "--seed", str(args.seed + 1000 * i)],
        stdout=subprocess.PIPE, text=True) for i, side in enumerate(("white", "black"))]
    outs = []
    for child in children:
        out, _ = child.communicate(timeout=MAX_SECONDS)
        if child.returncode != 0:
            raise SystemExit(f"a table failed (exit {child.returncode})")
        outs.append(json.loads(out))
    white, black = outs
    latencies = []
    for w, b in zip(white, black, strict=True):
        if w["actions"] != b["actions"]:
            raise SystemExit(f"match {w['match']}: the tables ended with different games")
        for i, action in enumerate(w["actions"]):
            if action == "PASS":
                continue
            mover, other = (w, b) if _mover_is_white(i) else (b, w)
            start, end = mover["commits"].get(str(i)), other["lit"].get(str(i))
            if start is not None and end is not None:
                latencies.append((end - start) * 1000)
    return latencies


def _mover_is_white(index: int) -> bool:
    from controller.remote.match import mover_of

    return mover_of(index) == "w"


def match(args: argparse.Namespace) -> int:
    """An action committed on one table -> lit (``suggest``) on the other, through a local
    Mosquitto: two simulated tables (``demo --fast --direct``, each its own process, as two
    Pis would be) play whole games against each other, one match a game, until ``--actions``
    actions were carried across. Both processes stamp with the system's monotonic clock: the
    committing table when it publishes its list, the other when its seat hands the action to
    the table (the frame with ``suggest`` is drawn in that same loop round). Reported for the
    test broker's config (``set_tcp_nodelay true``) and Mosquitto's default one."""
    from tests.remote.broker import Broker

    rc = 0
    for label, nodelay in (("set_tcp_nodelay true", True), ("Mosquitto's defaults", False)):
        with tempfile.TemporaryDirectory() as folder:
            broker = Broker(Path(folder))
            try:
                if not nodelay:
                    broker.stop()
                    conf = broker.conf.read_text().replace("set_tcp_nodelay true", "")
                    broker.conf.write_text(conf)
                    broker.start()
                latencies: list[float] = []
                games = 0
                deadline = time.monotonic() + MAX_SECONDS
                while len(latencies) < args.actions and time.monotonic() < deadline:
                    batch = max(1, -(-(args.actions - len(latencies)) // 80))
                    latencies += _match_run(broker.url(""), args, batch, f"g{games}-")
                    games += batch
            finally:
                broker.stop()
        print(f"broker: {label}", flush=True)
        print(f"games: {games}")
        print(f"actions carried across: {len(latencies)}")
        if not latencies:
            rc = 1
            continue
        print(f"commit -> lit median: {statistics.median(latencies):.1f} ms")
        print(f"commit -> lit p99: {pct(latencies, 0.99):.1f} ms")
        print(f"commit -> lit max: {max(latencies):.1f} ms", flush=True)
    return rc


# ------------------------------------------------------------------------------ broadcast
TABLE_FRAME = re.compile(rb'event: table\ndata: \{"name":"([^"]+)".*?"ply":(\d+)')


async def _page(port: int, ready: list[int], got: list[tuple[str, int, float]]) -> None:
    """One page: (table, ply, monotonic arrival) of every ``table`` event, a frame counting
    as arrived when all of it has (its blank line)."""
    from benchmarks.web import open_events

    reader, writer = await open_events(port)
    buf = b""
    snapshot = False
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                break
            now = time.monotonic()
            buf += data
            if not snapshot and b"event: club" in buf:
                snapshot = True
                ready[0] += 1
            while (end := buf.find(b"\n\n")) >= 0:
                block, buf = buf[:end], buf[end + 2:]
                m = TABLE_FRAME.search(block)  # (after a chunk's size line)
                if m is not None:
                    got.append((m.group(1).decode(), int(m.group(2)), now))
    finally:
        writer.close()


async def _pages_main(port: int, pages: int) -> None:
    from benchmarks.web import hand_in

    ready = [0]
    results: list[list[tuple[str, int, float]]] = [[] for _ in range(pages)]
    tasks = [asyncio.create_task(_page(port, ready, got)) for got in results]
    deadline = time.monotonic() + 60
    while ready[0] < pages and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    print(f"ready {ready[0]}", flush=True)
    await hand_in(tasks, results, MAX_SECONDS)


def _games(tables: int, plies: int, seed: int) -> list[list[Any]]:
    """Each table's states: a random game's table_state after each action."""
    from controller.publish import table_state
    from controller.table.session import TableController
    from engine.game import Game

    rng = random.Random(seed)
    out = []
    for i in range(tables):
        game = Game()
        states = []
        while not game.is_over() and len(states) < plies:
            game.push(rng.choice(sorted(game.legal_moves(), key=str)))
            states.append(table_state(TableController(game=game, players=(f"p{2 * i}",
                                                                         f"p{2 * i + 1}"))))
        out.append(states)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def broadcast(args: argparse.Namespace) -> int:
    """The broadcast part (see the module docstring)."""
    from controller.remote.publisher import StatePublisher
    from controller.remote.url import parse_url
    from controller.web.broadcast import BroadcastServer
    from controller.web.transport import Limits
    from tests.remote.broker import Broker

    per_table = -(-args.changes // args.tables)
    games = _games(args.tables, per_table, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        broker = Broker(Path(folder))
        server = BroadcastServer(parse_url(broker.url("club"), levels=(1, 1)), host=HOST,
                                 port=0, limits=Limits(per_address=args.pages + 20,
                                                       streams=args.pages + 20,
                                                       streams_per_address=args.pages + 20))
        server.start()
        pubs = [StatePublisher(parse_url(broker.url(f"club/table{i + 1}")))
                for i in range(args.tables)]
        child = subprocess.Popen([sys.executable, __file__, "--child", str(server.port),
                                  "--pages", str(args.pages)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        sent: dict[tuple[str, int], float] = {}
        try:
            assert child.stdout is not None and child.stdin is not None
            print(f"pages connected: {child.stdout.readline().split()[1]}", flush=True)
            order = [(i, k) for k in range(per_table) for i in range(args.tables)
                     if k < len(games[i])][:args.changes]
            for i, k in order:
                state = games[i][k]
                time.sleep(args.spacing)
                sent[(f"table{i + 1}", state["ply"])] = time.monotonic()
                pubs[i].publish_state(state)
            time.sleep(1.0)  # the last changes reach the pages
            child.stdin.write("done\n")
            child.stdin.flush()
            results = json.loads(child.stdout.readline())
        finally:
            child.kill()
            for pub in pubs:
                pub.close()
            server.stop()
            broker.stop()
    arrivals: dict[tuple[str, int], list[float]] = {}
    for page in results:
        for name, ply, at in page:
            arrivals.setdefault((name, ply), []).append(at)
    to_all, each = [], []
    complete = 0
    for key, t0 in sent.items():
        times = arrivals.get(key, [])
        each += [(t - t0) * 1000 for t in times]
        if len(times) == args.pages:
            complete += 1
            to_all.append((max(times) - t0) * 1000)
    print(f"tables: {args.tables}", flush=True)
    print(f"pages: {args.pages}")
    print(f"state changes: {len(sent)} ({args.spacing * 1000:g} ms apart)")
    print(f"changes that reached every page: {complete} of {len(sent)}")
    if to_all:
        print(f"change -> all pages median: {statistics.median(to_all):.1f} ms")
        print(f"change -> all pages p99: {pct(to_all, 0.99):.1f} ms")
        print(f"change -> all pages max: {max(to_all):.1f} ms")
    if each:
        print(f"change -> one page median: {statistics.median(each):.1f} ms")
        print(f"change -> one page p99: {pct(each, 0.99):.1f} ms")
    return 0 if complete == len(sent) else 1


# ------------------------------------------------------------------------------ main
PARTS = {"match": match, "broadcast": broadcast}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=(*PARTS, "all"), default="all")
    p.add_argument("--pages", type=int, default=100, help="broadcast: event streams")
    p.add_argument("--tables", type=int, default=8, help="broadcast: publishing tables")
    p.add_argument("--changes", type=int, default=400, help="broadcast: state changes")
    p.add_argument("--spacing", type=float, default=0.05,
                   help="broadcast: seconds between two changes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--actions", type=int, default=200,
                   help="match: actions to carry from one table to the other")
    p.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--match-table", choices=("white", "black"), help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--games", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--match-name", default="g", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.match_table:
        return _match_table(args)
    if args.child:
        asyncio.run(_pages_main(args.child, args.pages))
        return 0
    rc = 0
    for name, part in PARTS.items():
        if args.part in (name, "all"):
            print(f"== {name}", flush=True)
            rc |= part(args)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
