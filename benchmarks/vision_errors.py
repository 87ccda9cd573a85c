"""Where the camera reader goes wrong: its errors by class, per test set (a diagnostic for
issue #9, not a figure for RESULTS.md; ``benchmarks/vision.py`` gives those).

Classes (want -> read): a covered cell read as a colour or as '.', a visible cell read '?'
(next to a hand or not), a white top read '.', an empty cell read as a piece, a wrong colour.
Rendered frames can be cached (``--cache DIR``, lossless PNG) so that repeated runs only pay
for the reading.

    python benchmarks/vision_errors.py [--set photos|synthetic|both] [--frames 500] [--seed 1]
        [--cache /tmp/vision-cache] [--show 20] [--unknown]

``--unknown`` also gives ``benchmarks/vision.py``'s figure of pieces the heights do not know
yet (the same hidden pieces: the same seeds), from the cached frames.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.vision import PHOTOS, Unknown, synthetic_frames  # noqa: E402
from engine.geometry import CELL_NAMES, NEIGHBOURS  # noqa: E402
from vision.pose import BoardNotFoundError  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.synthetic.render import heights_of  # noqa: E402

Case = tuple[str, np.ndarray, list[int], str, bool, bool]  # name, frame, heights, want, hand, new


def error_class(want: str, got: str, near_hand: bool) -> str:
    """A short name for one wrong cell."""
    if want == "?":
        return "covered read colour" if got in "wbr" else f"covered read {got!r}"
    if got == "?":
        return ("visible read '?' next to a hand" if near_hand
                else "visible read '?' (no hand near)")
    if want == "w" and got == ".":
        return "white top read '.'"
    if want == "." and got in "wbr":
        return "empty read as a piece"
    if want in "wbr" and got == ".":
        return "piece read '.'"
    return f"colour {want} read {got}"


def photo_cases(folder: Path) -> Iterator[Case]:
    for line in (folder / "truth.jsonl").read_text().splitlines():
        t = json.loads(line)
        frame = cv2.imread(str(folder / t["file"]), cv2.IMREAD_COLOR)
        yield t["file"], frame, t["heights"], t["expected"], t["hand"], True


def synthetic_cases(frames: int, seed: int, group: int, hand_share: float,
                    cache: Path | None) -> Iterator[Case]:
    where = None if cache is None else cache / f"s{seed}-g{group}-h{hand_share}"
    if where is not None and (where / "index.jsonl").is_file():
        lines = (where / "index.jsonl").read_text().splitlines()
        if len(lines) >= frames:
            for line in lines[:frames]:
                t = json.loads(line)
                frame = cv2.imread(str(where / t["file"]), cv2.IMREAD_COLOR)
                yield t["file"], frame, t["heights"], t["expected"], t["hand"], t["new"]
            return
    rows = []
    for i, frame, truth, stacks, hand in synthetic_frames(frames, seed, group, hand_share):
        name = f"{i:04d}.png"
        row = {"file": name, "heights": heights_of(stacks),
               "expected": truth.expected, "hand": hand,  # type: ignore[attr-defined]
               "new": i % group == 0}
        if where is not None:
            where.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(where / name), frame)
            rows.append(json.dumps(row))
        yield name, frame, row["heights"], row["expected"], hand, i % group == 0  # type: ignore[misc]
    if where is not None:
        (where / "index.jsonl").write_text("\n".join(rows) + "\n")


def diagnose(cases: Iterator[Case], label: str, show: int, fresh_each: bool,
             unknown_seed: int | None = None) -> None:
    unknown = Unknown()
    rng = np.random.default_rng(unknown_seed)
    surprised = BoardReader()
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    scored = wrong = clean = clean_ok = 0
    shown = 0
    reader = BoardReader()
    for name, frame, heights, want, hand, new in cases:
        if fresh_each or new:
            reader = BoardReader()
            surprised = BoardReader()
        try:
            r = reader.read(frame, heights)
            got, why = r.snapshot, r.reasons
        except BoardNotFoundError:
            got, why = "!" * 49, ["board not found"] * 49
        covered = {c for c in range(49) if want[c] in "?*"}
        bad = 0
        for c in range(49):
            if want[c] == "*":
                continue
            scored += 1
            if got[c] == want[c]:
                continue
            bad += 1
            near = any(n in covered for n in NEIGHBOURS[c])
            cls = error_class(want[c], got[c], near)
            counts[cls] += 1
            reasons[f"{cls}: {why[c] or '-'}"] += 1
            if shown < show:
                shown += 1
                print(f"# {label} {name} {CELL_NAMES[c]} h={heights[c]} want {want[c]} "
                      f"read {got[c]} ({cls}; {why[c] or '-'})")
        if unknown_seed is not None:
            hidden, cells = Unknown.hide(rng, heights, want)
            try:
                seen = surprised.read(frame, hidden).snapshot
            except BoardNotFoundError:
                seen = "!" * 49
            unknown.add(seen, got, want, hidden, cells)
        wrong += bad
        if not hand:
            clean += 1
            clean_ok += bad == 0
    print(f"{label}: {wrong} wrong of {scored} scored cells "
          f"({100.0 * wrong / max(scored, 1):.3f} %), clean frames exact {clean_ok}/{clean}")
    for cls, n in counts.most_common():
        print(f"  {n:5d}  {cls}")
    print(f"{label}: by class and the reader's reason")
    for cls, n in reasons.most_common():
        print(f"  {n:5d}  {cls}")
    if unknown_seed is not None:
        unknown.report(label.replace(" ", "_"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("photos", "synthetic", "both"), default="both")
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", type=int, default=5)
    ap.add_argument("--hand-share", type=float, default=0.3)
    ap.add_argument("--cache", type=Path, default=None, help="folder for rendered frames")
    ap.add_argument("--show", type=int, default=0, help="print this many wrong cells")
    ap.add_argument("--unknown", action="store_true",
                    help="also read each frame with some placed pieces left off the heights")
    args = ap.parse_args(argv)
    if args.set in ("photos", "both") and (args.photos / "truth.jsonl").is_file():
        diagnose(photo_cases(args.photos), "photos", args.show, True,
                 args.seed if args.unknown else None)
    if args.set in ("synthetic", "both"):
        diagnose(synthetic_cases(args.frames, args.seed, args.group, args.hand_share,
                                 args.cache), f"synthetic seed {args.seed}", args.show, False,
                 args.seed + 1000 if args.unknown else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
