"""Camera recognition benchmark on synthetic frames (1280x960) of random positions.

The camera stays fixed for a group of frames (as during a game) while the position, light,
shadows, glare, noise and hands change. Prints ``name: value unit`` lines.

    python benchmarks/vision.py [--frames 500] [--seed 1] [--group 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.geometry import NUM_CELLS  # noqa: E402
from vision.pose import BoardNotFoundError  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.synthetic import heights_of, random_position, random_scene, render  # noqa: E402

CAMERA_FIELDS = ("focal_per_width", "tilt_deg", "azimuth_deg", "yaw_deg", "fill", "board_style")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", type=int, default=5, help="frames per fixed camera setup")
    ap.add_argument("--hand-share", type=float, default=0.3)
    ap.add_argument("--verbose", action="store_true", help="print every wrong cell")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    clean_cells = clean_errors = clean_wrong = clean_unreadable = 0
    hand_cells = hand_errors = hand_wrong = 0
    frames_plain = frames_plain_right = 0
    covered = covered_q = covered_coloured = 0
    partial = partial_wrong = 0
    not_found = 0
    times: list[float] = []
    reader = BoardReader()
    camera: dict[str, object] = {}
    for i in range(args.frames):
        stacks = random_position(rng)
        hands = int(rng.integers(1, 3)) if rng.random() < args.hand_share else 0
        scene = random_scene(rng, stacks, hands=hands)
        if i % args.group == 0:
            reader = BoardReader()
            camera = {k: getattr(scene, k) for k in CAMERA_FIELDS}
        scene = replace(scene, **camera)  # type: ignore[arg-type]
        frame, truth = render(scene)
        t0 = time.perf_counter()
        try:
            reading = reader.read(frame, heights_of(stacks))
        except BoardNotFoundError:
            times.append(time.perf_counter() - t0)
            not_found += 1
            continue
        times.append(time.perf_counter() - t0)
        got = reading.snapshot
        frame_ok = True
        for c in range(NUM_CELLS):
            top = stacks[c][-1] if stacks[c] else "."
            if truth.visible[c] < 0.05:
                covered += 1
                covered_q += got[c] == "?"
                covered_coloured += got[c] != "?"
                if args.verbose and got[c] != "?":
                    print(f"# frame {i} cell {c}: COVERED, true {top!r} read {got[c]!r} "
                          f"pose_ok {reading.pose_ok}")
            elif truth.uncertain(c):
                partial += 1
                if got[c] not in ("?", top):
                    if args.verbose:
                        print(f"# frame {i} cell {c}: PARTLY {truth.visible[c]:.2f}, true "
                              f"{top!r} read {got[c]!r}")
                    partial_wrong += 1
                    frame_ok = False
            elif scene.hands:
                hand_cells += 1
                hand_errors += got[c] != top
                hand_wrong += got[c] not in ("?", top)
                if args.verbose and got[c] not in ("?", top):
                    print(f"# frame {i} cell {c}: HAND FRAME, true {top!r} read {got[c]!r}")
                frame_ok = frame_ok and got[c] == top
            else:
                clean_cells += 1
                if got[c] != top:
                    if args.verbose:
                        print(f"# frame {i} cell {c}: true {top!r} read {got[c]!r} "
                              f"({reading.reasons[c]}) tilt {scene.tilt_deg:.0f}")
                    clean_errors += 1
                    frame_ok = False
                    if got[c] == "?":
                        clean_unreadable += 1
                    else:
                        clean_wrong += 1
        if not scene.hands:
            frames_plain += 1
            frames_plain_right += frame_ok
    ms = np.array(times) * 1000.0
    print(f"frames: {args.frames} frames")
    print(f"board_not_found: {not_found} frames")
    print(f"cell_error_rate: {100.0 * clean_errors / max(clean_cells, 1):.4f} % "
          f"(of {clean_cells} clearly visible cells in frames without hands)")
    print(f"cell_wrong_colour_rate: {100.0 * clean_wrong / max(clean_cells, 1):.4f} %")
    print(f"cell_unreadable_rate: {100.0 * clean_unreadable / max(clean_cells, 1):.4f} %")
    print(f"cell_error_rate_hand_frames: {100.0 * hand_errors / max(hand_cells, 1):.4f} % "
          f"(of {hand_cells} uncovered cells in frames with hands; mostly '?' next to a hand)")
    print(f"cell_wrong_colour_rate_hand_frames: {100.0 * hand_wrong / max(hand_cells, 1):.4f} %")
    print(f"frames_entirely_right: {100.0 * frames_plain_right / max(frames_plain, 1):.2f} % "
          f"(of {frames_plain} frames without hands)")
    print(f"covered_cells_unreadable: {100.0 * covered_q / max(covered, 1):.2f} % "
          f"(of {covered} fully covered cells)")
    print(f"covered_cells_coloured: {covered_coloured} cells")
    print(f"partly_covered_or_glare_wrong: {partial_wrong} cells (of {partial})")
    print(f"ms_per_frame_median: {np.median(ms):.2f} ms")
    print(f"ms_per_frame_p95: {np.percentile(ms, 95):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
