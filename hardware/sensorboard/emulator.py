"""A virtual DVONN table and an emulated sensor board that runs the REAL firmware.

``VirtualTable`` holds the stacks and models what each hall sensor reads (every magnet south
down; white and red pieces a strong one, black a weak one; the bottom piece's magnet dominates;
seeded noise). ``SensorBoardEmulator`` imports firmware/ with the fakes of
``machine``/``rp2`` (mpy_fakes), wires the fake ADC through the real multiplexer addressing to
the table, and speaks over a real pseudo-terminal whose slave end is reached through a stable
symlink (``.port``), like a udev by-id name, so a replugged board reappears at the same path.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import random
import select
import shutil
import tempfile
import threading
import tty
from types import ModuleType, TracebackType
from typing import Any

from engine.geometry import NUM_CELLS
from hardware.clock import Clock, FakeClock

from . import SensorBoardError, mpy_fakes
from .protocol import SNAPSHOT, snapshot_payload

PIECES = "wbr"
#: Every piece carries its magnet south pole down (stacks attract; the reading rises). White
#: and red pieces: a 6x2 mm N35 disc ("strong", polarity 'n'); black: 3x1 mm ("weak", 's').
#: Red DVONN pieces read like white ones; the game tells them apart.
MAGNET_MM = {"w": (6.0, 2.0), "b": (3.0, 1.0), "r": (6.0, 2.0)}  # diameter, thickness
REMANENCE_MT = 1200.0  # N35
SENSOR_GAP_MM = 4.0  # magnet face to the Hall element (3 mm top, element 1 mm in the sensor)
PIECE_MM = 6.0  # each piece higher puts its magnet this much further away
COUNTS_PER_MT = 65536 / 3300 * 15  # DRV5055A3 at 3.3 V: 15 mV/mT; u16 over 3.3 V: ~298
NOISE_SIGMA = 40.0
OFFSET_COUNTS = 500  # 25 mV
FLICKER_COUNTS = 14000.0  # a hand carrying a piece over the cell (south down, as all)


def disc_field_mt(diameter: float, thickness: float, z: float) -> float:
    """On-axis field (mT) of an N35 disc magnet ``z`` mm from its face."""
    r2, top = (diameter / 2) ** 2, z + thickness
    return REMANENCE_MT / 2 * (top / math.sqrt(r2 + top * top) - z / math.sqrt(r2 + z * z))


#: The bottom piece's field at the sensor, in ADC counts (u16): ~16900 strong, ~3840 weak.
STRONG_COUNTS = disc_field_mt(*MAGNET_MM["w"], SENSOR_GAP_MM) * COUNTS_PER_MT
WEAK_COUNTS = disc_field_mt(*MAGNET_MM["b"], SENSOR_GAP_MM) * COUNTS_PER_MT


class VirtualTable:
    """49 cells, each a stack bottom->top of 'w', 'b', 'r'; and what the sensors read."""

    def __init__(self, *, seed: int = 0, clock: Clock | None = None) -> None:
        self._stacks = [""] * NUM_CELLS
        self._rng = random.Random(seed)
        # each sensor's own offset at no field: well under OFF_DELTA, so the emulated board
        # works uncalibrated too (calibration takes it out on a real one)
        self.offsets = [self._rng.randint(-OFFSET_COUNTS, OFFSET_COUNTS) for _ in range(NUM_CELLS)]
        self._noise_until: dict[int, float] = {}
        self.clock = clock

    @staticmethod
    def _check_cell(cell: int) -> int:
        if not isinstance(cell, int) or not 0 <= cell < NUM_CELLS:
            raise SensorBoardError(f"cell must be 0..{NUM_CELLS - 1}, got {cell!r}")
        return cell

    def put(self, cell: int, stack: str) -> None:
        """Set the stack on ``cell`` (bottom->top, e.g. 'wbr'; '' empties it)."""
        self._check_cell(cell)
        for i, ch in enumerate(stack):
            if ch not in PIECES:
                raise SensorBoardError(f"stack {stack!r} for cell {cell}: piece {ch!r} at "
                                       f"offset {i} is not one of 'w', 'b', 'r'")
        self._stacks[cell] = stack

    def lift(self, cell: int) -> str:
        """Take the whole stack off ``cell`` and return it."""
        stack = self._stacks[self._check_cell(cell)]
        self._stacks[cell] = ""
        return stack

    def get(self, cell: int) -> str:
        return self._stacks[self._check_cell(cell)]

    def noise(self, cell: int, duration: float) -> None:
        """Make ``cell`` read as if a magnet hovered over it for ``duration`` s (a flicker)."""
        self._check_cell(cell)
        if self.clock is None:
            raise SensorBoardError("VirtualTable.noise needs a clock (give one or attach the "
                                   "table to an emulator)")
        self._noise_until[cell] = self.clock.now() + duration

    def cells(self) -> str:
        """The snapshot string the board should report: '.' empty, 'x' occupied."""
        return "".join("x" if s else "." for s in self._stacks)

    def polarity(self) -> str:
        """Per cell what the board should see: '.', 'n' (strong magnet: white or red bottom
        piece), 's' (weak magnet: black bottom piece)."""
        return "".join("." if not s else ("s" if s[0] == "b" else "n") for s in self._stacks)

    def field(self, cell: int) -> float:
        """The magnets' contribution at the sensor (ADC counts, no noise)."""
        total = 0.0
        for height, piece in enumerate(self._stacks[cell]):
            z = SENSOR_GAP_MM + PIECE_MM * height
            total += disc_field_mt(*MAGNET_MM[piece], z) * COUNTS_PER_MT
        return total

    def reading(self, cell: int, now: float) -> int:
        """One ADC reading (0..65535) of the sensor under ``cell`` at time ``now``."""
        v = 32768 + self.offsets[cell] + self.field(cell) + self._rng.gauss(0.0, NOISE_SIGMA)
        until = self._noise_until.get(cell)
        if until is not None:
            if now < until:
                v += FLICKER_COUNTS
            else:
                del self._noise_until[cell]
        return max(0, min(65535, int(v)))


class MemoryStore:
    """The firmware's baseline storage, kept across emulated replugs (flash survives)."""

    def __init__(self) -> None:
        self.data: bytes | None = None

    def load(self) -> bytes | None:
        return self.data

    def save(self, data: bytes) -> None:
        self.data = bytes(data)


class _PtyStream:
    """The firmware's link stream: the master end of the pty (non-blocking)."""

    def __init__(self, emulator: SensorBoardEmulator) -> None:
        self._emu = emulator

    def read(self) -> bytes:
        fd = self._emu._master
        if fd is None:
            return b""
        try:
            return os.read(fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> None:
        self._emu._write(data)


def _load_firmware() -> ModuleType:
    mpy_fakes.install()
    return importlib.import_module("firmware.main")


class SensorBoardEmulator:
    """The sensor board on a pseudo-terminal, running firmware/ against a VirtualTable."""

    def __init__(self, table: VirtualTable, *, clock: Clock, seed: int = 0) -> None:
        self.table = table
        self.clock = clock
        if table.clock is None:
            table.clock = clock
        self._rng = random.Random(seed)
        self._fw_main = _load_firmware()
        self._scanner_mod = importlib.import_module("firmware.scanner")
        self.store = MemoryStore()
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._master: int | None = None
        self._slave: int | None = None
        self._dir = tempfile.mkdtemp(prefix="dvonn-sensorboard-")
        self.port = os.path.join(self._dir, "ttyACM-dvonn-sensorboard")
        self.tx_dropped = 0
        self.led_frame: bytes | None = None
        self.led_frames = 0
        self.boots = 0
        self.firmware: Any = None
        try:
            self._plug()
        except BaseException:
            self.close()
            raise

    # -- the cable ----------------------------------------------------------------------------
    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        link = self.port + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.port)
        self._boot()

    def _boot(self) -> None:
        """Power-up: a fresh firmware instance (baseline from the store), HELLO sent."""
        fw = self._fw_main.build(mpy_fakes.machine, _PtyStream(self), ticks=self._ticks,
                                 store=self.store, rp2_module=mpy_fakes.rp2,
                                 sleep_us=self._settle)
        fw.bus.adc.source = self._adc_source
        self.firmware = fw
        self.boots += 1
        fw.boot()
        self._collect_leds()

    def unplug(self) -> None:
        """Pull the cable: the pty pair closes and the port path disappears."""
        with self._lock:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.port)
            for fd in (self._master, self._slave):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = None

    def replug(self) -> None:
        """Plug the cable back in: a new pty at the same ``port`` path, the firmware reboots."""
        with self._lock:
            if self._master is None:
                self._plug()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    # -- the hardware model -------------------------------------------------------------------
    def _ticks(self) -> int:
        return int(self.clock.now() * 1000) % (1 << 30)

    @staticmethod
    def _settle(us: int) -> None:
        """The firmware's mux settling wait: the model's ADC node follows at once, so no wall
        time is spent (tests/firmware/test_settle.py models the RC node)."""

    def _adc_source(self) -> int:
        """What ADC0 reads: the sensor the enabled mux and the select lines pick."""
        bus = self.firmware.bus
        enabled = [m for m, pin in enumerate(bus.enable) if pin.value() == 0]
        if len(enabled) != 1:
            return 32768 + self._rng.randint(-3000, 3000)  # nothing driving SIG: it floats
        sel = bus.select
        channel = sel[0].value() | sel[1].value() << 1 | sel[2].value() << 2 | sel[3].value() << 3
        cell = enabled[0] * 16 + channel
        if cell >= NUM_CELLS:
            return 32768
        return self.table.reading(cell, self.clock.now())

    def _write(self, data: bytes) -> None:
        """Bytes from the firmware to the host; what the pty cannot take is lost (as on USB)."""
        fd = self._master
        if fd is None:
            self.tx_dropped += len(data)
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except (BlockingIOError, OSError):
                self.tx_dropped += len(view)
                return
            view = view[n:]

    def _collect_leds(self) -> None:
        words = self.firmware.leds.sm.take()
        if len(words) >= NUM_CELLS:
            frame = bytearray()
            for w in words[-NUM_CELLS:]:
                frame += bytes(((w >> 24) & 0xFF, (w >> 16) & 0xFF, (w >> 8) & 0xFF))
            self.led_frame = bytes(frame)
            self.led_frames += 1

    @property
    def led_sm(self) -> Any:
        """The (fake) PIO state machine of the LED driver."""
        return self.firmware.leds.sm

    # -- running ------------------------------------------------------------------------------
    def step(self) -> int:
        """One scan cycle of the firmware (reads host frames, scans, maybe reports)."""
        with self._lock:
            if self._master is None:
                return 0
            report = int(self.firmware.step())
            self._collect_leds()
            return report

    def wait_for_host(self, timeout: float) -> bool:
        """Wait (wall time, at most ``timeout`` s) until host bytes are ready for the firmware.

        The kernel hands pty data across asynchronously: a frame the host has just written can
        take some microseconds to become readable here.
        """
        fd = self._master
        if fd is None:
            return False
        ready, _, _ = select.select([fd], [], [], timeout)
        return bool(ready)

    def run_for(self, seconds: float) -> None:
        """Step at the firmware's scan period for ``seconds`` of a FakeClock (no wall time)."""
        if not isinstance(self.clock, FakeClock):
            raise SensorBoardError("run_for needs a FakeClock; use start() for real time")
        period = self.scan_period
        for _ in range(max(1, round(seconds / period))):
            self.clock.advance(period)
            self.step()

    @property
    def scan_period(self) -> float:
        return float(self._scanner_mod.SCAN_PERIOD_MS) / 1000.0

    def start(self) -> None:
        """Scan in a background thread at the firmware's real rate (a FakeClock is advanced)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="sensorboard-emulator",
                                        daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        period = self.scan_period
        while not self._stop.is_set():
            if isinstance(self.clock, FakeClock):
                self.clock.advance(period)
            self.step()
            self._stop.wait(period)

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join(timeout=5)

    def flood(self, n: int) -> None:
        """Send ``n`` snapshot frames back to back (what the pty cannot hold is dropped)."""
        with self._lock:
            fw = self.firmware
            payload = snapshot_payload(list(fw.scanner.states), 0)
            for _ in range(n):
                fw.link.send(SNAPSHOT, payload)

    def inject(self, data: bytes) -> None:
        """Write raw bytes (garbage, partial frames) to the host."""
        with self._lock:
            self._write(bytes(data))

    def close(self) -> None:
        """Stop, unplug and remove the port path; safe twice."""
        self.stop()
        self.unplug()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> SensorBoardEmulator:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
