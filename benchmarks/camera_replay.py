"""Camera recordings replayed: does each give its expected record, and what does a frame cost?

    python benchmarks/camera_replay.py [FOLDER ...]

Without folders: every recording in ../shared/camera-games (whole games filmed by a renderer
that is not the project's own). Each goes through exactly what ``dvonn-board replay-sensors``
runs (controller.recording.replay_recording: the reader with the controller's heights, each
placement taught, the recording's clock). Printed per recording: whether the record is the
expected one (``expected.txt`` beside ``frames.jsonl``, when there is one) and the CPU time of
a frame, reader and controller together (the JPEG decode measured apart): median, p99, max.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.recording import Frame, Recording, read_recording, replay_recording  # noqa: E402
from controller.table.session import TableController  # noqa: E402

SHARED = ROOT.parent / "shared" / "camera-games"


def run(folder: Path) -> tuple[str, list[float], list[float]]:
    """(outcome, per-frame CPU seconds of reader and controller, per-frame decode seconds)."""
    spent = [0.0]

    class Timed(Recording):
        def decode(self, frame: Frame) -> np.ndarray:
            t0 = time.process_time()
            try:
                return super().decode(frame)
            finally:
                spent[0] += time.process_time() - t0

    read = read_recording(folder)
    recording = Timed(**{f.name: getattr(read, f.name) for f in fields(read)})
    cpu: list[float] = []
    decodes: list[float] = []
    last = [time.process_time()]

    def on_frame(t: float, events: object, sensor: object) -> None:
        now = time.process_time()
        cpu.append(now - last[0] - spent[0])
        decodes.append(spent[0])
        spent[0] = 0.0
        last[0] = time.process_time()

    ctl = TableController(colours=True, resume=False, source="replay")
    replay_recording(recording, ctl, on_frame=on_frame)
    lines = list(ctl.actions)
    if ctl.game.is_over():
        w, b = ctl.game.score()
        lines.append(f"over white={w} black={b}")
    expected = folder / "expected.txt"
    if not expected.is_file():
        return f"{len(ctl.actions)} actions (no expected.txt)", cpu, decodes
    want = [x for x in expected.read_text().splitlines() if x.strip()]
    if lines == want:
        return "exact", cpu, decodes
    first = next((i for i, (a, b) in enumerate(zip(lines, want, strict=False)) if a != b),
                 min(len(lines), len(want)))
    got = lines[first] if first < len(lines) else "(nothing)"
    return f"differs at line {first + 1}: {got} for {want[first]}", cpu, decodes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    args = ap.parse_args(argv)
    folders = args.folders or sorted(p for p in SHARED.glob("*") if (p / "frames.jsonl").is_file())
    if not folders:
        print(f"no recordings given and none in {SHARED}", file=sys.stderr)
        return 2
    every: list[float] = []
    exact = 0
    for folder in folders:
        outcome, cpu, decodes = run(folder)
        exact += outcome == "exact"
        every.extend(cpu)
        ms = 1000 * np.array(cpu)
        print(f"{folder.name}: {outcome}; {len(cpu)} frames; CPU a frame (reader and "
              f"controller) median {np.median(ms):.1f} ms, p99 {np.percentile(ms, 99):.1f} ms, "
              f"max {ms.max():.1f} ms; JPEG decode median "
              f"{1000 * float(np.median(decodes)):.1f} ms", flush=True)
    ms = 1000 * np.array(every)
    print(f"camera_replay.exact: {exact}/{len(folders)}")
    print(f"camera_replay.frames: {len(every)}")
    print(f"camera_replay.cpu_ms.median: {np.median(ms):.1f}")
    print(f"camera_replay.cpu_ms.p99: {np.percentile(ms, 99):.1f}")
    print(f"camera_replay.cpu_ms.max: {ms.max():.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
