"""The scripted session (session.py) on MicroPython: its bytes printed as one ``@@wire HEX``
line, for tests/firmware/test_on_micropython.py to compare with CPython's and to decode with
the host's codec."""

import binascii

import link as L
import scanner as S
import session
from boards import Board, Store


def test_session_wire():
    wire = session.play(Board(Store()), L, S)
    assert len(wire) > 1000
    print("@@wire " + binascii.hexlify(wire).decode())
