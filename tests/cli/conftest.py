"""Fixtures for the command-line tests: a folder that is the whole world of one command."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, HOME, and the config and data folders, all inside ``tmp_path``,
    so 'no file created or changed' can be checked by looking at one folder."""
    monkeypatch.chdir(tmp_path)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "DVONN_DATA_DIR"):
        monkeypatch.setenv(name, str(tmp_path / "home" / name.lower()))
    for name in ("DVONN_LEDS", "DVONN_DEBUG", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path
