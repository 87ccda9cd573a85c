import cv2
import numpy as np
import pytest

from engine.errors import ConfigError
from hardware.camera import (
    CameraError,
    ImageFolderSource,
    SyntheticSource,
    VideoCaptureSource,
    source_from_config,
)


def test_synthetic_source_and_close_twice() -> None:
    frames = []
    with SyntheticSource(lambda i: np.full((4, 5, 3), i, np.uint8), limit=2) as src:
        while (f := src.read()) is not None:
            frames.append(int(f[0, 0, 0]))
    assert frames == [0, 1]
    src.close()
    with pytest.raises(CameraError, match="closed"):
        src.read()


def test_image_folder_in_sorted_order(tmp_path) -> None:
    for name, value in (("b.png", 2), ("a.png", 1), ("c.jpg", 3)):
        cv2.imwrite(str(tmp_path / name), np.full((6, 8, 3), value * 40, np.uint8))
    (tmp_path / "notes.txt").write_text("x")
    src = ImageFolderSource(tmp_path)
    seen = [int(src.read()[0, 0, 0]) // 40 for _ in range(3)]
    assert seen == [1, 2, 3]
    assert src.read() is None
    src.close()
    src.close()
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="holds no images"):
        ImageFolderSource(tmp_path / "empty")
    with pytest.raises(CameraError, match="does not exist"):
        ImageFolderSource(tmp_path / "missing")


def test_video_capture_reads_a_file_and_fails_clearly(tmp_path) -> None:
    with pytest.raises(CameraError, match="cannot open camera or video"):
        VideoCaptureSource(str(tmp_path / "none.avi"))
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (32, 24))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG")
    for _ in range(3):
        writer.write(np.full((24, 32, 3), 100, np.uint8))
    writer.release()
    with VideoCaptureSource(str(path)) as src:
        assert src.read().shape == (24, 32, 3)


def test_source_from_config(tmp_path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((4, 4, 3), np.uint8))
    src = source_from_config({"source": "folder", "path": str(tmp_path)})
    assert isinstance(src, ImageFolderSource)
    with pytest.raises(ConfigError, match="camera.source"):
        source_from_config({"source": "webcam"})
    with pytest.raises(ConfigError, match="camera.path"):
        source_from_config({"source": "folder"})
    with pytest.raises(ConfigError, match="camera.width"):
        source_from_config({"source": "video", "width": 0})
