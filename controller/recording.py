"""Camera recordings: a folder of frames and ``frames.jsonl``, replayed through the camera path.

``frames.jsonl`` holds one JSON object a line, ``t`` in seconds and non-decreasing:
``{"t": 0.2, "image": "f000001.jpg"}`` for every frame the camera gave (``image`` relative to
the folder) and ``{"t": 3.2, "button": "confirm"}`` (optionally ``"long": true``) as in a sensor
log. An image line may also carry ``"leds": {"C3": [r, g, b], ...}``: the colours the table's
LEDs showed when the frame was taken (after brightness, lit cells only, ``{}`` all dark; absent:
not known). :func:`read_recording` checks every line (the sensor log's checks of ``t`` and buttons,
plus the image files); :func:`replay_recording` feeds the frames through exactly what ``play``
runs with a camera; :class:`RecordingWriter` is what ``play --record FOLDER`` writes with.

numpy, OpenCV and vision/ are imported inside the functions that need them: a hall-sensor
install imports this module without them.
"""

from __future__ import annotations

import os
import re
import reprlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import IO, TYPE_CHECKING, Any

from controller.i18n import Msg, config_error
from controller.runner import PlacementTeacher
from controller.sensorlog import SensorLogError, parse_button, parse_object, read_lines
from controller.table.session import TableController
from engine.geometry import CELL_NAMES
from hardware.clock import FakeClock
from hardware.events import ButtonEvent, SensorEvent, SnapshotEvent
from hardware.leds import RGB, WireStrip

if TYPE_CHECKING:
    import numpy as np

    from vision.backend import CameraSensor
    from vision.calibration import Calibration
    from vision.reader import BoardReader

#: The file of a recording folder that holds its lines.
FRAMES = "frames.jsonl"
#: How the writer names the image of frame line N (counted from 0).
IMAGE_NAME = "f{:06d}.jpg"
_IMAGE_FILE = re.compile(r"f\d{6}\.jpg")
#: JPEG quality of the stored frames: 90 keeps the colours and edges the reader uses (a
#: 960x720 frame is ~90 KB) at about a third of the size of quality 98.
DEFAULT_QUALITY = 90
#: The writer stops storing at this many bytes (images and lines): ~2 GB, hours of play.
DEFAULT_MAX_BYTES = 2_000_000_000
#: A frame whose reading is unchanged and whose thumbnail (THUMB, grey) differs from the last
#: stored image's by less than this mean absolute difference (grey levels) is not stored
#: again: sensor noise averages to ~0.5 there, a hand or a moved stack to several.
SAME_IMAGE = 1.5
THUMB = (160, 120)
_CELLS = {name: cell for cell, name in enumerate(CELL_NAMES)}
#: What lit which cell when a frame was taken: cell -> (r, g, b), lit cells only.
Leds = Mapping[int, RGB]


class RecordingError(SensorLogError):
    """A camera recording that cannot be used; the message names the file, line and problem."""


@dataclass(frozen=True)
class Frame:
    """An image line: the frame at ``t`` is the file ``image`` (relative to the folder);
    ``leds`` what the table's LEDs showed then (cell -> (r, g, b)), None when the line does
    not say."""

    t: float
    image: str
    line: int
    leds: dict[int, RGB] | None = None


@dataclass(frozen=True)
class Press:
    """A button line."""

    event: ButtonEvent
    line: int

    @property
    def t(self) -> float:
        return self.event.t


Entry = Frame | Press


@dataclass(frozen=True)
class Recording:
    """A checked recording: its folder, its lines file (``name`` as messages show it) and its
    entries in order."""

    folder: Path
    path: Path
    name: str
    entries: list[Entry]

    @property
    def frames(self) -> list[Frame]:
        return [e for e in self.entries if isinstance(e, Frame)]

    def where(self, entry: Entry) -> str:
        """'game/frames.jsonl line 12': where an entry's line is, for messages."""
        return f"{self.name} line {entry.line}"

    def decode(self, frame: Frame) -> np.ndarray:
        """The frame's image as BGR; RecordingError naming file and line when unreadable."""
        import cv2
        import numpy as np

        where = self.where(frame)
        try:
            data = (self.folder / frame.image).read_bytes()
        except OSError as exc:
            raise RecordingError(Msg("{where}: cannot read image {image!r}: {value}",
                                     where=where, image=frame.image,
                                     value=exc.strerror or exc)) from None
        if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-256:]:
            # OpenCV versions differ: some decode a truncated JPEG with grey filler
            raise RecordingError(Msg("{where}: image {image!r} is cut short (no JPEG end marker)",
                                     where=where, image=frame.image))
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if image is None:
            raise RecordingError(Msg("{where}: image {image!r} cannot be decoded (not an image "
                                     "OpenCV can read)",
                                     where=where, image=frame.image))
        return image


# ----------------------------------------------------------------------- reading
def locate(path: str | Path) -> tuple[Path, Path]:
    """(folder, lines file) of a recording given as its folder or its frames.jsonl."""
    p = Path(path)
    if p.is_dir():
        if not (p / FRAMES).is_file():
            raise RecordingError(Msg("{p}: no {FRAMES} (not a camera recording)",
                                     p=p, FRAMES=FRAMES))
        return p, p / FRAMES
    if not p.exists():
        raise RecordingError(Msg("{p}: does not exist", p=p))
    return p.parent, p


def is_recording(path: str | Path) -> bool:
    """Whether ``path`` is a camera recording: a folder, or a file whose first line that
    parses as a JSON object has an ``image`` (else it is taken for a sensor log)."""
    import json

    p = Path(path)
    if p.is_dir() or p.name == FRAMES:
        return True
    try:
        with p.open("rb") as f:
            for raw in f:
                if raw.strip():
                    obj = json.loads(raw)
                    return isinstance(obj, dict) and "image" in obj
    except (OSError, ValueError, RecursionError):
        return False
    return False


def read_recording(path: str | Path, warn: Callable[[str], object] | None = None
                   ) -> Recording:
    """The recording at ``path`` (its folder or its frames.jsonl), every line checked: JSON,
    ``t``, order, the keys of each kind of line, buttons, each image a file inside the folder.
    RecordingError names the file and line. Reads only; images are decoded in the replay.

    A last line cut short by a power cut is left out with one line to ``warn`` (as a sensor
    log's is)."""
    folder, file = locate(path)
    name = str(file)
    checked: set[str] = set()
    inside = folder.resolve()

    def parse(text: str, where: str, number: int) -> Entry:
        obj, t = parse_object(text, where)
        if "image" in obj:
            other: list[str] = [k for k in ("button", "long", "cells", "polarity") if k in obj]
            if other:
                raise RecordingError(Msg("{where}: an 'image' line cannot have {value}",
                                         where=where, value=', '.join(repr(k) for k in other)))
            image = obj["image"]
            if image not in checked:
                _check_image(image, folder, inside, where)
                checked.add(image)
            leds = parse_leds(obj["leds"], where) if "leds" in obj else None
            return Frame(t, image, number, leds)
        if "button" in obj:
            other = [k for k in ("cells", "polarity", "leds") if k in obj]
            if other:
                raise RecordingError(Msg("{where}: a 'button' line cannot have {value}",
                                         where=where, value=', '.join(repr(k) for k in other)))
            return Press(parse_button(obj, t, where), number)
        if "cells" in obj:
            raise RecordingError(Msg("{where}: 'cells' belongs in a sensor log; a camera "
                                     "recording has 'image' and 'button' lines",
                                     where=where))
        raise RecordingError(Msg("{where}: needs 'image' or 'button'", where=where))

    try:
        entries = read_lines(file, parse, warn, what="camera recording", name=name)
    except RecordingError:
        raise
    except SensorLogError as exc:
        raise RecordingError(str(exc)) from None
    recording = Recording(folder, file, name, entries)
    if not recording.frames:
        raise RecordingError(Msg("{name}: the camera recording holds no frames", name=name))
    return recording


def parse_leds(value: object, where: str) -> dict[int, RGB]:
    """An image line's ``leds``, ``{"C3": [r, g, b], ...}``, as {cell: (r, g, b)}; a
    RecordingError naming ``where`` and the fault when it is not that."""
    if not isinstance(value, dict):
        raise RecordingError(Msg("{where}: 'leds' must be an object of cell names and [r, g, b] "
                                 "colours, got {kind}", where=where, kind=_json_kind(value)))
    leds: dict[int, RGB] = {}
    for name, colour in value.items():
        cell = _CELLS.get(name)
        if cell is None:
            raise RecordingError(Msg("{where}: 'leds' names {name}, which is no cell of the "
                                     "board (A1..I1, A2..J2, A3..K3, B4..K4, C5..K5)",
                                     where=where, name=reprlib.repr(name)))
        if not (isinstance(colour, list) and len(colour) == 3
                and all(type(v) is int and 0 <= v <= 255 for v in colour)):
            raise RecordingError(Msg("{where}: 'leds' {name}: a colour is [r, g, b], three whole "
                                     "numbers 0-255, got {colour}",
                                     where=where, name=name, colour=reprlib.repr(colour)))
        leds[cell] = (colour[0], colour[1], colour[2])
    return leds


def _json_kind(value: object) -> str:
    """What JSON calls the kind of a parsed value: 'array', 'string', 'null', ..."""
    kinds = ((bool, "true/false"), (int | float, "a number"), (str, "a string"),
             (list, "an array"), (dict, "an object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


def _check_image(image: object, folder: Path, inside: Path, where: str) -> None:
    """An ``image`` must name an existing file inside the recording's folder."""
    if not isinstance(image, str) or not image.strip() or "\x00" in image:
        raise RecordingError(Msg("{where}: 'image' must be a file name relative to the "
                                 "recording's folder, got {image!r}",
                                 where=where, image=image))
    if "\\" in image or PurePosixPath(image).is_absolute() or PureWindowsPath(image).drive:
        raise RecordingError(Msg("{where}: image {image!r} must be a path relative to the "
                                 "recording's folder, with '/' between folders",
                                 where=where, image=image))
    if ".." in PurePosixPath(image).parts:
        raise RecordingError(Msg("{where}: image {image!r} must stay inside the recording's "
                                 "folder (no '..')",
                                 where=where, image=image))
    target = folder / image
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise RecordingError(Msg("{where}: image {image!r} cannot be resolved: {exc}",
                                 where=where, image=image, exc=exc)) from None
    if not resolved.is_relative_to(inside):
        raise RecordingError(Msg("{where}: image {image!r} leads outside the recording's folder",
                                 where=where, image=image))
    if not target.exists():
        raise RecordingError(Msg("{where}: image {image!r} does not exist",
                                 where=where, image=image))
    if not target.is_file():
        raise RecordingError(Msg("{where}: image {image!r} is not a file",
                                 where=where, image=image))


# ----------------------------------------------------------------------- replay
OnFrame = Callable[[float, list[SnapshotEvent], "CameraSensor"], object]


def replay_recording(recording: Recording, ctl: TableController, *,
                     reader: BoardReader | None = None,
                     on_frame: OnFrame | None = None) -> TableController:
    """Feed a recording through the path ``play`` takes with a camera, deterministically.

    A CameraSensor reads each frame (decoded when its line comes) with the recording's ``t``
    as its clock and the controller's committed heights, behind a PlacementTeacher so each
    committed placement teaches the colour model; per image line: poll, handle, advance(t);
    per button line: handle. Then settle. Each frame's ``leds`` (None where the line has none)
    go with it to the reader, as ``play`` gives it what its strip showed. ``reader`` defaults
    to ``BoardReader()`` (the default camera geometry); ``on_frame(t, events, sensor)`` sees
    every frame (benchmarks, tests). RecordingError names the line of an image that cannot be
    decoded.
    """
    from hardware.camera import SyntheticSource
    from vision.backend import CameraSensor
    from vision.reader import BoardReader

    clock = FakeClock(0.0)
    pending: list[Frame] = []
    lit: list[Leds | None] = [None]  # the leds of the frame being read
    decoded: dict[str, np.ndarray] = {}  # the last image: repeated lines decode it once

    def next_frame(index: int) -> np.ndarray | None:
        if not pending:
            return None
        frame = pending.pop()
        if frame.image not in decoded:
            decoded.clear()
            decoded[frame.image] = recording.decode(frame)
        return decoded[frame.image].copy()

    sensor = CameraSensor(SyntheticSource(next_frame), reader or BoardReader(), clock,
                          heights_provider=ctl.heights, leds_provider=lambda: lit[0])
    teacher = PlacementTeacher(sensor, ctl)
    with sensor:
        for entry in recording.entries:
            if isinstance(entry, Press):
                ctl.handle(entry.event)
                continue
            clock.t = entry.t
            pending[:] = [entry]
            lit[0] = entry.leds
            events = [e for e in teacher.poll() if isinstance(e, SnapshotEvent)]
            for event in events:
                ctl.handle(event)
            ctl.advance(entry.t)
            if on_frame is not None:
                on_frame(entry.t, events, sensor)
    ctl.settle()
    return ctl


def reader_from_camera(section: Mapping[str, Any], calibration: Calibration | None = None
                       ) -> BoardReader:
    """The BoardReader ``play`` builds from a ``[camera]`` config section: its geometry keys
    and calibration file (``calibration`` given here overrides the file). The source keys are
    checked and ignored: a replay's frames come from the recording."""
    from vision.backend import CAMERA_KEYS, GEOMETRY_KEYS
    from vision.calibration import Calibration
    from vision.geometry import BoardGeometry
    from vision.reader import BoardReader

    for key in section:
        if key not in CAMERA_KEYS:
            known = ", ".join(sorted(CAMERA_KEYS))
            raise config_error(f"camera.{key}", Msg("unknown key; known: {known}", known=known))
    geometry = BoardGeometry.from_config(section) if GEOMETRY_KEYS & set(section) else None
    path = section.get("calibration")
    if calibration is None and path is not None:
        if not isinstance(path, str) or not path:
            raise config_error("camera.calibration",
                               Msg("must be a file path, got {path!r}", path=path))
        calibration = Calibration.load(path)
    return BoardReader(geometry=geometry, calibration=calibration)


# ----------------------------------------------------------------------- writing
def check_record_folder(folder: str | Path, *, force: bool = False,
                        option: str = "recording folder") -> None:
    """Refuse a folder a recording cannot go to: a file, a missing or read-only parent, or a
    folder that is not empty (unless ``force``). Changes nothing."""
    p = Path(folder).expanduser()
    where = f"{option} {folder}"
    if p.exists() and not p.is_dir():
        raise RecordingError(Msg("{where}: is a file; a camera table records into a folder",
                                 where=where))
    if p.is_dir():
        if any(p.iterdir()) and not force:
            raise RecordingError(Msg("{where}: the folder is not empty; pass --force to record "
                                     "over the recording in it",
                                     where=where))
        if not os.access(p, os.W_OK | os.X_OK):
            raise RecordingError(Msg("{where}: the folder is not writable by this user",
                                     where=where))
        return
    parent = p.absolute().parent
    if not parent.is_dir():
        raise RecordingError(Msg("{where}: the folder {parent} does not exist",
                                 where=where, parent=parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise RecordingError(Msg("{where}: the folder {parent} is not writable by this user",
                                 where=where, parent=parent))


class RecordingWriter:
    """Writes a camera recording as frames and buttons arrive (``close()`` safe twice).

    Times are made relative to the first line (as LogRecorder's). Disk use is bounded:
    frames are JPEG at ``quality``; a frame whose reading equals the previous frame's and
    whose image is nearly the last stored one (:data:`SAME_IMAGE`), under the same LEDs, is
    not stored again, its line names the last stored file (the timing is kept exactly); a
    frame given what the LEDs showed has it on its line (``leds``); and at ``max_bytes``
    (images and lines) the recording ends: one line to ``warn`` (default: stderr), the game
    goes on. frames.jsonl is line-buffered, each image written before its line, so a power
    cut keeps what was written.
    """

    def __init__(self, folder: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 quality: int = DEFAULT_QUALITY, same_image: float = SAME_IMAGE,
                 force: bool = False, warn: Callable[[str], object] | None = None) -> None:
        if isinstance(quality, bool) or not 1 <= quality <= 100:
            raise RecordingError(Msg("JPEG quality must be 1-100, got {quality!r}",
                                     quality=quality))
        if isinstance(max_bytes, bool) or max_bytes <= 0:
            raise RecordingError(Msg("the size limit must be a positive number of bytes, got "
                                     "{max_bytes!r}",
                                     max_bytes=max_bytes))
        check_record_folder(folder, force=force)
        self.folder = Path(folder).expanduser()
        self.max_bytes = max_bytes
        self.quality = quality
        self.same_image = same_image
        self.warn = warn or _stderr
        self.folder.mkdir(exist_ok=True)
        for old in self.folder.iterdir():  # with force: the old recording goes, nothing else
            if old.name == FRAMES or _IMAGE_FILE.fullmatch(old.name):
                old.unlink()
        self._file: IO[str] | None = (self.folder / FRAMES).open(
            "w", encoding="utf-8", buffering=1)
        self._t0: float | None = None
        self._last_t = 0.0
        self._reading: str | None = None
        self._thumb: np.ndarray | None = None
        self._stored: str | None = None
        self._stored_leds: dict[int, RGB] | None = None
        #: bytes written (images and lines); frame lines, images stored; the cap was reached
        self.bytes = 0
        self.frames = 0
        self.images = 0
        self.full = False

    def write_frame(self, t: float, frame: np.ndarray, reading: str,
                    leds: Leds | None = None) -> None:
        """One frame the camera gave at ``t`` (its own clock), the snapshot read from it and,
        when known, what the LEDs showed as it was taken (cell -> (r, g, b), lit cells)."""
        if self._file is None or self.full:
            return
        import cv2
        import numpy as np

        t = self._time(t)
        lit = None if leds is None else {c: leds[c] for c in sorted(leds) if any(leds[c])}
        thumb = cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), THUMB,
                           interpolation=cv2.INTER_AREA)
        same = (self._stored is not None and reading == self._reading
                and lit == self._stored_leds and self._thumb is not None
                and float(np.mean(cv2.absdiff(thumb, self._thumb))) < self.same_image)
        self._reading = reading
        if same:
            assert self._stored is not None
            if self._emit(_frame_line(t, self._stored, lit)):
                self.frames += 1
            return
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise RecordingError(Msg("{folder}: cannot encode frame {frames} as JPEG",
                                     folder=self.folder, frames=self.frames))
        name = IMAGE_NAME.format(self.frames)
        if self._emit(_frame_line(t, name, lit), name, jpeg.tobytes()):
            self._stored, self._thumb, self._stored_leds = name, thumb, lit
            self.images += 1
            self.frames += 1

    def write_button(self, event: ButtonEvent) -> None:
        """A button press, at its time on the same clock as the frames'."""
        if self._file is None or self.full:
            return
        obj: dict[str, Any] = {"t": self._time(event.t), "button": event.button}
        if event.long:
            obj["long"] = True
        self._emit(_line(obj))

    def _time(self, t: float) -> float:
        if self._t0 is None:
            self._t0 = t
        self._last_t = max(self._last_t, round(t - self._t0, 4))
        return self._last_t

    def _emit(self, line: str, name: str = "", image: bytes = b"") -> bool:
        """Write the image (if any), then its line; False (and the one warning) when they
        would pass the size limit or the disk refuses them: the recording ends there."""
        assert self._file is not None
        size = len(line.encode("utf-8")) + len(image)
        if self.bytes + size > self.max_bytes:
            return self._end(f"reached its size limit ({self.max_bytes / 1e6:g} MB)")
        try:
            if name:
                (self.folder / name).write_bytes(image)
            self._file.write(line)
        except OSError as exc:  # a full or failing card must not stop the game
            return self._end(f"cannot be written ({exc.strerror or exc})")
        self.bytes += size
        return True

    def _end(self, why: str) -> bool:
        self.full = True
        self.warn(f"{self.folder}: the camera recording {why} and ends at "
                  f"t={self._last_t:g} s; the game goes on")
        return False

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CameraRecorder:
    """The runner's recorder on a camera table: each SnapshotEvent is stored with the frame it
    was read from (the camera's ``last_frame``: the runner feeds a poll's events before the
    next poll) and, given ``leds`` (e.g. :func:`strip_leds`), what the LEDs showed then (the
    runner lights the next view only after feeding); each button as it comes; other events
    are not kept."""

    def __init__(self, writer: RecordingWriter, camera: Any,
                 leds: Callable[[], Leds | None] | None = None) -> None:
        self.writer = writer
        self.camera = camera
        self.leds = leds

    def write(self, event: SensorEvent) -> None:
        if isinstance(event, SnapshotEvent):
            frame = self.camera.last_frame
            if frame is not None:
                lit = self.leds() if self.leds is not None else None
                self.writer.write_frame(event.t, frame, event.cells, lit)
        elif isinstance(event, ButtonEvent):
            self.writer.write_button(event)

    def close(self) -> None:
        self.writer.close()

    def __enter__(self) -> CameraRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def strip_leds(strip: Any) -> Callable[[], dict[int, RGB]]:
    """What ``strip`` shows now, for the recorder and the camera: cell -> (r, g, b) of its
    last shown frame after brightness (and the current limit, without gamma: as a person sees
    them), lit cells only. {} before its first frame, and for a strip that lights nothing on
    the table (the terminal's, ``none``): only a strip fed with wire bytes drives LEDs."""
    def lit() -> dict[int, RGB]:
        frame = strip.last_frame if isinstance(strip, WireStrip) else None
        if frame is None:
            return {}
        return {cell: rgb for cell, rgb in enumerate(frame.preview) if any(rgb)}
    return lit


def _frame_line(t: float, image: str, leds: Leds | None) -> str:
    obj: dict[str, Any] = {"t": t, "image": image}
    if leds is not None:
        obj["leds"] = {CELL_NAMES[c]: list(rgb) for c, rgb in leds.items()}
    return _line(obj)


def _line(obj: Mapping[str, Any]) -> str:
    import json

    return json.dumps(obj, separators=(", ", ": ")) + "\n"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)
