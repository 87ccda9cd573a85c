"""dev.py: which extras each command installs, and when an install can be skipped."""

from __future__ import annotations

import importlib.util
import os
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "VENV", tmp_path / ".venv")
    return module


def test_extras_exist_and_the_demo_needs_none() -> None:
    spec = importlib.util.spec_from_file_location("dev_extras", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert module.DEMO_EXTRAS == ""
    wanted = set(module.TEST_EXTRAS.split(","))
    assert {"test", "camera", "web"} <= wanted <= set(extras)


def test_a_fresh_superset_install_covers_a_smaller_one(dev: ModuleType, tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    assert not dev.installed_covers("")  # no venv yet
    venv.mkdir()
    stamp = venv / ".installed-test,camera,web"
    stamp.touch()
    assert dev.installed_covers("") and dev.installed_covers("camera,test")
    assert not dev.installed_covers("pi")
    old = os.stat(tmp_path / "pyproject.toml").st_mtime - 10
    os.utime(stamp, (old, old))  # pyproject.toml changed since: install again
    assert not dev.installed_covers("")


def test_base_stamp_covers_only_the_base(dev: ModuleType, tmp_path: Path) -> None:
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed-base").touch()
    assert dev.installed_covers("")
    assert not dev.installed_covers("test,camera,web")
