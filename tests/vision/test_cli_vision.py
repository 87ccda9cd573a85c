import json

import cv2
import pytest

from controller.cli import main
from controller.cli.vision import parse_heights_text
from engine.errors import DvonnError
from engine.geometry import CELL_NAMES
from vision.synthetic.render import heights_of


@pytest.fixture()
def photo(rendered, tmp_path):
    frame, truth, scene = rendered(90)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), frame)
    return path, truth, scene


def test_read_prints_snapshot_and_confidences(photo, capsys) -> None:
    path, truth, scene = photo
    heights = "".join(str(h) for h in heights_of(scene.stacks))
    assert main(["vision", "read", str(path), "--heights", heights]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == truth.snapshot
    conf = json.loads(lines[1])
    assert list(conf) == list(CELL_NAMES) and all(0 <= v <= 1 for v in conf.values())


def test_read_errors_exit_2(photo, tmp_path, capsys) -> None:
    path, _, _ = photo
    assert main(["vision", "read", str(path), "--heights", "12"]) == 2
    assert "49 values" in capsys.readouterr().err
    assert main(["vision", "read", str(tmp_path / "missing.png")]) == 2
    assert "does not exist" in capsys.readouterr().err
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not an image")
    assert main(["vision", "read", str(junk)]) == 2
    assert "cannot read image" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), (cv2.imread(str(path)) * 0))
    assert main(["vision", "read", str(blank)]) == 2
    assert "board not found" in capsys.readouterr().err


def test_heights_parsing() -> None:
    assert parse_heights_text("1" * 49) == [1] * 49
    assert parse_heights_text(",".join(["0"] * 48 + ["12"])) == [0] * 48 + [12]
    with pytest.raises(DvonnError, match="got 48"):
        parse_heights_text("1" * 48)
    with pytest.raises(DvonnError, match="offset 3"):
        parse_heights_text(",".join(["1", "2", "3", "x"] + ["1"] * 45))
    with pytest.raises(DvonnError, match="offset 0"):
        parse_heights_text(",".join(["99"] + ["1"] * 48))


def test_sheet_render_and_calibrate_commands(rendered, tmp_path, capsys) -> None:
    assert main(["vision", "sheet", "--out", str(tmp_path / "s.svg")]) == 0
    assert (tmp_path / "s.svg").exists()
    out = tmp_path / "frame.png"
    assert main(["vision", "render", "--seed", "4", "--out", str(out), "--moves", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert cv2.imread(str(out)).shape == (960, 1280, 3) and len(lines[-2]) == 49
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), rendered(91, stacks=[""] * 49, board_style="grey")[0])
    cal = tmp_path / "cal.json"
    assert main(["vision", "calibrate", "--images", str(empty), "--out", str(cal)]) == 0
    assert json.loads(cal.read_text())["format"] == "dvonn-board-camera-calibration"
    assert main(["vision", "read", str(empty), "--calibration", str(cal)]) == 0
    assert capsys.readouterr().out.splitlines()[-2] == "." * 49


def test_render_wide_then_read_it_back(tmp_path, capsys) -> None:
    out = tmp_path / "wide.png"
    assert main(["vision", "render", "--seed", "11", "--out", str(out), "--wide"]) == 0
    truth, heights = capsys.readouterr().out.splitlines()[-2:]
    assert main(["vision", "read", str(out), "--heights", heights]) == 0
    got = capsys.readouterr().out.splitlines()[0]
    assert all(g in (t, "?") for g, t in zip(got, truth, strict=True))
