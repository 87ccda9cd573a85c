"""Which optional install ("extra") a missing module belongs to, and the one line that says so.

A hall-sensor table installs only the base dependencies (pyserial, gpiozero); the camera code
needs the ``camera`` extra (numpy, OpenCV). A command that reaches for a module of an extra
that is not installed ends with one line naming what to install (exit 2), not a traceback.
This module imports nothing optional itself.
"""

from __future__ import annotations

#: Top-level module name -> (extra, what it is for).
EXTRA_OF_MODULE: dict[str, tuple[str, str]] = {
    "numpy": ("camera", "the camera code (vision)"),
    "cv2": ("camera", "the camera code (vision)"),
    "rpi_ws281x": ("pi", "LEDs on a Pi 1-4 (ws281x backend)"),
    "spidev": ("pi", "LEDs over SPI (spi backend)"),
}


def missing_extra_hint(exc: BaseException) -> str | None:
    """The install hint for an ImportError of a module that an extra provides, else None."""
    if not isinstance(exc, ImportError):
        return None
    name = (exc.name or "").split(".")[0]
    if name not in EXTRA_OF_MODULE:
        return None
    extra, purpose = EXTRA_OF_MODULE[name]
    module = {"cv2": "OpenCV (cv2)"}.get(name, name)
    return (f"{purpose} needs {module}, which is not installed; install the '{extra}' extra: "
            f"pip install 'dvonn-board[{extra}]' (in a clone: .venv/bin/pip install -e "
            f"'.[{extra}]'; see docs/build/install-pi.md)")
