"""The outside photos through other cameras: how much does the reading depend on the camera
pipeline that made ../shared/photos?

    python benchmarks/vision_perturbed.py [--variants 6] [--seed 1] [--verbose]

Hidden checks read photos from other sources. Each photo of ../shared/photos (an independent
renderer, with truth) is read again as other cameras would have taken it: per-channel white
balance gains 0.8-1.2, exposure 0.7-1.25 and a gamma of 0.8-1.25, lower resolutions (0.55-1x),
blur, sensor noise, JPEG quality 55-92 and the camera on another side of the table (the image
turned by a multiple of 90 degrees; never mirrored, which no camera does). Only the image
changes, so the photo's truth still holds. Scored as ``benchmarks/vision.py`` scores the
photos (``*`` cells skipped, a covered cell read as a colour the worst error, a frame without
a hand must be exact); the photos as they are first, then each kind of change alone, then all
of them at once. A report, never a set to tune on.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.reader import BoardReader  # noqa: E402

_spec = importlib.util.spec_from_file_location("vision_benchmark", Path(__file__).with_name(
    "vision.py"))
assert _spec is not None and _spec.loader is not None
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)
Score, read_frame, PHOTOS = _bench.Score, _bench._read, _bench.PHOTOS

Change = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def white_balance(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    gains = rng.uniform(0.8, 1.2, 3)
    return np.clip(img.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def exposure(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = np.clip(img.astype(np.float32) / 255.0 * rng.uniform(0.7, 1.25), 0.0, 1.0)
    return (255.0 * x ** rng.uniform(0.8, 1.25)).astype(np.uint8)


def resolution(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    f = rng.uniform(0.55, 1.0)
    h, w = img.shape[:2]
    return cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)


def blur_noise(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
    noisy = out.astype(np.float32) + rng.normal(0.0, rng.uniform(1.0, 4.0), out.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def jpeg(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 93))])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def turned(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    turns = (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return cv2.rotate(img, turns[int(rng.integers(0, 3))])


CHANGES: dict[str, list[Change]] = {
    "white_balance": [white_balance],
    "exposure_gamma": [exposure],
    "resolution": [resolution],
    "blur_noise": [blur_noise],
    "jpeg": [jpeg],
    "turned": [turned],
    "all": [white_balance, exposure, turned, resolution, blur_noise, jpeg],
}


def run(folder: Path, variants: int, seed: int, verbose: bool, only: str | None = None
        ) -> None:
    truths = [json.loads(line) for line in (folder / "truth.jsonl").read_text().splitlines()]
    images = {t["file"]: cv2.imread(str(folder / t["file"]), cv2.IMREAD_COLOR) for t in truths}
    sets: list[tuple[str, list[Change], int]] = [("photos", [], 1)]
    sets += [(name, changes, variants) for name, changes in CHANGES.items()]
    for name, changes, n in sets:
        if only is not None and name != only:
            continue
        rng = np.random.default_rng(seed)
        score = Score()
        for t in truths:
            for _ in range(n):
                img = images[t["file"]]
                for change in changes:
                    img = change(img, rng)
                got, dt = read_frame(BoardReader(), img, t["heights"])  # a fresh reader
                score.not_found += got.startswith("!")
                if score.add(got, t["expected"], t["hand"], dt) and verbose:
                    print(f"# {name} {t['file']}: read {got}\n#   want {t['expected']}")
        score.report(f"perturbed.{name}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=PHOTOS, help="folder with truth.jsonl")
    ap.add_argument("--variants", type=int, default=6, help="changed copies of each photo")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verbose", action="store_true", help="print every frame read wrong")
    ap.add_argument("--only", choices=("photos", *CHANGES), default=None, help="one set only")
    args = ap.parse_args(argv)
    if not (args.photos / "truth.jsonl").exists():
        print(f"no photos: {args.photos / 'truth.jsonl'} is missing", file=sys.stderr)
        return 2
    run(args.photos, args.variants, args.seed, args.verbose, args.only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
