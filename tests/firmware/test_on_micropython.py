"""The firmware on the real MicroPython interpreter (issue 24), not only on CPython with fakes.

CPython accepts code MicroPython refuses or runs differently (built-in exceptions without an
``__init__`` to call, 31-bit small ints, a tuple allocated per ``enumerate`` step, missing
modules and methods). So the scenarios in tests/firmware/mpy/ load firmware/*.py as the chip
holds them (flat, next to MicroPython-compatible fakes of machine, rp2 and utime) into
MicroPython's WebAssembly build, run by Node (mpy_runner, run.mjs), one interpreter per
scenario file: every ``test_*`` function there is a test here. They repeat what
test_link/test_scanner/test_settle/test_unwired/test_leds/test_main check on CPython; the
session of session.py must write the same bytes on both interpreters, which the host's codec
decodes; and a simulated minute of the scan loop must keep the heap flat.

`python3 dev.py test` installs the interpreter. Without it these tests skip with the reason,
or fail when CI is set: in CI they never skip.
"""

from __future__ import annotations

import ast
import binascii
import importlib.util
import os
from functools import cache
from typing import Any

import pytest

from firmware import link as FL
from firmware import scanner as FS
from hardware.sensorboard import protocol as P
from tests.firmware import mpy_runner as mpy
from tests.firmware.test_main import Board, Store

REASON = mpy.missing()
if REASON and not os.environ.get("CI"):
    pytest.skip(REASON, allow_module_level=True)

#: the scenario files whose test_* functions are tests here (scenario_heap runs apart)
SCENARIOS = ("scenario_link", "scenario_scanner", "scenario_settle", "scenario_leds",
             "scenario_main", "scenario_wire")
#: each scenario file's interpreter run, at most (they take 0.2-8 s)
TIMEOUT_S = 60


def scenario_tests() -> list[tuple[str, str]]:
    """(scenario, test function) for every test_* function in the scenario files."""
    found = []
    for scenario in SCENARIOS:
        tree = ast.parse((mpy.MPY / f"{scenario}.py").read_text())
        found += [(scenario, node.name) for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    return found


@pytest.fixture(autouse=True)
def _interpreter() -> None:
    if REASON:
        pytest.fail(f"{REASON} (CI is set: the MicroPython tests must run)")


@cache
def ran(scenario: str) -> mpy.Run:
    return mpy.run(scenario, timeout=TIMEOUT_S)


@pytest.mark.parametrize(("scenario", "test"), scenario_tests())
def test_scenario_on_micropython(scenario: str, test: str) -> None:
    result = ran(scenario)
    record = result.results.get(test)
    assert record is not None, (
        f"{scenario}.{test} did not report (exit {result.returncode}):\n"
        f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    assert record["ok"], f"{scenario}.{test} failed on MicroPython:\n{record['error']}"


def test_every_scenario_file_runs_here() -> None:
    on_disk = {p.stem for p in mpy.MPY.glob("scenario_*.py")}
    assert on_disk == {*SCENARIOS, "scenario_heap"}


def _session() -> Any:
    spec = importlib.util.spec_from_file_location("mpy_session", mpy.MPY / "session.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_session_writes_the_same_bytes_on_both_interpreters() -> None:
    on_micropython = binascii.unhexlify(ran("scenario_wire").tagged("wire"))
    on_cpython = _session().play(Board(Store()), FL, FS)
    assert on_micropython == on_cpython
    decoder = P.FrameDecoder()
    frames = decoder.feed(on_micropython)
    assert decoder.drops.total == 0, decoder.drops
    kinds = [f.mtype for f in frames]
    assert kinds[0] == P.HELLO and kinds.count(P.CALIBRATED) == 1 and kinds.count(P.PONG) == 1
    hello = P.parse_hello(frames[0])
    assert (hello.cells, hello.scan_period_ms, hello.heartbeat_ms) == (49, 5, 200)
    errors = [str(P.parse_error(f)) for f in frames if f.mtype == P.ERROR]
    assert len(errors) == 6, errors  # bad length, unknown type, version, CRC, COBS, CALIBRATE
    last = P.parse_snapshot([f for f in frames if f.mtype == P.SNAPSHOT][-1])
    assert last.polarity == "." * 49
    polarities = {P.parse_snapshot(f).polarity for f in frames if f.mtype == P.SNAPSHOT}
    assert any(p.count("s") == 4 and p.count("n") == 4 and p.count("?") == 4
               for p in polarities), polarities


def test_a_minute_of_scanning_keeps_the_heap_flat() -> None:
    """The emulated loop (scenario_heap.py) for one simulated minute: the live heap after the
    first second and after the minute differ by little, a loop with nothing to send allocates
    nothing, and the 192 KiB heap area never needs a second one. benchmarks/firmware_heap.py
    runs the same for an hour."""
    result = mpy.run("scenario_heap", "seconds=60", timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    heap = mpy.heap_figures(result)
    assert heap["grew_at"] is None
    assert heap["end"] - heap["booted"] < 2048, heap
    quiet_loops, quiet_bytes, _ = heap["kinds"][0]
    assert quiet_loops > 11000 and quiet_bytes <= 256, heap["kinds"]
    assert heap["live_max"] < 64 * 1024 and heap["area"] == 192064, heap
