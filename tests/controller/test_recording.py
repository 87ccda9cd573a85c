"""Camera recordings (controller/recording.py): reading and its errors, the deterministic
replay through the camera path, ``replay-sensors FOLDER``, and the writer ``play --record``
uses (round trip, repeated frames, size limit)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from controller.journal.store import Journal
from controller.recording import (
    CameraRecorder,
    Frame,
    Press,
    RecordingError,
    RecordingWriter,
    is_recording,
    read_recording,
    replay_recording,
)
from controller.runner import PlacementTeacher, Runner
from controller.sensorlog import SensorLogError
from controller.table.session import TableController
from hardware.camera import SyntheticSource
from hardware.clock import FakeClock
from hardware.events import ButtonEvent, SnapshotEvent
from vision.backend import CameraSensor
from vision.reader import BoardReader
from vision.synthetic.render import Scene, render

D3 = 22
SHARED = Path(__file__).resolve().parents[3] / "shared" / "camera-games" / "game-8"
#: The frame lines of the small recording: two empty boards, then the red piece on D3
#: (each image twice, as a camera sees a still board), 0.2 s apart.
LINES = [("empty-0", 0.0), ("empty-1", 0.2), ("empty-0", 0.4), ("empty-1", 0.6),
         ("d3-0", 0.8), ("d3-1", 1.0), ("d3-0", 1.2), ("d3-1", 1.4), ("d3-0", 1.6)]


@pytest.fixture(scope="module")
def jpegs() -> dict[str, bytes]:
    """Four 640x480 JPEG frames of the synthetic table: empty, and with a red piece on D3."""
    scene = Scene(stacks=[""] * 49, size=(640, 480), tilt_deg=15.0, yaw_deg=5.0, blur=0.5,
                  noise=1.5)
    stacks = [""] * 49
    stacks[D3] = "r"
    out = {}
    for name, s in (("empty", [""] * 49), ("d3", stacks)):
        for seed in (0, 1):
            image, _ = render(replace(scene, stacks=s, seed=seed))
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            assert ok
            out[f"{name}-{seed}"] = data.tobytes()
    return out


def write_recording(folder: Path, jpegs: dict[str, bytes],
                    lines: list[dict[str, object]] | None = None) -> Path:
    """A recording folder of the four frames and LINES (or the given lines)."""
    folder.mkdir()
    for name, data in jpegs.items():
        (folder / f"{name}.jpg").write_bytes(data)
    if lines is None:
        lines = [{"t": t, "image": f"{name}.jpg"} for name, t in LINES]
    (folder / "frames.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


@pytest.fixture
def recording(tmp_path: Path, jpegs: dict[str, bytes]) -> Path:
    return write_recording(tmp_path / "game", jpegs)


def readings(path: Path) -> tuple[list[str], list[tuple[float, str]]]:
    """The actions and the per-frame snapshots of a replay."""
    seen: list[tuple[float, str]] = []

    def on_frame(t: float, events: list[SnapshotEvent], sensor: CameraSensor) -> None:
        seen.extend((t, e.cells) for e in events)

    ctl = replay_recording(read_recording(path), TableController(colours=True),
                           on_frame=on_frame)
    return ctl.actions, seen


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its content: to see that nothing changed."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay-sensors", *args])
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------- reading, replay
def test_replay_is_deterministic_and_sees_the_placement(recording: Path) -> None:
    first = readings(recording)
    assert first == readings(recording)
    actions, seen = first
    assert actions == ["D3"]
    assert [t for t, _ in seen] == [t for _, t in LINES]
    assert seen[0][1] == "." * 49 and seen[-1][1][D3] == "r"


def test_read_recording_keeps_lines_buttons_and_folder(recording: Path) -> None:
    with (recording / "frames.jsonl").open("a") as f:
        f.write('\n{"t": 2.0, "button": "confirm", "long": true}\n')
    rec = read_recording(recording / "frames.jsonl")
    assert rec.folder == recording and rec.name == str(recording / "frames.jsonl")
    assert rec.entries[0] == Frame(0.0, "empty-0.jpg", 1)
    assert rec.entries[-1] == Press(ButtonEvent(2.0, "confirm", True), 11)
    assert len(rec.frames) == len(LINES)
    assert is_recording(recording) and is_recording(recording / "frames.jsonl")


def test_cli_replays_the_folder_and_its_frames_jsonl_alike(
        recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(recording)
    code, out, err = run(capsys, str(recording))
    assert (code, out) == (0, "D3\n") and "unfinished" in err
    assert run(capsys, str(recording / "frames.jsonl"))[:2] == (0, out)
    assert tree(recording) == before  # reading and replaying write nothing


def test_cli_journal_and_config(recording: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "games.sqlite3"
    config = tmp_path / "table.toml"
    config.write_text('[camera]\nsource = "folder"\npath = "nowhere"\npitch_mm = 40\n')
    code, out, _ = run(capsys, str(recording), "--journal", str(journal),
                       "--config", str(config))
    assert (code, out) == (0, "D3\n")
    with Journal(journal) as j:
        (info,) = j.games()
        assert j.actions(info.id) == ["D3"]
    config.write_text("[camera]\nlens = 3\n")
    code, _, err = run(capsys, str(recording), "--config", str(config))
    assert code == 2 and "camera.lens" in err and len(err.splitlines()) == 1


def test_config_options_are_for_recordings_only(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"t": 0, "cells": "." * 49}) + "\n")
    assert not is_recording(log)
    code, _, err = run(capsys, str(log), "--calibration", str(tmp_path / "cal.json"))
    assert code == 2 and "--calibration is for camera recordings" in err


def _lines(**change: dict[str, object]) -> Callable[[Path], None]:
    """Rewrite frames.jsonl with line N (1-based key 'lN') replaced by the given object."""
    def apply(folder: Path) -> None:
        lines = [{"t": t, "image": f"{name}.jpg"} for name, t in LINES]
        for key, obj in change.items():
            lines[int(key[1:]) - 1] = obj
        (folder / "frames.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return apply


def _raw_line(number: int, text: str) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / "frames.jsonl"
        lines = path.read_text().splitlines()
        lines[number - 1] = text
        path.write_text("\n".join(lines) + "\n")
    return apply


def _image(name: str, data: bytes | None) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        if data is None:
            (folder / name).unlink()
        else:
            (folder / name).write_bytes(data)
    return apply


BAD = {
    "bad-json": (_raw_line(3, '{"t": 0.4, "image": '), 3, "bad JSON"),
    "no-t": (_lines(l2={"image": "empty-1.jpg"}), 2, "missing or bad 't'"),
    "t-text": (_lines(l2={"t": "0.2", "image": "empty-1.jpg"}), 2, "missing or bad 't'"),
    "t-nan": (_raw_line(2, '{"t": NaN, "image": "empty-1.jpg"}'), 2, "missing or bad 't'"),
    "time-back": (_lines(l4={"t": 0.1, "image": "empty-1.jpg"}), 4, "before the previous"),
    "not-object": (_raw_line(5, "[1, 2]"), 5, "expected a JSON object"),
    "image-and-button": (_lines(l3={"t": 0.4, "image": "empty-0.jpg", "button": "undo"}), 3,
                         "an 'image' line cannot have 'button'"),
    "long-on-image": (_lines(l3={"t": 0.4, "image": "empty-0.jpg", "long": True}), 3,
                      "cannot have 'long'"),
    "cells": (_lines(l6={"t": 1.0, "cells": "." * 49}), 6, "'cells' belongs in a sensor log"),
    "neither": (_lines(l6={"t": 1.0}), 6, "needs 'image' or 'button'"),
    "bad-button": (_lines(l6={"t": 1.0, "button": "jump"}), 6, "unknown button 'jump'"),
    "image-number": (_lines(l2={"t": 0.2, "image": 7}), 2, "'image' must be a file name"),
    "absolute": (_lines(l2={"t": 0.2, "image": "/etc/hostname"}), 2, "must be a path relative"),
    "escape": (_lines(l7={"t": 1.2, "image": "../game/d3-0.jpg"}), 7, "no '..'"),
    "missing": (_image("d3-1.jpg", None), 6, "image 'd3-1.jpg' does not exist"),
    "corrupt": (_image("d3-1.jpg", b"this is not a JPEG"), 6, "cannot be decoded"),
    "cut-short": (_image("d3-0.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 600), 5, "cut short"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_recordings_are_one_line_naming_file_and_line(
        case: str, recording: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    spoil, line, words = BAD[case]
    spoil(recording)
    before = tree(tmp_path)
    journal = tmp_path / "games.sqlite3"
    code, out, err = run(capsys, str(recording), "--journal", str(journal))
    assert code == 2 and out == ""
    (message,) = err.splitlines()
    assert f"{recording / 'frames.jsonl'} line {line}: " in message and words in message
    assert "Traceback" not in err
    assert tree(tmp_path) == before and not journal.exists()  # nothing created or changed
    with pytest.raises(RecordingError) as caught:
        replay_recording(read_recording(recording), TableController(colours=True))
    assert isinstance(caught.value, SensorLogError) and f"line {line}: " in str(caught.value)


def test_a_bad_image_changes_an_existing_journal_not_at_all(
        recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "games.sqlite3"
    assert run(capsys, str(recording), "--journal", str(journal))[0] == 0
    with Journal(journal) as j:
        kept = [(g.id, j.actions(g.id)) for g in j.games()]
    (recording / "d3-0.jpg").write_bytes(b"garbage")
    assert run(capsys, str(recording), "--journal", str(journal))[0] == 2
    with Journal(journal) as j:
        assert [(g.id, j.actions(g.id)) for g in j.games()] == kept


def test_a_last_line_cut_by_a_power_cut_is_left_out(recording: Path) -> None:
    with (recording / "frames.jsonl").open("a") as f:
        f.write('{"t": 1.8, "ima')
    notes: list[str] = []
    rec = read_recording(recording, warn=notes.append)
    assert len(rec.frames) == len(LINES)
    (note,) = notes
    assert f"line {len(LINES) + 1}" in note and "partial line" in note


@pytest.mark.parametrize("content,words", [
    (None, "no frames.jsonl (not a camera recording)"),
    ("", "holds no events"),
    ('{"t": 0, "button": "new"}\n', "holds no frames"),
])
def test_a_folder_that_is_no_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       content: str | None, words: str) -> None:
    folder = tmp_path / "game"
    folder.mkdir()
    if content is not None:
        (folder / "frames.jsonl").write_text(content)
    before = tree(tmp_path)
    code, out, err = run(capsys, str(folder))
    (message,) = err.splitlines()
    assert code == 2 and out == "" and words in message and str(folder) in message
    assert tree(tmp_path) == before


# ----------------------------------------------------------------------- writing
def frame_of(jpegs: dict[str, bytes], name: str) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(jpegs[name], np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_what_play_records_replays_to_the_same_readings(
        recording: Path, tmp_path: Path, jpegs: dict[str, bytes]) -> None:
    """The play path (Runner, PlacementTeacher, CameraSensor, CameraRecorder) writes a
    recording; its replay reads every frame as play read it."""
    order = [name for name, _ in LINES]
    clock = FakeClock(100.0)
    ctl = TableController(colours=True)
    camera = CameraSensor(SyntheticSource(lambda i: frame_of(jpegs, order[i]), len(order)),
                          BoardReader(), clock,
                          heights_provider=ctl.heights)
    live: list[str] = []
    out = tmp_path / "recorded"
    with CameraRecorder(RecordingWriter(out), camera) as recorder:
        runner = Runner(ctl, sources=[PlacementTeacher(camera, ctl)], clock=clock,
                        recorder=recorder)
        for i in range(len(order)):
            live.extend(e.cells for e in runner.step() if isinstance(e, SnapshotEvent))
            if i == 3:
                recorder.write(ButtonEvent(clock.now(), "hint"))
            clock.advance(0.2)
        writer = recorder.writer
    ctl.settle()
    assert ctl.actions == ["D3"]
    rec = read_recording(out)
    assert [round(f.t, 4) for f in rec.frames] == [t for _, t in LINES]
    assert [e.event for e in rec.entries if isinstance(e, Press)] == [
        ButtonEvent(0.6, "hint", False)]
    # the two empty frames read alike and look alike: stored once (as are the two D3 ones)
    assert writer.images == len({f.image for f in rec.frames}) < len(LINES)
    assert rec.frames[1].image == rec.frames[0].image
    actions, seen = readings(out)
    assert actions == ["D3"] and [cells for _, cells in seen] == live


def test_the_repeated_frame_rule(tmp_path: Path, jpegs: dict[str, bytes]) -> None:
    empty = frame_of(jpegs, "empty-0")
    brighter = cv2.add(empty, np.full_like(empty, 20))
    e = "." * 49
    with RecordingWriter(tmp_path / "r", quality=80) as writer:
        writer.write_frame(5.0, empty, e)
        writer.write_frame(5.2, frame_of(jpegs, "empty-1"), e)  # noise only: not stored
        writer.write_frame(5.4, empty, "?" + e[1:])  # another reading: stored
        writer.write_frame(5.6, empty, "?" + e[1:])  # same again: not stored
        writer.write_frame(5.8, brighter, "?" + e[1:])  # the same reading, another look
    lines = [json.loads(x) for x in (tmp_path / "r" / "frames.jsonl").read_text().splitlines()]
    assert [x["t"] for x in lines] == [0.0, 0.2, 0.4, 0.6, 0.8]
    assert [x["image"] for x in lines] == ["f000000.jpg", "f000000.jpg", "f000002.jpg",
                                           "f000002.jpg", "f000004.jpg"]
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "f000000.jpg", "f000002.jpg", "f000004.jpg", "frames.jsonl"]
    assert writer.images == 3 and writer.frames == 5


def test_the_size_limit_ends_the_recording_with_one_warning(
        tmp_path: Path, jpegs: dict[str, bytes]) -> None:
    warnings: list[str] = []
    e = "." * 49
    one = len(cv2.imencode(".jpg", frame_of(jpegs, "empty-0"),
                           [cv2.IMWRITE_JPEG_QUALITY, 90])[1])
    writer = RecordingWriter(tmp_path / "r", max_bytes=one + 100, warn=warnings.append)
    writer.write_frame(0.0, frame_of(jpegs, "empty-0"), e)
    writer.write_frame(0.2, frame_of(jpegs, "empty-0"), e)  # a repeat: a line, no image
    writer.write_frame(0.4, frame_of(jpegs, "d3-0"), e[:D3] + "r" + e[D3 + 1:])  # too big
    writer.write_frame(0.6, frame_of(jpegs, "empty-0"), e)
    writer.write_button(ButtonEvent(0.8, "confirm"))
    writer.close()
    writer.close()  # safe twice
    writer.write_frame(1.0, frame_of(jpegs, "empty-0"), e)  # after close: ignored
    assert len(warnings) == 1 and "size limit" in warnings[0] and writer.full
    assert writer.bytes <= one + 100
    rec = read_recording(tmp_path / "r")
    assert [(f.t, f.image) for f in rec.frames] == [(0.0, "f000000.jpg"), (0.2, "f000000.jpg")]
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["f000000.jpg", "frames.jsonl"]


def test_a_full_disk_ends_the_recording_not_the_game(
        tmp_path: Path, jpegs: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    writer = RecordingWriter(tmp_path / "r", warn=warnings.append)

    def full(self: Path, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full)
    writer.write_frame(0.0, frame_of(jpegs, "empty-0"), "." * 49)
    writer.write_frame(0.2, frame_of(jpegs, "d3-0"), "?" * 49)
    writer.close()
    (warning,) = warnings
    assert "No space left" in warning and "the game goes on" in warning
    assert (tmp_path / "r" / "frames.jsonl").read_text() == ""


def test_the_writer_wants_a_new_or_empty_folder(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    (folder / "f000007.jpg").write_bytes(b"old")
    with pytest.raises(RecordingError, match="not empty; pass --force"):
        RecordingWriter(folder)
    with pytest.raises(RecordingError, match="is a file"):
        RecordingWriter(folder / "notes.txt")
    with pytest.raises(RecordingError, match="does not exist"):
        RecordingWriter(tmp_path / "missing" / "r")
    with RecordingWriter(folder, force=True) as writer:
        writer.write_button(ButtonEvent(3.0, "undo", True))
    assert sorted(p.name for p in folder.iterdir()) == ["frames.jsonl", "notes.txt"]
    assert (folder / "frames.jsonl").read_text() == (
        '{"t": 0.0, "button": "undo", "long": true}\n')


def test_play_record_on_a_camera_table_refuses_a_full_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "camera.toml"
    config.write_text('[sensor]\nbackend = "camera"\n[leds]\nbackend = "none"\n')
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "x").write_text("x")
    before = tree(tmp_path)
    code = main(["play", "--config", str(config), "--record", str(folder),
                 "--journal", str(tmp_path / "g.sqlite3")])
    _, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert code == 2 and f"--record {folder}: the folder is not empty" in line
    assert tree(tmp_path) == before


# ----------------------------------------------------------------------- shared frames
def test_the_first_frames_of_a_shared_game(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The first 15 frames of ../shared/camera-games/game-8: the empty board, White's hand
    with the first red piece, the piece on D3, Black's hand over F3."""
    if not SHARED.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing: CI must have ../shared/camera-games")
        pytest.skip(f"{SHARED} not found (a clone without ../shared)")
    folder = tmp_path / "game-8"
    folder.mkdir()
    lines = (SHARED / "frames.jsonl").read_text().splitlines()[:15]
    for line in lines:
        shutil.copy(SHARED / json.loads(line)["image"], folder)
    (folder / "frames.jsonl").write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, str(folder / "frames.jsonl"))
    assert (code, out) == (0, "D3\n")
    assert run(capsys, str(folder))[:2] == (0, out)
