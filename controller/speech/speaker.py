"""The speaker: what the table says goes on a queue and a worker thread speaks it, so the
table's loop never waits for a voice (a sentence takes seconds to say; the loop must answer
in milliseconds).

``out(text, lang)`` does the speaking (aloud, or into a ``--speak-to`` file); a failure is
reported once (``report``) and the table goes on. :meth:`Speaker.close` says what is still
queued (at most ``drain`` seconds: a table said aloud stops soon after Ctrl-C; None, for
``--speak-to``, writes everything), then ends the worker (safe twice); a Speaker is a context
manager.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

from controller.i18n import error_text

Out = Callable[[str, str], None]


def say_to_stderr(line: str) -> None:
    print(f"dvonn-board: speech: {line}", file=sys.stderr, flush=True)


class Speaker:
    """Speaks texts one after another in a worker thread (``say`` only queues)."""

    def __init__(self, out: Out, *, lang: str = "en", drain: float | None = None,
                 report: Callable[[str], None] = say_to_stderr) -> None:
        self.out = out
        self.drain = drain
        self.lang = lang
        self.report = report
        self.said: list[str] = []  # what was spoken, in order
        self.failures = 0
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._closed = False
        self._discard = False  # closing took longer than ``drain``: the rest goes unsaid
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._work, name="dvonn-speech", daemon=True)
        self._thread.start()

    @property
    def pending(self) -> int:
        """Texts queued and not yet spoken (about: the worker may be saying one)."""
        return self._queue.qsize()

    def say(self, text: str) -> None:
        """Queue ``text`` (returns at once; nothing after close)."""
        text = " ".join(str(text).split())
        with self._lock:
            if self._closed or not text:
                return
            self._queue.put(text)

    def wait(self) -> None:
        """Until everything queued so far has been spoken (tests)."""
        self._queue.join()

    def _work(self) -> None:
        while True:
            text = self._queue.get()
            try:
                if text is None:
                    return
                if self._discard:
                    continue
                try:
                    self.out(text, self.lang)
                    self.said.append(text)
                except Exception as exc:  # a voice that fails never stops the table
                    self.failures += 1
                    if self.failures == 1:
                        self.report(error_text(exc))
            finally:
                self._queue.task_done()

    def close(self) -> None:
        """Say what is queued (for at most ``drain`` seconds), then stop the worker (safe
        twice)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._queue.put(None)
        if self._thread is not threading.current_thread():
            self._thread.join(self.drain)
            self._discard = self._thread.is_alive()

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        state: Any = "closed" if self._closed else f"{self.pending} queued"
        return f"Speaker({self.lang!r}, {state})"
