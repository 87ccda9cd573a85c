"""The ``--trace`` records of a table session: a JSON-ready dict whenever what the LEDs show
changes (the roles, a prompt, a mismatch), for ``replay-sensors --trace`` and the scoring of
replayed sessions (:mod:`controller.sim.scoring`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.table.expected import names
from controller.table.view import BoardView

#: Receives each record: ``{"t", "roles"}``, ``{"t", "prompt", "cells"}``, ``{"t", "mismatch"}``.
Trace = Callable[[dict[str, Any]], None]


class RoleTrace:
    """Writes a record for each change of the roles, of the prompt and of the mismatch."""

    def __init__(self, write: Trace) -> None:
        self.write = write
        self._roles: dict[str, str] = {}
        self._prompt: tuple[str, tuple[str, ...]] = ("", ())
        self._mismatch: tuple[str, ...] = ()

    def __call__(self, t: float, view: BoardView) -> None:
        """The view shown at ``t`` (called after every event; unchanged parts write nothing)."""
        roles = view.named_roles()
        prompt = (view.prompt, tuple(names(sum(1 << c for c in view.blink))) if view.prompt
                  else ())
        mismatch = tuple(n for n, r in roles.items() if r == "mismatch")
        if roles != self._roles:
            self.write({"t": round(t, 6), "roles": roles})
        if prompt != self._prompt and view.prompt:
            self.write({"t": round(t, 6), "prompt": view.prompt, "cells": list(prompt[1])})
        if mismatch != self._mismatch and mismatch:
            self.write({"t": round(t, 6), "mismatch": list(mismatch)})
        self._roles, self._prompt, self._mismatch = roles, prompt, mismatch
