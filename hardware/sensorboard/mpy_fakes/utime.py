"""MicroPython's ``utime`` ticks functions on CPython (ticks wrap at 2**30 as on the RP2040)."""

from __future__ import annotations

import time

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD // 2


def ticks_ms() -> int:
    return int(time.monotonic() * 1000) % TICKS_PERIOD


def ticks_us() -> int:
    return int(time.monotonic() * 1_000_000) % TICKS_PERIOD


def ticks_diff(a: int, b: int) -> int:
    return ((a - b + _HALF) % TICKS_PERIOD) - _HALF


def ticks_add(a: int, delta: int) -> int:
    return (a + delta) % TICKS_PERIOD


def sleep_ms(ms: int) -> None:
    time.sleep(ms / 1000)


def sleep_us(us: int) -> None:
    time.sleep(us / 1_000_000)


def sleep(seconds: float) -> None:
    time.sleep(seconds)
