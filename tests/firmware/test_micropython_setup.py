"""How the MicroPython interpreter for test_on_micropython.py gets installed: `python3 dev.py
test` runs `npm ci` on the pinned package.json and package-lock.json in .cache/micropython/
(which git ignores), after Debian's nodejs and npm when there is no Node and it runs as root."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.firmware import mpy_runner as mpy

ROOT = Path(__file__).resolve().parents[2]


def _dev() -> Any:
    spec = importlib.util.spec_from_file_location("dev_for_micropython", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dev_for_micropython"] = module
    spec.loader.exec_module(module)
    return module


def test_the_interpreter_is_pinned_exactly_with_its_hash() -> None:
    manifest = json.loads((mpy.MPY / "package.json").read_text())
    lock = json.loads((mpy.MPY / "package-lock.json").read_text())
    version = manifest["dependencies"][mpy.PACKAGE]
    assert version[0].isdigit() and not set(version) & set("^~<>=*x "), version
    entry = lock["packages"][f"node_modules/{mpy.PACKAGE}"]
    assert entry["version"] == version and entry["integrity"].startswith("sha512-")
    assert _dev().micropython_pinned() == version == mpy.pinned()


def test_git_ignores_the_install() -> None:
    result = subprocess.run(["git", "check-ignore", "-q", ".cache/micropython/package.json"],
                            cwd=ROOT)
    assert result.returncode == 0


def test_dev_py_installs_the_pinned_interpreter_with_npm_ci(monkeypatch, tmp_path) -> None:
    dev = _dev()
    calls: list[tuple[list[str], Path | None]] = []
    monkeypatch.setattr(dev, "MICROPYTHON_DIR", tmp_path / "micropython")
    monkeypatch.setattr(dev.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(dev.subprocess, "call",
                        lambda cmd, cwd=None, env=None: calls.append((cmd, cwd)) or 0)
    dev.ensure_micropython()
    assert calls == [(["/usr/bin/npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                       "--loglevel=error"], tmp_path / "micropython")]
    for name in ("package.json", "package-lock.json"):
        assert (tmp_path / "micropython" / name).read_bytes() == (mpy.MPY / name).read_bytes()


def test_dev_py_installs_node_with_apt_get_as_root(monkeypatch, tmp_path) -> None:
    dev = _dev()
    calls: list[list[str]] = []
    have: set[str] = {"apt-get"}
    monkeypatch.setattr(dev, "MICROPYTHON_DIR", tmp_path / "micropython")
    monkeypatch.setattr(dev.shutil, "which",
                        lambda name: f"/usr/bin/{name}" if name in have else None)
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)

    def call(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> int:
        calls.append(cmd)
        if cmd[:2] == ["apt-get", "install"]:
            have.update(("node", "npm"))
        return 0

    monkeypatch.setattr(dev.subprocess, "call", call)
    dev.ensure_micropython()
    assert calls[0][:2] == ["apt-get", "update"]
    assert calls[1][:3] == ["apt-get", "install", "-y"] and {"nodejs", "npm"} <= set(calls[1])
    assert calls[2][:2] == ["/usr/bin/npm", "ci"]


def test_dev_py_says_why_when_it_cannot_install(monkeypatch, capsys, tmp_path) -> None:
    dev = _dev()
    monkeypatch.setattr(dev, "MICROPYTHON_DIR", tmp_path / "micropython")
    monkeypatch.setattr(dev.shutil, "which", lambda name: None)
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(dev.subprocess, "call", lambda *a, **k: pytest.fail("nothing to run"))
    dev.ensure_micropython()
    assert "MicroPython tests will skip (and fail when CI is set)" in capsys.readouterr().out


def test_dev_py_leaves_an_installed_interpreter_alone(monkeypatch, tmp_path) -> None:
    dev = _dev()
    package = tmp_path / "micropython" / "node_modules" / mpy.PACKAGE
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": mpy.pinned()}))
    monkeypatch.setattr(dev, "MICROPYTHON_DIR", tmp_path / "micropython")
    monkeypatch.setattr(dev.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(dev.subprocess, "call", lambda *a, **k: pytest.fail("reinstalled"))
    dev.ensure_micropython()
    (package / "package.json").write_text(json.dumps({"version": "0.0.1"}))
    with pytest.raises(pytest.fail.Exception, match="reinstalled"):
        dev.ensure_micropython()
