"""Web view under load, on loopback only: N pages on the event stream while a game is played.

The virtual table (``dvonn-board web`` in this process) plays a whole game between two
computer players pacing themselves (``--pace`` seconds a move); a child process holds
``--pages`` connections to ``/api/events`` on 127.0.0.1 and notes when each state arrives.
Checks: every page receives every published state, in order, none twice; reports the delivery
latency (publish -> parsed by the page, both on the system's monotonic clock) as median, p99
and max. Everything is bounded: pages, seconds per run, states per run.

    python benchmarks/web.py [--pages 100] [--pace 0.05] [--seed 1]

Prints plain ``name: value unit`` lines (recorded in benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MAX_SECONDS = 180.0  # a run never takes longer than this
MAX_STATES = 5000  # nor sees more states than this
HOST = "127.0.0.1"  # loopback only


# ------------------------------------------------------------------------------ the pages
FRAME = re.compile(rb"id: (\d+)\nevent: state\ndata: ")


async def _page(port: int, ready: asyncio.Event, count: list[int], pages: int,
                got: list[tuple[int, float]]) -> None:
    """One page: notes (seq, monotonic arrival) of every state event in ``got``, a state
    counting as arrived when its whole frame has (the blank line that ends it). The stream
    is read in big pieces and scanned, not parsed line by line: the instrument stays cheap."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(b"GET /api/events HTTP/1.1\r\nHost: bench\r\n\r\n")
    await writer.drain()
    status = await reader.readline()
    assert b" 200 " in status, status
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    count[0] += 1
    if count[0] == pages:
        ready.set()
    buf = b""
    try:
        while len(got) < MAX_STATES:
            data = await reader.read(1 << 16)
            if not data:
                break
            buf += data
            pos = 0
            while (m := FRAME.search(buf, pos)) is not None:
                end = buf.find(b"\n\n", m.end())
                if end < 0:
                    break
                got.append((int(m.group(1)), time.monotonic()))
                pos = end + 2
            buf = buf[pos:]
    finally:
        writer.close()


async def _pages_main(port: int, pages: int) -> None:
    ready = asyncio.Event()
    count = [0]
    results: list[list[tuple[int, float]]] = [[] for _ in range(pages)]
    tasks = [asyncio.create_task(_page(port, ready, count, pages, got)) for got in results]
    await asyncio.wait_for(ready.wait(), 30)
    print("ready", flush=True)
    # the table says when the game is over and quiet (a line on stdin); bounded in time
    stop = asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.wait([stop, *tasks], timeout=MAX_SECONDS, return_when="FIRST_COMPLETED")
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    sys.stdout.write(json.dumps(results) + "\n")
    sys.stdout.flush()


# ------------------------------------------------------------------------------ the table
def run(pages: int, pace: float, seed: int, procs: int = 4) -> dict[str, Any]:
    from controller.web.app import VirtualOptions, make_virtual_table
    from controller.web.virtual import agent_for

    go = threading.Event()

    def paced(spec: str, side: str, s: int) -> Any:
        agent = agent_for(spec, side, s)
        assert agent is not None

        def play(game: Any) -> Any:
            go.wait(MAX_SECONDS)
            time.sleep(pace)
            return agent(game)

        return play

    opts = VirtualOptions(address=f"{HOST}:0",
                          agents={"w": paced("random", "w", seed), "b": paced("greedy", "b",
                                                                              seed + 1)})
    ctl, web, table, runner = make_virtual_table(opts)
    published: dict[int, float] = {}
    publish = web.hub.publish

    def timed(state: dict[str, Any]) -> int:
        t = time.monotonic()
        seq = publish(state)
        published[seq] = t
        return seq

    web.hub.publish = timed  # type: ignore[method-assign]
    web.start()
    stop = threading.Event()
    loop = threading.Thread(target=lambda: runner.run(until=stop.is_set, poll=0.02),
                            daemon=True)
    loop.start()
    shares = [pages // procs + (1 if i < pages % procs else 0) for i in range(procs)]
    children = [subprocess.Popen([sys.executable, __file__, "--pages-child",
                                  str(web.server.port), "--pages", str(n)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for n in shares if n]
    out: list[list[list[float]]] = []
    try:
        for child in children:
            assert child.stdout is not None
            line = child.stdout.readline()
            assert line.strip() == "ready", line
        latest = web.hub.latest
        first_seq = max([*published, latest.seq if latest is not None else 0])
        started = time.monotonic()
        go.set()
        while time.monotonic() - started < MAX_SECONDS:  # until over and quiet for 0.5 s
            time.sleep(0.1)
            if ctl.game.is_over() and time.monotonic() - max(published.values()) > 0.5:
                break
        elapsed = time.monotonic() - started
        for child in children:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write("stop\n")
            child.stdin.flush()
        for child in children:
            assert child.stdout is not None
            out += json.loads(child.stdout.readline())
            child.wait(30)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
        stop.set()
        loop.join(10)
        table.close()
        web.stop()
    results = out
    expected = [first_seq] + [s for s in sorted(published) if s > first_seq]
    latencies: list[float] = []
    complete = 0
    for got in results:
        seqs = [int(s) for s, _ in got]
        if seqs and seqs[0] <= first_seq and seqs[-1] == expected[-1]:
            tail = [s for s in seqs if s >= first_seq]
            if tail == expected:
                complete += 1
        latencies += [(t - published[int(s)]) * 1000 for s, t in got if int(s) > first_seq]
    latencies.sort()
    arrivals: dict[int, list[float]] = {}
    for got in results:
        for seq, t in got:
            if int(seq) > first_seq:
                arrivals.setdefault(int(seq), []).append(t)
    firsts = sorted((min(ts) - published[s]) * 1000 for s, ts in arrivals.items())
    spreads = sorted((max(ts) - min(ts)) * 1000 for ts in arrivals.values())
    return {"first_median": statistics.median(firsts),
            "spread_median": statistics.median(spreads),
            "pages": pages, "pace": pace, "states": len(expected) - 1, "plies": ctl.game.ply,
            "over": ctl.game.is_over(), "complete": complete, "seconds": elapsed,
            "median": statistics.median(latencies),
            "p99": latencies[int(0.99 * (len(latencies) - 1))], "max": latencies[-1],
            "deliveries": len(latencies)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--pace", type=float, nargs="*", default=[0.05, 0.0],
                        help="seconds each computer player waits before its move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--procs", type=int, default=4,
                        help="processes the pages are spread over (the instrument's own cost)")
    parser.add_argument("--pages-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.pages <= 500:
        parser.error("--pages must be 1..500")
    if args.pages_child is not None:
        asyncio.run(_pages_main(args.pages_child, args.pages))
        return 0
    status = 0
    for pace in args.pace:
        r = run(args.pages, pace, args.seed, max(1, min(args.procs, args.pages)))
        name = f"web.pages{r['pages']}.pace{pace:g}"
        print(f"{name}.states_published: {r['states']} (game over at ply {r['plies']}: "
              f"{r['over']})")
        print(f"{name}.pages_with_every_state_in_order: {r['complete']} of {r['pages']}")
        print(f"{name}.deliveries: {r['deliveries']} in {r['seconds']:.1f} s")
        print(f"{name}.latency_median: {r['median']:.2f} ms")
        print(f"{name}.latency_p99: {r['p99']:.2f} ms")
        print(f"{name}.latency_max: {r['max']:.2f} ms")
        print(f"{name}.first_page_latency_median: {r['first_median']:.2f} ms")
        print(f"{name}.first_to_last_page_median: {r['spread_median']:.2f} ms")
        if r["complete"] != r["pages"] or not r["over"]:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
