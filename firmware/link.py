"""Framing for the sensor-board link (see PROTOCOL.md), MicroPython and CPython alike.

A frame on the wire is COBS(version, type, seq, payload..., crc_hi, crc_lo) followed by 0x00.
The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over version..payload.
This module imports nothing of the project: it is copied to the chip as is.
"""

VERSION = 1

HELLO = 0x01
SNAPSHOT = 0x02
LED_FRAME = 0x03
CALIBRATE = 0x04
CALIBRATED = 0x05
PING = 0x06
PONG = 0x07
ERROR = 0x7F

# ERROR codes
E_BAD_VERSION = 1
E_UNKNOWN_TYPE = 2
E_BAD_LENGTH = 3
E_BUSY = 4
E_BAD_FRAME = 5

MAX_PAYLOAD = 248
HEADER = 3
MAX_RAW = HEADER + MAX_PAYLOAD + 2  # 253 bytes before COBS
MAX_ENCODED = MAX_RAW + 1  # 254 bytes of COBS, then the 0x00 delimiter

# Snapshot cell states, 2 bits each
EMPTY = 0
NORTH = 1
SOUTH = 2
UNREADABLE = 3

# Snapshot flags
F_CHANGE = 0x01
F_UNCALIBRATED = 0x02
F_CALIBRATING = 0x04
F_PENDING = 0x08


def _make_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data`` (check value for b'123456789' is 0x29B1)."""
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data):
    """Canonical COBS: no zero bytes in the result; the 0x00 delimiter is not included."""
    out = bytearray()
    block = bytearray()
    last_full = False
    for b in data:
        last_full = False
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
                last_full = True
    if not (last_full and not block):
        out.append(len(block) + 1)
        out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Undo cobs_encode; raises ValueError on a zero byte or a block running past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the end of the frame")
        block = data[i + 1:end]
        if 0 in block:
            raise ValueError("zero byte inside a COBS frame")
        out.extend(block)
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(mtype, seq, payload=b"", version=VERSION):
    """A whole frame ready for the wire, delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    raw = bytearray((version & 0xFF, mtype & 0xFF, seq & 0xFF))
    raw.extend(payload)
    crc = crc16(raw)
    raw.append(crc >> 8)
    raw.append(crc & 0xFF)
    return cobs_encode(raw) + b"\x00"


class FrameError(ValueError):
    """A frame that cannot be used; ``kind`` names the drop counter it belongs to."""

    def __init__(self, kind, message):
        # super(), not ValueError.__init__(self, ...): MicroPython's built-in exception types
        # have no __init__ attribute to call (AttributeError on the chip, at the first bad frame)
        super().__init__(message)
        self.kind = kind


def decode_body(body):
    """(version, type, seq, payload) from one COBS body (no delimiter). Raises FrameError."""
    if len(body) > MAX_ENCODED:
        raise FrameError("oversized", "frame longer than the maximum")
    raw = None
    try:
        raw = cobs_decode(body)
    except ValueError as exc:
        reason = str(exc)
    if raw is None:
        raise FrameError("bad_cobs", reason)
    if len(raw) < HEADER + 2:
        raise FrameError("truncated", "frame shorter than header and CRC")
    crc = (raw[-2] << 8) | raw[-1]
    if crc16(raw[:-2]) != crc:
        raise FrameError("bad_crc", "CRC mismatch")
    if raw[0] != VERSION:
        raise FrameError("bad_version", f"protocol version {raw[0]}")
    return raw[0], raw[1], raw[2], bytes(raw[3:-2])


class Deframer:
    """Streaming splitter: feed() bytes, get back decoded frames; bad ones are counted."""

    def __init__(self):
        self.buf = bytearray()
        self.discarding = False
        self.drops = {}
        self.last_error = None

    def _drop(self, kind, seq=None):
        self.drops[kind] = self.drops.get(kind, 0) + 1
        self.last_error = (kind, seq)

    def feed(self, data):
        """Frames as (version, type, seq, payload) tuples; errors as ('error', kind, raw_seq)."""
        out = []
        for b in data:
            if b != 0:
                if self.discarding:
                    continue
                self.buf.append(b)
                if len(self.buf) > MAX_ENCODED:
                    self._drop("oversized")
                    self.buf = bytearray()
                    self.discarding = True
                continue
            if self.discarding:
                self.discarding = False
                continue
            if not self.buf:
                continue
            body = bytes(self.buf)
            self.buf = bytearray()
            try:
                out.append(decode_body(body))
            except FrameError as exc:
                self._drop(exc.kind)
                seq = None
                if exc.kind == "bad_version":
                    raw = cobs_decode(body)
                    seq = raw[2]
                    out.append(("error", exc.kind, seq, raw[0]))
                else:
                    out.append(("error", exc.kind, None, None))
        return out


def pack_cells(states):
    """49 states (0..3) -> 13 bytes, cell i in bits 2*(i%4) of byte i//4 (LSB first)."""
    out = bytearray((len(states) + 3) // 4)
    for i in range(len(states)):  # not enumerate(): on MicroPython each (i, s) is a new tuple
        out[i >> 2] |= (states[i] & 3) << ((i & 3) * 2)
    return bytes(out)


def unpack_cells(data, n):
    """The inverse of pack_cells for ``n`` cells."""
    return [(data[i >> 2] >> ((i & 3) * 2)) & 3 for i in range(n)]


def snapshot_payload(states, flags):
    """SNAPSHOT payload: flags byte then the packed cells."""
    return bytes((flags & 0xFF,)) + pack_cells(states)


def error_payload(code, ref_seq, text):
    """ERROR payload: code, the seq it answers (0xFF: none), ASCII text (at most 64 bytes)."""
    t = text.encode() if isinstance(text, str) else bytes(text)
    return bytes((code & 0xFF, ref_seq & 0xFF)) + t[:64]


class Link:
    """One end of the link over a byte stream with ``read() -> bytes`` and ``write(bytes)``."""

    def __init__(self, stream):
        self.stream = stream
        self.seq = 0
        self.deframer = Deframer()
        self.sent = 0

    def send(self, mtype, payload=b""):
        frame = encode_frame(mtype, self.seq, payload)
        self.seq = (self.seq + 1) & 0xFF
        self.stream.write(frame)
        self.sent += 1

    def poll(self):
        """Frames that arrived since the last call (see Deframer.feed); an empty tuple when
        nothing did, so an idle scan loop allocates nothing on the chip's heap."""
        data = self.stream.read()
        if not data:
            return ()
        return self.deframer.feed(data)
