"""The sensor board's firmware heap on MicroPython after an hour of scanning (issue 24).

    .venv/bin/python benchmarks/firmware_heap.py [--minutes 60]

Runs tests/firmware/mpy/scenario_heap.py on MicroPython's WebAssembly build (the interpreter
`python3 dev.py test` installs into .cache/micropython/): the emulated main loop (a step, then
sleep out the 5 ms scan period, on a simulated clock: an hour takes a few minutes of CPU) with
a host sending LED frames, PINGs and a damaged frame now and then, and pieces moving. The heap
is one 192 KiB area, about what MicroPython has on the Pico's 264 KB of RAM. Prints
``name: value unit`` lines: the live heap (gc.mem_alloc() after a collection) at each stage
and over the hour, and what the loop allocates (garbage: what makes the Pico collect).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path: put the project root first instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from tests.firmware import mpy_runner as mpy  # noqa: E402

PICO_RAM = 264 * 1024


def kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=int, default=60, help="simulated minutes (60)")
    args = parser.parse_args(argv)
    reason = mpy.missing()
    if reason:
        print(f"firmware_heap: {reason}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    result = mpy.run("scenario_heap", f"minutes={args.minutes}",
                     timeout=60 + args.minutes * 30)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        print(result.stdout[-3000:] + result.stderr[-3000:], file=sys.stderr)
        return 1
    h = mpy.heap_figures(result)
    seconds = h["seconds"]
    area = h["area"]
    quiet, sending, fed = h["kinds"]
    rate = h["allocated"] / seconds
    firmware_live = h["end"] - h["fakes"]
    print(f"interpreter: MicroPython {mpy.installed()} ({mpy.PACKAGE}), heap area "
          f"{area} bytes ({kib(area)}); the Pico: {kib(PICO_RAM)} of RAM")
    print(f"simulated: {seconds // 60} min, {h['loops']} loops of 5 ms ({h['scans']} scans), "
          f"{h['moves']} piece moves, {h['frames_sent']} frames / {h['bytes_sent']} bytes "
          f"sent; wall {wall:.0f} s")
    print(f"live_at_start: {h['start']} bytes (interpreter and the test harness)")
    print(f"live_with_fakes: {h['fakes']} bytes (+ the machine and rp2 fakes)")
    print(f"live_firmware_imported: {h['firmware']} bytes (+{h['firmware'] - h['fakes']}: "
          f"link, scanner, leds, main compiled on the interpreter)")
    print(f"allocated_by_the_import: {h['import_alloc']} bytes (compiling included)")
    print(f"live_after_boot: {h['booted']} bytes (+{h['booted'] - h['firmware']}: pins, bus, "
          f"scanner, LED words, link)")
    print(f"live_after_1_min: {h['live_first_minute']} bytes")
    print(f"live_after_{seconds // 60}_min: {h['end']} bytes (drift from boot "
          f"{h['end'] - h['booted']:+d}); max at a second's end {h['live_max']} bytes")
    print(f"firmware_live: {firmware_live} bytes = {kib(firmware_live)} "
          f"({100 * firmware_live / area:.1f} % of the heap area)")
    print(f"peak_mem_alloc: {h['peak']} bytes (a collection every simulated second)")
    print(f"heap_area_grew: {'never' if h['grew_at'] is None else 'at ' + str(h['grew_at'])}")
    print(f"allocated_per_s: {rate:.0f} bytes ({h['allocated']} in all)")
    print(f"allocated_quiet_loop: {quiet[1] / max(quiet[0], 1):.2f} bytes "
          f"({quiet[0]} loops with nothing in or out, most {quiet[2]})")
    print(f"allocated_sending_loop: {sending[1] / max(sending[0], 1):.0f} bytes "
          f"({sending[0]} loops sending a frame, most {sending[2]}: the CALIBRATED reply)")
    print(f"allocated_host_frame_loop: {fed[1] / max(fed[0], 1):.0f} bytes "
          f"({fed[0]} loops with a host frame in, most {fed[2]})")
    free = area - h["end"]
    print(f"pico_collection_every: {free / rate:.0f} s (free heap {kib(free)} / "
          f"{rate:.0f} bytes/s of garbage)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
