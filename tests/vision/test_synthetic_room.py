"""The synthetic camera's real room (vision.synthetic.leds, vision.synthetic.room): the table's
LEDs glow at their holes, the camera's auto exposure follows an arm with a lag, the room's
light drifts; all of it the same for the same seed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.geometry import BoardGeometry
from vision.synthetic.leds import hole_centres_mm
from vision.synthetic.render import Scene, camera_pose, project_points, render
from vision.synthetic.room import Develop, RoomLight

SIZE = (320, 240)


def _scene() -> Scene:
    stacks = [""] * 49
    stacks[24] = "w"
    stacks[10] = "bb"
    return Scene(stacks=stacks, size=SIZE, tilt_deg=10.0, noise=0.0, blur=0.0, seed=3,
                 led_holes=True)


def test_a_lit_led_glows_in_its_colour_at_its_hole_toward_row_1() -> None:
    scene = _scene()
    dark, _ = render(scene)
    lit, truth = render(replace(scene, leds={24: (0, 24, 102)}))  # destination blue, RGB
    again, _ = render(replace(scene, leds={24: (0, 24, 102)}))
    assert np.array_equal(lit, again)
    diff = lit.astype(int) - dark.astype(int)
    blue = diff[..., 0]
    y, x = np.unravel_index(int(np.argmax(blue)), blue.shape)
    g = BoardGeometry()
    k, rot, t = camera_pose(scene, g)
    hole = project_points(k, rot, t, np.c_[hole_centres_mm(g)[24:25], [0.0]])[0]
    centre = project_points(k, rot, t, np.c_[g.cell_centres_mm()[24:25], [0.0]])[0]
    assert np.hypot(x - hole[0], y - hole[1]) < 3.0  # the spot is at the hole
    assert np.hypot(x - centre[0], y - centre[1]) > 6.0  # not at the space's centre
    assert blue.max() > 60 and diff[y, x, 2] < blue.max() / 3  # saturated blue
    # a halo round it, nothing far away
    near = np.hypot(*np.mgrid[0:SIZE[1], 0:SIZE[0]][::-1] - hole[:, None, None]) < 15
    assert blue[near].mean() > 3 * max(0.1, float(np.abs(diff[~near]).mean()))
    assert truth.expected[24] == "w"


def test_auto_exposure_follows_an_arm_over_the_picture_in_a_second_or_two() -> None:
    frame = np.full((SIZE[1], SIZE[0], 3), 140, np.uint8)
    arm = frame.copy()
    arm[:, : SIZE[0] // 2] = 30  # a dark sleeve over half the picture
    a, b = Develop(5, SIZE, room=False), Develop(5, SIZE, room=False)
    seen = []
    for i in range(40):  # 0.1 s frames: 1 s bare, then the arm
        t = 0.1 * i
        src = frame if i < 10 else arm
        out = a(src, t)
        assert np.array_equal(out, b(src, t))  # the same seed, the same frames
        seen.append(float(out[:, -40:].mean()))  # a part the arm never covers
    assert abs(seen[9] - 140) < 1.5
    assert seen[10] < seen[12] < seen[20]  # the whole frame brightens, with a lag
    assert seen[30] > 160 and abs(seen[39] - seen[30]) < 3  # settled within 2 s


def test_the_room_light_drifts_slowly_and_shadows_come_and_go() -> None:
    room = RoomLight(9, SIZE)
    gains = np.array([room.gains(t) for t in np.arange(0, 600, 1.0)])
    assert np.allclose(gains[0], [1, 1, 1], atol=0.02)
    assert np.abs(np.diff(gains, axis=0)).max() < 0.01  # slow
    assert np.ptp(gains[:, 1]) > 0.01  # but it drifts
    dark = [room.shadow(t)[0] for t in np.arange(0, 600, 0.5)]
    assert max(dark) > 0.1 and min(dark) == 0.0
    assert RoomLight(9, SIZE).shadows == room.shadows
