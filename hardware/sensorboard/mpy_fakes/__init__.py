"""Small CPython stand-ins for MicroPython's ``machine``, ``rp2``, ``utime`` and ``micropython``.

``install()`` puts them into ``sys.modules`` under those names so the real firmware (firmware/)
imports and runs unchanged on CPython: in the tests and in the sensor-board emulator.
"""

from __future__ import annotations

import sys
from types import ModuleType

from . import machine, micropython, rp2, utime

FAKES: dict[str, ModuleType] = {
    "machine": machine,
    "rp2": rp2,
    "utime": utime,
    "micropython": micropython,
}


def install() -> None:
    """Make ``import machine`` (and rp2, utime, micropython) find the fakes; idempotent."""
    for name, module in FAKES.items():
        present = sys.modules.get(name)
        if present is None:
            sys.modules[name] = module
        elif present is not module:
            raise RuntimeError(f"a different module {name!r} is already imported: {present!r}")
