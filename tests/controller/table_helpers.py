"""Shared helpers for the controller tests: snapshot building, a clocked event feeder and the
``placed`` fixture (re-exported by conftest.py). A unique module name: tests/ has no packages."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.table.session import TableController
from engine.game import Game
from engine.move import Move
from hardware.events import ButtonEvent, SnapshotEvent

#: The full placement of RULES.md ("Figures to test against"), White to move after it.
PLACEMENT = (
    "G2 E3 A3 J3 H3 H2 D4 I4 K3 G3 C1 B2 C5 I1 J2 G4 D2 D1 G1 C4 E2 A1 I5 H1 B3 F1 D3 K5 E1 "
    "E5 F3 B1 J4 F2 J5 K4 F5 I3 I2 C3 D5 H4 G5 H5 F4 C2 E4 A2 B4"
).split()


def board(game: Game, colours: bool = False) -> str:
    """What the table reads in the position of ``game``."""
    return game.snapshot(colours)


def edit(snap: str, **cells: str) -> str:
    """``snap`` with some cells changed, by name: ``edit(s, C3='.', D3='w')``."""
    from engine.geometry import parse_cell

    chars = list(snap)
    for name, value in cells.items():
        chars[parse_cell(name)] = value
    return "".join(chars)


class Feeder:
    """Feeds readings to a controller with its own clock (seconds); records the trace."""

    def __init__(self, ctl: TableController | None = None, *, t: float = 0.0, **kw: Any) -> None:
        self.trace: list[dict[str, Any]] = []
        self.ctl = ctl or TableController(trace=self.trace.append, **kw)
        self.t = t

    def read(self, cells: str, hold: float = 1.0) -> TableController:
        """One reading, then ``hold`` seconds without change (it settles if hold >= 0.5)."""
        self.ctl.handle(SnapshotEvent(self.t, cells))
        self.t += hold
        self.ctl.advance(self.t)
        return self.ctl

    def press(self, button: str, long: bool = False, hold: float = 0.1) -> TableController:
        self.ctl.handle(ButtonEvent(self.t, button, long))
        self.t += hold
        self.ctl.advance(self.t)
        return self.ctl

    def roles(self) -> dict[str, str]:
        return self.ctl.view().named_roles()


@pytest.fixture
def placed() -> Game:
    """The RULES.md position after all 49 placements (White to move)."""
    return Game.from_moves(PLACEMENT)


def playouts(seed: int) -> Iterator[Game]:
    """Positions of seeded random games (every position of each game, in order)."""
    rng = random.Random(seed)
    while True:
        g = Game()
        while not g.is_over():
            yield g
            g.push(rng.choice(g.legal_moves()))
        yield g


def find_position(pred: Callable[[Game], bool], seed: int = 1, limit: int = 20000) -> Game:
    """The first phase-2 position of seeded random playouts that satisfies ``pred``."""
    for i, g in enumerate(playouts(seed)):
        if i > limit:
            break
        if not g.placing and pred(g):
            return g.copy()
    raise AssertionError("no such position")


def step_moves(g: Game) -> list[Move]:
    return [m for m in g.legal_moves() if m.is_step]


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def replay_from(path: Path, colours: bool = False) -> tuple[TableController, list[str], list[str]]:
    """Replay a log (hall unless ``colours``) that starts from a position: its first line
    names the position (``position``) and the true actions after it (``then``), the rest are
    readings (with the stacks a camera saw moved, ``touched``) and buttons. Returns the
    controller (every pending change settled), position and then."""
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    ctl = TableController(game=Game.from_moves(head["position"]), colours=colours)
    for line in lines[1:]:
        e = json.loads(line)
        ctl.handle(ButtonEvent(e["t"], e["button"]) if "button" in e
                   else SnapshotEvent(e["t"], e["cells"], touched=e.get("touched", 0)))
    ctl.settle()
    return ctl, head["position"], head["then"]


def room_log(path: Path, change: Callable[[str], str] | None = None
             ) -> tuple[Game, list[str], list[Any]]:
    """A room game's readings cut from its ``--dump`` (benchmarks/camera_games.py): the
    position they begin in, the actions that must follow, and the events, with the stacks
    the camera saw moved (``touched``) and the prompted cell it saw grown (``grown``);
    ``change`` rewrites each reading's cells first."""
    import dataclasses

    from controller.sensorlog import parse_lines

    head, *lines = path.read_text().splitlines()
    scene = json.loads(head)
    if change is not None:
        lines = [json.dumps(dict(o, cells=change(o["cells"]))) for o in map(json.loads, lines)]
    events: list[Any] = []
    for event, line in zip(parse_lines(lines, path.name), lines, strict=True):
        seen = json.loads(line)
        if isinstance(event, SnapshotEvent):
            event = dataclasses.replace(event, touched=seen.get("touched", 0),
                                        grown=seen.get("grown", 0))
        events.append(event)
    return Game.from_moves(scene["position"]), scene["then"], events
