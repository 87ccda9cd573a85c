"""The host's client for the hall-sensor board over USB serial (pyserial).

``poll(timeout)`` turns the board's frames into ``SnapshotEvent``s stamped with the injected
clock and reports link trouble as
``StatusEvent('disconnected' | 'reconnected' | 'silent' | 'board-error')``.
When the port vanishes (cable pulled, board reset) the client retries with exponential back-off
on the clock and, once back, reports the gap.

A board that hangs but keeps the port open is caught by a silence watchdog: the firmware sends a
SNAPSHOT heartbeat several times a second, so after ``silence_timeout`` s (injected clock)
without a valid frame the client reports ``StatusEvent('silent')`` once, sends a PING and, if
nothing valid comes within another ``silence_timeout``, closes and reopens the port on the same
back-off path ('disconnected'). The outage ends, with one 'reconnected' naming the gap, when a
valid frame arrives again.
"""

from __future__ import annotations

import logging
import os
import select
import time
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any

import serial

from hardware.clock import Clock
from hardware.events import SensorEvent, SnapshotEvent, StatusEvent

from . import SensorBoardError
from .protocol import (
    CALIBRATE,
    CALIBRATED,
    ERROR,
    HELLO,
    LED_FRAME,
    LED_FRAME_LEN,
    PING,
    PONG,
    SNAPSHOT,
    Frame,
    FrameDecoder,
    Hello,
    encode_frame,
    parse_calibrated,
    parse_error,
    parse_hello,
    parse_snapshot,
)

log = logging.getLogger("hardware.sensorboard")

PICO_VID = 0x2E8A
PICO_PID = 0x0005
SerialFactory = Callable[[str, int], Any]
#: The token of the watchdog's PING (a caller's ``ping()`` uses random tokens, so no clash).
WATCHDOG_TOKEN = b"watchdog"
#: Wall seconds a poll still waits for bytes in flight once the watchdog is overdue.
_OVERDUE_GRACE = 0.01


def find_board_port() -> str | None:
    """The device path of the first Raspberry Pi Pico (USB 2E8A:0005) running MicroPython."""
    from serial.tools import list_ports

    for info in list_ports.comports():
        if info.vid == PICO_VID and info.pid == PICO_PID:
            return str(info.device)
    return None


def _check_timeout(timeout: float, what: str) -> None:
    """A reply timeout must be >= 0 s (inf waits for ever); NaN would hang the wait."""
    if not timeout >= 0:
        raise SensorBoardError(f"{what} timeout must be >= 0 s, got {timeout!r}")


def _open_serial(port: str, baudrate: int) -> Any:
    return serial.Serial(port=port, baudrate=baudrate, timeout=0, write_timeout=1.0)


class SensorBoardClient:
    """The sensor board on ``port`` (a device path) or found by its USB VID:PID.

    ``silence_timeout`` (s on ``clock``; 0 turns the watchdog off) is how long a connected
    board may send no valid frame before it counts as hung (see the module docstring).
    """

    def __init__(self, port: str | None = None, *, clock: Clock, baudrate: int = 115200,
                 serial_factory: SerialFactory | None = None, backoff_initial: float = 0.05,
                 backoff_max: float = 2.0, silence_timeout: float = 1.0) -> None:
        if not silence_timeout >= 0:  # also refuses NaN
            raise SensorBoardError(f"silence_timeout must be >= 0 s (0 disables the watchdog), "
                                   f"got {silence_timeout!r}")
        self._port_arg = port
        self._clock = clock
        self._baudrate = baudrate
        self._factory = serial_factory or _open_serial
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._serial: Any = None
        self._closed = False
        self.decoder = FrameDecoder()
        self.hello: Hello | None = None
        self.port: str | None = None
        self._replies: deque[Frame] = deque(maxlen=64)
        self._seq = 0
        self._cells: str | None = None
        self._polarity: str | None = None
        self._down_since: float | None = None
        self._retry_at = 0.0
        self._backoff = backoff_initial
        self._silence_timeout = silence_timeout
        self._last_rx = clock.now()  # last valid frame, or the (re)connect
        self._silent_since: float | None = None  # silence declared: time of the last frame
        self._said_down = False  # 'disconnected' already reported for this silence
        self._ping_at: float | None = None  # the watchdog's PING went out at
        self.silences = 0
        self.reconnects = 0
        self.snapshots = 0
        try:
            self._connect()
        except BaseException:
            self.close()
            raise

    # -- the device ---------------------------------------------------------------------------
    def _connect(self) -> None:
        port = self._port_arg or find_board_port()
        if port is None:
            raise SensorBoardError("no sensor board found: no USB serial device 2E8A:0005 "
                                   "(a Raspberry Pi Pico running MicroPython); pass --port")
        try:
            self._serial = self._factory(port, self._baudrate)
        except (serial.SerialException, OSError) as exc:
            raise SensorBoardError(f"cannot open sensor board port {port!r}: {exc}") from exc
        self.port = port
        self.decoder.reset()
        self._last_rx = self._clock.now()
        self._ping_at = None
        self._send(HELLO, b"")

    def _read(self, wait: float) -> bytes:
        """Bytes the board sent, waiting up to ``wait`` s for the first; raises on a lost link."""
        ser = self._serial
        fileno = getattr(ser, "fileno", None)
        if fileno is not None and wait > 0:
            ready, _, _ = select.select([fileno()], [], [], wait)
            if not ready:
                return b""
        n = ser.in_waiting
        return bytes(ser.read(max(n, 1)))

    def _transmit(self, data: bytes) -> None:
        if self._serial is None:
            raise SensorBoardError(f"sensor board on {self.port!r} is disconnected")
        try:
            self._serial.write(data)
        except (serial.SerialException, OSError) as exc:
            raise SensorBoardError(f"cannot write to the sensor board: {exc}") from exc

    def _send(self, mtype: int, payload: bytes) -> int:
        seq = self._seq
        self._seq = (self._seq + 1) & 0xFF
        self._transmit(encode_frame(mtype, seq, payload))
        return seq

    # -- link loss and recovery ---------------------------------------------------------------
    def _lost(self, exc: BaseException, events: list[SensorEvent]) -> None:
        now = self._clock.now()
        log.warning("sensor board link lost: %s", exc)
        self._drop_serial()
        self.decoder.reset()
        self._down_since = now
        self._ping_at = None
        again = self._silent_since is not None and self._said_down
        # a board that stays silent after a reopen is retried less and less often
        self._backoff = (min(self._backoff * 2, self._backoff_max) if again
                         else self._backoff_initial)
        self._retry_at = now + self._backoff
        if again:
            return  # the players already know; 'reconnected' comes with the first frame
        if self._silent_since is not None:
            self._said_down = True
        events.append(StatusEvent(now, "disconnected", f"sensor board on {self.port}: {exc}"))

    def _drop_serial(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass

    def _try_reconnect(self, timeout: float, events: list[SensorEvent]) -> None:
        now = self._clock.now()
        if now < self._retry_at:
            self._clock.sleep(min(timeout, self._retry_at - now))
            if self._clock.now() < self._retry_at:
                return
        try:
            self._connect()
        except (SensorBoardError, serial.SerialException, OSError) as exc:
            self._drop_serial()
            self._backoff = min(self._backoff * 2, self._backoff_max)
            self._retry_at = self._clock.now() + self._backoff
            log.debug("sensor board reconnect failed (next in %.2f s): %s", self._backoff, exc)
            return
        now = self._clock.now()
        if self._silent_since is not None:
            # The port opening proves nothing for a board that went silent: wait for a frame.
            log.info("sensor board port %s reopened; waiting for the board to speak", self.port)
            return
        gap = now - (self._down_since if self._down_since is not None else now)
        self._down_since = None
        self.reconnects += 1
        events.append(StatusEvent(now, "reconnected",
                                  f"sensor board back on {self.port} after a gap of {gap:.2f} s"))

    # -- the silence watchdog -----------------------------------------------------------------
    def _watch_due(self) -> float | None:
        """Clock time the watchdog next has something to do, or None when it is off."""
        if self._silence_timeout <= 0 or self._serial is None:
            return None
        start = self._ping_at if self._ping_at is not None else self._last_rx
        return start + self._silence_timeout

    def _heard(self, events: list[SensorEvent]) -> None:
        """A valid frame arrived: the board is alive; end a silence with one 'reconnected'."""
        now = self._clock.now()
        self._last_rx = now
        self._ping_at = None
        if self._silent_since is None:
            return
        gap = now - self._silent_since
        self._silent_since = None
        if self._said_down:
            self._said_down = False
            self._down_since = None
            self.reconnects += 1
        log.warning("sensor board on %s answering again after %.2f s of silence", self.port, gap)
        events.append(StatusEvent(now, "reconnected", f"sensor board on {self.port} answering "
                                  f"again after a gap of {gap:.2f} s"))

    def _watch(self, events: list[SensorEvent]) -> None:
        """Notice a board that stopped talking: report once, PING it, then reopen the port."""
        due = self._watch_due()
        now = self._clock.now()
        if due is None or now < due:
            return
        quiet = now - (self._silent_since if self._silent_since is not None else self._last_rx)
        if self._ping_at is not None:
            self._lost(SensorBoardError(f"silent for {quiet:.2f} s and no answer to a PING "
                                        f"within {self._silence_timeout:g} s; reopening the "
                                        f"port"), events)
            return
        if self._silent_since is None:
            self._silent_since = self._last_rx
            self.silences += 1
            log.warning("sensor board on %s silent for %.2f s", self.port, quiet)
            beat = f" (a heartbeat is due every {self.hello.heartbeat_ms} ms)" if self.hello else ""
            events.append(StatusEvent(now, "silent", f"no frame from the sensor board on "
                                      f"{self.port} for {quiet:.2f} s{beat}; sent a PING"))
        self._ping_at = now
        try:
            self._send(PING, WATCHDOG_TOKEN)
        except SensorBoardError as exc:
            self._lost(exc, events)

    @property
    def connected(self) -> bool:
        return self._serial is not None

    # -- the public interface -----------------------------------------------------------------
    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        """Events that arrived, waiting up to ``timeout`` s for the first of them."""
        if self._closed:
            raise SensorBoardError("sensor board client is closed")
        if timeout != timeout:  # NaN would never reach the deadline: poll forever
            raise SensorBoardError(f"poll timeout must be a number of seconds, got {timeout!r}")
        events: list[SensorEvent] = []
        if self._serial is None:
            self._try_reconnect(timeout, events)
            return events  # the news first; the board's frames on the next poll
        deadline = time.monotonic() + timeout
        while True:
            wait = max(0.0, deadline - time.monotonic())
            due = self._watch_due()
            if due is not None:  # wake for the watchdog (bytes in flight get a short grace)
                wait = min(wait, max(due - self._clock.now(), _OVERDUE_GRACE))
            try:
                data = self._read(wait)
            except (serial.SerialException, OSError) as exc:
                self._lost(exc, events)
                return events
            if data:
                frames = self.decoder.feed(data)
                if frames:
                    self._heard(events)
                self._handle(frames, events)
            self._watch(events)
            if events or self._serial is None or time.monotonic() >= deadline:
                return events

    def _handle(self, frames: list[Frame], events: list[SensorEvent]) -> None:
        for frame in frames:
            if frame.mtype == SNAPSHOT:
                snap = parse_snapshot(frame)
                self._cells = snap.cells
                self._polarity = snap.polarity
                self.snapshots += 1
                events.append(SnapshotEvent(self._clock.now(), snap.cells, snap.polarity))
            elif frame.mtype == HELLO and frame.payload:
                self.hello = parse_hello(frame)
            elif frame.mtype in (PONG, CALIBRATED):
                self._replies.append(frame)
            elif frame.mtype == ERROR:
                info = parse_error(frame)
                log.warning("sensor board: %s", info)
                self._replies.append(frame)
                events.append(StatusEvent(self._clock.now(), "board-error", str(info)))

    def cells(self) -> str | None:
        """The last snapshot string ('.', 'x', '?'), or None before the first."""
        return self._cells

    def polarity(self) -> str:
        """The last per-cell polarity: '.' empty, 'n' a strong magnet (white or red bottom
        piece), 's' a weak one (black), '?' unreadable (or a magnet upside down); all '?'
        before the first snapshot."""
        return self._polarity if self._polarity is not None else "?" * 49

    def send_leds(self, payload: bytes) -> None:
        """Show one LED frame: 49 LEDs x GRB, in chain order (147 bytes)."""
        if len(payload) != LED_FRAME_LEN:
            raise SensorBoardError(f"LED frame must be {LED_FRAME_LEN} bytes (49 LEDs x GRB), "
                                   f"got {len(payload)}")
        self._send(LED_FRAME, bytes(payload))

    def _await(self, mtype: int, seq: int, timeout: float, what: str) -> Frame:
        """Poll until a reply of ``mtype`` (or an ERROR naming ``seq``) arrives."""
        deadline = time.monotonic() + timeout
        while True:
            while self._replies:
                frame = self._replies.popleft()
                if frame.mtype == mtype:
                    return frame
                if frame.mtype == ERROR:
                    info = parse_error(frame)
                    if info.ref_seq == seq:
                        raise SensorBoardError(f"{what} refused: {info}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise SensorBoardError(f"no answer from the sensor board to {what} within "
                                       f"{timeout:g} s (port {self.port})")
            self.poll(min(left, 0.05))

    def ping(self, timeout: float = 1.0) -> float:
        """Round trip in seconds (on the injected clock); raises if no PONG comes."""
        _check_timeout(timeout, "PING")
        token = os.urandom(4)
        start = self._clock.now()
        self._replies.clear()
        seq = self._send(PING, token)
        while True:
            frame = self._await(PONG, seq, timeout, "PING")
            if frame.payload == token:
                return self._clock.now() - start

    def calibrate(self, timeout: float = 5.0, samples: int = 32) -> dict[str, object]:
        """Re-measure every sensor's baseline (the table must be empty); per-cell stats."""
        _check_timeout(timeout, "CALIBRATE")
        if not 1 <= samples <= 255:
            raise SensorBoardError(f"calibration samples must be 1..255, got {samples}")
        self._replies.clear()
        seq = self._send(CALIBRATE, bytes((samples,)))
        return parse_calibrated(self._await(CALIBRATED, seq, timeout, "CALIBRATE"))

    def close(self) -> None:
        """Release the port; safe to call twice."""
        self._closed = True
        self._drop_serial()

    def __enter__(self) -> SensorBoardClient:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
