"""Sensor-board firmware entry: build the board from ``machine`` and run the scan loop.

Pin map (see hardware/README.md): GP2..GP5 mux select S0..S3, GP6..GP9 mux enables (active
low), GP26/ADC0 the muxes' common SIG, GP16 WS2812 data, GP22 maintenance jumper (to GND at
power-up: skip the loop so mpremote can reach the REPL), GP25 the on-board LED (heartbeat).
Talks over USB CDC (the REPL port) with the binary protocol of PROTOCOL.md.
"""

try:  # on the chip: flat filesystem
    import leds as _leds
    import link as _link
    import scanner as _scanner
except ImportError:  # CPython (tests, emulator): imported as the firmware package
    from . import leds as _leds
    from . import link as _link
    from . import scanner as _scanner

try:
    from time import sleep_ms, ticks_ms
except ImportError:
    from utime import sleep_ms, ticks_ms

FW_VERSION = (1, 0, 0)
SELECT_PINS = (2, 3, 4, 5)
ENABLE_PINS = (6, 7, 8, 9)
ADC_PIN = 26
LED_PIN = 16
MAINT_PIN = 22
STATUS_LED = 25
BASELINE_FILE = "baseline.bin"


class UsbStream:
    """USB CDC stdio as a non-blocking byte stream (read() returns what is there)."""

    def __init__(self):
        import select
        import sys

        import micropython

        micropython.kbd_intr(-1)  # 0x03 bytes are data, not Ctrl-C
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self):
        buf = bytearray()
        while len(buf) < 512 and self._poll.poll(0):
            buf.extend(self._in.read(1))
        return bytes(buf)

    def write(self, data):
        self._out.write(data)


class UartStream:
    """A machine.UART as the link stream (for a board wired to the Pi's UART instead of USB)."""

    def __init__(self, uart):
        self.uart = uart

    def read(self):
        n = self.uart.any()
        return self.uart.read(n) if n else b""

    def write(self, data):
        self.uart.write(data)


class FileStore:
    """The baseline kept in a file on the chip's flash."""

    def __init__(self, path=BASELINE_FILE):
        self.path = path

    def load(self):
        try:
            with open(self.path, "rb") as f:
                return f.read()
        except OSError:
            return None

    def save(self, data):
        with open(self.path, "wb") as f:
            f.write(data)


def _u16(v):
    return bytes(((v >> 8) & 0xFF, v & 0xFF))


class Firmware:
    """The board: scanner + link + LEDs. ``step()`` is one scan cycle."""

    def __init__(self, scanner, link, leds, store=None, board_id=b"", status_led=None):
        self.scanner = scanner
        self.link = link
        self.leds = leds
        self.store = store
        self.board_id = bytes(board_id)[:16]
        self.status_led = status_led
        self.errors_sent = 0

    def boot(self):
        """Load the stored baseline, blank the LEDs and say HELLO."""
        data = self.store.load() if self.store else None
        n = self.scanner.cells
        if data and len(data) == 2 * n:
            self.scanner.set_baseline([(data[2 * i] << 8) | data[2 * i + 1] for i in range(n)])
        if self.leds:
            self.leds.off()
        self.send_hello()

    def send_hello(self):
        s = self.scanner
        payload = bytes((_link.VERSION,) + FW_VERSION + (
            s.cells, _scanner.SCAN_PERIOD_MS, s.heartbeat_ms >> 8, s.heartbeat_ms & 0xFF,
            1 if s.calibrated else 0, len(self.board_id))) + self.board_id
        self.link.send(_link.HELLO, payload)

    def error(self, code, ref_seq, text):
        self.errors_sent += 1
        self.link.send(_link.ERROR, _link.error_payload(code, ref_seq, text))

    def flags(self):
        s = self.scanner
        f = 0
        if not s.calibrated:
            f |= _link.F_UNCALIBRATED
        if s.calibrating:
            f |= _link.F_CALIBRATING
        if s.flags_pending():
            f |= _link.F_PENDING
        return f

    def handle(self, msg):
        """Act on one host frame (or one bad frame the deframer reported)."""
        if msg[0] == "error":
            kind, seq, version = msg[1], msg[2], msg[3]
            if kind == "bad_version":
                self.error(_link.E_BAD_VERSION, seq,
                           f"protocol {version} not supported, board speaks {_link.VERSION}")
            else:
                self.error(_link.E_BAD_FRAME, 0xFF, "dropped a frame: " + kind)
            return
        _, mtype, seq, payload = msg
        if mtype == _link.LED_FRAME:
            if not self.leds:
                self.error(_link.E_UNKNOWN_TYPE, seq, "this board has no LEDs")
            elif len(payload) != 3 * self.leds.count:
                want = 3 * self.leds.count
                self.error(_link.E_BAD_LENGTH, seq,
                           f"LED frame must be {want} bytes, got {len(payload)}")
            else:
                self.leds.show(payload)
        elif mtype == _link.PING:
            self.link.send(_link.PONG, payload[:32])
        elif mtype == _link.HELLO:
            self.send_hello()
        elif mtype == _link.CALIBRATE:
            if len(payload) > 1:
                self.error(_link.E_BAD_LENGTH, seq, "CALIBRATE takes 0 or 1 byte")
            elif self.scanner.calibrating:
                self.error(_link.E_BUSY, seq, "calibration already running")
            else:
                self.scanner.start_calibration(payload[0] if payload else 32)
        else:
            self.error(_link.E_UNKNOWN_TYPE, seq, f"unknown message type {mtype}")

    def _finish_calibration(self):
        rejected, samples, stats = self.scanner.calibration
        self.scanner.calibration = None
        body = bytearray((min(rejected, 255), samples))
        for mean, spread in stats:
            body.extend(_u16(mean))
            body.extend(_u16(min(spread, 65535)))
        self.link.send(_link.CALIBRATED, bytes(body))
        if self.store:
            data = bytearray()
            for v in self.scanner.baseline:
                data.extend(_u16(v))
            self.store.save(bytes(data))

    def step(self):
        """Handle host frames, scan once, send a snapshot on change or heartbeat."""
        for msg in self.link.poll():
            self.handle(msg)
        report = self.scanner.scan()
        if self.scanner.calibration is not None:
            self._finish_calibration()
        if report:
            flags = self.flags()
            if report == _scanner.REPORT_CHANGE:
                flags |= _link.F_CHANGE
            self.link.send(_link.SNAPSHOT, _link.snapshot_payload(self.scanner.states, flags))
            if self.status_led:
                self.status_led.toggle()
        return report


def build(machine, stream, ticks=None, store=None, rp2_module=None, cells=_scanner.CELLS,
          sleep_us=None):
    """A Firmware on the pins of the pin map, made with ``machine`` (the real one or a fake).

    ``sleep_us`` is the bus's microsecond wait (default: time.sleep_us): the muxes settle
    ``SETTLE_US`` after every select and enable change before the ADC reads. Calibration scans
    use ``MuxBus.read_all_discharged`` (the filter emptied through mux 3's grounded channel
    before every cell), so a cell with nothing wired is rejected instead of copying another.
    """
    Pin = machine.Pin
    select = [Pin(n, Pin.OUT, value=0) for n in SELECT_PINS]
    enable = [Pin(n, Pin.OUT, value=1) for n in ENABLE_PINS]
    adc = machine.ADC(Pin(ADC_PIN))
    bus = _scanner.MuxBus(select, enable, adc, cells, sleep_us)
    scan = _scanner.Scanner(bus.read_all, ticks or ticks_ms, cells,
                            read_calibration=bus.read_all_discharged)
    led_strip = _leds.Leds(Pin(LED_PIN, Pin.OUT), _leds.NUM_LEDS, 0, rp2_module)
    fw = Firmware(scan, _link.Link(stream), led_strip, store, machine.unique_id(),
                  Pin(STATUS_LED, Pin.OUT))
    fw.bus = bus
    return fw


def run():
    """The loop on the chip: one scan every SCAN_PERIOD_MS."""
    import machine

    if machine.Pin(MAINT_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        return  # maintenance jumper: stay at the REPL
    fw = build(machine, UsbStream(), store=FileStore())
    fw.boot()
    period = _scanner.SCAN_PERIOD_MS
    while True:
        start = ticks_ms()
        fw.step()
        left = period - _scanner.ticks_diff(ticks_ms(), start)
        if left > 0:
            sleep_ms(left)


if __name__ == "__main__":
    run()
