"""A fake ``machine`` module: Pin, ADC and UART with just enough behaviour for the firmware.

``ADC.source`` is a callable the emulator sets to model what the analog pin sees (for the
sensor board: the hall sensor selected through the multiplexers).
"""

from __future__ import annotations

from collections.abc import Callable

_UNIQUE_ID = bytes.fromhex("e66038b7133a5d2f")


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id: int, mode: int = -1, pull: int = -1, *, value: int | None = None
                 ) -> None:
        self.id = id
        self.mode = mode
        self.pull = pull
        self._value = 1 if pull == self.PULL_UP else 0
        self.writes = 0
        if value is not None:
            self._value = 1 if value else 0

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return self._value
        self._value = 1 if v else 0
        self.writes += 1
        return None

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)

    def toggle(self) -> None:
        self.value(0 if self._value else 1)

    def __call__(self, v: int | None = None) -> int | None:
        return self.value(v)

    def __repr__(self) -> str:
        return f"Pin({self.id})"


ADC_PINS = {26: 0, 27: 1, 28: 2, 29: 3}


class ADC:
    """``ADC(Pin(26))`` or ``ADC(0)``; ``read_u16()`` asks ``source`` (mid-scale if unset)."""

    def __init__(self, pin: Pin | int) -> None:
        if isinstance(pin, Pin):
            if pin.id not in ADC_PINS:
                raise ValueError(f"Pin({pin.id}) has no ADC")
            self.channel = ADC_PINS[pin.id]
        else:
            self.channel = pin
        self.source: Callable[[], int] | None = None
        self.reads = 0

    def read_u16(self) -> int:
        self.reads += 1
        if self.source is None:
            return 32768
        return max(0, min(65535, int(self.source())))


class UART:
    """An in-memory UART: the firmware reads what ``feed`` put in, ``take`` returns writes."""

    def __init__(self, id: int, baudrate: int = 115200, **kwargs: object) -> None:
        self.id = id
        self.baudrate = baudrate
        self.kwargs = kwargs
        self._rx = bytearray()
        self._tx = bytearray()

    def any(self) -> int:
        return len(self._rx)

    def read(self, n: int = -1) -> bytes | None:
        if not self._rx:
            return None
        if n < 0 or n > len(self._rx):
            n = len(self._rx)
        data = bytes(self._rx[:n])
        del self._rx[:n]
        return data

    def write(self, data: bytes) -> int:
        self._tx.extend(data)
        return len(data)

    def feed(self, data: bytes) -> None:
        self._rx.extend(data)

    def take(self) -> bytes:
        data = bytes(self._tx)
        self._tx.clear()
        return data


def unique_id() -> bytes:
    return _UNIQUE_ID


def freq() -> int:
    return 125_000_000


def reset() -> None:
    raise SystemExit("machine.reset() on the fake machine")
