"""The five push buttons (confirm, next, undo, hint, new) on GPIO pins, via gpiozero.

Each press becomes a ButtonEvent when the button is released: ``long`` when it was held at
least ``long_press`` seconds, measured with the injected clock. gpiozero calls back from its
own threads, so events wait in a locked queue until the controller calls ``drain()``.
Buttons connect a GPIO to ground (internal pull-up); pins may be numbers (BCM) or names
gpiozero understands ("GPIO17", "BOARD11").
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from engine.errors import ConfigError
from hardware.clock import Clock
from hardware.events import ALL_BUTTONS, ButtonEvent


class ButtonPanel:
    """gpiozero Buttons for some of ALL_BUTTONS; ``drain()`` returns the presses so far."""

    def __init__(
        self,
        pins: Mapping[str, int | str],
        *,
        pin_factory: Any = None,
        clock: Clock,
        long_press: float = 1.5,
        bounce_time: float | None = 0.05,
    ) -> None:
        for name, pin in pins.items():
            if name not in ALL_BUTTONS:
                raise ConfigError(f"buttons.{name}", f"unknown button; buttons are "
                                  f"{', '.join(ALL_BUTTONS)}")
            if isinstance(pin, bool) or not isinstance(pin, (int, str)):
                raise ConfigError(f"buttons.{name}", f"pin must be a GPIO number or name "
                                  f"like 'GPIO17', got {pin!r}")
        if isinstance(long_press, bool) or not isinstance(long_press, (int, float)) \
                or not 0 < long_press <= 60:
            raise ConfigError("buttons.long_press", f"must be 0..60 seconds, got {long_press!r}")
        if bounce_time is not None and (isinstance(bounce_time, bool)
                                        or not isinstance(bounce_time, (int, float))
                                        or not 0 <= bounce_time <= 1):
            raise ConfigError("buttons.bounce_time", f"must be 0..1 seconds, got "
                              f"{bounce_time!r}")
        self.clock = clock
        self.long_press = float(long_press)
        self._lock = threading.Lock()
        self._events: list[ButtonEvent] = []
        self._pressed_at: dict[str, float] = {}
        self._buttons: dict[str, Any] = {}
        self._closed = False
        from gpiozero import Button, GPIOZeroError

        try:
            for name, pin in pins.items():
                try:
                    button = Button(pin, pull_up=True, bounce_time=bounce_time,
                                    pin_factory=pin_factory)
                except GPIOZeroError as exc:
                    raise ConfigError(f"buttons.{name}",
                                      f"cannot use pin {pin!r}: {exc}") from exc
                self._buttons[name] = button
                button.when_pressed = self._on_press(name)
                button.when_released = self._on_release(name)
        except BaseException:
            self.close()
            raise

    @property
    def names(self) -> tuple[str, ...]:
        """The buttons this panel watches."""
        return tuple(self._buttons)

    def _on_press(self, name: str) -> Any:
        def pressed() -> None:
            with self._lock:
                self._pressed_at[name] = self.clock.now()

        return pressed

    def _on_release(self, name: str) -> Any:
        def released() -> None:
            now = self.clock.now()
            with self._lock:
                start = self._pressed_at.pop(name, None)
                if start is None:  # released without a press we saw (held at start-up)
                    return
                self._events.append(ButtonEvent(now, name, now - start >= self.long_press))

        return released

    def drain(self) -> list[ButtonEvent]:
        """The presses completed since the last call, oldest first."""
        with self._lock:
            events, self._events = self._events, []
        return events

    def close(self) -> None:
        """Release the GPIO pins. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        buttons, self._buttons = self._buttons, {}
        for button in buttons.values():
            button.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
