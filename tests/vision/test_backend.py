import numpy as np

from engine.geometry import NUM_CELLS, parse_cell
from hardware.camera import SyntheticSource
from hardware.clock import FakeClock
from hardware.events import SnapshotEvent
from vision.backend import CameraSensor
from vision.classify import GLARE
from vision.reader import BoardReader, Reading
from vision.synthetic.render import heights_of


def test_poll_stamps_snapshots_with_the_clock(rendered) -> None:
    frame, truth, scene = rendered(80)
    blank = np.full_like(frame, 90)
    frames = [frame, blank]
    clock = FakeClock(10.0)
    src = SyntheticSource(lambda i: frames[i] if i < len(frames) else None)
    with CameraSensor(src, BoardReader(), clock, lambda: heights_of(scene.stacks)) as sensor:
        assert sensor.last_annotated() is None
        events = sensor.poll()
        assert events == [SnapshotEvent(10.0, truth.snapshot)]
        annotated = sensor.last_annotated()
        assert annotated is not None and annotated.shape == frame.shape
        clock.advance(0.5)
        # The camera moved away (no markers): the last pose is kept, so this still reads.
        events = sensor.poll()
        assert events[0].t == 10.5 and len(events[0].cells) == 49
        assert sensor.poll() == []


def test_board_never_seen_reads_all_unreadable() -> None:
    src = SyntheticSource(lambda i: np.zeros((120, 160, 3), np.uint8))
    sensor = CameraSensor(src, BoardReader(), FakeClock(1.0))
    assert sensor.poll() == [SnapshotEvent(1.0, "?" * 49)]
    assert "board not found" in sensor.last_error
    sensor.close()
    sensor.close()


def test_reread_reads_the_last_frame_again_and_changes_nothing(rendered) -> None:
    """``reread(heights)`` reads the frame just read with other heights, by a copy of the
    reader: the next frames read as they would have without it."""
    frame, truth, scene = rendered(80)
    heights = heights_of(scene.stacks)

    def sensor() -> CameraSensor:
        return CameraSensor(SyntheticSource(lambda i: frame if i < 3 else None), BoardReader(),
                            FakeClock(0.0), lambda: heights)

    plain, probed = sensor(), sensor()
    assert probed.reread(heights) is None  # no frame yet
    first = probed.poll()
    assert plain.poll() == first
    assert probed.reread(heights) == (truth.snapshot, 0)
    model = probed.reader.model.__dict__.copy()
    empty = probed.reread([0] * 49)
    assert empty is not None and len(empty[0]) == 49
    assert probed.reader.model.__dict__.keys() == model.keys()
    for _ in range(2):
        assert probed.poll() == plain.poll()


class _Glared(BoardReader):
    """A reader that reads C3 '?' for a lamp's glare in every frame, D4 '?' under a hand."""

    def read(self, frame, heights=None, leds=None) -> Reading:  # type: ignore[no-untyped-def]
        cells, reasons = ["."] * NUM_CELLS, [""] * NUM_CELLS
        for name, why in (("C3", GLARE), ("D4", "something over the board here")):
            cells[parse_cell(name)], reasons[parse_cell(name)] = "?", why
        return Reading("".join(cells), [0.0] * NUM_CELLS, True, reasons)


def test_cells_read_unreadable_for_glare_are_told_apart_from_a_hand() -> None:
    """The event names the cells the reader could not read for a lamp's glare alone (the
    controller does not take them for a hand: controller.table.camera)."""
    src = SyntheticSource(lambda i: np.zeros((120, 160, 3), np.uint8) if i < 1 else None)
    with CameraSensor(src, _Glared(), FakeClock(2.0)) as sensor:
        (event,) = sensor.poll()
    assert event.glare == 1 << parse_cell("C3")
    assert event.cells.count("?") == 2
