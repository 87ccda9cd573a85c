"""The host codec (hardware/sensorboard/protocol.py): shared test vectors and a decoder fuzz."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.sensorboard import protocol as P

VECTORS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "firmware" / "test_vectors.json").read_text())
FRAMES = {f["name"]: f for f in VECTORS["frames"]}


def test_crc_and_cobs_vectors() -> None:
    for v in VECTORS["crc16_ccitt_false"]:
        assert P.crc16(bytes.fromhex(v["data"])) == int(v["crc"], 16)
    for v in VECTORS["cobs"]:
        data, enc = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
        assert P.cobs_encode(data) == enc
        assert P.cobs_decode(enc) == data


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_frame_vectors_encode_and_decode(name: str) -> None:
    f = FRAMES[name]
    payload = bytes.fromhex(f["payload"])
    assert P.encode_frame(f["type"], f["seq"], payload).hex() == f["wire"]
    dec = P.FrameDecoder()
    assert dec.feed(bytes.fromhex(f["wire"])) == [P.Frame(1, f["type"], f["seq"], payload)]
    assert dec.drops.total == 0


def test_parsed_messages_match_the_vectors() -> None:
    frame = P.FrameDecoder().feed(bytes.fromhex(FRAMES["hello"]["wire"]))[0]
    hello = P.parse_hello(frame)
    want = FRAMES["hello"]["hello"]
    assert (hello.protocol, list(hello.firmware), hello.cells, hello.scan_period_ms,
            hello.heartbeat_ms, hello.calibrated, hello.board_id) == tuple(want.values())
    for name in ("snapshot-empty", "snapshot-pieces"):
        snap = P.parse_snapshot(P.FrameDecoder().feed(bytes.fromhex(FRAMES[name]["wire"]))[0])
        assert (snap.cells, snap.polarity, snap.flags) == (
            FRAMES[name]["cells"], FRAMES[name]["polarity"], FRAMES[name]["flags"])
    cal = P.parse_calibrated(P.FrameDecoder().feed(bytes.fromhex(FRAMES["calibrated"]["wire"]))[0])
    assert cal == FRAMES["calibrated"]["calibration"]
    err = P.parse_error(P.FrameDecoder().feed(bytes.fromhex(FRAMES["error-bad-length"]["wire"]))[0])
    assert (err.code, err.ref_seq, err.text) == tuple(FRAMES["error-bad-length"]["error"].values())
    assert "bad length" in str(err)


@pytest.mark.parametrize("vec", VECTORS["invalid_frames"], ids=lambda v: v["name"])
def test_invalid_frames_are_counted_drops(vec: dict[str, Any]) -> None:
    dec = P.FrameDecoder()
    assert dec.feed(bytes.fromhex(vec["wire"])) == []
    assert dec.drops.as_dict()[vec["drop"]] == 1 and dec.drops.total == 1
    if vec["drop"] == "bad_version":
        assert dec.last_bad_version == 2


def test_stream_vector_resynchronises_byte_by_byte() -> None:
    dec = P.FrameDecoder()
    wire = bytes.fromhex(VECTORS["stream"]["wire"])
    frames = [f for i in range(len(wire)) for f in dec.feed(wire[i:i + 1])]
    assert [P.parse_snapshot(f).cells for f in frames] == VECTORS["stream"]["snapshots"]
    assert dec.drops.total == 2


def test_oversized_run_without_delimiter_is_dropped_once() -> None:
    dec = P.FrameDecoder()
    assert dec.feed(b"\x11" * 10_000) == []
    good = bytes.fromhex(FRAMES["snapshot-empty"]["wire"])
    assert len(dec.feed(b"\x22" * 300 + b"\x00" + good)) == 1  # same run: one drop
    assert dec.drops.oversized == 1
    assert dec.feed(b"\x33" * 300 + b"\x00" + good + good)[-1].mtype == P.SNAPSHOT
    assert dec.drops.oversized == 2 and dec.drops.total == 2


def test_reset_counts_a_cut_off_frame() -> None:
    dec = P.FrameDecoder()
    dec.feed(bytes.fromhex(FRAMES["snapshot-pieces"]["wire"])[:6])
    dec.reset()
    assert dec.drops.truncated == 1
    assert len(dec.feed(bytes.fromhex(FRAMES["snapshot-pieces"]["wire"]))) == 1


# -- fuzz -------------------------------------------------------------------------------------
GOOD_SNAPSHOTS = [bytes.fromhex(FRAMES[n]["wire"]) for n in ("snapshot-empty", "snapshot-pieces")]
GOOD_STREAM = b"".join(GOOD_SNAPSHOTS * 3)
GOOD_PAYLOADS = {bytes.fromhex(FRAMES[n]["payload"]) for n in ("snapshot-empty", "snapshot-pieces")}


def _check(dec: P.FrameDecoder, frames: list[P.Frame]) -> None:
    for f in frames:
        if f.mtype == P.SNAPSHOT:
            assert f.payload in GOOD_PAYLOADS, "a false snapshot got through"
    assert dec.drops.total >= 0 and dec.frames == len(frames)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.integers(1, 64))
def test_fuzz_random_bytes_never_raise(data: bytes, chunk: int) -> None:
    dec = P.FrameDecoder()
    frames = [f for i in range(0, len(data), chunk) for f in dec.feed(data[i:i + chunk])]
    assert all(f.mtype in P.MESSAGE_NAMES for f in frames)
    assert all(f.mtype != P.SNAPSHOT or len(f.payload) == P.SNAPSHOT_LEN for f in frames)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, len(GOOD_STREAM) * 8 - 1), min_size=1, max_size=8))
def test_fuzz_bit_flips_give_drops_not_false_snapshots(flips: list[int]) -> None:
    data = bytearray(GOOD_STREAM)
    for bit in flips:
        data[bit // 8] ^= 1 << (bit % 8)
    dec = P.FrameDecoder()
    frames = dec.feed(bytes(data))
    _check(dec, frames)
    assert len(frames) + dec.drops.total >= 1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, len(GOOD_STREAM)), st.binary(max_size=40),
       st.sampled_from(["truncate", "wrong_crc", "wrong_version", "oversize"]))
def test_fuzz_damaged_frames_are_counted(cut: int, junk: bytes, how: str) -> None:
    good = GOOD_SNAPSHOTS[1]
    raw = bytearray(P.cobs_decode(good[:-1]))
    if how == "truncate":
        bad = good[: cut % (len(good) - 1)] + b"\x00"
    elif how == "wrong_crc":
        raw[-1] ^= 0x5A
        bad = P.cobs_encode(bytes(raw)) + b"\x00"
    elif how == "wrong_version":
        bad = P.encode_frame(P.SNAPSHOT, 1, bytes(raw[3:-2]), version=2 + cut % 250)
    else:
        bad = b"\x01" * (P.MAX_ENCODED + 1 + cut % 300) + b"\x00"
    dec = P.FrameDecoder()
    frames = dec.feed(junk.replace(b"\x00", b"") + b"\x00" + bad + good)
    _check(dec, frames)
    assert [f.payload for f in frames][-1:] == [bytes(raw[3:-2])] or how == "wrong_crc"
    assert dec.drops.total >= 1 or (how == "truncate" and cut % (len(good) - 1) == 0)
