"""The TOML config: defaults, the example file, overrides, and clear errors for bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import controller.config.settings as config_module
from controller.config.example import dump_default_config
from controller.config.settings import (
    PALETTE_KEYS,
    Config,
    ConfigFileError,
    default_config_path,
    load_config,
    parse_colour,
    parse_config,
)
from controller.table.renderer import DEFAULT_PALETTE
from controller.table.view import ROLES
from engine.errors import ConfigError, DvonnError

EXAMPLE = Path(config_module.__file__).with_name("example.toml")


@pytest.fixture(autouse=True)
def off_the_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the machine as 'not a Raspberry Pi' unless they say otherwise."""
    monkeypatch.setattr(config_module, "on_raspberry_pi", lambda: False)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults() -> None:
    c = Config.default()
    assert c.sensor.backend == "emulator"
    assert c.sensor.port is None and c.sensor.baudrate == 115200
    assert (c.timing.noise, c.timing.stable) == (0.2, 0.5)
    assert c.leds == {} and c.camera == {}
    assert c.buttons.pins == {}
    assert c.journal.path is None
    assert (c.players.white, c.players.black) == ("White", "Black")
    assert set(c.palette.colours) == set(ROLES) | {"background"}


def test_default_backend_on_a_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "on_raspberry_pi", lambda: True)
    assert Config.default().sensor.backend == "sensor-board"
    assert parse_config("").sensor.backend == "sensor-board"


def test_timing_defaults_meet_the_contract() -> None:
    """A change lasting < 0.2 s is noise; one holding 0.5 s is real."""
    t = Config.default().timing
    assert 0 < t.noise < t.stable
    assert t.noise >= 0.2
    assert t.stable <= 0.5


def test_default_palette_roles_are_distinguishable() -> None:
    colours = [DEFAULT_PALETTE[r] for r in ROLES]
    for i, a in enumerate(colours):
        for b in colours[i + 1 :]:
            assert sum(abs(x - y) for x, y in zip(a, b, strict=True)) >= 60, (a, b)
        assert a != DEFAULT_PALETTE["background"]


def test_example_file_is_the_dump_and_loads_to_the_defaults() -> None:
    assert EXAMPLE.read_text(encoding="utf-8") == dump_default_config()
    loaded = load_config(EXAMPLE)
    assert loaded == Config.default()
    assert loaded.path == EXAMPLE


def test_dump_covers_every_palette_key() -> None:
    text = dump_default_config()
    for key in PALETTE_KEYS:
        assert f"\n{key} = " in text


def test_missing_default_file_means_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_config_path() == tmp_path / "dvonn-board" / "config.toml"
    assert load_config(None) == Config.default()
    default_config_path().parent.mkdir()
    default_config_path().write_text('[players]\nwhite = "Ann"\n', encoding="utf-8")
    assert load_config(None).players.white == "Ann"


def test_home_config_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_config_path() == tmp_path / ".config" / "dvonn-board" / "config.toml"


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="does not exist") as info:
        load_config(tmp_path / "nope.toml")
    assert str(tmp_path / "nope.toml") in str(info.value)
    assert isinstance(info.value, ConfigError) and isinstance(info.value, DvonnError)


def test_full_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[sensor]
backend = "sensor-board"
port = "/dev/ttyACM0"
baudrate = 230400

[leds]
kind = "ws281x"
pin = 18
order = [0, 1, 2]

[buttons]
confirm = 5
undo = 13
long_press = 1.5

[camera]
index = 0
size = [1280, 720]

[timing]
noise = 0.1
stable = 0.4

[palette]
movable = [1, 2, 3]
own_white = "#FFEEDD"
background = "#010101"

[animation]
blink_hz = 4
pulse = 0
brightness = 0.5
blink_roles = []

[journal]
path = "~/games.db"

[players]
white = "Ann"
black = "Bob"
""",
    )
    c = load_config(path)
    assert c.sensor.backend == "sensor-board"
    assert c.sensor.port == "/dev/ttyACM0" and c.sensor.baudrate == 230400
    assert c.leds == {"kind": "ws281x", "pin": 18, "order": [0, 1, 2]}
    assert c.camera == {"index": 0, "size": [1280, 720]}
    assert c.buttons.pins == {"confirm": 5, "undo": 13}
    assert c.buttons.long_press == 1.5
    assert (c.timing.noise, c.timing.stable) == (0.1, 0.4)
    assert c.palette["movable"] == (1, 2, 3)
    assert c.palette["own-white"] == (255, 238, 221)
    assert c.palette["background"] == (1, 1, 1)
    assert c.palette["source"] == DEFAULT_PALETTE["source"]
    assert c.animation.blink_hz == 4.0 and c.animation.pulse == 0.0
    assert c.animation.brightness == 0.5 and c.animation.blink_roles == ()
    assert c.journal.path == "~/games.db"
    assert (c.players.white, c.players.black) == ("Ann", "Bob")


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[timing]\nnoise = 0.2\nstable = = 0.5\n')
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "line 3" in message


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[sensors]\n", "sensors", "unknown section"),
        ("sensor = 3\n", "sensor", "table"),
        ("[sensor]\nbackend = 'usb'\n", "sensor.backend", "sensor-board, camera, emulator"),
        ("[sensor]\nspeed = 9600\n", "sensor.speed", "allowed: backend, port, baudrate"),
        ("[sensor]\nbaudrate = 0\n", "sensor.baudrate", "positive integer"),
        ("[sensor]\nbaudrate = true\n", "sensor.baudrate", "positive integer"),
        ("[sensor]\nport = ''\n", "sensor.port", "non-empty string"),
        ("[buttons]\nconfirm = 40\n", "buttons.confirm", "0..27"),
        ("[buttons]\nconfirm = '5'\n", "buttons.confirm", "GPIO"),
        ("[buttons]\nconfirm = 5\nundo = 5\n", "buttons.undo", "already used by 'confirm'"),
        ("[buttons]\nstart = 5\n", "buttons.start", "unknown key"),
        ("[buttons]\nlong_press = 0\n", "buttons.long_press", "out of range"),
        ("[timing]\nnoise = 0\n", "timing.noise", "out of range"),
        ("[timing]\nnoise = -0.1\n", "timing.noise", "out of range"),
        ("[timing]\nnoise = 'fast'\n", "timing.noise", "must be a number"),
        ("[timing]\nstable = 0.2\n", "timing.stable", "shorter than stable"),
        ("[timing]\nnoise = 0.6\n", "timing.noise", "shorter than stable"),
        ("[timing]\nprompt_timeout = 5\n", "timing.prompt_timeout", "unknown key"),
        ("[palette]\nmovable = 'green'\n", "palette.movable", "#rrggbb"),
        ("[palette]\nmovable = [1, 2]\n", "palette.movable", "#rrggbb"),
        ("[palette]\nmovable = [1, 2, 256]\n", "palette.movable", "0..255"),
        ("[palette]\nmovable = '#12345g'\n", "palette.movable", "not a colour"),
        ("[palette]\nhighlight = '#123456'\n", "palette.highlight", "movable, source"),
        ("[animation]\nbrightness = 1.5\n", "animation.brightness", "out of range"),
        ("[animation]\nbrightness = 0\n", "animation.brightness", "out of range"),
        ("[animation]\nblink_hz = 0\n", "animation.blink_hz", "out of range"),
        ("[animation]\npulse_depth = 2\n", "animation.pulse_depth", "out of range"),
        ("[timing]\nnoise = 1%s\n" % ("0" * 400), "timing.noise", "out of range"),
        ("[animation]\nblink_roles = ['glow']\n", "animation.blink_roles", "list of roles"),
        ("[animation]\nspeed = 1\n", "animation.speed", "unknown key"),
        ("[journal]\npath = 3\n", "journal.path", "string"),
        ("[journal]\nfile = 'x'\n", "journal.file", "allowed: path"),
        ("[players]\nwhite = ''\n", "players.white", "non-empty"),
        ("[players]\nred = 'x'\n", "players.red", "allowed: white, black"),
        ("[players]\nthreads = 0\n", "players.threads", "whole number 1..64"),
        ("[players]\nthreads = 'x'\n", "players.threads", "whole number 1..64"),
        ("[players]\nthreads = 2.0\n", "players.threads", "whole number 1..64"),
        ("[players]\nthreads = true\n", "players.threads", "whole number 1..64"),
    ],
)
def test_bad_values_name_the_key(text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert info.value.key == key
    assert words in str(info.value)
    assert repr(key) in str(info.value)


def test_parse_colour_forms() -> None:
    assert parse_colour("k", "#00ff80") == (0, 255, 128)
    assert parse_colour("k", " #00FF80 ") == (0, 255, 128)
    assert parse_colour("k", [0, 255, 128]) == (0, 255, 128)
    with pytest.raises(ConfigError):
        parse_colour("k", [True, 0, 0])
    with pytest.raises(ConfigError):
        parse_colour("k", "#fff")


def test_config_is_frozen() -> None:
    c = Config.default()
    with pytest.raises(AttributeError):
        c.timing = c.timing  # type: ignore[misc]


def test_players_threads_reach_the_computer() -> None:
    assert Config.default().players.threads == 1
    assert parse_config("[players]\nthreads = 4\n").players.threads == 4
