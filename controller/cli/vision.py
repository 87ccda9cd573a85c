"""``dvonn-board vision``: read a photo, calibrate from the empty board, print the marker
sheet, render a synthetic frame."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.cli.numbers import whole
from controller.i18n import Msg, _
from engine.errors import DvonnError
from engine.geometry import NUM_CELLS


def parse_heights_text(text: str) -> list[int]:
    """49 digits ('1101...') or 49 comma-separated numbers, canonical order, 0 = empty."""
    raw = text.strip()
    if "," in raw:
        parts = [p.strip() for p in raw.split(",")]
    else:
        parts = list(raw.replace(" ", ""))
    if len(parts) != NUM_CELLS:
        shown = repr(text) if len(text) <= 60 else f"{text[:60]!r}..."
        raise DvonnError(Msg("--heights {shown} needs {NUM_CELLS} values (49 digits or "
                             "comma-separated numbers), got {len_parts}",
                             shown=shown, NUM_CELLS=NUM_CELLS, len_parts=len(parts)))
    out = []
    for i, p in enumerate(parts):
        if not p.isdigit() or int(p) > 49:
            raise DvonnError(Msg("--heights: value {p!r} at offset {i} is not a stack height 0..49",
                                 p=p, i=i))
        out.append(int(p))
    return out


#: Names cv2.imwrite can write (the extension picks the format).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
#: A view with this many cells reading as a piece is not a view of the empty board.
MAX_PIECES_ON_EMPTY = 2


def _load_image(path: str) -> Any:
    import cv2

    p = Path(path)
    if not p.exists():
        raise DvonnError(Msg("image {path!r} does not exist", path=path))
    if p.is_dir():
        raise DvonnError(Msg("image {path!r} is a folder; give one image file", path=path))
    frame = cv2.imread(path, cv2.IMREAD_COLOR)
    if frame is None:
        raise DvonnError(Msg("cannot read image {path!r} (not an image OpenCV can decode)",
                             path=path))
    return frame


def _calibration(path: str | None) -> Any:
    if path is None:
        return None
    from vision.calibration import Calibration

    p = Path(path)
    if p.is_dir():
        raise DvonnError(Msg("calibration file {path!r} is a folder", path=path))
    try:
        return Calibration.load(path)
    except UnicodeDecodeError as exc:
        raise DvonnError(Msg("calibration file {path!r} is not UTF-8 JSON (byte offset {start}): "
                             "give the file 'vision calibrate' wrote",
                             path=path, start=exc.start)) from None
    except RecursionError:
        raise DvonnError(Msg("calibration file {path!r}: JSON nested too deeply",
                             path=path)) from None


def cmd_read(args: argparse.Namespace) -> int:
    from controller.cli.paths import check_output_file
    from engine.geometry import CELL_NAMES
    from vision.reader import BoardReader

    heights = parse_heights_text(args.heights) if args.heights else None
    check_output_file("--annotated", args.annotated, suffixes=IMAGE_SUFFIXES)
    reader = BoardReader(None, _calibration(args.calibration))
    frame = _load_image(args.image)
    reading = reader.read(frame, heights)
    print(reading.snapshot)
    print(json.dumps({CELL_NAMES[c]: round(reading.confidence[c], 3) for c in range(NUM_CELLS)}))
    if args.annotated:
        import cv2

        if not cv2.imwrite(args.annotated, reading.annotated(frame)):
            raise DvonnError(Msg("cannot write {annotated!r}", annotated=args.annotated))
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from controller.cli.paths import check_output_file
    from vision.calibration import Calibration
    from vision.reader import calibrate_empty

    check_output_file("--out", args.out)
    base = _calibration(args.calibration) or Calibration()
    frames = []
    if args.images:
        frames = [_load_image(p) for p in args.images]
    else:
        from hardware.camera import VideoCaptureSource

        with VideoCaptureSource(args.camera) as cam:
            for _frame in range(args.frames):
                frame = cam.read()
                if frame is not None:
                    frames.append(frame)
        if not frames:
            raise DvonnError(Msg("camera {camera} gave no frames", camera=args.camera))
    names = args.images or [f"camera {args.camera} frame {i + 1}" for i in range(len(frames))]
    _check_empty_board(frames, names, base)
    cal = calibrate_empty(frames, base)
    cal.save(args.out)
    print(f"calibration from {len(frames)} view(s) of the empty board written to {args.out}")
    _report_printed_scale(frames, cal.geometry)
    _report_framing(frames, cal.geometry)
    return 0


def _check_empty_board(frames: list[Any], names: list[str], base: Any) -> None:
    """Refuse a view with pieces on the board: calibrating on it would teach the colour
    model that pieces are empty spaces. Views where the board is not found are left to
    calibrate_empty, which says so."""
    from engine.geometry import CELL_NAMES
    from vision.reader import BoardReader

    reader = BoardReader(base.geometry, base)
    for frame, name in zip(frames, names, strict=True):
        try:
            snapshot = reader.read(frame, None).snapshot
        except DvonnError:
            continue
        pieces = [CELL_NAMES[c] for c, ch in enumerate(snapshot) if ch in "wbrx"]
        if len(pieces) > MAX_PIECES_ON_EMPTY:
            shown = ", ".join(pieces[:6]) + (", ..." if len(pieces) > 6 else "")
            raise DvonnError(Msg("{name} is not a view of the empty board: {len_pieces} cells "
                                 "hold pieces ({shown}); take every piece off and calibrate again",
                                 name=name, len_pieces=len(pieces), shown=shown))


def _report_printed_scale(frames: list[Any], geometry: Any) -> None:
    """One line: were the markers printed and placed at the configured size (vision.sheet)?"""
    from vision.sheet import check_printed_scale

    check = check_printed_scale(frames, geometry)
    if check is None:
        print("printed scale: not checked (no view shows all four markers)", file=sys.stderr)
    else:
        print(check.describe(geometry), file=sys.stdout if check.ok else sys.stderr)


def _report_framing(frames: list[Any], geometry: Any) -> None:
    """One line: does every marker keep 5 % of the picture to its edges (vision.framing)? A
    warning, not an error: the calibration is written and the exit code stays 0."""
    from vision.framing import check_framing

    check = check_framing(frames, geometry)
    if check is not None:
        print(check.describe(), file=sys.stdout if check.ok else sys.stderr)


def cmd_sheet(args: argparse.Namespace) -> int:
    from vision.sheet import sheet_size_mm, write_sheet

    files = write_sheet(args.out, dpi=args.dpi, layout=args.layout)
    from vision.geometry import BoardGeometry

    w, h = sheet_size_mm(BoardGeometry())
    names = ", ".join(str(f) for f in files)
    print(f"sheet {w:.1f} x {h:.1f} mm ({args.layout}) written to {names} (print at 100% scale)")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from controller.cli.paths import check_output_file
    from vision.synthetic.render import heights_of, random_position, random_scene, render

    check_output_file("--out", args.out, suffixes=IMAGE_SUFFIXES)
    rng = np.random.default_rng(args.seed)
    stacks = random_position(rng, args.moves)
    scene = random_scene(rng, stacks, hands=args.hands, wide=args.wide)
    frame, truth = render(scene)
    if not cv2.imwrite(args.out, frame):
        raise DvonnError(Msg("cannot write {out!r} (use a .png or .jpg name)", out=args.out))
    print(truth.snapshot)
    print("".join(str(min(h, 9)) for h in heights_of(stacks)))
    return 0


def register(subparsers: Any) -> None:
    vision = subparsers.add_parser("vision", help=_("camera recognition tools"))
    sub = vision.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("read", help=_("read a photo of the table: snapshot and confidences"))
    p.add_argument("image")
    p.add_argument("--heights", help=_("49 digits or comma-separated stack heights (0 = empty)"))
    p.add_argument("--calibration", metavar="FILE")
    p.add_argument("--annotated", metavar="OUT", help=_("also write the annotated image"))
    p.set_defaults(func=cmd_read)

    p = sub.add_parser("calibrate", help=_("calibrate colours from views of the EMPTY board"))
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", nargs="+", metavar="IMG")
    src.add_argument("--camera", type=int, metavar="INDEX")
    p.add_argument("--frames", type=int, default=5, help=_("frames to take from --camera"))
    p.add_argument("--calibration", metavar="FILE", help=_("start from this calibration"))
    p.add_argument("--out", default="camera-calibration.json", metavar="FILE")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("sheet", help=_("write the printable marker sheet (.png or .svg)"))
    p.add_argument("--out", required=True, metavar="FILE")
    p.add_argument("--dpi", type=int, default=300)
    p.add_argument("--layout", choices=("full", "A4", "A3", "cards"), default="full",
                   help=_("full: one sheet; A4/A3: pages to tape together (OUT-1.svg ...); "
                          "cards: one card per marker (docs/build/camera.md)"))
    p.set_defaults(func=cmd_sheet)

    p = sub.add_parser("render", help=_("write a synthetic camera frame of a random position"))
    p.add_argument("--seed", type=whole(0, 2**63 - 1), default=0)
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--moves", type=whole(0, 48), default=None,
                   help=_("random stacking moves (0..48)"))
    p.add_argument("--hands", type=whole(0, 10), default=0)
    p.add_argument("--wide", action="store_true",
                   help=_("any table: board materials and prints, marker cards, lamps, sleeves"))
    p.set_defaults(func=cmd_render)
