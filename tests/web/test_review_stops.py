"""A server that stops ends the engine's review at once (the process exits only once the
review's thread has: a position's share of the budget may be many seconds)."""

from __future__ import annotations

import random
import threading

from controller.web.reviews import Reviews
from engine.playout import random_game


def test_closing_stops_a_running_review_within_the_position() -> None:
    game = random_game(random.Random(3))
    actions = tuple(str(m) for m in game.move_stack)
    reviews = Reviews(budget=36000.0)  # ten hours: the first position gets minutes
    before = set(threading.enumerate())
    job = reviews.job(actions)
    assert job is not None
    threads = [t for t in threading.enumerate()
               if t not in before and t.name.startswith("dvonn-review")]
    assert threads
    started = threading.Event()
    for _ in range(600):  # (wall time, as the worker runs: it analyses in well under a second)
        if job.status == "analysing":
            started.set()
            break
        started.wait(0.05)
    assert started.is_set()
    reviews.close()
    for t in threads:
        t.join(60.0)
    assert not any(t.is_alive() for t in threads)  # not minutes into its first position
    assert job.status == "done" and job.analysis is not None
    assert job.analysis["complete"] is False
