"""Ctrl-C and SIGTERM end the runner's loop between two rounds, never inside a source's poll
(where a lock may be held: the web page's command queue once stayed locked, and the process
never exited)."""

from __future__ import annotations

import signal
import threading

import pytest

from controller.interrupts import deferred_interrupts
from controller.runner import Runner
from controller.table.session import TableController, Timing
from hardware.clock import FakeClock
from hardware.events import SensorEvent


class SignallingSource:
    """A source that raises ``signum`` in the middle of its poll ``times`` times in a row."""

    def __init__(self, signum: int, times: int = 1) -> None:
        self.signum = signum
        self.times = times
        self.polls = 0
        self.finished = 0  # polls that ran to their end

    def poll(self, timeout: float = 0.0) -> list[SensorEvent]:
        self.polls += 1
        for _ in range(self.times):
            signal.raise_signal(self.signum)
        self.finished += 1
        return []


def runner_with(source: SignallingSource) -> Runner:
    return Runner(TableController(timing=Timing()), sources=[source], clock=FakeClock())


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_loop_at_the_next_round(signum: int) -> None:
    source = SignallingSource(signum)
    before = signal.getsignal(signum)
    with pytest.raises(KeyboardInterrupt):
        runner_with(source).run()
    assert (source.polls, source.finished) == (1, 1)  # the poll the signal came in finished
    assert signal.getsignal(signum) is before  # the handler is put back


def test_a_second_signal_interrupts_at_once() -> None:
    source = SignallingSource(signal.SIGINT, times=2)
    with pytest.raises(KeyboardInterrupt):
        runner_with(source).run()
    assert (source.polls, source.finished) == (1, 0)


def test_the_loop_runs_on_without_a_signal() -> None:
    rounds = iter(range(5))
    source = SignallingSource(signal.SIGINT, times=0)
    runner_with(source).run(until=lambda: next(rounds, None) is None)
    assert source.polls == 5


def test_off_the_main_thread_nothing_is_installed() -> None:
    seen: list[object] = []

    def body() -> None:
        with deferred_interrupts() as stop:
            seen.append(signal.getsignal(signal.SIGINT))
            stop.check()  # never asked: no exception
            seen.append(stop.asked)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [signal.getsignal(signal.SIGINT), False]
