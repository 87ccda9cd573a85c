"""Whole camera games: does the table follow a real game through the camera reader?

    python benchmarks/camera_games.py [--games N] [--first SEED] [--size 960x720] [--quiet]

Per-cell error (``benchmarks/vision.py``) says how often a cell is misread, not whether the
game is followed. Here the players of ``controller.sim.physical`` play a whole random game on a
table filmed by the widened renderer: one board, lamp and camera per game
(``vision.synthetic.render.random_scene(wide=True)``), fresh sensor noise in every frame. They
play as people do (and as the outside renderer of ../shared/camera-games does):

- the acting player's arm comes from their side of the board (White at row 1, Black at row 5)
  and the hand is over the acting cell: a placement's piece, a stack lifted (the source empties
  under the hand), carried (the hand travels; now and then held in the air, off the board) and
  set down on its destination with the hand over it;
- when the LEDs prompt for a destination they mostly answer with the gesture under the hand:
  the hand over the cell, the stack lifted and held above it (the camera sees a hand, never the
  empty cell), set back (0.4-0.9 s later), the hand gone; else the stack is held up aside (the
  cell seen empty) and set back, or next/confirm are pressed;
- each stack stands a few millimetres off its cell's centre (up to 2.5 mm each way), drawn anew
  only when a stack is set down there (placed, landed, set back): untouched stacks never move,
  so the camera can tell the stack a hand moved (``SnapshotEvent.touched``, vision.cues.touch);
- wrong pieces swapped, knocked stacks put back, late removals, unanswered prompts, blackouts.

Every frame goes through the play path: ``CameraSensor`` with the controller's committed
heights (its readings carry the stacks it saw moved), and each committed placement taught to
the colour model (``PlacementTeacher``), as ``dvonn-board play`` does. Printed per game and in
all: followed to the end (the controller's game is the true game), stalled (a true prefix: an
action never seen), an unseen order (the true game but for the order of actions no reading
tells apart, as ``benchmarks/sessions.py`` reports it: never counted as followed), or wrong
(an action committed that did not happen); and per frame, cells
read against the renderer's truth: a colour on a covered cell, a wrong colour, a piece read
'.', an empty cell read as a piece, a visible cell '?'.

A real room, each behind a switch (without them the games are exactly as before):
``--answers ranges`` the prompts answered with timings drawn from ranges per game and per
answer (before the prompt shows or seconds after, held 0.3-1.5 s, the hand leaving with the
stack or lingering, the stack back up to 3 mm off; some players never answer:
``controller.sim.answers``); ``--lit`` the table's LEDs lit from the true game in the default
palette at a brightness of 0.3-0.5 a game, 0.6 s behind the board (``vision.synthetic.leds``);
``--auto-exposure`` the room light drifting, a person's shadow now and then, and the camera's
automatic exposure and white balance (``vision.synthetic.room``); ``--real SHARE`` that share of
the games taken from ../shared/games/boardspace/ (real games: tall stacks, long moves).
``--room`` turns all of them on (half the games real); ``--classic`` turns them all off.

Rendering costs about 0.5 s a frame at 960x720 (each distinct table state is rendered once;
reading is per frame), so a game takes minutes: run it niced.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.runner import PlacementTeacher  # noqa: E402
from controller.sensorlog import format_event  # noqa: E402
from controller.sim.answers import AnswerRanges  # noqa: E402
from controller.sim.physical import GiveUp, Meanness, Sight, generate  # noqa: E402
from controller.sim.scoring import unseen_order  # noqa: E402
from controller.table.renderer import DEFAULT_PALETTE  # noqa: E402
from controller.table.session import TableController  # noqa: E402
from engine.geometry import NEIGHBOURS, cell_name  # noqa: E402
from engine.records import decode_record, load_record_file  # noqa: E402
from hardware.camera import SyntheticSource  # noqa: E402
from hardware.clock import FakeClock  # noqa: E402
from hardware.events import SnapshotEvent  # noqa: E402
from vision.backend import CameraSensor  # noqa: E402
from vision.geometry import BoardGeometry  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.synthetic.render import (  # noqa: E402
    SKIN_TONES,
    Hand,
    Scene,
    Truth,
    camera_pose,
    project_points,
    random_scene,
    render,
)
from vision.synthetic.room import Develop  # noqa: E402

#: The camera is a real sensor: no simulated flips, drops or repeats on top of its readings
#: (the players' own meanness stays: hands, held stacks, knocks, blackouts, late removals).
CAMERA_MEANNESS = Meanness(noise=0.0, drop=0.02, repeat=0.0)
#: Frames (0.1 s each) the controller's board may differ from the table before the game is
#: given up as lost (an action takes a few seconds; a held stack or a prompt a few more).
LOST_AFTER = 300
#: A stack set down stands up to this many mm off its cell's centre, each way.
OFFSET_MM = 2.5
#: The LEDs change this long after the board does (as a controller's would, once it knew).
LED_LAG = 0.6
REAL_GAMES = ROOT.parent / "shared" / "games" / "boardspace"


@dataclass(frozen=True)
class Room:
    """What of a real room the games are filmed in (all off: the classic games)."""

    answers: AnswerRanges | None = None
    lit: bool = False
    auto: bool = False
    real: float = 0.0  # share of the games taken from REAL_GAMES

    @property
    def name(self) -> str:
        on = [n for n, v in (("answers", self.answers), ("lit", self.lit),
                             ("auto-exposure", self.auto), (f"real {self.real:g}", self.real))
              if v]
        return "+".join(on) or "classic"


def real_game(seed: int, share: float) -> tuple[str, list[str]] | None:
    """The real game (file name, actions) that game ``seed`` plays, or None (a random one)."""
    rng = random.Random(f"real-{seed}")
    if share <= 0 or rng.random() >= share:
        return None
    files = sorted(REAL_GAMES.glob("*.sgf"))
    if not files:
        raise SystemExit(f"no real games in {REAL_GAMES}")
    path = rng.choice(files)
    record = load_record_file(decode_record(path.read_bytes()), path.name)
    return path.name, [str(m) for m in record.moves]


class FilmedTable:
    """A ``controller.sim.physical`` sensor: renders the true table (hand included) and reads
    each frame through the camera play path."""

    def __init__(self, seed: int, size: tuple[int, int], room: Room | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.scene: Scene = random_scene(self.rng, [""] * 49, hands=0, size=size, wide=True)
        self.room = room or Room()
        #: The LEDs' brightness (0.3-0.5 a game) and what they lit when (own stream).
        self.brightness = float(np.random.default_rng([seed, 5]).uniform(0.3, 0.5))
        self.scene.led_holes = self.room.lit
        self.lit_history: list[tuple[float, tuple[tuple[int, str], ...]]] = []
        self.develop = (Develop(seed, size, room=True, auto=True) if self.room.auto else None)
        self._set_backs: tuple[int, ...] = ()
        self.geometry = BoardGeometry()
        k, rot, t = camera_pose(self.scene, self.geometry)
        centres = np.c_[self.geometry.cell_centres_mm(), np.zeros(49)]
        self.cell_px = project_points(k, rot, t, centres)
        pitch = float(np.median([np.linalg.norm(self.cell_px[c] - self.cell_px[n])
                                 for c in range(49) for n in NEIGHBOURS[c]]))
        self.pose = (k, rot, t)
        _, hy = self.geometry.sheet_extent_mm()
        # Two players at the board's long sides, White's at row 1 (-y), Black's at row 5
        # (+y): their arms come from there.
        self.side_y = {"w": -2.2 * hy, "b": 2.2 * hy}
        self.hand_width = 1.3 * pitch
        self.styles: list[tuple[tuple[int, int, int], tuple[int, int, int] | None]] = []
        for _ in range(2):
            skin = SKIN_TONES[int(self.rng.integers(len(SKIN_TONES)))]
            sleeve = (tuple(int(v) for v in self.rng.integers(0, 256, 3))
                      if self.rng.random() < 0.7 else None)
            self.styles.append((skin, sleeve))  # type: ignore[arg-type]
        self.frame: np.ndarray | None = None
        self.noisy: np.ndarray | None = None
        #: Sensor noise, fresh in every frame (one of a few fields: drawing one per frame
        #: would cost more than the reading).
        self.noise = [self.rng.normal(0.0, 1.5, (size[1], size[0], 3)).astype(np.float32)
                      for _ in range(4)]
        self.truth: Truth | None = None
        self._state: tuple[Any, ...] | None = None
        #: Where each cell's stack stands (mm off centre), drawn when a stack is set down
        #: there (its own stream: the other draws stay as they were).
        self.places = np.random.default_rng([seed, 1])
        self.offsets: list[tuple[float, float]] = [(0.0, 0.0)] * 49
        self._set_downs: tuple[int, ...] = (0,) * 49
        self.clock = FakeClock()
        self.camera: CameraSensor | None = None
        self.teacher: PlacementTeacher | None = None
        self.reads: Counter[str] = Counter()
        self.read_cpu: list[float] = []
        self.render_cpu = 0.0
        self.renders = 0
        self.behind = 0
        #: When the game was given up: the frame, what it should read, what it read, the
        #: controller's stacks and view (for ``--dump``).
        self.lost: tuple[Any, ...] | None = None
        self.first_errors: list[str] = []
        #: The worst misreads (a standing piece read '.', a covered cell given a colour): they
        #: may come after the first 40 errors.
        self.worst: list[str] = []
        self.error_frames: list[np.ndarray | None] = []
        #: One line a frame for ``--dump``: the true stacks, the heights given, the render's
        #: seed and hands, what was read and why (a frame can be rendered again from it).
        self.log: list[dict[str, Any]] = []
        self._render_seed = 0
        self._hand_list: list[Hand] = []
        #: The controller's input (readings with their touched masks and height answers,
        #: buttons: ``--dump`` writes them, so a lost game replays through the controller
        #: alone).
        self.events: list[Any] = []
        #: The true record and the controller's (``--dump``).
        self.records: tuple[list[str], list[str]] = ([], [])
        self.real = ""  # the real game's file, or "" (a random game)
        #: Prompts a player who never answers left unanswered (only the later moves, or a
        #: stack's height, tell where such a move landed).
        self.never = 0

    def __call__(self, stacks: list[str], covered: frozenset[int], ctl: TableController,
                 sight: Sight) -> tuple[str, int, int, int]:
        if self.teacher is None:
            self.camera = CameraSensor(SyntheticSource(self._next_frame), BoardReader(),
                                       self.clock,
                                       heights_provider=ctl.heights)
            self.teacher = PlacementTeacher(self.camera, ctl)
        backs = self._set_backs or (0,) * 49
        for c, (a, b) in enumerate(zip(self._set_downs, sight.set_downs, strict=True)):
            if a != b and sight.set_backs and sight.set_backs[c] != backs[c]:
                # set back where it stood, a few millimetres off
                ox, oy = self.offsets[c]
                self.offsets[c] = (ox + sight.shifts[c][0], oy + sight.shifts[c][1])
            elif a != b:  # set down again: never exactly where it stood
                dx, dy = self.places.uniform(-OFFSET_MM, OFFSET_MM, 2)
                self.offsets[c] = (float(dx), float(dy))
        self._set_downs = sight.set_downs
        self._set_backs = sight.set_backs
        offsets = [o if s else (0.0, 0.0) for o, s in zip(self.offsets, stacks, strict=True)]
        leds = self._leds(sight) if self.room.lit else None
        state = (tuple(stacks), covered, sight.hand, sight.over, tuple(offsets),
                 tuple(sorted(leds.items())) if leds else ())
        if state != self._state:
            self._state = state
            t0 = time.process_time()
            self._hand_list = self._hands(covered, sight)
            self._render_seed = int(self.rng.integers(1 << 30))
            scene = replace(self.scene, stacks=list(stacks), hands=self._hand_list,
                            seed=self._render_seed, offsets=offsets, leds=leds)
            self.frame, self.truth = render(scene, self.geometry)
            self.render_cpu += time.process_time() - t0
            self.renders += 1
        self.clock.advance(0.1)
        noise = self.noise[int(self.rng.integers(len(self.noise)))]
        if self.develop is not None:
            t0 = time.process_time()
            self.noisy = self.develop(self.frame, sight.t, noise)
            self.render_cpu += time.process_time() - t0
        else:
            self.noisy = np.clip(self.frame + noise, 0, 255).astype(np.uint8)
        t0 = time.process_time()
        events = self.teacher.poll()
        self.read_cpu.append(time.process_time() - t0)
        event = events[0]
        assert isinstance(event, SnapshotEvent)
        cells, touched, grown, glare = event.cells, event.touched, event.grown, event.glare
        self._score(cells, ctl)
        reading = self.camera.last_reading if self.camera is not None else None
        self.log.append({
            "frame": self.reads["frames"], "t": round(self.clock.now(), 4),
            "ply": ctl.game.ply, "stacks": list(stacks),
            "heights": ctl.heights(), "seed": self._render_seed,
            "hands": [[h.start, h.end, h.width, h.skin, h.sleeve, h.sleeve_share]
                      for h in self._hand_list],
            "over": sight.over, "hand": sight.hand, "touched": [
                cell_name(c) for c in range(49) if (touched >> c) & 1],
            "want": self.truth.expected if self.truth is not None else "", "read": cells,
            "why": {cell_name(c): r for c, r in enumerate(reading.reasons)
                    if reading is not None and r} if reading is not None else {}})
        # the table as the controller expects it: cut-off stacks not yet taken away still
        # stand (the players take them away after the next lift now and then: game 1 held
        # a lifted stack 23 s while nine went, and was given up though it was followed)
        self.behind = 0 if [len(s) for s in stacks] == ctl.heights() else self.behind + 1
        if self.behind > LOST_AFTER:
            self.lost = (self.frame, self.truth.expected, cells, ctl.game.stacks(), ctl.view())
            raise GiveUp
        return cells, touched, grown, glare

    def _leds(self, sight: Sight) -> dict[int, tuple[int, int, int]]:
        """The LEDs as lit now: the true game's roles ``LED_LAG`` s ago, in the default
        palette at this game's brightness."""
        self.lit_history.append((sight.t, sight.roles))
        roles: tuple[tuple[int, str], ...] = ()
        for i in range(len(self.lit_history) - 1, -1, -1):
            if self.lit_history[i][0] <= sight.t - LED_LAG + 1e-6:
                roles = self.lit_history[i][1]
                del self.lit_history[:max(0, i - 1)]
                break
        b = self.brightness
        return {c: tuple(int(round(v * b)) for v in DEFAULT_PALETTE[role])  # type: ignore[misc]
                for c, role in roles}

    def _next_frame(self, index: int) -> np.ndarray:
        assert self.noisy is not None
        return self.noisy

    def _hands(self, covered: frozenset[int], sight: Sight) -> list[Hand]:
        """The acting player's arm, from their side of the board to the cell they act on."""
        if not covered:
            return []
        cell = sight.over
        if cell is None:
            acting = [c for c in sorted(covered) if set(NEIGHBOURS[c]) <= covered]
            cell = acting[0] if acting else min(covered)
        who = sight.hand or ("w", "b")[int(self.rng.integers(2))]
        skin, sleeve = self.styles[0 if who == "w" else 1]
        x = float(self.geometry.cell_centres_mm()[cell][0])
        shoulder = np.array([[0.5 * x + float(self.rng.uniform(-40, 40)), self.side_y[who], 0.0]])
        start = project_points(*self.pose, shoulder)[0]
        end = self.cell_px[cell]
        return [Hand((float(start[0]), float(start[1])), (float(end[0]), float(end[1])),
                     self.hand_width, skin, sleeve, float(self.rng.uniform(0.5, 0.8)))]

    def _score(self, cells: str, ctl: TableController) -> None:
        assert self.truth is not None
        self.reads["frames"] += 1
        for c, (want, got) in enumerate(zip(self.truth.expected, cells, strict=True)):
            if want == "*" or want == got:
                continue
            if len(self.first_errors) < 40:
                reading = self.camera.last_reading if self.camera is not None else None
                why = reading.reasons[c] if reading is not None else ""
                self.first_errors.append(
                    f"frame {self.reads['frames']} ply {ctl.game.ply} {cell_name(c)}: "
                    f"want {want} read {got} ({why})")
                if len(self.first_errors) <= 3:
                    self.error_frames.append(self.noisy)
            if ((want in "wbr" and got == ".") or (want == "?" and got in "wbr")) and len(
                    self.worst) < 40:
                reading = self.camera.last_reading if self.camera is not None else None
                why = reading.reasons[c] if reading is not None else ""
                self.worst.append(f"frame {self.reads['frames']} ply {ctl.game.ply} "
                                  f"{cell_name(c)}: want {want} read {got} ({why})")
            if want == "?":
                self.reads["covered read as a colour" if got in "wbr" else "covered read '.'"] += 1
            elif got == "?":
                self.reads["visible read '?'"] += 1
            elif want == ".":
                self.reads["empty read as a piece"] += 1
            elif got == ".":
                self.reads["piece read '.'"] += 1
            else:
                self.reads["wrong colour"] += 1


def play(seed: int, size: tuple[int, int], room: Room | None = None
         ) -> tuple[str, str, FilmedTable, int]:
    """One game: (outcome, where it went wrong, the filmed table, true actions)."""
    room = room or Room()
    table = FilmedTable(seed, size, room)
    real = real_game(seed, room.real)
    table.real = real[0] if real else ""
    session = generate(seed, "camera", CAMERA_MEANNESS, sensor=table, answers=room.answers,
                       lights=room.lit, record=real[1] if real else None)
    assert table.teacher is not None
    done = [str(m) for m in table.teacher.controller.game.move_stack]
    truth = session.truth
    table.records = ([str(m) for m in truth], done)
    table.events = session.events
    table.never = session.stats.get("never_answered", 0)
    if done == truth and not session.stats.get("given_up"):
        return "followed", "", table, len(truth)
    first = next((i for i, (a, b) in enumerate(zip(done, truth, strict=False)) if a != b),
                 min(len(done), len(truth) - 1))
    if done == truth[:len(done)]:
        return "stalled", f"ply {first + 1}: {truth[first]} never seen", table, len(truth)
    if unseen_order(done, truth[:len(done)], session.events):
        where = (f"ply {first + 1}: {done[first]} for {truth[first]}, an order no reading "
                 "tells apart")
        if len(done) < len(truth) or session.stats.get("given_up"):
            return "stalled", f"{where}; ply {len(done) + 1} never seen", table, len(truth)
        return "unseen order", where, table, len(truth)
    return "wrong", f"ply {first + 1}: {done[first]} for {truth[first]}", table, len(truth)


def _dump(folder: Path, seed: int, table: FilmedTable, outcome: str) -> None:
    """The game's first misread frames and cells, and where it was lost."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    for i, frame in enumerate(table.error_frames):
        if frame is not None:
            cv2.imwrite(str(folder / f"game-{seed}-error{i}.png"), frame)
    text = (f"{outcome}\n" + "\n".join(table.first_errors) + "\nworst:\n"
            + "\n".join(table.worst) + f"\n{table.scene}\n"
            + f"true record: {' '.join(table.records[0])}\n"
            + f"controller's: {' '.join(table.records[1])}\n")
    if table.lost is not None:
        frame, want, got, stacks, view = table.lost
        cv2.imwrite(str(folder / f"game-{seed}-lost.png"), frame)
        text += (f"lost:\nwant {want}\nread {got}\n"
                 f"ctl  {''.join(s[-1] if s else '.' for s in stacks)}\n"
                 f"prompt {view.prompt} blink {sorted(view.blink)}\n")
    (folder / f"game-{seed}.txt").write_text(text)
    with open(folder / f"game-{seed}.events.jsonl", "w") as f:
        for event in table.events:
            line = format_event(event)
            if line is not None:
                obj = json.loads(line)
                if getattr(event, "touched", 0):
                    obj["touched"] = event.touched
                if getattr(event, "grown", 0):
                    obj["grown"] = event.grown
                if getattr(event, "glare", 0):
                    obj["glare"] = event.glare
                f.write(json.dumps(obj) + "\n")
    with open(folder / f"game-{seed}.jsonl", "w") as f:
        for line in table.log:
            f.write(json.dumps(line) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--first", type=int, default=1, help="first game seed")
    ap.add_argument("--size", default="960x720", help="frame size WxH (the Pi's: 1280x960)")
    ap.add_argument("--quiet", action="store_true", help="only the totals")
    ap.add_argument("--dump", type=Path, default=None,
                    help="folder for each game's first misread frames and readings "
                         "(and a lost game's last frame)")
    ap.add_argument("--answers", choices=("classic", "ranges"), default="classic",
                    help="how prompts are answered: the classic fixed timings, or timings "
                         "drawn from ranges per game and answer, some players never answering")
    ap.add_argument("--lit", action="store_true", help="the table's LEDs lit while filming")
    ap.add_argument("--auto-exposure", action="store_true",
                    help="auto exposure and white balance, drifting room light, shadows")
    ap.add_argument("--real", type=float, nargs="?", const=1.0, default=0.0, metavar="SHARE",
                    help="this share of the games (1 without a value) real boardspace.net games")
    ap.add_argument("--room", action="store_true",
                    help="all of the above (half the games real unless --real says)")
    ap.add_argument("--classic", action="store_true", help="none of the above (the default)")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    room = Room()
    if not args.classic:
        every = args.room
        room = Room(answers=AnswerRanges() if every or args.answers == "ranges" else None,
                    lit=every or args.lit, auto=every or args.auto_exposure,
                    real=args.real if args.real or not every else 0.5)
    kinds: dict[str, Counter[str]] = {"random": Counter(), "real": Counter()}
    outcomes: Counter[str] = Counter()
    never: Counter[str] = Counter()  # outcomes of the games with a prompt never answered
    reads: Counter[str] = Counter()
    cpu: list[float] = []
    start = time.perf_counter()
    for seed in range(args.first, args.first + args.games):
        outcome, where, table, plies = play(seed, (w, h), room)
        outcomes[outcome] += 1
        kinds["real" if table.real else "random"][outcome] += 1
        never[outcome] += table.never > 0
        reads.update(table.reads)
        cpu.extend(table.read_cpu)
        if args.dump is not None:
            _dump(args.dump, seed, table, f"{outcome} {where}")
        if not args.quiet:
            m = table.scene.material
            board = "sheet" if m is None else f"{m.kind}/{m.prints}"
            errors = {k: v for k, v in table.reads.items() if k != "frames"}
            what = f"real {table.real}, " if table.real else ""
            what += f"{table.never} prompts never answered, " if table.never else ""
            print(f"game {seed}: {outcome} {where} ({what}{plies} actions, board {board}, "
                  f"lamp {table.scene.lamp_k:.0f} K, tilt {table.scene.tilt_deg:.0f}; "
                  f"{table.reads['frames']} frames, {table.renders} renders; "
                  f"misread cells {errors or 'none'})", flush=True)
    games = args.games
    print(f"camera_games.size: {w}x{h}")
    print(f"camera_games.room: {room.name}")
    for kind, counts in kinds.items():
        n = sum(counts.values())
        if n and n != games:
            print(f"camera_games.{kind}: followed {counts['followed']}/{n}, stalled "
                  f"{counts['stalled'] + counts['unseen order']}/{n}, wrong {counts['wrong']}/{n}")
    print(f"camera_games.followed: {outcomes['followed']}/{games}")
    print(f"camera_games.stalled: {outcomes['stalled']}/{games}")
    print(f"camera_games.unseen_order: {outcomes['unseen order']}/{games} (the same game but "
          "for an order no reading tells apart, e.g. two red pieces in one blackout; apart "
          "from the followed ones)")
    print(f"camera_games.wrong: {outcomes['wrong']}/{games}")
    print(f"camera_games.never_answered: {sum(never.values())}/{games} games had a prompt a "
          f"player who never answers left (followed {never['followed']}, stalled "
          f"{never['stalled'] + never['unseen order']}, wrong {never['wrong']})")
    frames = reads.pop("frames", 0)
    cells = frames * 49
    print(f"camera_games.frames: {frames}")
    for key in ("covered read as a colour", "wrong colour", "empty read as a piece",
                "piece read '.'", "visible read '?'", "covered read '.'"):
        share = 100.0 * reads[key] / cells if cells else math.nan
        print(f"camera_games.cells.{key.replace(' ', '_')}: {reads[key]} ({share:.3f} %)")
    if cpu:
        print(f"camera_games.read_cpu_ms.median: {1000 * float(np.median(cpu)):.1f}")
        print(f"camera_games.read_cpu_ms.p99: {1000 * float(np.percentile(cpu, 99)):.1f}")
    print(f"camera_games.wall_s: {time.perf_counter() - start:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
