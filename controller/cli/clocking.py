"""``--clock M+S`` on ``play``, ``demo`` and ``web``: the game clock (controller.table.timer)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from controller.i18n import Msg, _
from controller.table.clock import TimeControlError, parse_control
from controller.table.timer import ClockOptions, TableClock
from engine.errors import DvonnError
from hardware.clock import Clock


def add_clock_option(p: Any) -> None:
    p.add_argument("--clock", metavar="M+S", default=None,
                   help=_("a game clock: M minutes a side and S seconds more after each action "
                          "(e.g. 15+10), or none; default: the config's [clock] control"))


def clock_options(args: argparse.Namespace, cfg: Any = None) -> ClockOptions | None:
    """The clock the command asked for (``--clock`` over the config's ``[clock]``), None when
    no clock runs. A bad ``--clock`` raises a DvonnError naming it."""
    options: ClockOptions = getattr(cfg, "clock", None) or ClockOptions()
    text = getattr(args, "clock", None)
    if text is not None:
        try:
            options = replace(options, control=parse_control(text))
        except TimeControlError as exc:
            raise DvonnError(Msg("--clock: {error}", error=exc.args[0])) from None
    return options if options.control is not None else None


def start_clock(ctl: Any, clock: Clock, options: ClockOptions | None,
                journal: Any = None) -> TableClock | None:
    """Attach the game clock to ``ctl`` (its state kept in ``journal``, if one)."""
    if options is None or options.control is None:
        return None
    store = None
    if journal is not None and hasattr(journal, "_write"):
        from controller.journal.clocks import ClockStore

        store = ClockStore(journal)
    return TableClock(ctl, options.control, clock, options=options, store=store)
