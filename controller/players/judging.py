"""Judging beside play: the live tutor's searches, in a process of their own.

The tutor (:mod:`controller.players.tutor`) hands each action of a person to a :class:`Judge`
as a :class:`Job` (the actions before it and the action, in notation) and takes the
:class:`Verdict` back when it is ready; nothing here waits. The searches run in a separate
process (``spawn``), so they never hold the table's interpreter (the compiled search core
keeps the GIL while it searches): the controller's answers take as long with the tutor as
without it. ``process=False`` runs them in a thread instead (where a process cannot start).

The hand-off costs the table only a small pickled message on a pipe: no queue feeder thread
competes with the table's thread for the interpreter, and at most ``WINDOW`` jobs are on the
pipe at once (the others wait in a list here), so a write never waits for the worker. The
worker runs at a lower priority (``nice``), ignores Ctrl-C (which the terminal sends to the
whole process group: the table closes it) and ends when the table's end of the pipe closes,
however the table ended: never an orphan.

Each job is judged as :func:`engine.review.judge` does alone, with a fresh Searcher and a
node budget (capped in time): the same verdict on any machine unless the time cap bites.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.move import Move
from engine.review import judge
from engine.search import Limits, Searcher

#: Positions a judgement may search: a few tens of milliseconds with the compiled core.
NODES = 20000
#: ... and never longer than this (seconds; the pure-Python engine on a Pi 4).
SECONDS = 2.0
#: Jobs on the pipe to the worker at once (the rest wait in the Judge's list).
WINDOW = 2
#: How much lower the worker's priority is than the table's (os.nice).
NICE = 10


@dataclass(frozen=True)
class Judgement:
    """One action as the engine saw it: ``ply`` its number in the game (1 = the first),
    ``loss`` in pieces against the engine's ``best`` (the mover's side), ``mark`` '', '?' or
    '??' (never for the best or a forced action)."""

    ply: int
    side: str
    action: str
    best: str
    loss: float
    mark: str
    forced: bool

    @property
    def text(self) -> str:
        """The action with its mark, as the review writes it: 'C3D4??'."""
        return f"{self.action}{self.mark}"


@dataclass(frozen=True)
class Job:
    """Judge each action of ``played`` from the position after ``moves``. ``key`` comes
    back with the verdict."""

    key: tuple[Any, ...]
    moves: tuple[str, ...]
    played: tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    key: tuple[Any, ...]
    judgements: tuple[Judgement, ...]
    error: str = ""


def work(job: Job, nodes: int = NODES, seconds: float | None = SECONDS) -> Verdict:
    """Judge ``job`` here and now (what the worker does with each job)."""
    try:
        game = Game.from_moves(list(job.moves))
        limits = Limits(nodes=nodes, time=seconds)
        searcher = Searcher(seed=0)
        out = []
        for text in job.played:
            r = judge(game, Move.parse(text), limits, searcher=searcher)
            out.append(Judgement(r.ply, r.side, str(r.move), str(r.best or ""), r.loss, r.mark,
                                 r.forced))
        return Verdict(job.key, tuple(out))
    except Exception as exc:  # a bad job must not end the worker: say it, go on
        return Verdict(job.key, (), f"{type(exc).__name__}: {exc}")


def _serve(jobs: Any, results: Any, nodes: int, seconds: float | None) -> None:
    """The thread worker: jobs from one queue, verdicts to the other, until None."""
    while True:
        job = jobs.get()
        if job is None:
            return
        results.put(work(job, nodes, seconds))


def _serve_pipe(conn: Any, nodes: int, seconds: float | None) -> None:
    """The process worker: jobs and verdicts on one pipe, until None or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the table stops us (close)
    try:
        os.nice(NICE)
    except (AttributeError, OSError):  # (no nice here, or not allowed)
        pass
    while True:
        try:
            job = conn.recv()
            if job is None:
                return
            conn.send(work(job, nodes, seconds))
        except (EOFError, OSError):  # the table's end closed (it ended): so do we
            return


@contextlib.contextmanager
def _no_ctrl_c() -> Iterator[None]:
    """SIGINT ignored meanwhile (in the main thread; elsewhere nothing changes): a process
    started now inherits that, and Python keeps an ignored SIGINT ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)


class Judge:
    """A worker (process or thread) that judges jobs in order; ``submit`` and ``take``
    never wait (``take`` only as long as its ``timeout``). Started at once (a process takes
    a moment to start)."""

    def __init__(self, nodes: int = NODES, seconds: float | None = SECONDS, *,
                 process: bool = True, window: int = WINDOW) -> None:
        self.nodes = nodes
        self.seconds = seconds
        self.process = process
        self.window = max(1, window)
        self._backlog: deque[Job] = deque()  # submitted, not on the pipe yet
        self._out = 0  # on the pipe (or being judged), verdict not taken
        self._worker: Any
        if process:
            ctx = multiprocessing.get_context("spawn")
            self._conn, child = ctx.Pipe()
            self._worker = ctx.Process(target=_serve_pipe, name="dvonn-tutor", daemon=True,
                                       args=(child, nodes, seconds))
            try:
                with _no_ctrl_c():  # (inherited: the worker ignores it from its first line)
                    self._worker.start()
            finally:
                child.close()  # the worker's end is the worker's alone: it sees our close
        else:
            self._jobs: Any = queue.Queue()
            self._results: Any = queue.Queue()
            self._worker = threading.Thread(target=_serve, name="dvonn-tutor", daemon=True,
                                            args=(self._jobs, self._results, nodes, seconds))
            self._worker.start()
        self._closed = False

    @property
    def pending(self) -> int:
        """Jobs submitted whose verdict was not taken yet."""
        return len(self._backlog) + self._out

    def submit(self, job: Job) -> None:
        if self._closed:
            return
        self._backlog.append(job)
        self._pump()

    def _pump(self) -> None:
        while self._backlog and self._out < self.window and not self._closed:
            job = self._backlog.popleft()
            try:
                if self.process:
                    self._conn.send(job)
                else:
                    self._jobs.put(job)
            except (OSError, ValueError):  # the worker is gone: nothing more is judged
                self._backlog.clear()
                return
            self._out += 1

    def take(self, timeout: float = 0.0) -> list[Verdict]:
        """The verdicts ready now (waiting up to ``timeout`` s for the first)."""
        out: list[Verdict] = []
        while self._out > 0:
            wait = timeout if timeout > 0 and not out else 0.0
            try:
                if self.process:
                    if not self._conn.poll(wait):
                        break
                    verdict = self._conn.recv()
                else:
                    verdict = (self._results.get(timeout=wait) if wait > 0
                               else self._results.get_nowait())
            except queue.Empty:
                break
            except (EOFError, OSError, ValueError):  # the worker is gone
                self._out = 0
                self._backlog.clear()
                break
            out.append(verdict)
            self._out -= 1
            self._pump()
        return out

    def close(self) -> None:
        """Stop the worker (safe twice)."""
        if self._closed:
            return
        self._closed = True
        self._backlog.clear()
        if self.process:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._conn.close()  # (a worker in a search ends when it answers)
            self._worker.join(2.0)
            if self._worker.is_alive():
                self._worker.terminate()
                self._worker.join(1.0)
        else:
            self._jobs.put(None)
            self._worker.join(2.0)
