"""The camera path end to end: rendered frames of the physical table -> CameraSensor ->
TableController, with placements taught to the colour model, through placing and moves."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.runner import PlacementTeacher, Runner
from controller.table.session import TableController
from engine.errors import ConfigError
from engine.game import Game
from engine.geometry import iter_cells
from engine.playout import random_move
from hardware.camera import SyntheticSource
from hardware.clock import FakeClock
from hardware.leds import RecordingStrip
from vision.backend import CameraSensor, camera_from_config
from vision.reader import BoardReader
from vision.synthetic.render import Scene, render

FRAME = 0.25  # seconds between camera frames


class CameraTable:
    """The physical table as stacks by cell, filmed by a fixed synthetic camera."""

    def __init__(self) -> None:
        self.stacks = [""] * 49
        self.scene = Scene(stacks=self.stacks, size=(960, 720), tilt_deg=15.0, azimuth_deg=-90,
                           yaw_deg=5.0, blur=0.5, noise=1.5)

    def frame(self, index: int) -> np.ndarray:
        image, _ = render(replace(self.scene, stacks=list(self.stacks), seed=index))
        return image


@pytest.fixture
def rig() -> tuple[CameraTable, TableController, Runner, FakeClock]:
    clock = FakeClock()
    table = CameraTable()
    ctl = TableController(colours=True)
    camera = CameraSensor(SyntheticSource(table.frame), BoardReader(), clock,
                          heights_provider=ctl.heights)
    runner = Runner(ctl, sources=[PlacementTeacher(camera, ctl)], strip=RecordingStrip(),
                    clock=clock)
    return table, ctl, runner, clock


def frames(runner: Runner, clock: FakeClock, n: int) -> None:
    for _ in range(n):
        clock.advance(FRAME)
        runner.step()


def test_placing_and_moving_through_the_camera(rig: tuple[CameraTable, TableController,
                                                          Runner, FakeClock]) -> None:
    table, ctl, runner, clock = rig
    frames(runner, clock, 2)
    reference = Game()
    rng = random.Random(5)
    ambiguous = 0
    for _ in range(49 + 6):
        move = random_move(reference, rng)
        assert move is not None
        if move.source is not None and not reference.placing:
            ambiguous += sum(reference.stack(c)[-1] == reference.turn
                             for c in iter_cells(reference.destinations(move.source))) > 1
        removed = reference.push(move)
        if move.is_placement:
            assert move.target is not None
            table.stacks[move.target] = reference.stack(move.target)
        elif move.source is not None and move.target is not None:
            lifted = table.stacks[move.source]
            table.stacks[move.source] = ""
            frames(runner, clock, 3)  # held in the air
            table.stacks[move.target] += lifted
            frames(runner, clock, 3)
            if ctl.view().prompt == "choose-destination":
                # the camera did not see which stack it landed on (moved, or taller than
                # it was: controller.table.camera): the gesture answers
                landed = table.stacks[move.target]
                table.stacks[move.target] = ""
                frames(runner, clock, 3)
                table.stacks[move.target] = landed
        frames(runner, clock, 3)
        if removed:
            assert set(ctl.view().roles) >= set(iter_cells(removed))
            for c in iter_cells(removed):
                table.stacks[c] = ""
            frames(runner, clock, 3)
        assert ctl.actions == [str(m) for m in reference.move_stack if not m.is_pass] or \
            ctl.actions == [str(m) for m in reference.move_stack], (ctl.actions[-3:], move)
    assert ctl.game.stacks() == reference.stacks()
    assert ambiguous >= 1  # this seed lands a stack where the tops cannot tell
    assert "mismatch" not in ctl.view().roles.values()


def test_camera_from_config_checks_keys(tmp_path: Path) -> None:
    clock = FakeClock()
    with pytest.raises(ConfigError, match="camera.lens"):
        camera_from_config({"source": "folder", "path": str(tmp_path), "lens": 3}, clock=clock)
    with pytest.raises(ConfigError, match="camera.pitch_mm"):
        camera_from_config({"source": "folder", "path": str(tmp_path), "pitch_mm": -1},
                           clock=clock)
    table = CameraTable()
    cv2.imwrite(str(tmp_path / "empty-board.png"), table.frame(0))
    sensor = camera_from_config({"source": "folder", "path": str(tmp_path)}, clock=clock)
    with sensor:
        (event,) = sensor.poll()
        assert event.cells == "." * 49
        assert sensor.poll() == []  # the folder is read once
