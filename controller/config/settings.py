"""The table's TOML configuration: backends, buttons, timing, palette, animation, players.

Default file: ``$XDG_CONFIG_HOME/dvonn-board/config.toml`` (or ``~/.config/dvonn-board/...``);
``--config FILE`` overrides it. A missing default file means all defaults; a missing explicit
file, a TOML syntax error, an unknown section or key, or a bad value raises ConfigError naming
the key (``section.key``) and what is allowed. ``[leds]`` and ``[camera]`` are passed through
as dicts: the hardware code validates them.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.config.clocks import parse_clock
from controller.config.tutoring import TutorConfig, parse_tutor
from controller.i18n import Msg, config_error
from controller.speech.words import CATEGORIES as SPEECH_CATEGORIES
from controller.table.renderer import DEFAULT_PALETTE, AnimationConfig, Palette
from controller.table.timer import ClockOptions
from controller.table.view import ROLES
from engine.errors import ConfigError, DvonnError
from hardware.leds.frame import RGB

SENSOR_BACKENDS = ("sensor-board", "camera", "emulator")
BUTTON_NAMES = ("confirm", "next", "undo", "hint", "new", "clock")
PALETTE_KEYS = (*ROLES, "background")
MAX_GPIO = 27

#: What each palette key lights (and why its default colour was chosen).
PALETTE_HELP: dict[str, str] = {
    "movable": "soft green: stacks the side to act may lift",
    "source": "bright white: the lifted stack",
    "destination": "blue: where the lifted stack may land",
    "remove": "red-orange: cut-off stacks to take off the board",
    "mismatch": "magenta, blinking: the table disagrees with the game",
    "last": "amber: the last move",
    "suggest": "cyan: a hint",
    "own-white": "warm white: stacks White controls",
    "own-black": "purple: stacks Black controls",
    "winner": "gold: the winner's stacks",
    "background": "cells without a role (black = off)",
}


class ConfigFileError(ConfigError):
    """The config file itself is missing or not valid TOML; the message names file and line."""

    def __init__(self, path: Path, message: str) -> None:
        DvonnError.__init__(self, Msg("config file {path}: {message}", path=path, message=message))
        self.key = ""
        self.path = path


@dataclass(frozen=True)
class SensorConfig:
    """How pieces are sensed. ``port`` None means auto-detect the sensor board."""

    backend: str = "emulator"
    port: str | None = None
    baudrate: int = 115200
    polarity: bool = True  # check placement colours by the magnets' strength (hall board)


@dataclass(frozen=True)
class ButtonsConfig:
    """GPIO (BCM) numbers of the buttons that are wired; held ``long_press`` s = long press."""

    pins: dict[str, int] = field(default_factory=dict)
    long_press: float = 1.0


@dataclass(frozen=True)
class TimingConfig:
    """A change lasting < ``noise`` s is ignored; one holding ``stable`` s is real."""

    noise: float = 0.2
    stable: float = 0.5


@dataclass(frozen=True)
class JournalConfig:
    """Where games are stored; None means the default (see controller.journal.store)."""

    path: str | None = None


@dataclass(frozen=True)
class PlayersConfig:
    """Names written to the journal and to exported records; who plays each side on the
    table (``human``, ``ai[:LEVEL]`` or ``cmd:PROGRAM ARGS``), the computer's move time and
    its search threads (full strength only; lazy SMP in the compiled core)."""

    white: str = "White"
    black: str = "Black"
    white_player: str = "human"
    black_player: str = "human"
    move_time: float = 1.0
    threads: int = 1


@dataclass(frozen=True)
class RemoteConfig:
    """How to log in to the MQTT broker of remote play and ``--publish`` (all optional; the
    environment's DVONN_MQTT_* override them; never on the command line)."""

    username: str | None = None
    password_file: str | None = None
    tls: bool = False
    ca_file: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"username": self.username, "password_file": self.password_file,
                "tls": self.tls, "ca_file": self.ca_file}


@dataclass(frozen=True)
class DisplayConfig:
    """The language of what the table says: 'en', 'de', or 'auto' (the CLI: LANGUAGE,
    LC_ALL, LC_MESSAGES, LANG; the page: the browser's Accept-Language)."""

    language: str = "auto"


@dataclass(frozen=True)
class SpeechConfig:
    """The table's voice (espeak-ng, in the display language): ``enabled`` speaks aloud as
    ``--speak`` does; ``folder`` writes numbered WAV files there instead (``--speak-to``)."""

    enabled: bool = False
    folder: str | None = None
    voice: str = ""  # an espeak-ng voice; '' = the language's own ('en', 'de')
    volume: int = 100  # espeak-ng's amplitude, 0..200
    speed: int = 160  # words a minute, 80..450
    say: tuple[str, ...] = SPEECH_CATEGORIES
    delay: float = 2.0  # seconds a mismatch (a cut-off stack left) lasts before it is said


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``path`` is the file it came from (None: defaults only)."""

    sensor: SensorConfig = field(default_factory=SensorConfig)
    leds: dict[str, Any] = field(default_factory=dict)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    camera: dict[str, Any] = field(default_factory=dict)
    timing: TimingConfig = field(default_factory=TimingConfig)
    palette: Palette = field(default_factory=Palette)
    animation: AnimationConfig = field(default_factory=AnimationConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    players: PlayersConfig = field(default_factory=PlayersConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    remote: RemoteConfig = field(default_factory=RemoteConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)
    clock: ClockOptions = field(default_factory=ClockOptions)  # [clock]: the game clock
    tutor: TutorConfig = field(default_factory=TutorConfig)  # [tutor]: tutor and lessons
    path: Path | None = field(default=None, compare=False)

    @classmethod
    def default(cls) -> Config:
        """All defaults; the sensor backend is 'sensor-board' on a Raspberry Pi."""
        return cls(sensor=SensorConfig(backend=default_backend()))


def on_raspberry_pi() -> bool:
    """True when the device tree names a Raspberry Pi."""
    try:
        model = Path("/proc/device-tree/model").read_bytes()
    except OSError:
        return False
    return b"Raspberry Pi" in model


def default_backend() -> str:
    return "sensor-board" if on_raspberry_pi() else "emulator"


def default_config_path() -> Path:
    """``$XDG_CONFIG_HOME/dvonn-board/config.toml`` or ``~/.config/dvonn-board/config.toml``."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "dvonn-board" / "config.toml"


def load_config(path: str | Path | None = None) -> Config:
    """Read and check the config file (None: the default file, if it exists)."""
    if path is None:
        file = default_config_path()
        if not file.exists():
            return Config.default()
    else:
        file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileError(file, Msg("does not exist")) from None
    except IsADirectoryError:
        raise ConfigFileError(file, Msg("is a directory, not a TOML file")) from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(
            file, Msg("is not UTF-8 text (byte offset {start}); a config file is TOML text",
                      start=exc.start)
        ) from None
    except OSError as exc:
        raise ConfigFileError(file, Msg("cannot be read: {value}",
                                        value=exc.strerror or exc)) from exc
    try:
        return parse_config(text, path=file)
    except ConfigFileError:
        raise
    except ConfigError as exc:  # name the file as well as the key
        message = exc.args[0] if len(exc.args) == 1 else str(exc)
        exc.args = (Msg("{file}: {error}", file=file, error=message),)
        raise


def parse_config(text: str, *, path: Path | None = None) -> Config:
    """Check a TOML text and build the Config (``path`` only names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(path or Path("<text>"), Msg("invalid TOML: {exc}", exc=exc)) from exc
    return _build(data, path)


# -- building and checking ----------------------------------------------------------------

_SECTIONS = (
    "sensor", "leds", "buttons", "camera", "timing", "palette", "animation", "journal", "players",
    "display", "remote", "speech", "clock", "tutor",
)
LANGUAGE_CHOICES = ("auto", "en", "de")


def _build(data: dict[str, Any], path: Path | None) -> Config:
    for name, value in data.items():
        if name not in _SECTIONS:
            raise config_error(name, Msg("unknown section; allowed: {value}",
                                         value=', '.join(_SECTIONS)))
        if not isinstance(value, dict):
            raise config_error(name, Msg("must be a [{name}] table, got {value!r}",
                                         name=name, value=value))
    sec: dict[str, dict[str, Any]] = {name: data.get(name, {}) for name in _SECTIONS}
    return Config(
        sensor=_sensor(sec["sensor"]),
        leds=dict(sec["leds"]),
        buttons=_buttons(sec["buttons"]),
        camera=dict(sec["camera"]),
        timing=_timing(sec["timing"]),
        palette=_palette(sec["palette"]),
        animation=_animation(sec["animation"]),
        journal=_journal(sec["journal"]),
        players=_players(sec["players"]),
        display=_display(sec["display"]),
        remote=_remote(sec["remote"]),
        speech=_speech(sec["speech"]),
        clock=parse_clock(sec["clock"]),
        tutor=parse_tutor(sec["tutor"]),
        path=path,
    )


def _keys(section: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            raise config_error(f"{section}.{key}", Msg("unknown key; allowed: {value}",
                                                       value=', '.join(allowed)))


def _number(key: str, value: Any, *, low: float, high: float | None = None,
            low_open: bool = True) -> float:
    """A float within (low, high] (or [low, high] when not ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise config_error(key, Msg("must be a number, got {value!r}", value=value))
    try:
        number = float(value)
    except OverflowError:  # TOML integers may be larger than any float
        number = math.inf
    too_low = number <= low if low_open else number < low
    if too_low or (high is not None and number > high) or number != number:
        bracket = "(" if low_open else "["
        upper = f"{high:g}]" if high is not None else "inf)"
        raise config_error(key, Msg("{value!r} is out of range; allowed {bracket}{low:g}, {upper}",
                                    value=value, bracket=bracket, low=low, upper=upper))
    return number


def _string(key: str, value: Any, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise config_error(key, (Msg("must be a string, got {value!r}", value=value) if empty else
                              Msg("must be a non-empty string, got {value!r}", value=value)))
    return value


def _sensor(t: dict[str, Any]) -> SensorConfig:
    _keys("sensor", t, ("backend", "port", "baudrate", "polarity"))
    backend = t.get("backend", default_backend())
    if backend not in SENSOR_BACKENDS:
        raise config_error(
            "sensor.backend", Msg("{backend!r} is not one of {value}",
                                  backend=backend, value=', '.join(SENSOR_BACKENDS))
        )
    port = t.get("port")
    if port is not None:
        port = _string("sensor.port", port)
    baud = t.get("baudrate", SensorConfig.baudrate)
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise config_error("sensor.baudrate", Msg("must be a positive integer, got {baud!r}",
                                                  baud=baud))
    polarity = t.get("polarity", SensorConfig.polarity)
    if not isinstance(polarity, bool):
        raise config_error("sensor.polarity", Msg("must be true or false, got {polarity!r}",
                                                  polarity=polarity))
    return SensorConfig(backend=backend, port=port, baudrate=baud, polarity=polarity)


def _buttons(t: dict[str, Any]) -> ButtonsConfig:
    _keys("buttons", t, (*BUTTON_NAMES, "long_press"))
    pins: dict[str, int] = {}
    for name in BUTTON_NAMES:
        if name not in t:
            continue
        pin = t[name]
        if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= MAX_GPIO:
            raise config_error(
                f"buttons.{name}", Msg("must be a GPIO (BCM) number 0..{MAX_GPIO}, got {pin!r}",
                                       MAX_GPIO=MAX_GPIO, pin=pin)
            )
        for other, used in pins.items():
            if used == pin:
                raise config_error(f"buttons.{name}", Msg("GPIO {pin} is already used by {other!r}",
                                                          pin=pin, other=other))
        pins[name] = pin
    long_press = _number("buttons.long_press", t.get("long_press", 1.0), low=0.0, high=10.0)
    return ButtonsConfig(pins=pins, long_press=long_press)


def _timing(t: dict[str, Any]) -> TimingConfig:
    _keys("timing", t, ("noise", "stable"))
    d = TimingConfig()
    noise = _number("timing.noise", t.get("noise", d.noise), low=0.0, high=10.0)
    stable = _number("timing.stable", t.get("stable", d.stable), low=0.0, high=10.0)
    if not noise < stable:
        raise config_error(
            "timing.stable" if "stable" in t else "timing.noise",
            Msg("noise ({noise:g} s) must be shorter than stable ({stable:g} s): a change lasting "
                "less than 'noise' is ignored, one holding 'stable' is real",
                noise=noise, stable=stable),
        )
    return TimingConfig(noise=noise, stable=stable)


def parse_colour(key: str, value: Any) -> RGB:
    """``"#rrggbb"`` or ``[r, g, b]`` (0..255) -> (r, g, b)."""
    allowed = "allowed: \"#rrggbb\" or [r, g, b] with 0..255"
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 7 and text[0] == "#":
            try:
                return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
            except ValueError:
                pass
        raise config_error(key, Msg("{value!r} is not a colour; {allowed}",
                                    value=value, allowed=allowed))
    if isinstance(value, list) and len(value) == 3 and all(
        isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value
    ):
        return (value[0], value[1], value[2])
    raise config_error(key, Msg("{value!r} is not a colour; {allowed}",
                                value=value, allowed=allowed))


def _palette(t: dict[str, Any]) -> Palette:
    colours = dict(DEFAULT_PALETTE)
    for key, value in t.items():
        role = key.replace("_", "-")
        if role not in PALETTE_KEYS:
            raise config_error(f"palette.{key}", Msg("unknown role; allowed: {value}",
                                                     value=', '.join(PALETTE_KEYS)))
        colours[role] = parse_colour(f"palette.{key}", value)
    return Palette(colours=colours)


def _animation(t: dict[str, Any]) -> AnimationConfig:
    _keys("animation", t, ("blink_hz", "pulse", "pulse_depth", "brightness", "blink_roles"))
    d = AnimationConfig()
    roles = t.get("blink_roles", list(d.blink_roles))
    if not isinstance(roles, list) or any(r not in ROLES for r in roles):
        raise config_error(
            "animation.blink_roles", Msg("{roles!r}: must be a list of roles from {value}",
                                         roles=roles, value=', '.join(ROLES))
        )
    return AnimationConfig(
        blink_hz=_number("animation.blink_hz", t.get("blink_hz", d.blink_hz), low=0.0, high=20.0),
        pulse=_number("animation.pulse", t.get("pulse", d.pulse), low=0.0, high=10.0,
                      low_open=False),
        pulse_depth=_number("animation.pulse_depth", t.get("pulse_depth", d.pulse_depth),
                            low=0.0, high=1.0, low_open=False),
        brightness=_number("animation.brightness", t.get("brightness", d.brightness),
                           low=0.0, high=1.0),
        blink_roles=tuple(roles),
    )


def _journal(t: dict[str, Any]) -> JournalConfig:
    _keys("journal", t, ("path",))
    path = t.get("path")
    return JournalConfig(path=None if path is None else _string("journal.path", path))


def _players(t: dict[str, Any]) -> PlayersConfig:
    _keys("players", t, ("white", "black", "white_player", "black_player", "move_time",
                         "threads"))
    return PlayersConfig(
        white=_string("players.white", t.get("white", "White")),
        black=_string("players.black", t.get("black", "Black")),
        white_player=_player("players.white_player", t.get("white_player", "human")),
        black_player=_player("players.black_player", t.get("black_player", "human")),
        move_time=_number("players.move_time", t.get("move_time", 1.0), low=0.0, high=3600.0),
        threads=_threads(t.get("threads", 1)),
    )


def _threads(value: Any) -> int:
    """``[players] threads``: a whole number 1..MAX_THREADS."""
    from engine.search import MAX_THREADS

    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_THREADS:
        raise config_error("players.threads", Msg("{value!r}: the computer's search threads are "
                                                  "a whole number 1..{high}",
                                                  value=value, high=MAX_THREADS))
    return value


def _display(t: dict[str, Any]) -> DisplayConfig:
    _keys("display", t, ("language",))
    language = t.get("language", DisplayConfig.language)
    if language not in LANGUAGE_CHOICES:
        raise config_error("display.language",
                          Msg("{language!r} is not one of {value}",
                              language=language, value=', '.join(LANGUAGE_CHOICES)))
    return DisplayConfig(language=language)


def _remote(t: dict[str, Any]) -> RemoteConfig:
    _keys("remote", t, ("username", "password_file", "tls", "ca_file"))
    tls = t.get("tls", False)
    if not isinstance(tls, bool):
        raise config_error("remote.tls", Msg("must be true or false, got {polarity!r}",
                                             polarity=tls))
    opt = {k: None if t.get(k) is None else _string(f"remote.{k}", t[k])
           for k in ("username", "password_file", "ca_file")}
    return RemoteConfig(tls=tls, **opt)


def _speech(t: dict[str, Any]) -> SpeechConfig:
    _keys("speech", t, ("enabled", "folder", "voice", "volume", "speed", "say", "delay"))
    d = SpeechConfig()
    enabled = t.get("enabled", d.enabled)
    if not isinstance(enabled, bool):
        raise config_error("speech.enabled", Msg("must be true or false, got {polarity!r}",
                                                 polarity=enabled))
    folder = t.get("folder")
    voice = _string("speech.voice", t.get("voice", d.voice), empty=True).strip()
    if voice and not all(c.isalnum() or c in "-_+" for c in voice):
        raise config_error("speech.voice", Msg("{value!r} is not an espeak-ng voice name (such "
                                               "as en-us or de+f3)", value=voice))
    say = t.get("say", list(d.say))
    if not isinstance(say, list) or any(s not in SPEECH_CATEGORIES for s in say):
        raise config_error("speech.say", Msg("{roles!r}: must be a list of {value}", roles=say,
                                             value=", ".join(SPEECH_CATEGORIES)))
    return SpeechConfig(
        enabled=enabled,
        folder=None if folder is None else _string("speech.folder", folder),
        voice=voice,
        volume=int(_number("speech.volume", t.get("volume", d.volume), low=0.0, high=200.0,
                           low_open=False)),
        speed=int(_number("speech.speed", t.get("speed", d.speed), low=80.0, high=450.0,
                          low_open=False)),
        say=tuple(dict.fromkeys(say)),
        delay=_number("speech.delay", t.get("delay", d.delay), low=0.0, high=60.0,
                      low_open=False),
    )


def _player(key: str, value: Any) -> str:
    from controller.players.player import PlayerError, check_spec

    text = _string(key, value)
    try:
        return check_spec(text)
    except PlayerError as exc:
        raise config_error(key, str(exc)) from None
