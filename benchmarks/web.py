"""Web view under load, on loopback only: N pages on the event stream while a game is played.

The virtual table (``dvonn-board web`` in this process) plays a whole game between two
computer players pacing themselves (``--pace`` seconds a move); a child process holds
``--pages`` connections to ``/api/events`` on 127.0.0.1 and notes when each state arrives.
Checks: every page receives every published state, in order, none twice; reports the delivery
latency (publish -> parsed by the page, both on the system's monotonic clock) as median, p99
and max. Everything is bounded: pages, seconds per run, states per run.

    python benchmarks/web.py [--pages 100] [--pace 0.05] [--seed 1]

``--attack`` measures instead what idle sockets do (issue 24), with the server's default
connection limits: a child process holds up to ``--attack-sockets`` idle sockets (reopening
each one the server closes a second later, as a patient attacker would), from one address
(127.0.0.1) or spread over 40 (127.0.1.x); a paired player on 127.0.0.2 asks for
``/api/state`` and sends control requests (the ``hint`` button, ``X-Dvonn-Token``). Reports
the sockets the attacker needed to lock the player out (the goal: no number does), what the
server held from the attacker, and the player's control latency (median, p99).

    python benchmarks/web.py --attack [--attack-sockets 1000] [--attack-requests 600]

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
    reader, writer = await open_events(port)
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
    await hand_in(tasks, results)


async def open_events(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A page's connection to ``/api/events`` on ``port``, its status line read (a 200)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET /api/events HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode())
    await writer.drain()
    status = await reader.readline()
    assert b" 200 " in status, status
    return reader, writer


async def hand_in(tasks: list[asyncio.Task[None]], results: list[Any],
                  timeout: float = MAX_SECONDS) -> None:
    """The pages' child process ends: when the parent says so (a line on stdin) or every page
    has ended, at most ``timeout`` seconds on; ``results`` go out on stdout as one JSON line."""
    stop = asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.wait([stop, *tasks], timeout=timeout, return_when="FIRST_COMPLETED")
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

    from controller.web.transport import Limits

    # every page comes from 127.0.0.1: the per-address caps are lifted for this instrument
    many = Limits(per_address=pages + 50, streams=pages + 50, streams_per_address=pages + 50)
    opts = VirtualOptions(address=f"{HOST}:0", limits=many,
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


# ------------------------------------------------------------------------------ idle sockets
PLAYER = "127.0.0.2"  # the player's address (Linux routes all of 127/8 to lo)
SPREAD = [f"127.0.1.{i}" for i in range(1, 41)]  # an attacker with 40 addresses
TOKEN = "bench-token-for-scripts-0123"


def _raise_fd_limit(wanted: int) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


async def _attacker_main(port: int, count: int, sources: list[str], reconnect: float) -> None:
    """Hold ``count`` idle sockets from ``sources`` (round robin), each reopened ``reconnect``
    seconds after the server closed it; 'ready' once every one has connected, the counts as
    JSON after a line on stdin (bounded in time)."""
    stats = {"connects": 0, "closed_by_server": 0, "failed": 0}
    ready = asyncio.Event()
    first = [0]

    async def hold(i: int) -> None:
        source, counted = sources[i % len(sources)], False
        while True:
            try:
                reader, writer = await asyncio.open_connection(HOST, port,
                                                               local_addr=(source, 0))
            except OSError:
                stats["failed"] += 1
                await asyncio.sleep(reconnect)
                continue
            stats["connects"] += 1
            if not counted:
                counted = True
                first[0] += 1
                if first[0] == count:
                    ready.set()
            try:
                while await reader.read(4096):
                    pass
            except OSError:
                pass
            stats["closed_by_server"] += 1
            writer.close()
            await asyncio.sleep(reconnect)

    tasks = [asyncio.create_task(hold(i)) for i in range(count)]
    await asyncio.wait_for(ready.wait(), 60)
    print("ready", flush=True)
    stop = asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.wait([stop], timeout=MAX_SECONDS)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(stats), flush=True)


class _Attacker:
    """The attacker's child process (see _attacker_main), started and stopped."""

    def __init__(self, port: int, count: int, sources: list[str],
                 reconnect: float = 1.0) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--attacker-child", str(port), "--attack-sockets",
             str(count), "--sources", ",".join(sources), "--reconnect", str(reconnect)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", line
        self.stats: dict[str, int] = {}

    def stop(self) -> dict[str, int]:
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write("stop\n")
            proc.stdin.flush()
            self.stats = json.loads(proc.stdout.readline())
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        return self.stats


def _player_requests(port: int, n: int, path: str = "/api/control/hint", pace: float = 0.0
                     ) -> tuple[int, list[int], list[float]]:
    """The player on its own address: /api/state, then ``n`` paired control requests on one
    connection; (state status, control statuses, control latencies in ms). ``hint`` goes
    through the table's loop; ``share`` (toggles) is answered by the server itself."""
    from http.client import HTTPConnection

    conn = HTTPConnection(HOST, port, timeout=30, source_address=(PLAYER, 0))
    try:
        conn.request("GET", "/api/state")
        r = conn.getresponse()
        r.read()
        state = r.status
        statuses, ms = [], []
        for _ in range(n):
            t = time.perf_counter()
            try:
                conn.request("POST", path, headers={"X-Dvonn-Token": TOKEN})
                r = conn.getresponse()
                r.read()
                statuses.append(r.status)
            except OSError:  # the connection was closed under the player
                statuses.append(0)
                conn.close()
            ms.append((time.perf_counter() - t) * 1000)
            if pace:
                time.sleep(max(0.0, pace - (time.perf_counter() - t)))
        return state, statuses, ms
    finally:
        conn.close()


def attack(sockets: int, requests: int, pace: float = 0.02) -> list[str]:
    """The idle-socket figures (see the module docstring) as printable lines. The control
    requests go ``pace`` seconds apart (200 take 4 s; 600, 12 s: two rounds of the attacker's
    sockets closed by the header timer and reopened), the ``share`` ones back to back."""
    from controller.web.app import VirtualOptions, make_virtual_table

    _raise_fd_limit(sockets * 2 + 500)
    ctl, web, table, runner = make_virtual_table(VirtualOptions(address=f"{HOST}:0",
                                                                token=TOKEN))
    web.start()
    stop = threading.Event()
    loop = threading.Thread(target=lambda: runner.run(until=stop.is_set, poll=0.02),
                            daemon=True)
    loop.start()
    port, conns = web.server.port, web.server.connections
    lines = [f"web.attack.limits: {conns.limits} (total cap here {conns.total})"]

    def held(sources: list[str]) -> int:
        return max(conns.count(a) for a in sources)

    def run_attack(name: str, count: int, sources: list[str], n: int) -> dict[str, Any]:
        seen = conns.seen
        attacker = _Attacker(port, count, sources)
        try:
            deadline = time.monotonic() + 60
            while conns.seen < seen + count and time.monotonic() < deadline:
                time.sleep(0.01)
            before = (held(sources), conns.open)
            state, statuses, ms = _player_requests(port, n, pace=pace if n > 5 else 0.0)
            _, shared, share_ms = _player_requests(port, n if n > 5 else 0,
                                                   "/api/control/share")
            after = (held(sources), conns.open)
        finally:
            stats = attacker.stop()
        ok = state == 200 and all(s == 200 for s in statuses + shared)
        return {"name": name, "count": count, "held": max(before[0], after[0]),
                "open": max(before[1], after[1]), "state": state, "ok": ok,
                "statuses": sorted(set(statuses + shared)), "ms": sorted(ms),
                "share_ms": sorted(share_ms), "stats": stats}

    def figures(ms: list[float]) -> str:
        ms = sorted(ms)
        return (f"{statistics.median(ms):.2f} ms (p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, "
                f"max {ms[-1]:.2f} ms")

    try:
        _, _, base = _player_requests(port, requests, pace=pace)
        _, _, share = _player_requests(port, requests, "/api/control/share")
        lines.append(f"web.attack.baseline.control_latency_median: {figures(base)}; "
                     f"{requests} requests {pace * 1000:g} ms apart, no attacker)")
        lines.append(f"web.attack.baseline.share_latency_median: {figures(share)}; "
                     f"{requests} requests, no attacker)")
        locked: list[int] = []
        steps = sorted({c for c in (32, 100, 250, 500, sockets) if c <= sockets})
        for count in steps:  # (a) one address: how many sockets lock the player out?
            r = run_attack("one_address", count, [HOST], 5)
            lines.append(f"web.attack.one_address.{count}_sockets: server held {r['held']} of "
                         f"the attacker's; player /api/state {r['state']}, control "
                         f"{r['statuses']} ({r['stats']['connects']} attacker connects)")
            if not r["ok"]:
                locked.append(count)
        lines.append("web.attack.sockets_needed_to_lock_out_a_player: "
                     + (f"{locked[0]}" if locked else f"none (up to {sockets} from one "
                        f"address; the server held at most {conns.limits.per_address})"))
        for name, sources in (("one_address", [HOST]), ("40_addresses", SPREAD)):  # (b)
            r = run_attack(name, sockets, sources, requests)
            lines.append(f"web.attack.{name}.{sockets}_idle.control_latency_median: "
                         f"{figures(r['ms'])}; {requests} requests {pace * 1000:g} ms apart, "
                         f"statuses {r['statuses']}; attacker: {r['stats']})")
            lines.append(f"web.attack.{name}.{sockets}_idle.share_latency_median: "
                         f"{figures(r['share_ms'])}; {requests} requests)")
            lines.append(f"web.attack.{name}.{sockets}_idle.server_held: {r['open']} "
                         f"connections in all, {r['held']} from the busiest attacking "
                         f"address; evicted so far {conns.evicted}, timed out "
                         f"{conns.timed_out}, refused {conns.refused}")
            if not r["ok"]:
                lines.append(f"web.attack.{name}.LOCKED_OUT: player state {r['state']}")
    finally:
        stop.set()
        loop.join(10)
        table.close()
        web.stop()
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--pace", type=float, nargs="*", default=[0.05, 0.0],
                        help="seconds each computer player waits before its move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--procs", type=int, default=4,
                        help="processes the pages are spread over (the instrument's own cost)")
    parser.add_argument("--attack", action="store_true",
                        help="the idle-socket figures instead (issue 24)")
    parser.add_argument("--attack-sockets", type=int, default=1000)
    parser.add_argument("--attack-requests", type=int, default=600)
    parser.add_argument("--attack-pace", type=float, default=0.02,
                        help="seconds between the player's control requests")
    parser.add_argument("--pages-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--attacker-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--sources", default=HOST, help=argparse.SUPPRESS)
    parser.add_argument("--reconnect", type=float, default=1.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 1 <= args.pages <= 500:
        parser.error("--pages must be 1..500")
    if not 1 <= args.attack_sockets <= 5000 or not 1 <= args.attack_requests <= 2000:
        parser.error("--attack-sockets must be 1..5000, --attack-requests 1..2000")
    if args.pages_child is not None:
        asyncio.run(_pages_main(args.pages_child, args.pages))
        return 0
    if args.attacker_child is not None:
        _raise_fd_limit(args.attack_sockets + 200)
        asyncio.run(_attacker_main(args.attacker_child, args.attack_sockets,
                                   args.sources.split(","), args.reconnect))
        return 0
    if args.attack:
        lines = attack(args.attack_sockets, args.attack_requests, args.attack_pace)
        for line in lines:
            print(line, flush=True)
        return 1 if any("LOCKED_OUT" in line for line in lines) or \
            "lock_out_a_player: none" not in "\n".join(lines) else 0
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
