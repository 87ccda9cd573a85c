"""Fixtures of the remote suites: a real Mosquitto broker per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.remote.broker import Broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A fresh Mosquitto on a free loopback port (skips, or fails in CI, without mosquitto)."""
    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder)
    try:
        yield b
    finally:
        b.stop()
