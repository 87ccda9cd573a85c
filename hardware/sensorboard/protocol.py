"""The host side of the sensor-board protocol (firmware/PROTOCOL.md): codec and stream decoder.

Bytes from the wire go into ``FrameDecoder.feed``; it splits on 0x00, undoes COBS, checks the
CRC, version and the payload length the message type requires, and yields only frames that pass
every check. Everything else is a drop: logged at debug level and counted in ``drops``. It never
raises on bad input, so a corrupted frame can never turn into a false snapshot.
"""

from __future__ import annotations

import binascii
import logging
from dataclasses import asdict, dataclass, field

from engine.geometry import NUM_CELLS

log = logging.getLogger("hardware.sensorboard")

VERSION = 1

HELLO = 0x01
SNAPSHOT = 0x02
LED_FRAME = 0x03
CALIBRATE = 0x04
CALIBRATED = 0x05
PING = 0x06
PONG = 0x07
ERROR = 0x7F
MESSAGE_NAMES = {HELLO: "HELLO", SNAPSHOT: "SNAPSHOT", LED_FRAME: "LED_FRAME",
                 CALIBRATE: "CALIBRATE", CALIBRATED: "CALIBRATED", PING: "PING", PONG: "PONG",
                 ERROR: "ERROR"}
ERROR_NAMES = {1: "bad version", 2: "unknown type", 3: "bad length", 4: "busy", 5: "bad frame"}

MAX_PAYLOAD = 248
MAX_RAW = 3 + MAX_PAYLOAD + 2
MAX_ENCODED = MAX_RAW + 1

# NORTH/SOUTH are the wire names: 1 a strong magnet (white or red bottom piece), 2 a weak one
# (black); every magnet sits south pole down (firmware/PROTOCOL.md).
EMPTY, NORTH, SOUTH, UNREADABLE = 0, 1, 2, 3
CELL_CHARS = ".xx?"  # snapshot string (ARCHITECTURE.md): polarity does not tell the colour
POLARITY_CHARS = ".ns?"
F_CHANGE, F_UNCALIBRATED, F_CALIBRATING, F_PENDING = 0x01, 0x02, 0x04, 0x08

SNAPSHOT_LEN = 1 + (NUM_CELLS + 3) // 4
CALIBRATED_LEN = 2 + 4 * NUM_CELLS
LED_FRAME_LEN = 3 * NUM_CELLS
HELLO_MIN_LEN = 10


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (binascii.crc_hqx is this CRC with init 0xFFFF)."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Canonical COBS encoding of ``data`` (no delimiter)."""
    out = bytearray()
    parts = bytes(data).split(b"\x00")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        while len(part) >= 254:
            out.append(0xFF)
            out += part[:254]
            part = part[254:]
            if not part and i == last:
                return bytes(out)
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo COBS; ValueError on a zero byte or a block that runs past the end."""
    if 0 in data:
        raise ValueError("zero byte inside a COBS frame")
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        end = i + code
        if end > n:
            raise ValueError(f"COBS block at offset {i} runs past the end ({end} > {n})")
        out += data[i + 1:end]
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(mtype: int, seq: int, payload: bytes = b"", version: int = VERSION) -> bytes:
    """One frame for the wire, 0x00 delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds the maximum {MAX_PAYLOAD}")
    raw = bytes((version & 0xFF, mtype & 0xFF, seq & 0xFF)) + bytes(payload)
    crc = crc16(raw)
    return cobs_encode(raw + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame that passed every check."""

    version: int
    mtype: int
    seq: int
    payload: bytes


@dataclass(slots=True)
class DropCounters:
    """Why frames were dropped, one counter per reason."""

    bad_cobs: int = 0
    bad_crc: int = 0
    bad_version: int = 0
    oversized: int = 0
    truncated: int = 0
    bad_length: int = 0
    unknown_type: int = 0

    @property
    def total(self) -> int:
        return sum(asdict(self).values())

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def _payload_ok(mtype: int, payload: bytes) -> bool:
    n = len(payload)
    if mtype == SNAPSHOT:
        return n == SNAPSHOT_LEN
    if mtype == HELLO:
        return n == 0 or (n >= HELLO_MIN_LEN and n == HELLO_MIN_LEN + payload[9])
    if mtype == CALIBRATED:
        return n == CALIBRATED_LEN
    if mtype in (PING, PONG):
        return n <= 32
    if mtype == ERROR:
        return 2 <= n <= 66
    if mtype == LED_FRAME:
        return n == LED_FRAME_LEN
    if mtype == CALIBRATE:
        return n <= 1
    return True


@dataclass
class FrameDecoder:
    """Streaming decoder: ``feed(bytes) -> [Frame]``; resynchronises at every 0x00."""

    drops: DropCounters = field(default_factory=DropCounters)
    frames: int = 0
    last_bad_version: int | None = None
    _buf: bytearray = field(default_factory=bytearray, repr=False)
    _discarding: bool = field(default=False, repr=False)

    def _drop(self, kind: str, detail: str) -> None:
        setattr(self.drops, kind, getattr(self.drops, kind) + 1)
        log.debug("sensor board: dropped a frame (%s): %s", kind, detail)

    def reset(self) -> None:
        """Forget a partial frame (the link went away mid-frame): counted as truncated."""
        if self._buf and not self._discarding:
            self._drop("truncated", f"{len(self._buf)} bytes of an unfinished frame")
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        if not data:
            return out
        pieces = bytes(data).split(b"\x00")
        for piece in pieces[:-1]:
            if self._discarding:
                self._discarding = False
                self._buf = bytearray()
                continue
            body = bytes(self._buf) + piece if self._buf else piece
            self._buf = bytearray()
            if body:
                frame = self._decode(body)
                if frame is not None:
                    out.append(frame)
        tail = pieces[-1]
        if tail and not self._discarding:
            self._buf += tail
            if len(self._buf) > MAX_ENCODED:
                self._drop("oversized", f"more than {MAX_ENCODED} bytes without a delimiter")
                self._buf = bytearray()
                self._discarding = True
        return out

    def _decode(self, body: bytes) -> Frame | None:
        if len(body) > MAX_ENCODED:
            self._drop("oversized", f"{len(body)} encoded bytes > {MAX_ENCODED}")
            return None
        try:
            raw = cobs_decode(body)
        except ValueError as exc:
            self._drop("bad_cobs", str(exc))
            return None
        if len(raw) < 5:
            self._drop("truncated", f"{len(raw)} bytes, header and CRC need 5")
            return None
        crc = (raw[-2] << 8) | raw[-1]
        if crc16(raw[:-2]) != crc:
            self._drop("bad_crc", f"CRC {crc:04x} != {crc16(raw[:-2]):04x}")
            return None
        if raw[0] != VERSION:
            self.last_bad_version = raw[0]
            self._drop("bad_version", f"protocol version {raw[0]}, host speaks {VERSION}")
            return None
        mtype, payload = raw[1], raw[3:-2]
        if mtype not in MESSAGE_NAMES:
            self._drop("unknown_type", f"message type 0x{mtype:02x}")
            return None
        if not _payload_ok(mtype, payload):
            self._drop("bad_length", f"{MESSAGE_NAMES[mtype]} with {len(payload)} payload bytes")
            return None
        self.frames += 1
        return Frame(raw[0], mtype, raw[2], payload)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A decoded SNAPSHOT: per-cell states (0..3) and flags."""

    seq: int
    flags: int
    states: tuple[int, ...]

    @property
    def cells(self) -> str:
        """The snapshot string: '.' empty, 'x' occupied, '?' unreadable."""
        return "".join(CELL_CHARS[s] for s in self.states)

    @property
    def polarity(self) -> str:
        """Per cell '.', 'n' (strong magnet: white or red bottom piece), 's' (weak magnet:
        black) or '?' (unreadable, or a magnet upside down)."""
        return "".join(POLARITY_CHARS[s] for s in self.states)

    @property
    def changed(self) -> bool:
        return bool(self.flags & F_CHANGE)


def pack_states(states: list[int] | tuple[int, ...]) -> bytes:
    out = bytearray((len(states) + 3) // 4)
    for i, s in enumerate(states):
        out[i >> 2] |= (s & 3) << ((i & 3) * 2)
    return bytes(out)


def snapshot_payload(states: list[int] | tuple[int, ...], flags: int = 0) -> bytes:
    return bytes((flags & 0xFF,)) + pack_states(states)


def parse_snapshot(frame: Frame) -> Snapshot:
    p = frame.payload
    states = tuple((p[1 + (i >> 2)] >> ((i & 3) * 2)) & 3 for i in range(NUM_CELLS))
    return Snapshot(frame.seq, p[0], states)


@dataclass(frozen=True, slots=True)
class Hello:
    """What the board says about itself."""

    protocol: int
    firmware: tuple[int, int, int]
    cells: int
    scan_period_ms: int
    heartbeat_ms: int
    calibrated: bool
    board_id: str


def parse_hello(frame: Frame) -> Hello:
    p = frame.payload
    return Hello(p[0], (p[1], p[2], p[3]), p[4], p[5], (p[6] << 8) | p[7], bool(p[8]),
                 p[10:10 + p[9]].hex())


def parse_calibrated(frame: Frame) -> dict[str, object]:
    """{'rejected', 'samples', 'mean': [49], 'spread': [49]} from a CALIBRATED frame."""
    p = frame.payload
    mean = [(p[2 + 4 * i] << 8) | p[3 + 4 * i] for i in range(NUM_CELLS)]
    spread = [(p[4 + 4 * i] << 8) | p[5 + 4 * i] for i in range(NUM_CELLS)]
    return {"rejected": p[0], "samples": p[1], "mean": mean, "spread": spread}


@dataclass(frozen=True, slots=True)
class BoardErrorInfo:
    code: int
    ref_seq: int
    text: str

    def __str__(self) -> str:
        name = ERROR_NAMES.get(self.code, "error")
        return f"board error {self.code} ({name}) for frame seq {self.ref_seq}: {self.text}"


def parse_error(frame: Frame) -> BoardErrorInfo:
    p = frame.payload
    return BoardErrorInfo(p[0], p[1], p[2:].decode("ascii", "replace"))
