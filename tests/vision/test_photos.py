"""Every photo of a real-looking table with truth must be read right: ../shared/photos (an
independent renderer's frames: other boards, cards, pieces, lamps, hands) and the few copied
into tests/vision/data/photos so a clone without ../shared still tests something.

Scored as the photos' README says: the reading must equal ``expected`` on every cell not
marked '*'; a covered cell ('?') must never be given a colour."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import pytest

from vision.reader import BoardReader

HERE = Path(__file__).resolve().parent
LOCAL = HERE / "data" / "photos"
SHARED = HERE.parents[1].parent / "shared" / "photos"


def _cases(folder: Path) -> list[tuple[Path, dict[str, object]]]:
    lines = (folder / "truth.jsonl").read_text(encoding="utf-8").splitlines()
    return [(folder, json.loads(line)) for line in lines if line.strip()]


def _shared_cases() -> list[object]:
    if (SHARED / "truth.jsonl").is_file():
        return [pytest.param(f, t, id=f"shared-{t['file']}") for f, t in _cases(SHARED)]
    return [pytest.param(None, None, id="shared-missing")]


def _read_and_score(folder: Path, truth: dict[str, object]) -> None:
    frame = cv2.imread(str(folder / str(truth["file"])), cv2.IMREAD_COLOR)
    assert frame is not None, f"cannot read {truth['file']}"
    heights = truth["heights"]
    assert isinstance(heights, list)
    got = BoardReader().read(frame, heights).snapshot
    want = str(truth["expected"])
    wrong = [f"{i}: read {g!r} want {w!r}" for i, (g, w) in enumerate(zip(got, want, strict=True))
             if w != "*" and g != w]
    assert not wrong, f"{truth['file']} ({truth['board']} board, {truth['light_T']} K): " + \
        "; ".join(wrong)


@pytest.mark.parametrize("folder,truth", [pytest.param(f, t, id=f"local-{t['file']}")
                                          for f, t in _cases(LOCAL)])
def test_copied_photos_read_exactly(folder: Path, truth: dict[str, object]) -> None:
    _read_and_score(folder, truth)


@pytest.mark.parametrize("folder,truth", _shared_cases())
def test_shared_photos_read_exactly(folder: Path | None, truth: dict[str, object] | None
                                    ) -> None:
    if folder is None or truth is None:
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing: CI must have ../shared/photos")
        pytest.skip(f"{SHARED} not found (a clone without ../shared): only the copied photos "
                    "are read")
    _read_and_score(folder, truth)


def test_copies_match_the_shared_truth() -> None:
    """The copied photos are the shared ones (same truth), when both are there."""
    if not (SHARED / "truth.jsonl").is_file():
        pytest.skip(f"{SHARED} not found")
    shared = {str(t["file"]): t for _, t in _cases(SHARED)}
    for _, t in _cases(LOCAL):
        assert shared.get(str(t["file"])) == t
