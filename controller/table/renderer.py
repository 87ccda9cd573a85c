"""Roles + time -> LED colours: a pure function of the BoardView and the time ``t``.

Blinking cells (``view.blink`` and the roles in ``animation.blink_roles``) show their colour in
the first half of each 1/blink_hz period and the background in the second. ``destination`` and
``suggest`` pulse (dim and brighten smoothly) when ``animation.pulse`` > 0. Every colour is
scaled by ``animation.brightness``. The same (view, t) always gives the same colours.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.table.view import ROLES, BoardView
from engine.geometry import CELL_NAMES, NUM_CELLS
from hardware.leds.frame import RGB

#: The colour of each role (and of ``background``, a cell without one) unless configured.
DEFAULT_PALETTE: dict[str, RGB] = {
    "movable": (40, 160, 40),
    "source": (255, 255, 255),
    "destination": (0, 60, 255),
    "remove": (255, 40, 0),
    "mismatch": (255, 0, 160),
    "last": (255, 150, 0),
    "suggest": (0, 220, 220),
    "own-white": (255, 200, 120),
    "own-black": (140, 0, 200),
    "winner": (255, 215, 0),
    "background": (0, 0, 0),
}


@dataclass(frozen=True)
class Palette:
    """A colour for every role of controller.table.view.ROLES and for ``background``."""

    colours: dict[str, RGB] = field(default_factory=lambda: dict(DEFAULT_PALETTE))

    def __getitem__(self, role: str) -> RGB:
        return self.colours[role]


@dataclass(frozen=True)
class AnimationConfig:
    """Blinking (``blink_hz``), pulsing of destination/suggest, and overall brightness.

    ``pulse`` is the pulse rate in Hz (0 = steady); ``pulse_depth`` how far it dims (0..1);
    ``blink_roles`` always blink, in addition to the cells the BoardView marks.
    """

    blink_hz: float = 2.0
    pulse: float = 1.0
    pulse_depth: float = 0.6
    brightness: float = 1.0
    blink_roles: tuple[str, ...] = ("mismatch",)


PULSING_ROLES = ("destination", "suggest")
EDGE_PULSE = 0.3  # the clock's last-minute pulse at its brightest (a share of full colour)
STATUS_LEDS = 2


class Renderer:
    """Turns a BoardView into 49 colours (and a few status colours) at time ``t``.

    ``palette`` may be partial (missing roles keep their default colours).
    """

    def __init__(
        self,
        palette: Palette | Mapping[str, RGB] | None = None,
        animation: AnimationConfig | None = None,
    ) -> None:
        colours = dict(DEFAULT_PALETTE)
        colours.update(palette.colours if isinstance(palette, Palette) else (palette or {}))
        self.colours: dict[str, RGB] = colours
        self.animation = animation or AnimationConfig()

    # -- time functions --------------------------------------------------------------------

    def blink_on(self, t: float) -> bool:
        """True in the lit half of the blink period at time ``t``."""
        return (t * self.animation.blink_hz) % 1.0 < 0.5

    def pulse_level(self, t: float) -> float:
        """Brightness factor for pulsing roles: 1 at t = 0, down to 1 - pulse_depth."""
        a = self.animation
        if a.pulse <= 0 or a.pulse_depth <= 0:
            return 1.0
        dip = 0.5 - 0.5 * math.cos(2.0 * math.pi * a.pulse * t)
        return 1.0 - a.pulse_depth * dip

    def _scale(self, rgb: RGB, factor: float) -> RGB:
        f = factor * self.animation.brightness
        r, g, b = rgb
        return (_channel(r * f), _channel(g * f), _channel(b * f))

    # -- output ----------------------------------------------------------------------------

    def colour(self, view: BoardView, cell: int, t: float) -> RGB:
        """The colour of one cell at time ``t``."""
        background = self._scale(self.colours["background"], 1.0)
        role = view.roles.get(cell)
        if role is None:
            return background
        blinking = cell in view.blink or role in self.animation.blink_roles
        if blinking and not self.blink_on(t):
            return background
        factor = self.pulse_level(t) if role in PULSING_ROLES else 1.0
        return self._scale(self.colours[role], factor)

    def render(self, view: BoardView, t: float) -> list[RGB]:
        """49 colours in canonical cell order."""
        return [self.colour(view, cell, t) for cell in range(NUM_CELLS)]

    def edge_pulse(self, colours: list[RGB], view: BoardView, side: str, t: float) -> list[RGB]:
        """The clock's last minute: a dim pulse (1 Hz) along ``side``'s edge of the board
        (row 1 for White, row 5 for Black) in that side's ``own-white``/``own-black``
        colour, on the cells without a role only (an overlay: no role is added)."""
        row = range(0, 9) if side == "w" else range(40, 49)
        level = EDGE_PULSE * (0.5 - 0.5 * math.cos(2.0 * math.pi * t))
        rgb = self._scale(self.colours["own-white" if side == "w" else "own-black"], level)
        out = list(colours)
        for cell in row:
            if cell not in view.roles:
                out[cell] = rgb
        return out

    def status(self, view: BoardView, t: float, turn: str | None = None) -> list[RGB]:
        """Two status LEDs: [side, attention].

        side: the winner colour when the view shows a winner, else the colour of the side to
        move (``turn`` 'w'/'b', or ``view.turn`` if the view has one), else background.
        attention: mismatch (blinking) when any cell mismatches; else destination when the
        controller waits for an answer (``view.prompt``); else background.
        """
        background = self._scale(self.colours["background"], 1.0)
        roles = set(view.roles.values())
        side = turn if turn is not None else getattr(view, "turn", None)
        if "winner" in roles:
            first = self._scale(self.colours["winner"], 1.0)
        elif side == "w":
            first = self._scale(self.colours["own-white"], 1.0)
        elif side == "b":
            first = self._scale(self.colours["own-black"], 1.0)
        else:
            first = background
        if "mismatch" in roles:
            second = self._scale(self.colours["mismatch"], 1.0) if self.blink_on(t) else background
        elif view.prompt:
            second = self._scale(self.colours["destination"], self.pulse_level(t))
        else:
            second = background
        return [first, second]


def describe(view: BoardView) -> str:
    """A short text legend, e.g. ``movable: C3 D4 | destination (blinking): E3 | White to move``.

    Roles come in ROLES order; cells in canonical order. The message ends the line.
    """
    parts: list[str] = []
    for role in ROLES:
        cells = sorted(c for c, r in view.roles.items() if r == role)
        if not cells:
            continue
        steady = [CELL_NAMES[c] for c in cells if c not in view.blink]
        blinking = [CELL_NAMES[c] for c in cells if c in view.blink]
        if steady:
            parts.append(f"{role}: {' '.join(steady)}")
        if blinking:
            parts.append(f"{role} (blinking): {' '.join(blinking)}")
    if view.prompt:
        parts.append(f"waiting for: {view.prompt}")
    if view.message:
        parts.append(view.message)
    return " | ".join(parts) if parts else "(no lights)"


def _channel(value: float) -> int:
    return max(0, min(255, int(round(value))))
