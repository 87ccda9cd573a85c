"""controller.files: a file is replaced whole or not at all."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from controller.files import write_atomically


def test_a_private_file_is_the_owners_alone_and_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "devices.json"
    write_atomically(path, "old", private=True)
    write_atomically(path, "new", private=True)
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert sorted(p.name for p in path.parent.iterdir()) == ["devices.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.sgf"
    path.write_text("old")

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        write_atomically(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["game.sgf"]
