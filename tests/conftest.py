"""Settings of the whole suite, whatever machine and shell started it."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.remote.broker import Broker

#: The user's own settings that would reach the commands the tests start: their config file
#: and journal (XDG folders, DVONN_DATA_DIR) and the LED backend ($DVONN_LEDS: on a Pi that
#: may be the real strip). Each is pointed into the session's own folder, or removed.
PRIVATE_FOLDERS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "DVONN_DATA_DIR")
PRIVATE_SETTINGS = ("DVONN_LEDS", "DVONN_DEBUG")


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the commands the tests start. A shell without job control starts a
    background job with SIGINT ignored, and children inherit an ignored signal: the tests that
    press Ctrl-C on a command (perft, play) then waited for it in vain."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def _not_the_users_setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test reads the user's config or journal, or drives the LEDs their environment
    names: a clone on a configured table tests the same as anywhere."""
    home = tmp_path_factory.mktemp("user")
    with pytest.MonkeyPatch.context() as mp:
        for name in PRIVATE_FOLDERS:
            mp.setenv(name, str(home / name.lower()))
        for name in PRIVATE_SETTINGS:
            mp.delenv(name, raising=False)
        yield


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A fresh Mosquitto on a free loopback port (skips, or fails in CI, without mosquitto):
    tests/remote's and the broadcast page's (tests/web). Imported here only when a test asks
    for it."""
    from tests.remote.broker import Broker

    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder)
    try:
        yield b
    finally:
        b.stop()
