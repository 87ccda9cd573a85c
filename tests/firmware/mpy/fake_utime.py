"""A fake ``utime`` (and ``time``) on a simulated clock, for the firmware on MicroPython.

Not named utime.py: the interpreter has a built-in ``utime``, which an import finds before any
file; ``install()`` puts this module into ``sys.modules`` under both names instead.

Nothing moves on its own: ``sleep_us``/``sleep_ms`` advance the clock, and so can a scenario
(``advance_us``). ``ticks_ms`` wraps at 2**30 as on the RP2040. A scenario installs it with
``install()`` (``sys.modules['time']`` and ``['utime']``) before importing the firmware, whose
``from time import ...`` then gets these. ``on_sleep_ms`` (a callable or None) is called after
every ``sleep_ms``: the hook the heap benchmark samples from. The clock is kept as small ints
(milliseconds modulo 2**30 and the microseconds past them), so it allocates nothing on the
heap it helps to measure.
"""

import sys

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD // 2
_MASK = TICKS_PERIOD - 1  # masks, not `% TICKS_PERIOD`: 2**30 is a long int here

ms = 0  # the simulated time: milliseconds modulo TICKS_PERIOD ...
sub_us = 0  # ... and microseconds past them (0..999)
sleeps = 0
on_sleep_ms = None
_saved = {}


def install(start_ms=0):
    """Reset the clock to ``start_ms`` and stand in for ``time`` and ``utime``."""
    global ms, sub_us, sleeps, on_sleep_ms
    ms = start_ms & _MASK
    sub_us = 0
    sleeps = 0
    on_sleep_ms = None
    me = sys.modules[__name__]
    for name in ("time", "utime"):
        if sys.modules.get(name) is not me:
            _saved[name] = sys.modules.get(name)
        sys.modules[name] = me


def uninstall():
    """Give ``time`` and ``utime`` back to the interpreter's own modules."""
    for name, module in _saved.items():
        if module is None:
            del sys.modules[name]
        else:
            sys.modules[name] = module
    _saved.clear()


def advance_us(n):
    global ms, sub_us
    sub_us += n
    if sub_us >= 1000:
        ms = (ms + sub_us // 1000) & _MASK
        sub_us %= 1000


def ticks_ms():
    return ms


def ticks_us():
    return (ms * 1000 + sub_us) & _MASK


def ticks_diff(a, b):
    return ((a - b + _HALF) & _MASK) - _HALF


def ticks_add(a, delta):
    return (a + delta) & _MASK


def sleep_us(n):  # advance_us, inlined: the mux bus calls it 57 times a scan
    global ms, sub_us
    sub_us += n
    if sub_us >= 1000:
        ms = (ms + sub_us // 1000) & _MASK
        sub_us %= 1000


def sleep_ms(n):
    global ms, sleeps
    ms = (ms + n) & _MASK
    sleeps += 1
    if on_sleep_ms is not None:
        on_sleep_ms()


def sleep(seconds):
    advance_us(int(seconds * 1000000))
