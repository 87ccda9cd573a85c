"""An empty cell beside a hand whose colour is nearly the empty board's (a little off it: the
hand's shade, its reflected colour) and whose print shows all round (vision.cues.hands: under 40 %
of the print's directions missing) is seen empty, not "something over the board here": a
hand over it would hide its print (renderer seed 1, frame 215)."""

# ruff: noqa: E501

from __future__ import annotations

from engine.geometry import parse_cell
from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Hand, Scene, render

#: Seed 1 frame 215: C2 with a hand on three sides.
HAND_ON_THREE_SIDES = Scene(stacks=['', 'bbw', '', '', 'wb', 'bw', '', '', 'ww', '', 'wb', '', 'b', 'w', '', '', 'w', 'b', '', 'bbb', '', '', '', 'bw', 'b', 'rrww', 'b', 'b', 'w', 'ww', '', 'wwrbb', 'ww', '', 'w', '', '', '', 'bww', '', '', '', '', '', 'wbbbbwb', '', '', '', 'b'], size=(1280, 960), focal_per_width=0.7596394006622769, tilt_deg=7.600553035104179, azimuth_deg=-118.36262614999137, yaw_deg=-116.93236437604683, fill=0.809809032466733, board_style='beige', cast=(0.9589449423710015, 0.976240917428699, 1.0), exposure=0.91990639478203, gradient=(0.2533792585641497, -0.2993410172780704), vignette=0.16700452750110323, shadows=[], glare=[(447.12974895621585, 740.7368146430825, 14.231777189615231, 246.31957705079523)], hands=[Hand(start=(775.1851418616832, -96.0), end=(757.2532184287102, 448.87208887226), width=114.60349437414996, skin=(60, 86, 128), sleeve=None, sleeve_share=0.7), Hand(start=(613.4594199003191, -96.0), end=(674.0077248996686, 666.0077015238742), width=80.47758630824981, skin=(120, 150, 205), sleeve=None, sleeve_share=0.7)], hidden_markers=(), blur=0.9951803134823693, noise=2.616242988493115, jpeg_quality=84, seed=844417489, material=Material(kind='felt', albedo=(146, 85, 42), grain=0.5630140866585203, prints='lattice+circles', ink=(203, 205, 231), fill=None, table=(99, 143, 163), table_grain=0.8435783936897274, card=(224, 227, 228), quiet=1.9157209237563801, seed=30976345), pieces={'w': (205, 212, 217), 'b': (33, 31, 36), 'r': (67, 43, 195)}, gloss=0.8268771247230051, side_shade=0.61107602707829, decor=True, cast_shadow=(-0.24180418173636667, -0.7500731163485859, 0.3464206731093965), jitter=2.331634934769346, distortion=0.030542338437623606, lamp_k=5782.174515761496)


def test_an_empty_cell_whose_print_shows_beside_a_hand_reads_empty() -> None:
    scene, name = HAND_ON_THREE_SIDES, "C2"
    image, truth = render(scene)
    heights = [len(s) for s in scene.stacks]
    reading = BoardReader().read(image, heights)
    c = parse_cell(name)
    assert heights[c] == 0 and truth.expected[c] == "."
    assert reading.snapshot[c] == ".", reading.reasons[c]
    assert [(i, g, w) for i, (g, w) in enumerate(zip(reading.snapshot, truth.expected, strict=True))
            if w != "*" and g != w] == []
