"""docs/screenshots.py (issue 42): one page at one size makes a PNG of that size; a missing
program is one line on stderr and exit 2."""

from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path
from types import ModuleType

import pytest
from web_helpers import BROWSER_HINT, chromium_paths, missing

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "screenshots.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_screenshots", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_one_page_one_size_makes_a_png_of_that_size(tmp_path: Path) -> None:
    if chromium_paths() is None:
        missing(BROWSER_HINT)
    shots = load()
    made = shots.make_screenshots(tmp_path, pages=["live"], sizes=["phone"], themes=["dark"],
                                  langs=["de"])
    assert [p.name for p in made] == ["live-phone-dark-de.png"]
    assert png_size(made[0].read_bytes()) == (390, 844)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live-phone-dark-de.png"]


def test_a_missing_program_is_one_line_and_exit_2(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    shots = load()
    monkeypatch.setattr(shots, "find_tools", lambda pages: "screenshots: chromium is missing")
    assert shots.main(["--out", str(tmp_path), "--page", "live"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "screenshots: chromium is missing\n" and captured.out == ""
    assert not list(tmp_path.iterdir())
