"""A camera recording's ``leds`` (controller/recording.py): the colours the table's LEDs showed
as each frame was taken. Read and checked (one line naming the line and the fault, exit 2),
written by the play path from what its strip showed (after brightness, lit cells only), and
handed with each frame to the reader in a replay as in play; a recording without them reads
as before."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import controller.runner
from controller.cli import main
from controller.recording import (
    CameraRecorder,
    Frame,
    RecordingError,
    RecordingWriter,
    read_recording,
    replay_recording,
    strip_leds,
)
from controller.runner import PlacementTeacher, Runner
from controller.table.session import TableController
from engine.geometry import NUM_CELLS, parse_cell
from hardware.camera import SyntheticSource
from hardware.clock import FakeClock
from hardware.events import SnapshotEvent
from hardware.leds import NullStrip, RecordingStrip, TerminalStrip
from vision.backend import CameraSensor
from vision.reader import BoardReader
from vision.synthetic.render import Scene, render

C3, D3 = parse_cell("C3"), parse_cell("D3")
#: The frames of the small recording: the empty board twice, then the red piece on D3.
ORDER = ["empty", "empty", "empty", "d3", "d3", "d3", "d3", "d3"]
BLACK = [(0, 0, 0)] * NUM_CELLS


@pytest.fixture(scope="module")
def images() -> dict[str, np.ndarray]:
    """Two 640x480 frames of the synthetic table (as JPEG decodes them): empty, red on D3."""
    scene = Scene(stacks=[""] * 49, size=(640, 480), tilt_deg=15.0, yaw_deg=5.0, blur=0.5,
                  noise=1.5)
    stacks = [""] * 49
    stacks[D3] = "r"
    out = {}
    for name, s in (("empty", [""] * 49), ("d3", stacks)):
        image, _ = render(replace(scene, stacks=s))
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert ok
        out[name] = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


def folder_of(tmp_path: Path, images: dict[str, np.ndarray],
              lines: list[dict[str, object]]) -> Path:
    folder = tmp_path / "game"
    folder.mkdir()
    for name, image in images.items():
        cv2.imwrite(str(folder / f"{name}.jpg"), image)
    (folder / "frames.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def lines_with(leds: list[object]) -> list[dict[str, object]]:
    """One line a frame of ORDER, 0.2 s apart, each with its ``leds`` (none where ...)."""
    out: list[dict[str, object]] = []
    for i, name in enumerate(ORDER):
        line: dict[str, object] = {"t": round(0.2 * i, 1), "image": f"{name}.jpg"}
        if leds[i] is not ...:
            line["leds"] = leds[i]
        out.append(line)
    return out


def reader_leds(folder: Path) -> list[object]:
    """What the reader was told of the LEDs at each frame of a replay."""
    seen: list[object] = []

    def on_frame(t: float, events: list[SnapshotEvent], sensor: CameraSensor) -> None:
        seen.append(sensor.reader.leds)

    replay_recording(read_recording(folder), TableController(colours=True), on_frame=on_frame)
    return seen


# ----------------------------------------------------------------------- reading
def test_leds_are_read_and_reach_the_reader_frame_by_frame(
        tmp_path: Path, images: dict[str, np.ndarray]) -> None:
    given: list[object] = [..., {}, {"C3": [12, 0, 40]}, {"C3": [12, 0, 40], "D3": [0, 80, 0]},
                           ..., {}, {"K5": [255, 255, 255]}, ...]
    folder = folder_of(tmp_path, images, lines_with(given))
    frames = read_recording(folder).frames
    want = [None, {}, {C3: (12, 0, 40)}, {C3: (12, 0, 40), D3: (0, 80, 0)}, None, {},
            {parse_cell("K5"): (255, 255, 255)}, None]
    assert [f.leds for f in frames] == want
    assert frames[2] == Frame(0.4, "empty.jpg", 3, {C3: (12, 0, 40)})
    assert reader_leds(folder) == want


def test_a_recording_without_leds_is_read_as_before(
        tmp_path: Path, images: dict[str, np.ndarray]) -> None:
    folder = folder_of(tmp_path, images, lines_with([...] * len(ORDER)))
    rec = read_recording(folder)
    assert rec.entries == [Frame(round(0.2 * i, 1), f"{name}.jpg", i + 1)
                           for i, name in enumerate(ORDER)]
    assert all(f.leds is None for f in rec.frames)
    assert reader_leds(folder) == [None] * len(ORDER)


BAD: dict[str, tuple[object, str]] = {
    "not-an-object": ([[12, 0, 40]], "'leds' must be an object of cell names and [r, g, b] "
                                     "colours, got an array"),
    "null": (None, "'leds' must be an object"),
    "a-string": ("C3", "got a string"),
    "no-cell": ({"L3": [1, 2, 3]}, "'leds' names 'L3', which is no cell of the board"),
    "lower-case": ({"c3": [1, 2, 3]}, "'leds' names 'c3', which is no cell"),
    "too-bright": ({"C3": [256, 0, 0]}, "'leds' C3: a colour is [r, g, b], three whole "
                                        "numbers 0-255, got [256, 0, 0]"),
    "negative": ({"C3": [0, -1, 0]}, "three whole numbers 0-255, got [0, -1, 0]"),
    "two-values": ({"C3": [1, 2]}, "got [1, 2]"),
    "fraction": ({"C3": [1.5, 2, 3]}, "got [1.5, 2, 3]"),
    "true": ({"C3": [True, 0, 0]}, "got [True, 0, 0]"),
    "a-name": ({"C3": "red"}, "got 'red'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_leds_are_one_line_naming_line_and_fault_exit_2(
        case: str, tmp_path: Path, images: dict[str, np.ndarray],
        capsys: pytest.CaptureFixture[str]) -> None:
    value, words = BAD[case]
    folder = folder_of(tmp_path, images, lines_with([..., ..., ..., ..., value, ..., ..., ...]))
    journal = tmp_path / "games.sqlite3"
    code = main(["replay-sensors", str(folder), "--journal", str(journal)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    (message,) = err.splitlines()
    assert f"{folder / 'frames.jsonl'} line 5: " in message and words in message
    assert not journal.exists()
    with pytest.raises(RecordingError, match="line 5: "):
        read_recording(folder)


def test_leds_belong_on_image_lines(tmp_path: Path, images: dict[str, np.ndarray]) -> None:
    lines = lines_with([...] * len(ORDER))
    lines.insert(3, {"t": 0.5, "button": "hint", "leds": {}})
    folder = folder_of(tmp_path, images, lines)
    with pytest.raises(RecordingError, match="line 4: a 'button' line cannot have 'leds'"):
        read_recording(folder)


# ----------------------------------------------------------------------- writing
def test_what_a_strip_shows_after_brightness_lit_cells_only() -> None:
    strip = RecordingStrip(brightness=0.4, gamma=2.2)
    lit = strip_leds(strip)
    assert lit() == {}  # nothing shown yet: dark
    colours = list(BLACK)
    colours[C3], colours[D3] = (200, 100, 0), (0, 0, 255)
    strip.set_cells(colours)
    assert lit() == {}  # set, not shown yet
    strip.show()
    assert lit() == {C3: (80, 40, 0), D3: (0, 0, 102)}  # as seen: brightness, no gamma
    strip.clear()
    strip.show()
    assert lit() == {}
    for dark in (NullStrip(brightness=0.4), TerminalStrip(brightness=0.4)):
        dark.set_cells(colours)  # drawn in a terminal or nowhere: no LED on the table lit
        dark.show()
        assert strip_leds(dark)() == {}


def test_the_writer_keeps_what_was_lit_and_stores_an_image_anew_under_other_leds(
        tmp_path: Path, images: dict[str, np.ndarray]) -> None:
    empty, e = images["empty"], "." * 49
    with RecordingWriter(tmp_path / "r") as writer:
        writer.write_frame(1.0, empty, e)  # not known
        writer.write_frame(1.2, empty, e, {})  # all dark: stored anew (not "not known")
        writer.write_frame(1.4, empty, e, {D3: (0, 9, 0), C3: (5, 0, 0), 3: (0, 0, 0)})
        writer.write_frame(1.6, empty, e, {C3: (5, 0, 0), D3: (0, 9, 0)})  # the same again
    lines = [json.loads(x) for x in (tmp_path / "r" / "frames.jsonl").read_text().splitlines()]
    assert [x.get("leds", "none") for x in lines] == [
        "none", {}, {"C3": [5, 0, 0], "D3": [0, 9, 0]}, {"C3": [5, 0, 0], "D3": [0, 9, 0]}]
    assert list(lines[2]["leds"]) == ["C3", "D3"]  # in cell order, dark cells left out
    assert [x["image"] for x in lines] == ["f000000.jpg", "f000001.jpg", "f000002.jpg",
                                           "f000002.jpg"]
    assert [f.leds for f in read_recording(tmp_path / "r").frames] == [
        None, {}, {C3: (5, 0, 0), D3: (0, 9, 0)}, {C3: (5, 0, 0), D3: (0, 9, 0)}]


def light(strip: RecordingStrip, i: int) -> None:
    """Frame i of the round trip is taken under: nothing, then C3 blue, then C3 and E1."""
    colours = list(BLACK)
    if i >= 2:
        colours[C3] = (0, 0, 200)
    if i >= 5:
        colours[parse_cell("E1")] = (255, 128, 0)
    strip.set_cells(colours)
    strip.show()


def test_what_play_records_with_its_leds_replays_with_the_same_leds(
        tmp_path: Path, images: dict[str, np.ndarray]) -> None:
    """The play path (Runner, strip, CameraSensor and CameraRecorder given strip_leds) writes
    what the strip showed as each frame was taken; its replay gives the reader the same."""
    clock = FakeClock(50.0)
    ctl = TableController(colours=True)
    strip = RecordingStrip(brightness=0.5)
    lit = strip_leds(strip)
    camera = CameraSensor(SyntheticSource(lambda i: images[ORDER[i]], len(ORDER)),
                          BoardReader(), clock, heights_provider=ctl.heights,
                          leds_provider=lit)
    live: list[object] = []
    out = tmp_path / "recorded"
    with CameraRecorder(RecordingWriter(out), camera, lit) as recorder:
        runner = Runner(ctl, sources=[PlacementTeacher(camera, ctl)], strip=strip, clock=clock,
                        recorder=recorder)
        for i in range(len(ORDER)):
            light(strip, i)  # what the table shows as the camera takes frame i
            runner.step()
            live.append(camera.reader.leds)
            clock.advance(0.2)
    blue, orange = (0, 0, 100), (128, 64, 0)
    want = [{}, {}, {C3: blue}, {C3: blue}, {C3: blue}, {C3: blue, parse_cell("E1"): orange},
            {C3: blue, parse_cell("E1"): orange}, {C3: blue, parse_cell("E1"): orange}]
    assert live == want
    assert [f.leds for f in read_recording(out).frames] == want
    assert reader_leds(out) == want


# ----------------------------------------------------------------------- play --record
def test_play_record_writes_what_its_strip_showed(
        tmp_path: Path, images: dict[str, np.ndarray], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    for i, name in enumerate(ORDER[:4]):
        cv2.imwrite(str(shots / f"{i:03d}.png"), images[name])
    config = tmp_path / "table.toml"
    config.write_text('[sensor]\nbackend = "camera"\n'
                      f'[camera]\nsource = "folder"\npath = "{shots}"\n'
                      '[leds]\nbackend = "recording"\nbrightness = 0.5\ngamma = 1.0\n')
    seen: list[Any] = []

    def run(self: Runner, *, until: Callable[[], bool] | None = None,
            poll: float = 0.02) -> None:
        """Four rounds, the table lighting C3 white before the last two."""
        seen.append(self.strip)
        for i in range(4):
            if i == 2:
                colours = list(BLACK)
                colours[C3] = (255, 255, 255)
                self.strip.set_cells(colours)
                self.strip.show()
            self.step(0.0)

    monkeypatch.setattr(controller.runner.Runner, "run", run)
    out = tmp_path / "recorded"
    code = main(["play", "--config", str(config), "--journal", str(tmp_path / "g.sqlite3"),
                 "--record", str(out)])
    capsys.readouterr()
    assert code == 0 and isinstance(seen[0], RecordingStrip)
    leds = [f.leds for f in read_recording(out).frames]
    assert leds == [{}, {}, {C3: (128, 128, 128)}, {C3: (128, 128, 128)}]
