"""``dvonn-board leds test``: light every cell, then every status LED, then all white.

A builder runs it after wiring the strip: each step names the cell and the LED index it
should light ("A1 -> LED 0"), so a wrong wiring order, start corner or LED count shows at
once. The ``[leds]`` table of the config file picks backend, layout and limits.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from controller.cli.numbers import seconds
from controller.config.settings import default_config_path, load_config
from controller.i18n import _
from engine.errors import ConfigError
from engine.geometry import CELL_NAMES, NUM_CELLS
from hardware.clock import Clock, SystemClock
from hardware.leds import BACKENDS, LedStrip, TerminalStrip, resolve_backend, strip_from_config

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
DEFAULT_DELAY = 0.5


def load_leds_section(path: Path | None) -> Mapping[str, Any]:
    """The ``[leds]`` table of the config file ``path`` (None: the default file, if any).

    The whole file goes through the normal config loader, so a wrong key in any section, a
    binary or non-UTF-8 file, or bad TOML is a ConfigError naming it, as for ``play``.
    """
    return load_config(path).leds


def register(subparsers: Any) -> None:
    """Add ``leds test`` to the dvonn-board command."""
    leds = subparsers.add_parser("leds", help=_("LED strip tools (wiring test)"))
    actions = leds.add_subparsers(dest="leds_command", metavar="ACTION", required=True)
    test = actions.add_parser(
        "test", help=_("light every cell in turn, then the status LEDs, then all white"),
        description=_("Walk every cell in canonical order (A1 B1 ... K5), lighting it alone "
          "and printing which LED index it should be, then every status LED, then all LEDs "
          "white at the configured current limit."),
    )
    test.add_argument("--config", type=Path, metavar="FILE",
                      help=_("config file (default {path} if it exists)").format(
                          path=default_config_path()))
    test.add_argument("--backend", choices=BACKENDS,
                      help=_("LED backend (overrides $DVONN_LEDS and the config)"))
    test.add_argument("--delay", type=seconds(0, 60), default=DEFAULT_DELAY, metavar="SECONDS",
                      help=_("time each step stays lit (default {delay})").format(
                          delay=DEFAULT_DELAY))
    test.add_argument("--fast", action="store_true", help=_("no delay between steps"))
    test.set_defaults(func=_cmd_test)


def _cmd_test(args: argparse.Namespace) -> int:
    return run_test(args)


def _sensor_board_link(cfg: Any, clock: Clock) -> Any:
    """The sensor board (port from [sensor], else found by USB id) for LEDs on its pin."""
    from hardware.sensorboard.client import SensorBoardClient

    return SensorBoardClient(cfg.sensor.port, clock=clock, baudrate=cfg.sensor.baudrate)


@contextlib.contextmanager
def _naming_the_file(path: Path | None) -> Iterator[None]:
    """The [leds] table is checked by the strip driver: name the config file in its errors."""
    try:
        yield
    except ConfigError as exc:
        if path is not None:
            exc.args = (f"{path}: {exc}",)
        raise


def _led_text(leds: tuple[int, ...]) -> str:
    return f"LED {leds[0]}" if len(leds) == 1 else f"LEDs {leds[0]}-{leds[-1]}"


def run_test(
    args: argparse.Namespace, *, clock: Clock | None = None, out: TextIO | None = None
) -> int:
    """The ``leds test`` walk; ``clock`` times the steps, ``out`` gets the text."""
    clock = clock if clock is not None else SystemClock()
    out = out if out is not None else sys.stdout
    delay = 0.0 if args.fast else float(args.delay)
    cfg = load_config(args.config)
    section = cfg.leds
    with _naming_the_file(args.config):
        name = resolve_backend(section, args.backend)
    link = _sensor_board_link(cfg, clock) if name == "sensor-board" else None
    try:
        with _naming_the_file(args.config):
            strip = strip_from_config(section, stream=out, backend=args.backend, link=link)
    except BaseException:
        if link is not None:
            link.close()
        raise
    with contextlib.closing(link) if link is not None else contextlib.nullcontext(), strip:
        layout = strip.layout
        print(f"LED test: backend {name}, {layout.led_count} LEDs "
              f"({layout.leds_per_cell} per cell, {layout.status_leds} status), wiring "
              f"{layout.wiring}, rotate180={layout.rotate180}, mirror={layout.mirror}",
              file=out)
        black_status = [BLACK] * layout.status_leds
        for cell in range(NUM_CELLS):
            cells = [BLACK] * NUM_CELLS
            cells[cell] = WHITE
            _step(strip, out, clock, delay, cells, black_status,
                  f"{CELL_NAMES[cell]} -> {_led_text(layout.led_indices(cell))}")
        for k, led in enumerate(layout.status_indices):
            status = list(black_status)
            status[k] = WHITE
            _step(strip, out, clock, delay, [BLACK] * NUM_CELLS, status,
                  f"status {k} -> LED {led}")
        white_status = [WHITE] * layout.status_leds
        frame = strip.frame_for([WHITE] * NUM_CELLS, white_status)
        limit = strip.encoder.max_current_ma
        limit_text = "no limit" if limit is None else f"limit {limit:g} mA"
        _step(strip, out, clock, delay, [WHITE] * NUM_CELLS, white_status,
              f"all white -> {layout.led_count} LEDs, about {frame.current_ma:.0f} mA "
              f"({limit_text}; {frame.requested_ma:.0f} mA unlimited, "
              f"scaled x{frame.scale:.3f})")
    print("LED test done", file=out)
    return 0


def _step(
    strip: LedStrip,
    out: TextIO,
    clock: Clock,
    delay: float,
    cells: list[tuple[int, int, int]],
    status: list[tuple[int, int, int]],
    line: str,
) -> None:
    """Show one test frame and say what it lights (as the caption on a terminal strip)."""
    if isinstance(strip, TerminalStrip):
        strip.caption = line
        strip.status_label = _("status")
    else:
        print(line, file=out)
    strip.set_cells(cells)
    strip.set_status(status)
    strip.show()
    out.flush()
    if delay > 0:
        clock.sleep(delay)
