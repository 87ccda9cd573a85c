"""The firmware's heap on MicroPython over a simulated stretch of scanning (an hour by default:
``minutes=N`` or ``seconds=N`` to change it).

The WebAssembly build of MicroPython collects garbage only between calls from JavaScript
(inside one call ``gc.collect()`` just asks for a collection, and a full heap area gets a new
one added instead), so run.mjs drives this scenario from the top level: it calls ``chunk()``
until that returns False. The first three calls load the fakes, load the firmware, and build
and boot it (as main.run() does before its loop); every later call runs one simulated second
(200 loops of main.run()'s loop body: a step, then sleep out the rest of SCAN_PERIOD_MS).
Each call asks for a collection, which happens as it returns. So at the start of a call
``gc.mem_alloc()`` is the live heap, and inside a call, where nothing is collected, the
difference of two readings is exactly what the code between them allocated.

The fake clock (fake_utime) stands in for ``time`` before the firmware is imported, so the
loop's ticks_ms/sleep_ms and the mux bus's sleep_us are simulated (no wall time), starting half
the run before the ticks_ms wrap at 2**30. The fake machine's ADC reads a simulated table
through the mux pins the firmware drives; the USB stream is in memory. The emulated host sends
CALIBRATE at the start, an LED frame every second, a PING every 10 s and a corrupted frame
every minute; a piece is put down, changed or taken away every 2 s. Nothing on the fakes' side
allocates in the loop (small ints only, frames built beforehand), so what the loop allocates is
the firmware's. The figures are printed as one ``@@heap {json}`` line, then mem_info().
"""

import gc
import json

import fake_utime
import micropython
from harness import option

LOOPS_PER_S = 200  # SCAN_PERIOD_MS = 5


class Stream:
    """The USB stream in memory: the host's next bytes in ``rx``; writes counted, the last
    eight frames kept (in place: no allocation)."""

    def __init__(self):
        self.rx = b""
        self.frames = 0
        self.bytes = 0
        self.tail = [b""] * 8

    def read(self):
        data = self.rx
        if data:
            self.rx = b""
        return data

    def write(self, data):
        self.tail[self.frames & 7] = data
        self.frames += 1
        self.bytes += len(data)


class State:
    pass


st = State()
st.seconds = st.phase = st.pio_puts = 0


def _load_fakes():
    st.total_s = option("seconds", 0) or option("minutes", 60) * 60
    st.heap = gc.mem_alloc() + gc.mem_free()  # changes only if the build adds a heap area
    fake_utime.install((1 << 30) - st.total_s * 500)
    import machine  # the fakes: built in (machine) or frozen (rp2) on a Pico
    import rp2

    st.machine, st.rp2 = machine, rp2


def _load_firmware():
    before = gc.mem_alloc()
    import link
    import main
    import scanner

    st.L, st.M, st.S = link, main, scanner
    st.import_alloc = gc.mem_alloc() - before  # compiling included: nothing is collected here


def _boot():
    link, main, scanner, machine = st.L, st.M, st.S, st.machine
    st.empty = [scanner.NOMINAL + 7 * c for c in range(scanner.CELLS)]  # each sensor a bit off
    st.field = list(st.empty)
    st.levels = (scanner.NOMINAL + 3840, scanner.NOMINAL + 16900, 0)  # black, white, empty
    st.led_wire = link.encode_frame(link.LED_FRAME, 1, bytes(range(147)))
    st.ping_wire = link.encode_frame(link.PING, 2, b"ping")
    bad = bytearray(link.encode_frame(link.PING, 3, b"bad"))
    bad[4] ^= 0x10
    st.bad_wire = bytes(bad)
    st.stream = Stream()
    st.stream.rx = link.encode_frame(link.CALIBRATE, 0, b"\x20")
    # what main.run() does before its loop (the maintenance jumper is open on the fake)
    fw = st.fw = main.build(machine, st.stream, store=main.FileStore())
    enable, select, field = fw.bus.enable, fw.bus.select, st.field

    def source():  # the selected cell's sensor; mux 3's channels 1..15 are AGND
        for m in range(4):
            if enable[m]._value == 0:
                cell = (m << 4 | select[0]._value | select[1]._value << 1
                        | select[2]._value << 2 | select[3]._value << 3)
                return field[cell] if cell < 49 else 0
        return 32768

    fw.bus.adc.read_u16 = source  # straight to the table: the fake ADC's own is slower
    fw.leds.sm.put = _to_the_pio  # the fake's FIFO would keep every word
    fw.boot()
    st.loops = st.moves = st.allocated = st.step_max = st.live_max = st.peak = 0
    st.step_max_at = 0
    # per kind of loop (0: nothing in or out, 1: frames out only, 2: a host frame in):
    # loops, bytes allocated, most bytes in one loop
    st.kinds = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]


def _to_the_pio(words, shift=0):
    """The PIO takes the words out of the TX FIFO as fast as they go in (the fake rp2's
    StateMachine keeps them all for the tests to read, here an hour of LED frames)."""
    st.pio_puts += 1


#: (what gc.mem_alloc() at the start of the call after it is recorded as, the phase)
_PHASES = (("start", _load_fakes), ("fakes", _load_firmware), ("firmware", _boot))


def _loop_second():
    fw, S, stream = st.fw, st.S, st.stream
    ticks_ms, sleep_ms, ticks_diff = st.M.ticks_ms, st.M.sleep_ms, S.ticks_diff
    period = S.SCAN_PERIOD_MS
    mem_alloc = gc.mem_alloc
    for _ in range(LOOPS_PER_S):
        n = st.loops = st.loops + 1
        if n % (2 * LOOPS_PER_S) == LOOPS_PER_S:  # a piece put down, changed or taken away
            st.moves += 1
            cell = (st.moves * 17) % 49
            level = st.levels[(st.moves // 49) % 3]
            st.field[cell] = level if level else st.empty[cell]
        if n % LOOPS_PER_S == 50:
            stream.rx = st.led_wire
        elif n % (10 * LOOPS_PER_S) == 150:
            stream.rx = st.ping_wire
        elif n % (60 * LOOPS_PER_S) == 175:
            stream.rx = st.bad_wire
        fed = stream.rx
        sent = stream.frames
        a = mem_alloc()
        # main.run()'s loop body
        start = ticks_ms()
        fw.step()
        left = period - ticks_diff(ticks_ms(), start)
        if left > 0:
            sleep_ms(left)
        d = mem_alloc() - a
        kind = st.kinds[2 if fed else 1 if stream.frames != sent else 0]
        kind[0] += 1
        kind[1] += d
        if d > kind[2]:
            kind[2] = d
        st.allocated += d
        if d > st.step_max:
            st.step_max, st.step_max_at = d, n


def chunk():
    """The next setup phase, or one simulated second of the loop; False when the run is over."""
    live = gc.mem_alloc()  # a collection ran as the previous call returned
    if st.phase < len(_PHASES):
        name, phase = _PHASES[st.phase]
        setattr(st, name, live)
        phase()
        st.phase += 1
        gc.collect()
        return True
    if gc.mem_alloc() + gc.mem_free() != st.heap and not hasattr(st, "grew_at"):
        st.grew_at = st.seconds
    if st.seconds == 0:
        st.booted = live
    if live > st.live_max:
        st.live_max = live
    if st.seconds == 60:
        st.live_first_minute = live
    if st.seconds == st.total_s:
        _finish(live)
        return False
    _loop_second()
    top = gc.mem_alloc()
    if top > st.peak:
        st.peak = top
    st.seconds += 1
    gc.collect()  # runs when this call returns
    return True


def _times(loops, every, at):
    """How many of the loops 1..loops were at ``at`` modulo ``every``."""
    return 0 if loops < at else (loops - at) // every + 1


def _finish(live):
    L, S, fw = st.L, st.S, st.fw
    sc = fw.scanner
    want = []
    for c in range(S.CELLS):
        v = st.field[c] - st.empty[c]
        want.append(S.LIGHT if v >= S.STRONG_DELTA else S.DARK if v >= S.ON_DELTA else L.EMPTY)
    assert sc.states == want, (sc.states, want)
    assert sc.calibrated and sc.baseline == st.empty, sc.baseline
    frames = L.Deframer().feed(b"".join(f for f in st.stream.tail if f))
    assert len(frames) == 8 and all(m[0] == 1 for m in frames), frames
    n = st.loops
    assert fw.errors_sent == _times(n, 60 * LOOPS_PER_S, 175), fw.errors_sent
    assert fw.leds.frames == _times(n, LOOPS_PER_S, 50) + 1, fw.leds.frames  # + boot's blank
    assert st.stream.frames > n // 40 + _times(n, 10 * LOOPS_PER_S, 150)  # heartbeats, PONGs
    figures = {
        "seconds": st.total_s, "loops": st.loops, "scans": sc.scans, "moves": st.moves,
        "start": st.start, "fakes": st.fakes, "firmware": st.firmware, "booted": st.booted,
        "live_first_minute": getattr(st, "live_first_minute", None),
        "live_max": st.live_max, "end": live,
        "peak": st.peak, "allocated": st.allocated, "step_max": st.step_max,
        "step_max_at": st.step_max_at, "grew_at": getattr(st, "grew_at", None),
        "import_alloc": st.import_alloc, "kinds": st.kinds, "pio_puts": st.pio_puts,
        "frames_sent": st.stream.frames, "bytes_sent": st.stream.bytes,
    }
    print("@@heap " + json.dumps(figures))
    micropython.mem_info()  # its "GC: total: ..." line: the size of the heap
