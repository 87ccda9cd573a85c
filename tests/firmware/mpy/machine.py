"""A fake ``machine`` for the firmware on the MicroPython interpreter (run.mjs puts it on the
path: the WebAssembly build has no ``machine``). MicroPython-compatible: no typing, no
dataclasses, no ``del`` of slices; the same behaviour as hardware/sensorboard/mpy_fakes/machine.py.

``ADC.source`` is a callable a scenario sets to model what the analog pin sees.
"""

_UNIQUE_ID = b"\xe6\x60\x38\xb7\x13\x3a\x5d\x2f"


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self._value = 1 if pull == Pin.PULL_UP else 0
        self.writes = 0
        if value is not None:
            self._value = 1 if value else 0

    def value(self, v=None):
        if v is None:
            return self._value
        self._value = 1 if v else 0
        self.writes += 1

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def toggle(self):
        self.value(0 if self._value else 1)

    def __call__(self, v=None):
        return self.value(v)


ADC_PINS = {26: 0, 27: 1, 28: 2, 29: 3}


class ADC:
    """``ADC(Pin(26))`` or ``ADC(0)``; ``read_u16()`` asks ``source`` (mid-scale if unset)."""

    def __init__(self, pin):
        if isinstance(pin, Pin):
            if pin.id not in ADC_PINS:
                raise ValueError(f"Pin({pin.id}) has no ADC")
            self.channel = ADC_PINS[pin.id]
        else:
            self.channel = pin
        self.source = None
        self.reads = 0

    def read_u16(self):
        self.reads += 1
        if self.source is None:
            return 32768
        v = self.source()
        return 0 if v < 0 else 65535 if v > 65535 else int(v)


class UART:
    """An in-memory UART: the firmware reads what ``feed`` put in, ``take`` returns writes."""

    def __init__(self, id, baudrate=115200, **kwargs):
        self.id = id
        self.baudrate = baudrate
        self._rx = b""
        self._tx = bytearray()

    def any(self):
        return len(self._rx)

    def read(self, n=-1):
        if not self._rx:
            return None
        if n < 0 or n > len(self._rx):
            n = len(self._rx)
        data = self._rx[:n]
        self._rx = self._rx[n:]
        return data

    def write(self, data):
        self._tx.extend(data)
        return len(data)

    def feed(self, data):
        self._rx = self._rx + bytes(data)

    def take(self):
        data = bytes(self._tx)
        self._tx = bytearray()
        return data


def unique_id():
    return _UNIQUE_ID


def freq():
    return 125000000


def reset():
    raise SystemExit("machine.reset() on the fake machine")
