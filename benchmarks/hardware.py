"""Sensor-board figures: decode rate, pty latency, firmware scan period, change->host, fuzz.

Run: ``.venv/bin/python benchmarks/hardware.py``. Prints ``name: value unit`` lines (recorded in
benchmarks/RESULTS.md), then runs benchmarks/_hardware_leds.py's main() when that file exists.
Targets: decode latency < 1 ms median; a table change delivered as a full scan < 20 ms.
"""

from __future__ import annotations

import importlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware.clock import FakeClock, SystemClock  # noqa: E402
from hardware.events import SnapshotEvent  # noqa: E402
from hardware.sensorboard import protocol as P  # noqa: E402
from hardware.sensorboard.client import SensorBoardClient  # noqa: E402
from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable  # noqa: E402


def report(name: str, value: float, unit: str, fmt: str = ".3f") -> None:
    print(f"{name}: {value:{fmt}} {unit}", flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_decode(n: int = 50_000) -> None:
    frames = [P.encode_frame(P.SNAPSHOT, i, P.snapshot_payload([i % 4] * 49)) for i in range(64)]
    stream = b"".join(frames[i % 64] for i in range(n))
    dec = P.FrameDecoder()
    start = time.perf_counter()
    got = dec.feed(stream)
    bulk = time.perf_counter() - start
    assert len(got) == n and dec.drops.total == 0
    dec = P.FrameDecoder()
    start = time.perf_counter()
    count = sum(len(dec.feed(stream[i:i + 64])) for i in range(0, len(stream), 64))
    chunked = time.perf_counter() - start
    assert count == n
    start = time.perf_counter()
    for f in got[:10_000]:
        P.parse_snapshot(f).cells  # noqa: B018 - the work being timed
    parse = (time.perf_counter() - start) / 10_000
    report("snapshot decode rate (one buffer)", n / bulk, "frames/s", ".0f")
    report("snapshot decode rate (64-byte reads)", n / chunked, "frames/s", ".0f")
    report("snapshot parse to cell string", parse * 1e6, "us")


def bench_pty_latency(n: int = 600) -> None:
    clock = FakeClock()
    with SensorBoardEmulator(VirtualTable(), clock=clock) as emu, \
            SensorBoardClient(emu.port, clock=clock) as client:
        emu.run_for(0.01)
        while client.poll(0.02):
            pass
        lat: list[float] = []
        for i in range(n):
            frame = P.encode_frame(P.SNAPSHOT, i, P.snapshot_payload([i % 3] * 49))
            emu.inject(frame[:-1])
            t0 = time.perf_counter()
            emu.inject(frame[-1:])
            got: list[object] = []
            while not any(isinstance(e, SnapshotEvent) for e in got):
                got = list(client.poll(1.0))
            lat.append(time.perf_counter() - t0)
        report("host latency last byte -> SnapshotEvent median", statistics.median(lat) * 1e3,
               "ms")
        report("host latency last byte -> SnapshotEvent p99", pct(lat, 0.99) * 1e3, "ms")
        report("host latency frames measured", n, "frames", "d")


def bench_scan() -> None:
    clock = FakeClock()
    table = VirtualTable(seed=1)
    for c in range(0, 49, 3):
        table.put(c, "wbr"[c % 3])
    with SensorBoardEmulator(table, clock=clock) as emu:
        fw = emu.firmware
        n = 2000
        start = time.perf_counter()
        for _ in range(n):
            clock.advance(0.005)
            fw.scanner.scan()
        full = (time.perf_counter() - start) / n
        raw = list(fw.scanner.raw)
        scanner_mod = importlib.import_module("firmware.scanner")
        core = scanner_mod.Scanner(lambda out: out.__setitem__(slice(None), raw), lambda: 0)
        start = time.perf_counter()
        for _ in range(n):
            core.scan()
        only = (time.perf_counter() - start) / n
    report("firmware scan, 49 cells incl. mux + sensor model (CPython)", full * 1e3, "ms")
    report("firmware scan core only, 49 cells (CPython)", only * 1e3, "ms")


def bench_change_to_host(rounds: int = 200) -> None:
    clock = FakeClock()
    table = VirtualTable(seed=2)
    with SensorBoardEmulator(table, clock=clock) as emu, \
            SensorBoardClient(emu.port, clock=clock) as client:
        emu.run_for(0.02)
        while client.poll(0.02):
            pass
        scans: list[int] = []
        for i in range(rounds):
            cell = i % 49
            table.put(cell, "" if table.get(cell) else "b")
            want = table.cells()
            steps = 0
            while True:
                clock.advance(emu.scan_period)
                emu.step()
                steps += 1
                events = client.poll(0.002)
                if any(isinstance(e, SnapshotEvent) and e.cells == want for e in events):
                    break
            scans.append(steps)
    report("change -> host, scans until reported (debounce)", max(scans), "scans", "d")
    # and measured for real: the emulator thread at its real scan period, wall clock
    sysclock = SystemClock()
    table = VirtualTable(seed=3)
    with SensorBoardEmulator(table, clock=sysclock) as emu, \
            SensorBoardClient(emu.port, clock=sysclock) as client:
        emu.start()
        while client.poll(0.05):
            pass
        real: list[float] = []
        for i in range(60):
            cell = (7 * i) % 49
            table.put(cell, "" if table.get(cell) else "w")
            t0 = time.perf_counter()
            want = table.cells()
            while not any(isinstance(e, SnapshotEvent) and e.cells == want
                          for e in client.poll(1.0)):
                pass
            real.append(time.perf_counter() - t0)
        emu.stop()
    report("change -> host, real-time emulator thread median", statistics.median(real) * 1e3,
           "ms")
    report("change -> host, real-time emulator thread p99", pct(real, 0.99) * 1e3, "ms")


def bench_fuzz(examples: int = 10_000) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    good = P.encode_frame(P.SNAPSHOT, 5, P.snapshot_payload([1, 2, 0, 3] * 12 + [0]))
    good_payload = P.FrameDecoder().feed(good)[0].payload
    totals = {"examples": 0, "drops": 0, "frames": 0, "false": 0}

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=600), st.lists(st.integers(0, len(good) * 8 - 1), max_size=4))
    def run(noise: bytes, flips: list[int]) -> None:
        data = bytearray(good)
        for bit in flips:
            data[bit // 8] ^= 1 << (bit % 8)
        dec = P.FrameDecoder()
        frames = dec.feed(noise + bytes(data) + noise[: len(noise) // 2])
        totals["examples"] += 1
        totals["drops"] += dec.drops.total
        totals["frames"] += len(frames)
        totals["false"] += sum(f.mtype == P.SNAPSHOT and f.payload != good_payload
                               for f in frames)

    start = time.perf_counter()
    run()
    report("decoder fuzz examples", totals["examples"], "examples", "d")
    report("decoder fuzz drops counted", totals["drops"], "frames", "d")
    report("decoder fuzz frames accepted", totals["frames"], "frames", "d")
    report("decoder fuzz false snapshots", totals["false"], "frames", "d")
    report("decoder fuzz time", time.perf_counter() - start, "s")


def main() -> None:
    bench_decode()
    bench_pty_latency()
    bench_scan()
    bench_change_to_host()
    bench_fuzz()
    leds = Path(__file__).resolve().parent / "_hardware_leds.py"
    if leds.exists():
        sys.path.insert(0, str(leds.parent))
        importlib.import_module("_hardware_leds").main()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
