import numpy as np
import pytest

from engine.errors import ConfigError
from engine.geometry import CELL_NAMES
from vision.geometry import BoardGeometry


def test_default_markers_follow_the_contract(geometry: BoardGeometry) -> None:
    p = 40.0
    assert geometry.pitch_mm == p
    assert geometry.marker_centre_mm(0) == pytest.approx((-6.2 * p, -2.8 * p))
    assert geometry.marker_centre_mm(1) == pytest.approx((6.2 * p, -2.8 * p))
    assert geometry.marker_centre_mm(2) == pytest.approx((6.2 * p, 2.8 * p))
    assert geometry.marker_centre_mm(3) == pytest.approx((-6.2 * p, 2.8 * p))
    assert geometry.dictionary == "DICT_4X4_50"
    assert geometry.disc_radius_mm == pytest.approx(14.0)
    assert geometry.thickness_mm == pytest.approx(6.0)


def test_marker_corners_are_upright_in_aruco_order(geometry: BoardGeometry) -> None:
    c = geometry.marker_corners_mm(2)
    side = 0.8 * 40.0
    tl, tr, br, bl = c
    assert tr[0] - tl[0] == pytest.approx(side)  # top edge runs +x
    assert tl[1] - bl[1] == pytest.approx(side)  # top edge toward row 5 (+y)
    assert br[1] == pytest.approx(bl[1]) and np.all(c[:, 2] == 0)
    assert c[:, :2].mean(axis=0) == pytest.approx((6.2 * 40, 2.8 * 40))


def test_cell_centres_relative_to_f3(geometry: BoardGeometry) -> None:
    xy = geometry.cell_centres_mm()
    assert xy[CELL_NAMES.index("F3")] == pytest.approx((0, 0))
    assert xy[CELL_NAMES.index("K3")] == pytest.approx((200, 0))
    assert xy[CELL_NAMES.index("F5")][1] == pytest.approx(2 * 40 * np.sqrt(3) / 2)


def test_outline_and_sheet_contain_the_board(geometry: BoardGeometry) -> None:
    outline = geometry.board_outline_mm()
    hx, hy = geometry.sheet_extent_mm()
    assert outline[:, 0].max() < 6.2 * 40 - 16 and outline[:, 1].max() < hy
    assert hx >= 6.2 * 40 + 16 + 32 / 6  # quiet zone of one marker cell


def test_config_overrides_and_errors() -> None:
    g = BoardGeometry.from_config({"pitch_mm": 50, "disc_thickness": 0.2, "source": "video",
                                   "markers": {"0": [-6, -3], "1": [6, -3], "2": [6, 3]}})
    assert g.pitch_mm == 50 and g.thickness_mm == pytest.approx(10)
    assert sorted(g.markers) == [0, 1, 2]
    assert BoardGeometry.from_config(g.to_config()) == g
    with pytest.raises(ConfigError, match="camera.pitch_mm") as err:
        BoardGeometry.from_config({"pitch_mm": -4})
    assert err.value.key == "camera.pitch_mm"
    with pytest.raises(ConfigError, match="camera.dictionary"):
        BoardGeometry.from_config({"dictionary": "DICT_9X9"})
    with pytest.raises(ConfigError, match="camera.markers"):
        BoardGeometry.from_config({"markers": {"0": [1, 2]}})
    with pytest.raises(ConfigError, match="camera.disc_diameter"):
        BoardGeometry.from_config({"disc_diameter": 1.2})
