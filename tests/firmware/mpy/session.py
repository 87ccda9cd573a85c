"""A scripted session with the sensor board, played on CPython and on MicroPython alike.

``play(board, L, S)`` drives a built firmware (``board``: a Board of tests/firmware/
test_main.py on CPython, of boards.py on MicroPython; ``L``, ``S``: the firmware's link and
scanner modules as that interpreter imports them) through boot, calibration, pieces put down
and taken away, host requests and damaged frames, and returns every byte the board wrote.
Both interpreters must write the same bytes (tests/firmware/test_on_micropython.py). Written
in the subset both run: no typing, no f-string '=', no slice deletion.
"""


def play(board, L, S):
    wire = bytearray()
    fw, uart = board.fw, board.uart

    def steps(n):
        for _ in range(n):
            board.ticks.ms += S.SCAN_PERIOD_MS
            fw.step()
        wire.extend(uart.take())

    def send(mtype, seq, payload=b"", version=1):
        uart.feed(L.encode_frame(mtype, seq, payload, version))

    fw.boot()
    wire.extend(uart.take())
    board.raw[:] = [S.NOMINAL + 11 * c - 200 for c in range(S.CELLS)]
    send(L.CALIBRATE, 1, b"\x08")
    steps(10)
    for k in range(12):  # pieces down, one at a time: black, white, a magnet upside down
        cell = (k * 19) % S.CELLS
        board.raw[cell] = S.NOMINAL + (3900, 17000, -9000)[k % 3] + 11 * cell - 200
        steps(S.DEBOUNCE + k % 5)
    send(L.PING, 2, b"are you there")
    send(L.LED_FRAME, 3, bytes((7 * i) & 0xFF for i in range(147)))
    send(L.LED_FRAME, 4, b"\x01\x02")
    send(0x55, 5, b"?")
    send(L.HELLO, 6)
    send(L.PING, 7, b"v2", version=2)
    steps(1)
    bad = bytearray(L.encode_frame(L.PING, 8, b"crc"))
    bad[2] ^= 0x01
    uart.feed(bytes(bad) + b"\x04\x01\x00" + b"\x02\x01" * 200 + b"\x00")
    steps(1)
    send(L.CALIBRATE, 9, b"\x01\x02")
    steps(50)  # heartbeats
    for k in range(12):  # and taken away again
        cell = (k * 19) % S.CELLS
        board.raw[cell] = S.NOMINAL + 11 * cell - 200
        steps(2)
    board.ticks.ms = (1 << 30) - 300  # across the ticks_ms wrap
    steps(200)
    return bytes(wire)
