"""The renderer: roles to colours, blinking and pulsing in time, status LEDs, text legend."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.table.renderer import DEFAULT_PALETTE, AnimationConfig, Palette, Renderer, describe
from controller.table.view import ROLES, BoardView
from engine.geometry import parse_cell

BLACK = (0, 0, 0)
STEADY = AnimationConfig(blink_hz=2.0, pulse=0.0, brightness=1.0, blink_roles=())


def cells(*names: str) -> list[int]:
    return [parse_cell(n) for n in names]


def test_roles_get_their_colours_and_the_rest_background() -> None:
    view = BoardView(roles={parse_cell(n): r for n, r in zip(
        ("A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "I1", "A2"), ROLES, strict=True)})
    out = Renderer(Palette(), STEADY).render(view, 0.0)
    assert len(out) == 49
    for cell, role in view.roles.items():
        assert out[cell] == DEFAULT_PALETTE[role]
    lit = set(view.roles)
    assert all(out[c] == BLACK for c in range(49) if c not in lit)


def test_background_colour_and_partial_palette_mapping() -> None:
    renderer = Renderer({"background": (1, 2, 3), "movable": (9, 9, 9)}, STEADY)
    out = renderer.render(BoardView(roles={0: "movable", 1: "source"}), 0.0)
    assert out[0] == (9, 9, 9)
    assert out[1] == DEFAULT_PALETTE["source"]
    assert out[2] == (1, 2, 3)


def test_blinking_cells_alternate_at_blink_hz() -> None:
    d1, d2 = cells("D1", "D2")
    view = BoardView(roles={d1: "destination", d2: "destination"}, blink=frozenset({d1}))
    r = Renderer(Palette(), STEADY)  # 2 Hz: lit for 0.25 s, dark for 0.25 s
    on = DEFAULT_PALETTE["destination"]
    for t, lit in ((0.0, True), (0.1, True), (0.24, True), (0.26, False), (0.49, False),
                   (0.5, True), (0.76, False), (10.0, True)):
        frame = r.render(view, t)
        assert frame[d1] == (on if lit else BLACK), t
        assert frame[d2] == on  # not in view.blink: steady


def test_blink_roles_always_blink() -> None:
    view = BoardView(roles={5: "mismatch", 6: "movable"})
    r = Renderer(Palette(), AnimationConfig(blink_hz=1.0, pulse=0.0))
    assert r.render(view, 0.2)[5] == DEFAULT_PALETTE["mismatch"]
    assert r.render(view, 0.7)[5] == BLACK
    assert r.render(view, 0.7)[6] == DEFAULT_PALETTE["movable"]


def test_destination_and_suggest_pulse_others_do_not() -> None:
    view = BoardView(roles={0: "destination", 1: "suggest", 2: "movable"})
    r = Renderer(Palette(), AnimationConfig(pulse=1.0, pulse_depth=0.5, blink_roles=()))
    start, middle = r.render(view, 0.0), r.render(view, 0.5)
    assert start[0] == DEFAULT_PALETTE["destination"]
    assert middle[0] == (0, 30, 128)  # half brightness at the bottom of the pulse
    assert middle[1] == (0, 110, 110)
    assert start[2] == middle[2] == DEFAULT_PALETTE["movable"]
    assert r.render(view, 1.0) == start


def test_brightness_scales_everything() -> None:
    r = Renderer({"background": (10, 10, 10)}, AnimationConfig(brightness=0.5, pulse=0.0))
    out = r.render(BoardView(roles={0: "source"}), 0.0)
    assert out[0] == (128, 128, 128)
    assert out[1] == (5, 5, 5)


@given(
    roles=st.dictionaries(st.integers(0, 48), st.sampled_from(ROLES), max_size=49),
    blink=st.frozensets(st.integers(0, 48)),
    t=st.floats(0, 1e5, allow_nan=False),
    brightness=st.floats(0.01, 1.0),
)
def test_render_is_pure_and_in_range(
    roles: dict[int, str], blink: frozenset[int], t: float, brightness: float
) -> None:
    view = BoardView(roles=roles, blink=blink)
    r = Renderer(Palette(), AnimationConfig(brightness=brightness))
    first = r.render(view, t)
    assert first == Renderer(Palette(), AnimationConfig(brightness=brightness)).render(view, t)
    assert len(first) == 49
    assert all(0 <= ch <= 255 for rgb in first for ch in rgb)
    for c in range(49):
        if c not in roles:
            assert first[c] == BLACK


def test_status_shows_side_winner_and_attention() -> None:
    r = Renderer(Palette(), STEADY)
    idle = BoardView()
    assert r.status(idle, 0.0) == [BLACK, BLACK]
    assert r.status(idle, 0.0, turn="w")[0] == DEFAULT_PALETTE["own-white"]
    assert r.status(idle, 0.0, turn="b")[0] == DEFAULT_PALETTE["own-black"]
    won = BoardView(roles={3: "winner"})
    assert r.status(won, 0.0, turn="b")[0] == DEFAULT_PALETTE["winner"]
    asking = BoardView(roles={3: "destination"}, prompt="choose-destination")
    assert r.status(asking, 0.0)[1] == DEFAULT_PALETTE["destination"]
    wrong = BoardView(roles={3: "mismatch"}, prompt="fix-board")
    assert r.status(wrong, 0.0)[1] == DEFAULT_PALETTE["mismatch"]
    assert r.status(wrong, 0.3)[1] == BLACK  # blinking


def test_describe_lists_roles_in_order_with_blinking_and_message() -> None:
    c3, d4, e3, f3 = cells("C3", "D4", "E3", "F3")
    view = BoardView(
        roles={d4: "movable", c3: "movable", e3: "source", f3: "destination"},
        blink=frozenset({f3}),
        message="White to move",
        prompt="choose-destination",
    )
    assert describe(view) == (
        "movable: C3 D4 | source: E3 | destination (blinking): F3 | "
        "waiting for: choose-destination | White to move"
    )
    assert describe(BoardView()) == "(no lights)"


@pytest.mark.parametrize("role", ROLES)
def test_every_role_renders(role: str) -> None:
    r = Renderer(Palette(), STEADY)
    assert r.render(BoardView(roles={24: role}), 0.0)[24] == DEFAULT_PALETTE[role]
