"""Debounce: noise shorter than 0.2 s is ignored, changes holding 0.5 s are real, '?' is no news."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.table.debounce import FLICKER, Debouncer, Timing

E = "." * 49
A = "x" + "." * 48


def run(readings: list[tuple[float, str]], until: float, timing: Timing | None = None) -> list[
        tuple[float, str]]:
    """Feed readings, settling deadlines in order; the stable changes with their times."""
    d = Debouncer(timing)
    out: list[tuple[float, str]] = []
    for t, cells in readings:
        while (dl := d.next_deadline()) is not None and dl <= t:
            s = d.advance(dl)
            if s is not None:
                out.append((dl, s))
        s = d.feed(t, cells)
        if s is not None:
            out.append((t, s))
    while (dl := d.next_deadline()) is not None and dl <= until:
        s = d.advance(dl)
        if s is not None:
            out.append((dl, s))
    return out


def test_first_reading_is_stable_at_once() -> None:
    assert run([(0.0, E)], 5) == [(0.0, E)]


def test_change_holding_stable_time_is_real() -> None:
    out = run([(0.0, E), (1.0, A)], 5)
    assert out == [(0.0, E), (pytest.approx(1.5), A)]


def test_flicker_shorter_than_noise_is_ignored() -> None:
    out = run([(0.0, E), (1.0, A), (1.1, E)], 5)
    assert out == [(0.0, E)]


def test_change_between_noise_and_stable_is_ignored() -> None:
    out = run([(0.0, E), (1.0, A), (1.4, E)], 5)
    assert out == [(0.0, E)]


def test_short_dropout_does_not_restart_the_wait() -> None:
    # reads A from 1.0, flickers back for 0.05 s at 1.2: still stable at 1.5
    out = run([(0.0, E), (1.0, A), (1.2, E), (1.25, A)], 5)
    assert out[-1] == (pytest.approx(1.5), A)


def test_long_dropout_restarts_the_wait() -> None:
    out = run([(0.0, E), (1.0, A), (1.2, E), (1.45, A)], 5)
    assert out[-1] == (pytest.approx(1.95), A)


def test_unknown_keeps_the_last_stable_value() -> None:
    q = "?" + "." * 48
    out = run([(0.0, A), (1.0, q), (3.0, A)], 5)
    assert out == [(0.0, A)]


def test_unknown_does_not_interrupt_a_change() -> None:
    q = "?" + "." * 48
    out = run([(0.0, E), (1.0, A), (1.2, q), (1.3, A)], 5)
    assert out[-1] == (pytest.approx(1.5), A)


def test_a_flicker_just_before_a_hand_covers_the_cell_is_no_change() -> None:
    """Camera seed 89: a cell reads empty for one frame, then a hand covers it for 0.5 s and
    it reads its stack again: nothing ever read the flicker twice, so it never became
    stable (it had read as a prompted cell lifted and set back: a gesture nobody made)."""
    q = "?" + "." * 48
    readings = [(0.0, A), (1.0, E)] + [(1.1 + i / 10, q) for i in range(6)] + [(1.7, A)]
    assert run(readings, 5) == [(0.0, A)]


def test_a_change_seen_again_after_a_hand_is_taken_at_once() -> None:
    q = "?" + "." * 48
    out = run([(0.0, E), (1.0, A), (1.3, q), (2.5, A)], 5)
    assert out == [(0.0, E), (pytest.approx(2.5), A)]  # judged on a reading, not under '?'


def test_the_first_reading_after_a_hand_is_marked_uncovered() -> None:
    """What a cell shows the frame a hand leaves it is not yet a reading (room game 112); a
    flicker of '?' shorter than ``SPELL`` is no hand."""
    q = "?" + "." * 48
    d = Debouncer()
    d.feed(0.0, A)
    d.feed(0.1, q)
    d.feed(0.2, A)  # 0.1 s of '?': a flicker
    assert d.uncovered() == 0
    for i in range(4):
        d.feed(0.3 + i / 10, q)  # a hand, 0.4 s
    d.feed(0.7, A)
    assert d.uncovered() == 1
    d.feed(0.8, A)  # the same reading again
    assert d.uncovered() == 0


def test_a_cell_that_read_empty_in_the_last_half_second_is_flickered() -> None:
    d = Debouncer()
    d.feed(0.0, A)
    d.feed(1.0, A)
    assert not d.flickered() & 1
    for i in range(6):  # a vacated cell reading its old top by turns
        d.feed(2.0 + i / 10, A if i % 2 else E)
    assert d.flickered() & 1  # its top read, but its last empty reading 0.1 s ago
    d.feed(3.0, A)
    assert not d.flickered() & 1  # a top held half a second (since 2.5)
    assert d.flickered() & 2  # (a cell that reads empty reads empty)


def test_a_cell_read_empty_only_between_unknown_readings_is_patchy() -> None:
    """Under a hand a standing stack can read empty one frame in two: stable empty (a '?'
    carries nothing), but patchy until it reads empty half a second without a '?'."""
    d = Debouncer()
    d.feed(0.0, A)
    q = "?" + "." * 48
    for i in range(8):  # empty, '?', empty, ... (0.2 s apart)
        d.feed(1.0 + i / 5, q if i % 2 else E)
    assert d.stable == E and d.patchy() & 1
    d.feed(2.6, E)
    assert d.patchy() & 1  # the last '?' 0.2 s ago
    d.feed(3.0, E)  # half a second and more without one
    assert not d.patchy() & 1
    d = Debouncer()
    d.feed(0.0, A)
    d.feed(1.0, E)
    d.feed(2.0, E)  # emptied in plain view: no patch
    assert d.stable == E and not d.patchy()


def test_unknown_first_reading_waits_for_a_value() -> None:
    q = "?" + "." * 48
    out = run([(0.0, q), (1.0, A)], 5)
    assert out == [(0.0, q), (pytest.approx(1.5), A)]


def test_timing_is_configurable_and_checked() -> None:
    out = run([(0.0, E), (1.0, A)], 5, Timing(noise=0.05, stable=0.1))
    assert out[-1] == (pytest.approx(1.1), A)
    with pytest.raises(ValueError):
        Timing(noise=0.6, stable=0.5)


def test_wrong_length_is_rejected() -> None:
    with pytest.raises(ValueError):
        Debouncer().feed(0.0, "x")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 0.19), st.sampled_from("x.")), max_size=12))
def test_bursts_of_noise_never_change_the_stable_board(flicks: list[tuple[float, str]]) -> None:
    """Any burst of readings each lasting < 0.2 s, ending back at the stable value, is noise."""
    readings = [(0.0, E)]
    t = 1.0
    for dt, v in flicks:
        readings.append((t, v + "." * 48))
        readings.append((t + dt, E))
        t += dt + 0.3
    assert run(readings, t + 5) == [(0.0, E)]


def test_a_streaming_source_gone_silent_confirms_nothing() -> None:
    """Hall seed 432: readings every 0.1 s, one noisy frame just before a blackout of two
    seconds (no readings at all), then the board as it was: the noise never held while
    anything read it, so it never becomes stable (it had become a placement nobody made).
    A source that reports only changes is still confirmed by its silence (above)."""
    stream = [(i / 10, E) for i in range(10)]
    readings = [*stream, (1.0, A)] + [(3.0 + i / 10, E) for i in range(10)]
    assert run(readings, 10) == [(0.0, E)]


def test_a_streaming_change_is_taken_when_a_reading_shows_it_again() -> None:
    """The same silence after a real change: the next reading that still shows it makes it
    stable (at that reading); the end of a replay holds the last reading for ever."""
    stream = [(i / 10, E) for i in range(10)]
    out = run([*stream, (1.0, A), (3.0, A), (3.1, A)], 10)
    assert out == [(0.0, E), (pytest.approx(3.0), A)]
    d = Debouncer()
    for t, cells in [*stream, (1.0, A)]:
        d.feed(t, cells)
    assert d.streaming
    while (dl := d.next_deadline()) is not None:  # (the flicker time is still heard)
        assert d.advance(dl) is None
    assert d.advance(5.0) is None and d.stable == E
    assert d.next_deadline(held=True) == pytest.approx(1.5)
    assert d.advance(5.0, held=True) == A


def test_a_cell_emptied_when_it_first_read_empty_through_a_flicker() -> None:
    """``first_empty``: a cell that reads empty and a piece by turns emptied at its first
    empty reading; one that read a piece steadily since an odd empty reading did not."""
    d = Debouncer()
    d.feed(0.0, A)
    d.feed(1.0, E)  # a misread, then the piece again for a second
    d.feed(1.1, A)
    d.feed(2.1, A[:2] + "b" + A[3:])  # (another cell: the same reading again for this one)
    d.feed(3.0, E)  # the stack lifted: the cell flickers
    for i in range(1, 8):
        d.feed(3.0 + 0.1 * i, A if i % 2 else E)
    assert d.first_empty(0) == 3.0
    d.feed(4.0, "?" + E[1:])  # a hand over it: no news
    assert d.first_empty(0) == 3.0
    d.feed(4.5, A)
    d.feed(5.2, A[:1] + "w" + A[2:])  # a piece read steadily for 0.7 s
    assert d.first_empty(0) == float("inf")
    d.feed(5.3, E)
    assert d.first_empty(0) == 5.3


def test_a_cell_emptied_before_a_flicker_of_seconds_as_far_as_flicker_empty_says() -> None:
    """``flicker_empty``: a vacated cell on printed paper reads its circle as a top for two
    seconds on end (camera benchmark game 24's I5); it may have emptied at its first empty
    reading before that. A top read for ``FLICKER`` seconds was a stack standing there."""
    inf = float("inf")
    d = Debouncer()
    d.feed(0.0, A)
    d.feed(1.0, E)  # lifted
    d.feed(1.2, A)  # the circle read as a top, 2 s ('?' aside)
    d.feed(2.0, "?" + E[1:])
    d.feed(3.2, A)
    d.feed(3.3, E)
    since = [3.3] + [inf] * 48
    assert d.first_empty(0) == 3.3  # (more than STEADY: forgotten)
    assert d.flicker_empty(since)[0] == 1.0
    assert d.flicker_empty([inf] * 49)[0] == inf  # only a cell seen empty is taken back
    d.feed(3.4, A)
    d.feed(3.4 + FLICKER, A[:1] + "w" + A[2:])  # a top read steadily: a stack stood there
    d.feed(3.5 + FLICKER, E)
    assert d.flicker_empty([3.5 + FLICKER] + [inf] * 48)[0] == 3.5 + FLICKER
