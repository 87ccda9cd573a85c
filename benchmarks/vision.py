"""Camera recognition benchmark, one block of figures per test set (never pooled):

* ``photos``: the independent photo-like frames in ../shared/photos (truth.jsonl), read
  exactly as ``dvonn-board vision read IMAGE --heights H`` reads them;
* ``synthetic``: the project's widened renderer (random boards, prints, marker cards, whites,
  glossy blacks, lamps, white balance, clipped highlights, distortion, off-centre stacks, hands
  and sleeves), 1280x960, the camera fixed for a group of frames as during a game.

Both are scored the same way (the photos' README): a cell is right when the reading equals
the expected character ('*' cells are skipped); a covered cell ('?') read as a colour is the
worst error; a frame without a hand is clean and must be read exactly. Time is in-process,
per frame (pose + sampling + colour model). Prints ``name: value unit`` lines.

A second figure per set, ``<set>.unknown_pieces``: pieces the heights do not know yet. In play
the controller gives the heights of the position it has committed, so every new placement is
a piece where the heights say empty. Each frame is read once more (by a second reader, so the
first figures are untouched) with the top pieces of K random visible stacks (K = 1..3) taken
off the heights; those pieces are counted as read their colour / '.' / '?' / another colour
(a '.' is a placement the controller never sees: the game stalls), and the frame's other
cells read differently from the true-heights reading are counted too.

A third set, ``play``: the placing phase of whole games as a camera sees it (the board starts
empty; camera, board, pieces and lamp fixed for a game; the exposure drifts a little; a hand or
a player's shadow comes and goes), read by ONE reader per game, as in play. The reader is given
the heights the controller has committed, and the controller commits a placement only when a
frame reads the new piece's colour there (a piece read '.' stays unknown: the game waits). Per
placement: seen in the frame it was made in, seen later, never seen by the end of the phase
(the game stalls); cells given a colour where no piece stands (a phantom placement) and new
pieces read as another colour.

    python benchmarks/vision.py [--set photos|synthetic|both|play|all] [--frames 500]
        [--seed 1] [--games 4]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.pose import BoardNotFoundError  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.synthetic.render import heights_of, random_position, random_scene, render  # noqa: E402

CAMERA_FIELDS = ("focal_per_width", "tilt_deg", "azimuth_deg", "yaw_deg", "fill", "board_style",
                 "material", "distortion", "pieces", "decor", "side_shade")
PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "photos"


class Score:
    """Photo-style scoring of readings against expected strings."""

    def __init__(self) -> None:
        self.scored = self.wrong = self.coloured = self.clean = self.clean_ok = 0
        self.frames = self.not_found = 0
        self.times: list[float] = []
        self.cpu: list[float] = []

    def add(self, got: str, expected: str, hand: bool, seconds: tuple[float, float]) -> int:
        self.frames += 1
        self.times.append(seconds[0])
        self.cpu.append(seconds[1])
        wrong = 0
        for read, want in zip(got, expected, strict=True):
            if want == "*":
                continue
            self.scored += 1
            if read != want:
                wrong += 1
                self.coloured += want == "?" and read in "wbr"
        self.wrong += wrong
        if not hand:
            self.clean += 1
            self.clean_ok += wrong == 0
        return wrong

    def report(self, name: str) -> None:
        ms = np.array(self.times or [0.0]) * 1000.0
        print(f"{name}.frames: {self.frames} frames ({self.not_found} board not found)")
        print(f"{name}.cell_error: {100.0 * self.wrong / max(self.scored, 1):.3f} % "
              f"({self.wrong} of {self.scored} scored cells)")
        print(f"{name}.clean_frames_exact: {self.clean_ok}/{self.clean} frames")
        print(f"{name}.covered_cells_coloured: {self.coloured} cells")
        print(f"{name}.ms_per_frame_median: {np.median(ms):.1f} ms")
        print(f"{name}.ms_per_frame_p99: {np.percentile(ms, 99):.1f} ms")
        cpu = np.array(self.cpu or [0.0]) * 1000.0
        print(f"{name}.cpu_ms_per_frame_median: {np.median(cpu):.1f} ms (process time: the "
              f"wall figures above grow when other work shares the cores)")


class Unknown:
    """How pieces the heights do not know yet read (see the module docstring)."""

    def __init__(self) -> None:
        self.counts = {k: 0 for k in ("colour", ".", "?", "wrong colour")}
        self.on_empty = {k: 0 for k in self.counts}
        self.others_changed = self.others = self.phantoms = 0

    @staticmethod
    def hide(rng: np.random.Generator, heights: list[int], expected: str) -> tuple[list[int],
                                                                             list[int]]:
        """The heights without the top pieces of 1..3 random visible stacks, and those cells."""
        visible = [c for c in range(49) if heights[c] > 0 and expected[c] in "wbr"]
        k = min(int(rng.integers(1, 4)), len(visible))
        cells = sorted(int(c) for c in rng.choice(visible, size=k, replace=False)) if k else []
        hidden = list(heights)
        for c in cells:
            hidden[c] -= 1
        return hidden, cells

    def add(self, got: str, base: str, expected: str, heights: list[int], cells: list[int]
            ) -> None:
        for c in cells:
            r = got[c]
            key = ("colour" if r == expected[c] else r if r in ".?"
                   else "wrong colour")
            self.counts[key] += 1
            if heights[c] == 0:
                self.on_empty[key] += 1
        for c in range(49):
            if c not in cells and expected[c] != "*":
                self.others += 1
                self.others_changed += got[c] != base[c]
                self.phantoms += expected[c] in ".?" and got[c] in "wbr"

    def report(self, name: str) -> None:
        def line(d: dict[str, int]) -> str:
            n = max(sum(d.values()), 1)
            return (f"{d['colour']} of {sum(d.values())} read their colour "
                    f"({100.0 * d['colour'] / n:.1f} %), {d['.']} '.', {d['?']} '?', "
                    f"{d['wrong colour']} a wrong colour")
        print(f"{name}.unknown_pieces: {line(self.counts)}")
        print(f"{name}.unknown_pieces_on_empty: {line(self.on_empty)} (the heights say empty: "
              f"a placement)")
        print(f"{name}.unknown_pieces_other_cells_changed: {self.others_changed} of "
              f"{self.others} cells (read otherwise than with the true heights), "
              f"{self.phantoms} empty or covered cells given a colour")


def _read(reader: BoardReader, frame: np.ndarray, heights: list[int]
          ) -> tuple[str, tuple[float, float]]:
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        got = reader.read(frame, heights).snapshot
    except BoardNotFoundError:
        got = "!" * 49
    return got, (time.perf_counter() - t0, time.process_time() - c0)


def photos(folder: Path, verbose: bool, seed: int = 1) -> tuple[Score, Unknown]:
    score, unknown = Score(), Unknown()
    rng = np.random.default_rng(seed)
    for line in (folder / "truth.jsonl").read_text().splitlines():
        t = json.loads(line)
        frame = cv2.imread(str(folder / t["file"]), cv2.IMREAD_COLOR)
        got, dt = _read(BoardReader(), frame, t["heights"])  # a fresh reader: as the CLI
        score.not_found += got.startswith("!")
        if score.add(got, t["expected"], t["hand"], dt) and verbose:
            print(f"# {t['file']}: read {got}\n#{' ' * len(t['file'])}  want {t['expected']}")
        hidden, cells = Unknown.hide(rng, t["heights"], t["expected"])
        unknown.add(_read(BoardReader(), frame, hidden)[0], got, t["expected"], hidden, cells)
    return score, unknown


def synthetic_frames(frames: int, seed: int, group: int, hand_share: float
                     ) -> Iterator[tuple[int, np.ndarray, object, list[str], bool]]:
    """(index, frame, truth, stacks, hand) of the widened renderer's frames."""
    rng = np.random.default_rng(seed)
    camera: dict[str, object] = {}
    for i in range(frames):
        stacks = random_position(rng)
        hands = int(rng.integers(1, 3)) if rng.random() < hand_share else 0
        scene = random_scene(rng, stacks, hands=hands, wide=True)
        if i % group == 0:
            camera = {k: getattr(scene, k) for k in CAMERA_FIELDS}
        scene = replace(scene, **camera)  # type: ignore[arg-type]
        frame, truth = render(scene)
        yield i, frame, truth, stacks, bool(hands)


def synthetic(frames: int, seed: int, group: int, hand_share: float, verbose: bool
              ) -> tuple[Score, Unknown]:
    score, unknown = Score(), Unknown()
    reader = surprised = BoardReader()
    rng = np.random.default_rng(seed + 1000)
    for i, frame, truth, stacks, hand in synthetic_frames(frames, seed, group, hand_share):
        if i % group == 0:
            reader = BoardReader()  # a new table: nothing learned carries over
            surprised = BoardReader()
        got, dt = _read(reader, frame, heights_of(stacks))
        score.not_found += got.startswith("!")
        expected = truth.expected  # type: ignore[attr-defined]
        if score.add(got, expected, hand, dt) and verbose:
            print(f"# frame {i}: read {got}\n#{' ' * len(str(i))}        want {expected}")
        hidden, cells = Unknown.hide(rng, heights_of(stacks), expected)
        unknown.add(_read(surprised, frame, hidden)[0], got, expected, hidden, cells)
    return score, unknown


class Play:
    """How the placements of whole games are seen by a reader kept through each game."""

    def __init__(self) -> None:
        self.placed = self.at_once = self.later = self.never = 0
        self.phantoms = self.wrong_colour = self.frames = 0
        self.delays: list[int] = []
        self.cpu: list[float] = []

    def game(self, frames: Iterator[tuple[int, np.ndarray, list[str], bool]]) -> None:
        """One game's frames (k, frame, stacks, hand), k = 0 the empty board."""
        reader = BoardReader()
        committed = [0] * 49
        since: dict[int, int] = {}  # placed and not yet committed: cell -> frame placed in
        stacks: list[str] = [""] * 49
        for k, frame, stacks, _hand in frames:
            self.frames += 1
            for c in range(49):
                if stacks[c] and not committed[c] and c not in since:
                    since[c] = k
                    self.placed += 1
            got, dt = _read(reader, frame, committed)
            self.cpu.append(dt[1])
            for c in range(49):
                if got[c] not in "wbr" or committed[c]:
                    continue
                if not stacks[c]:
                    self.phantoms += 1
                elif got[c] != stacks[c][-1]:
                    self.wrong_colour += 1
                else:
                    committed[c] = 1
                    delay = k - since.pop(c)
                    self.at_once += delay == 0
                    self.later += delay > 0
                    if delay:
                        self.delays.append(delay)
        self.never += len(since)

    def report(self, name: str) -> None:
        n = max(self.placed, 1)
        delay = f", median delay {np.median(self.delays):.0f} frames" if self.delays else ""
        print(f"{name}.placements: {self.placed} in {self.frames} frames")
        print(f"{name}.placements_seen_at_once: {self.at_once} ({100.0 * self.at_once / n:.1f} %)")
        print(f"{name}.placements_seen_later: {self.later}{delay}")
        print(f"{name}.placements_never_seen: {self.never} (the game waits for ever)")
        print(f"{name}.phantom_placements: {self.phantoms} cells given a colour with no piece")
        print(f"{name}.new_pieces_wrong_colour: {self.wrong_colour}")
        cpu = np.array(self.cpu or [0.0]) * 1000.0
        print(f"{name}.cpu_ms_per_frame_median: {np.median(cpu):.1f} ms")


def play_games(games: int, seed: int, hand_share: float = 0.2, cache: Path | None = None
               ) -> Iterator[Iterator[tuple[int, np.ndarray, list[str], bool]]]:
    """The placing phase of ``games`` games, each an iterator of (k, frame, stacks, hand):
    frame k shows the first k placements (three red pieces, then white and black in turn, on
    random cells); k = 0 is the empty board. Rendered frames are kept in ``cache``."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        order = [int(c) for c in rng.permutation(49)]
        colours = ["r"] * 3 + ["w", "b"] * 23
        base = random_scene(rng, [""] * 49, hands=0, wide=True)
        plan = []
        for k in range(50):
            hands = 1 if k and rng.random() < hand_share else 0
            extra = random_scene(rng, [""] * 49, hands=hands, wide=True)
            shade = extra.shadows if rng.random() < 0.3 else []
            plan.append((hands, extra.hands, shade, float(rng.uniform(0.96, 1.04))))
        yield _play_game(g, base, order, colours, plan, seed, cache)


def _play_game(g: int, base: object, order: list[int], colours: list[str],
               plan: list[tuple[int, list[object], list[object], float]], seed: int,
               cache: Path | None) -> Iterator[tuple[int, np.ndarray, list[str], bool]]:
    where = None if cache is None else cache / f"play-s{seed}" / f"g{g}"
    stacks = [""] * 49
    for k, (hands, arms, shade, drift) in enumerate(plan):
        if k:
            stacks = list(stacks)
            stacks[order[k - 1]] = colours[k - 1]
        path = None if where is None else where / f"{k:02d}.png"
        if path is not None and path.is_file():
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        else:
            scene = replace(base, stacks=stacks, hands=arms,  # type: ignore[type-var]
                            shadows=list(base.shadows) + shade,  # type: ignore[attr-defined]
                            exposure=base.exposure * drift)  # type: ignore[attr-defined]
            frame, _ = render(scene)  # type: ignore[arg-type]
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(path), frame)
        yield k, frame, stacks, bool(hands)


def play(games: int, seed: int, cache: Path | None = None) -> Play:
    result = Play()
    for game in play_games(games, seed, cache=cache):
        result.game(game)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("photos", "synthetic", "both", "play", "all"),
                    default="both")
    ap.add_argument("--photos", type=Path, default=PHOTOS, help="folder with truth.jsonl")
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", type=int, default=5, help="frames per fixed camera setup")
    ap.add_argument("--hand-share", type=float, default=0.3)
    ap.add_argument("--games", type=int, default=4, help="games of the play set")
    ap.add_argument("--cache", type=Path, default=None, help="folder for the play set's frames")
    ap.add_argument("--verbose", action="store_true", help="print every frame read wrong")
    args = ap.parse_args(argv)
    if args.set in ("photos", "both", "all"):
        if (args.photos / "truth.jsonl").is_file():
            score, unknown = photos(args.photos, args.verbose, args.seed)
            score.report("photos")
            unknown.report("photos")
        else:
            print(f"photos: skipped ({args.photos / 'truth.jsonl'} not found)")
    if args.set in ("synthetic", "both", "all"):
        score, unknown = synthetic(args.frames, args.seed, args.group, args.hand_share,
                                   args.verbose)
        score.report("synthetic")
        unknown.report("synthetic")
    if args.set in ("play", "all"):
        play(args.games, args.seed, args.cache).report("play")
    return 0


if __name__ == "__main__":
    sys.exit(main())
