"""controller/config/example.toml lists every section and key the loaders accept, each with
its meaning, and the values it shows are the defaults (and are accepted)."""

from __future__ import annotations

import inspect
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.config.example import dump_default_config
from controller.config.settings import (
    PALETTE_KEYS,
    ButtonsConfig,
    Config,
    JournalConfig,
    PlayersConfig,
    SensorConfig,
    TimingConfig,
    parse_config,
)
from controller.table.renderer import AnimationConfig, Palette
from engine.errors import ConfigError
from hardware.camera import Picamera2Source
from hardware.leds.factory import DEFAULTS as LED_DEFAULTS
from hardware.leds.factory import check_section, layout_from_config
from vision.backend import CAMERA_KEYS, GEOMETRY_KEYS
from vision.geometry import BoardGeometry

EXAMPLE = Path(__file__).resolve().parents[2] / "controller" / "config" / "example.toml"
KEY_LINE = re.compile(r"^(# )?([A-Za-z_][\w-]*) = (.+?)(\s+# .*)?$")
SECTION = re.compile(r"^\[(\w+)\]$")


def documented() -> dict[str, dict[str, tuple[Any, bool, str]]]:
    """section -> key -> (value, active, meaning) from the example's lines."""
    out: dict[str, dict[str, tuple[Any, bool, str]]] = {}
    section = ""
    prose: list[str] = []
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        if m := SECTION.match(line):
            section = m[1]
            out[section] = {}
            prose = []
            continue
        m = KEY_LINE.match(line)
        if m and section:
            value = tomllib.loads(f"v = {m[3]}")["v"]
            meaning = (m[4] or "").strip("# ") or " ".join(prose)
            out[section][m[2]] = (value, m[1] is None, meaning)
            continue
        if line.startswith("# "):
            prose.append(line[2:])
        elif not line.strip():
            prose = []
    return out


def allowed_keys(section: str) -> set[str]:
    """What the config loader accepts in ``section``: read from its own error message."""
    probe = "zz-probe" if section == "palette" else "zz_probe"
    with pytest.raises(ConfigError) as info:
        parse_config(f"[{section}]\n{probe} = 1\n")
    assert info.value.key == f"{section}.{probe}"
    return set(str(info.value).split("allowed: ", 1)[1].split(", "))


def loader_sections() -> set[str]:
    with pytest.raises(ConfigError) as info:
        parse_config("[zz_probe]\n")
    return set(str(info.value).split("allowed: ", 1)[1].split(", "))


DOC = documented()


def test_example_is_generated_from_the_defaults() -> None:
    assert EXAMPLE.read_text(encoding="utf-8") == dump_default_config(), (
        "regenerate: python -c 'from controller.config.example import dump_default_config as d; "
        "open(\"controller/config/example.toml\", \"w\").write(d())'")


def test_example_is_valid_and_shows_the_defaults() -> None:
    cfg = parse_config(EXAMPLE.read_text(encoding="utf-8"))
    assert cfg.timing == TimingConfig() and cfg.animation == AnimationConfig()
    assert cfg.palette == Palette() and cfg.players == PlayersConfig()
    assert cfg.journal == JournalConfig()
    assert cfg.buttons == ButtonsConfig()
    assert cfg.sensor.baudrate == SensorConfig().baudrate and cfg.sensor.port is None
    layout_from_config(cfg.leds)
    assert set(Config.__dataclass_fields__) - {"path"} == set(DOC)


def test_every_section_of_the_loader_is_in_the_example() -> None:
    assert set(DOC) == loader_sections()


@pytest.mark.parametrize("section", ["sensor", "buttons", "timing", "animation", "journal",
                                     "players", "remote", "speech", "tutor"])
def test_every_key_of_the_loader_is_in_the_example(section: str) -> None:
    assert set(DOC[section]) == allowed_keys(section), (
        f"[{section}] in controller/config/example.toml differs from what the loader accepts")


def test_palette_lists_every_role() -> None:
    assert set(DOC["palette"]) == set(PALETTE_KEYS) == allowed_keys("palette")


def test_leds_lists_every_key_with_its_default() -> None:
    assert set(DOC["leds"]) == set(LED_DEFAULTS)
    for key, (value, active, _) in DOC["leds"].items():
        default = LED_DEFAULTS[key]
        assert not active, f"leds.{key}: the driver's defaults are shown commented"
        if default is not None:
            assert value == default, f"leds.{key}: {value!r} != {default!r}"
    every = {k: v for k, (v, _, _) in DOC["leds"].items()}
    check_section(every)
    layout_from_config(every)


def test_camera_lists_every_key() -> None:
    assert set(DOC["camera"]) == set(CAMERA_KEYS)
    geometry = {k: DOC["camera"][k][0] for k in GEOMETRY_KEYS}
    assert BoardGeometry.from_config(geometry) == BoardGeometry()
    for key in CAMERA_KEYS:  # active geometry keys would override a calibration file's
        assert not DOC["camera"][key][1], f"camera.{key} must be commented"
    size = inspect.signature(Picamera2Source.__init__).parameters
    assert DOC["camera"]["width"][0] == size["width"].default
    assert DOC["camera"]["height"][0] == size["height"].default
    assert DOC["camera"]["source"][0] == "picamera2"


def test_every_commented_value_is_accepted_when_uncommented() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    live = re.sub(r"^# ([A-Za-z_][\w-]*) = ", r"\1 = ", text, flags=re.M)
    cfg = parse_config(live)
    assert cfg.sensor.backend == "sensor-board" and cfg.sensor.port == "/dev/dvonn-sensorboard"
    assert cfg.journal.path == "~/dvonn-games.sqlite3"
    assert sorted(cfg.buttons.pins) == sorted(["confirm", "next", "undo", "hint", "new", "clock"])
    check_section(cfg.leds)
    BoardGeometry.from_config(cfg.camera)


def test_every_key_says_what_it_means() -> None:
    for section, keys in DOC.items():
        for key, (_, _, meaning) in keys.items():
            assert len(meaning) > 10, f"{section}.{key} has no comment saying what it means"
