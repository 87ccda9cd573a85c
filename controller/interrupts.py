"""Ctrl-C (and SIGTERM) taken between two rounds of a loop, never inside one.

Python raises KeyboardInterrupt wherever the main thread happens to be. Inside a lock
(``queue.Queue.get`` waiting for the web page's commands, say) that can leave the lock taken,
and the cleanup that follows (refusing the page's waiting commands) then waits for it for
ever: the process never exits. While a loop runs under :func:`deferred_interrupts`, the first
signal only asks the loop to stop; the loop raises KeyboardInterrupt itself at the top of its
next round, where it holds nothing. A second signal interrupts at once (a loop that is stuck
still ends on a second Ctrl-C).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

SIGNALS: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Whether a stop was asked for; :meth:`check` raises KeyboardInterrupt once it was."""

    def __init__(self) -> None:
        self.asked = False

    def check(self) -> None:
        """Raise KeyboardInterrupt when a stop was asked for (call it where nothing is held)."""
        if self.asked:
            raise KeyboardInterrupt

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.asked:
            raise KeyboardInterrupt  # the second signal: now
        self.asked = True


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[StopRequest]:
    """SIGINT and SIGTERM only set the yielded request's flag (the second raises at once);
    the previous handlers come back afterwards. Off the main thread (tests drive loops from
    threads) signals cannot be handled there: the request is never set."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    previous: dict[int, Any] = {}
    try:
        for signum in SIGNALS:
            previous[signum] = signal.signal(signum, request._handler)
        yield request
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(signum, handler)
