import json

import numpy as np
import pytest

from engine.errors import ConfigError, DvonnError
from vision.calibration import Calibration, CalibrationError
from vision.reader import BoardReader, calibrate_empty
from vision.synthetic.render import heights_of


def test_round_trip(tmp_path) -> None:
    cal = Calibration(camera_matrix=np.array([[900.0, 0, 400], [0, 900, 300], [0, 0, 1]]),
                      dist_coeffs=np.array([0.1, -0.05, 0, 0, 0.01]),
                      geometry_overrides={"pitch_mm": 42.0})
    cal.model.empty_offset[7] = (0.05, 0.01, -0.02)
    path = tmp_path / "cal.json"
    cal.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.camera_matrix, cal.camera_matrix)
    assert np.allclose(again.dist_coeffs, cal.dist_coeffs)
    assert again.geometry.pitch_mm == 42.0
    assert np.allclose(again.model.empty_offset, cal.model.empty_offset)
    assert again.to_dict() == json.loads(path.read_text())


@pytest.mark.parametrize("content,message", [
    ("{not json", "not JSON at line 1"),
    ('{"format": "other", "version": 1}', "key 'format'"),
    ('{"format": "dvonn-board-camera-calibration", "version": 9}', "unsupported version 9"),
    ('{"format": "dvonn-board-camera-calibration", "version": 1, "camera_matrix": [1, 2]}',
     "camera_matrix: must have shape"),
    ('{"format": "dvonn-board-camera-calibration", "version": 1, "dist_coeffs": [0, 0, 0, 0]}',
     "dist_coeffs need a camera_matrix"),
    ('{"format": "dvonn-board-camera-calibration", "version": 1, '
     '"colour_model": {"stds": {"b": [1, 0, 1]}}}', "stds.b"),
])
def test_bad_files_are_named(tmp_path, content, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message) as err:
        Calibration.load(path)
    assert "bad.json" in str(err.value)


def test_bad_geometry_override_names_the_key(tmp_path) -> None:
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"format": "dvonn-board-camera-calibration", "version": 1,
                                "camera": {"disc_thickness": "thick"}}))
    with pytest.raises(ConfigError, match="camera.disc_thickness"):
        Calibration.load(path)


def test_missing_file() -> None:
    with pytest.raises(CalibrationError, match="cannot read calibration file"):
        Calibration.load("/nonexistent/cal.json")


def test_calibrate_from_empty_board_then_read(rendered, tmp_path) -> None:
    empties = [rendered(70 + i, moves=0, stacks=[""] * 49, board_style="slate")[0]
               for i in range(2)]
    cal = calibrate_empty(empties)
    assert np.all(np.isfinite(cal.model.empty_offset))
    assert np.abs(cal.model.empty_offset).max() < 0.2
    cal.save(tmp_path / "c.json")
    reader = BoardReader(None, Calibration.load(tmp_path / "c.json"))
    assert cal.model.board is not None
    frame, truth, scene = rendered(72, board_style="slate")
    assert reader.read(frame, heights_of(scene.stacks)).snapshot == truth.snapshot
    with pytest.raises(DvonnError, match="no usable view"):
        calibrate_empty([np.zeros((100, 100, 3), np.uint8)])


def test_known_camera_matrix_and_distortion_are_used(rendered) -> None:
    frame, truth, scene = rendered(73)
    cal = Calibration(camera_matrix=truth.camera_matrix.copy(), dist_coeffs=np.zeros(5))
    reader = BoardReader(None, cal)
    reading = reader.read(frame, heights_of(scene.stacks))
    assert reading.pose is not None and not reading.pose.focal_estimated
    assert reading.pose.focal == truth.camera_matrix[0, 0]
    assert reading.snapshot == truth.snapshot
