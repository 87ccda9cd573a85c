"""firmware/link.py on MicroPython against the shared byte-level test vectors (as
tests/firmware/test_link.py does on CPython): CRC, COBS both ways, whole frames, the deframer
with every invalid frame and a byte-at-a-time stream, cell packing, error payloads."""

import link as L
from harness import raises, vectors


def hx(s):
    return bytes.fromhex(s)


def test_crc_vectors():
    for v in vectors()["crc16_ccitt_false"]:
        assert L.crc16(hx(v["data"])) == int(v["crc"], 16), v
    assert L.crc16(b"123456789") == 0x29B1


def test_cobs_vectors_both_ways():
    for v in vectors()["cobs"]:
        data, enc = hx(v["data"]), hx(v["encoded"])
        assert L.cobs_encode(data) == enc, v
        assert L.cobs_decode(enc) == data, v
        assert 0 not in enc


def test_cobs_round_trips_every_length_around_the_block_limit():
    for n in (0, 1, 253, 254, 255, 508, 509):
        for fill in (0, 1, 0xFF):
            data = bytes((fill if i % 7 else (i & 0xFF)) for i in range(n))
            enc = L.cobs_encode(data)
            assert 0 not in enc and L.cobs_decode(enc) == data, (n, fill)


def test_frames_encode_to_the_wire_bytes():
    for f in vectors()["frames"]:
        wire = L.encode_frame(f["type"], f["seq"], hx(f["payload"]))
        assert wire.hex() == f["wire"], f["name"]


def test_frames_decode_through_the_deframer():
    d = L.Deframer()
    for f in vectors()["frames"]:
        msgs = d.feed(hx(f["wire"]))
        assert msgs == [(1, f["type"], f["seq"], hx(f["payload"]))], f["name"]
    assert d.drops == {}


def test_snapshot_vectors_pack_the_cells():
    chars = {".": L.EMPTY, "n": L.NORTH, "s": L.SOUTH, "?": L.UNREADABLE}
    for f in vectors()["frames"]:
        if f["type"] != L.SNAPSHOT:
            continue
        states = [chars[c] for c in f["polarity"]]
        assert L.snapshot_payload(states, f["flags"]).hex() == f["payload"], f["name"]
        assert L.unpack_cells(hx(f["payload"])[1:], 49) == states, f["name"]


def test_invalid_frames_are_counted_drops():
    for v in vectors()["invalid_frames"]:
        d = L.Deframer()
        out = d.feed(hx(v["wire"]))
        if v.get("host_only"):
            assert out and out[0][0] == 1, v["name"]
            continue
        assert d.drops == {v["drop"]: 1}, (v["name"], d.drops)
        assert all(m[0] == "error" for m in out), v["name"]


def test_stream_vector_resynchronises():
    d = L.Deframer()
    wire = hx(vectors()["stream"]["wire"])
    got = []
    for i in range(len(wire)):  # a byte at a time
        got.extend(d.feed(wire[i:i + 1]))
    snaps = [m for m in got if m[0] == 1 and m[1] == L.SNAPSHOT]
    assert len(snaps) == 2
    assert sum(d.drops.values()) == 2


def test_payload_too_long_is_refused():
    raises(ValueError, L.encode_frame, L.PING, 0, bytes(L.MAX_PAYLOAD + 1))
    assert len(L.encode_frame(L.PING, 0, b"\x01" * L.MAX_PAYLOAD)) == L.MAX_ENCODED + 1


def test_frame_error_carries_its_kind_and_message():
    """A ValueError subclass built with an extra argument: how it is made differs on
    MicroPython (no ValueError.__init__ to call as a plain function)."""
    exc = raises(L.FrameError, L.decode_body, b"\x03\x01")
    assert exc.kind == "bad_cobs", exc.kind
    assert isinstance(exc, ValueError)
    assert str(exc) == "COBS block runs past the end of the frame", str(exc)
    exc = raises(L.FrameError, L.decode_body, L.cobs_encode(bytes((2, 6, 9, 0x12, 0x34))))
    assert exc.kind == "bad_crc" and str(exc) == "CRC mismatch"


def test_bad_version_keeps_the_seq_and_the_version():
    d = L.Deframer()
    (msg,) = d.feed(L.encode_frame(L.PING, 77, b"x", version=2))
    assert msg == ("error", "bad_version", 77, 2), msg
    assert d.drops == {"bad_version": 1} and d.last_error == ("bad_version", None)


def test_oversized_frame_is_dropped_then_the_link_resynchronises():
    d = L.Deframer()
    out = d.feed(b"\x01" * (L.MAX_ENCODED + 10) + b"\x00" + L.encode_frame(L.PING, 3, b"ok"))
    assert out == [(1, L.PING, 3, b"ok")], out
    assert d.drops == {"oversized": 1}


def test_error_payload_and_cells():
    assert L.error_payload(3, 7, "bad length") == b"\x03\x07bad length"
    assert L.error_payload(3, 0x1FF, b"x" * 100) == b"\x03\xff" + b"x" * 64
    states = [i % 4 for i in range(49)]
    packed = L.pack_cells(states)
    assert len(packed) == 13 and L.unpack_cells(packed, 49) == states


class Pipe:
    def __init__(self):
        self.data = b""

    def read(self):
        data, self.data = self.data, b""
        return data

    def write(self, data):
        self.data += data


def test_link_sends_with_a_wrapping_seq_and_polls():
    a, b = Pipe(), Pipe()
    tx = L.Link(a)
    for _ in range(300):
        tx.send(L.PING, b"p")
    rx = L.Link(a)
    msgs = rx.poll()
    assert len(msgs) == 300 and tx.sent == 300 and tx.seq == 300 & 0xFF
    assert [m[2] for m in msgs[254:258]] == [254, 255, 0, 1]
    assert not L.Link(b).poll()
