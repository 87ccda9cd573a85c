"""A marker card not seen in this frame keeps its last white only as the seen cards' whites
changed since: between two frames the lamp, the exposure or the camera's white balance
changes every card alike. Renderer seed 11, frames 110-111: a hand over two cards as the
light turned warmer; their whites kept from the cooler frame, mixed with the two seen now,
tinted the white tops orange: nine read "unknown colour" and a 4-stack read '.'."""

# ruff: noqa: E501

from __future__ import annotations

from vision.reader import BoardReader
from vision.synthetic.materials import Material
from vision.synthetic.render import Hand, Scene, render

#: Seed 11 frame 110: all four cards in view, a cool lamp.
ALL_CARDS = Scene(stacks=['b', 'b', 'w', 'w', 'bb', 'bb', '', '', 'b', '', 'bb', 'w', 'b', '', '', '', '', '', 'bbb', '', 'bw', '', 'ww', 'bw', 'wb', 'rb', 'w', 'w', 'w', 'b', 'r', 'w', '', 'w', '', '', 'b', 'w', 'w', 'br', 'b', 'wwb', '', 'w', 'b', '', 'ww', 'w', ''], size=(1280, 960), focal_per_width=0.9061758255704494, tilt_deg=17.415934595736225, azimuth_deg=38.704089899837584, yaw_deg=129.6970186510273, fill=0.8459625827425485, board_style='grey', cast=(1.0, 0.7718735495650023, 0.6555355901244121), exposure=0.8893330312934644, gradient=(0.002587661126673635, 0.02967447112170507), vignette=0.12344476587858708, shadows=[], glare=[], hands=[Hand(start=(453.7249741142236, -96.0), end=(688.332459400711, 330.81544619294533), width=98.02211760257023, skin=(150, 176, 226), sleeve=(157, 115, 92), sleeve_share=0.5264465333081709)], hidden_markers=(), blur=0.6561653455769222, noise=2.8436721428377334, jpeg_quality=78, seed=245122012, material=Material(kind='felt', albedo=(57, 57, 152), grain=0.4721177300789616, prints='lattice+circles', ink=(187, 205, 193), fill=None, table=(100, 131, 106), table_grain=0.5297582303517179, card=(227, 226, 228), quiet=1.6307040782287072, seed=105202602), pieces={'w': (193, 204, 212), 'b': (39, 41, 38), 'r': (53, 54, 195)}, gloss=0.1280741235133489, side_shade=0.5920502738595511, decor=False, cast_shadow=(-0.0460443571111212, 0.3625427221921063, 0.4349675161561194), jitter=1.8344274655703767, distortion=-0.05349279188870033, lamp_k=4295.239957066869)

#: Seed 11 frame 111: the same table, a warmer lamp, a hand and a sleeve over two cards.
TWO_CARDS_WARMER = Scene(stacks=['w', '', 'bbbw', 'r', 'w', 'wb', '', '', 'w', '', 'www', '', '', '', '', '', 'bbwb', '', '', 'b', 'bbwwww', '', 'b', 'bwbw', 'b', 'br', 'b', 'ww', 'bbw', '', '', '', '', '', '', '', '', '', 'b', 'w', 'wb', '', '', 'rb', '', '', 'wbw', 'w', 'b'], size=(1280, 960), focal_per_width=0.9061758255704494, tilt_deg=17.415934595736225, azimuth_deg=38.704089899837584, yaw_deg=129.6970186510273, fill=0.8459625827425485, board_style='grey', cast=(0.4541535273873499, 0.7495812623359198, 1.0), exposure=1.2662240780253846, gradient=(-0.008008312969295661, 0.2477658020344748), vignette=0.21414176357169504, shadows=[(992.880273458719, 902.1645835474882, 319.1295241076553, 0.32259395847415695)], glare=[(57.839261001085305, 778.7696115973743, 22.370418547339366, 255.67916503075298)], hands=[Hand(start=(61.70083473687697, 1056.0), end=(403.2923101052819, 324.94971168913946), width=114.53879085244124, skin=(120, 150, 205), sleeve=None, sleeve_share=0.7), Hand(start=(623.5815648400256, -96.0), end=(858.9758982850481, 298.6417219368828), width=88.70749098207831, skin=(167, 237, 24), sleeve=(20, 20, 22), sleeve_share=0.645951890894911)], hidden_markers=(), blur=0.8602334704220493, noise=2.8107027929144346, jpeg_quality=89, seed=151144928, material=Material(kind='felt', albedo=(57, 57, 152), grain=0.4721177300789616, prints='lattice+circles', ink=(187, 205, 193), fill=None, table=(100, 131, 106), table_grain=0.5297582303517179, card=(227, 226, 228), quiet=1.6307040782287072, seed=105202602), pieces={'w': (193, 204, 212), 'b': (39, 41, 38), 'r': (53, 54, 195)}, gloss=0.6732107575831088, side_shade=0.5920502738595511, decor=False, cast_shadow=(-0.12678196058374017, 0.12702404916281854, 0.3097172838162424), jitter=2.2558099145084944, distortion=-0.05349279188870033, lamp_k=2739.9925953484476)


def test_a_card_out_of_view_follows_the_light_of_those_in_view() -> None:
    reader = BoardReader()
    first, _ = render(ALL_CARDS)
    reader.read(first, [len(s) for s in ALL_CARDS.stacks])
    image, truth = render(TWO_CARDS_WARMER)
    reading = reader.read(image, [len(s) for s in TWO_CARDS_WARMER.stacks])
    assert len(reading.markers) < 3  # the last pose, and whites not seen now
    assert [(i, g, w) for i, (g, w) in enumerate(zip(reading.snapshot, truth.expected, strict=True))
            if w != "*" and g != w] == []
