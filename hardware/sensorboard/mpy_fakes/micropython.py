"""MicroPython's ``micropython`` module, as far as the firmware uses it."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")
interrupt_char = 3


def kbd_intr(char: int) -> None:
    """Record the interrupt character (-1: none), as the firmware disables Ctrl-C on the link."""
    global interrupt_char
    interrupt_char = char


def const(value: T) -> T:
    return value
