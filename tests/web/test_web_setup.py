"""What the page tests need: dev.py installs the browser as root; a missing browser skips the
page tests with the reason, except in CI, where it fails them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from web_helpers import missing

ROOT = Path(__file__).resolve().parents[2]


def _dev() -> object:
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dev_under_test"] = module
    spec.loader.exec_module(module)
    return module


def test_dev_py_installs_chromium_and_its_driver_with_apt_get_as_root(monkeypatch) -> None:
    dev = _dev()
    calls: list[list[str]] = []
    monkeypatch.setattr(dev, "browser_installed", lambda: False)
    monkeypatch.setattr(dev.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)
    monkeypatch.setattr(dev.subprocess, "call", lambda cmd, env=None: calls.append(cmd) or 0)
    dev.ensure_browser()
    assert calls[0][:2] == ["apt-get", "update"]
    assert calls[1][:3] == ["apt-get", "install", "-y"]
    assert {"chromium", "chromium-driver"} <= set(calls[1])


def test_dev_py_says_why_when_it_cannot_install(monkeypatch, capsys) -> None:
    dev = _dev()
    monkeypatch.setattr(dev, "browser_installed", lambda: False)
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(dev.subprocess, "call", lambda *a, **k: pytest.fail("no apt-get"))
    dev.ensure_browser()
    assert "page tests will skip" in capsys.readouterr().out


def test_a_missing_browser_skips_with_the_reason_but_fails_in_ci(monkeypatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium"):
        missing("no chromium here")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        missing("no chromium here")
