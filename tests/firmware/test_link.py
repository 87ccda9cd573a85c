"""The firmware codec (firmware/link.py) against the shared byte-level test vectors."""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest

from firmware import link as L
from tests.firmware.conftest import FIRMWARE


def test_crc_vectors(vectors: dict[str, Any]) -> None:
    for v in vectors["crc16_ccitt_false"]:
        assert L.crc16(bytes.fromhex(v["data"])) == int(v["crc"], 16), v


def test_cobs_vectors_both_ways(vectors: dict[str, Any]) -> None:
    for v in vectors["cobs"]:
        data, enc = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
        assert L.cobs_encode(data) == enc
        assert L.cobs_decode(enc) == data
        assert 0 not in enc


def test_frames_encode_to_the_wire_bytes(vectors: dict[str, Any]) -> None:
    for f in vectors["frames"]:
        wire = L.encode_frame(f["type"], f["seq"], bytes.fromhex(f["payload"]))
        assert wire.hex() == f["wire"], f["name"]


def test_frames_decode_through_the_deframer(vectors: dict[str, Any]) -> None:
    d = L.Deframer()
    for f in vectors["frames"]:
        (msg,) = d.feed(bytes.fromhex(f["wire"]))
        assert msg == (1, f["type"], f["seq"], bytes.fromhex(f["payload"])), f["name"]
    assert d.drops == {}


def test_snapshot_vectors_pack_the_cells(vectors: dict[str, Any]) -> None:
    chars = {".": L.EMPTY, "n": L.NORTH, "s": L.SOUTH, "?": L.UNREADABLE}
    for f in vectors["frames"]:
        if f["type"] != L.SNAPSHOT:
            continue
        states = [chars[c] for c in f["polarity"]]
        assert L.snapshot_payload(states, f["flags"]).hex() == f["payload"]
        assert L.unpack_cells(bytes.fromhex(f["payload"])[1:], 49) == states


def test_invalid_frames_are_counted_drops(vectors: dict[str, Any]) -> None:
    for v in vectors["invalid_frames"]:
        d = L.Deframer()
        out = d.feed(bytes.fromhex(v["wire"]))
        if v.get("host_only"):
            assert out and out[0][0] == 1, v["name"]  # well-formed: the firmware answers ERROR
            continue
        assert d.drops == {v["drop"]: 1}, v["name"]
        assert all(m[0] == "error" for m in out), v["name"]


def test_stream_vector_resynchronises(vectors: dict[str, Any]) -> None:
    d = L.Deframer()
    wire = bytes.fromhex(vectors["stream"]["wire"])
    got = [m for b in range(len(wire)) for m in d.feed(wire[b:b + 1])]  # byte at a time
    snaps = [m for m in got if m[0] == 1 and m[1] == L.SNAPSHOT]
    assert len(snaps) == 2
    assert sum(d.drops.values()) == 2


def test_payload_too_long_is_refused() -> None:
    with pytest.raises(ValueError):
        L.encode_frame(L.PING, 0, bytes(L.MAX_PAYLOAD + 1))
    assert len(L.encode_frame(L.PING, 0, b"\x01" * L.MAX_PAYLOAD)) == L.MAX_ENCODED + 1


SELF_DOC = re.compile(r"\{[^{}'\"]*=(![rsa])?(:[^{}]*)?\}")
ALLOWED_IMPORTS = {"machine", "rp2", "utime", "time", "micropython", "select", "sys", "array",
                   "link", "leds", "scanner"}


@pytest.mark.parametrize("name", ["link.py", "scanner.py", "leds.py", "main.py"])
def test_firmware_stays_micropython_compatible(name: str) -> None:
    source = (FIRMWARE / name).read_text()
    assert not SELF_DOC.search(source), f"{name}: no f-string '=' specifiers on MicroPython"
    assert "dataclass" not in source and "typing" not in source, name
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name in ALLOWED_IMPORTS, (name, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                assert node.module in ALLOWED_IMPORTS, (name, node.module)
        elif isinstance(node, ast.AnnAssign):
            pytest.fail(f"{name}:{node.lineno}: no variable annotations in firmware")
