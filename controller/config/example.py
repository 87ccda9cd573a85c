"""The documented example, ``example.toml`` beside this file: every section and key with its
default and meaning, from the defaults of :mod:`controller.config.settings` and, for the
sections the loader passes through to the hardware code, from that code's own: ``[leds]``
(the LED driver's defaults), ``[buttons]`` (the pin map) and ``[camera]``.
tests/build/test_config_example.py checks every key against what the loaders accept. Imports
nothing optional (no numpy: the camera defaults are written out here and checked against
vision.geometry by that test).
"""

from __future__ import annotations

from typing import Any

from controller.config.settings import (
    PALETTE_HELP,
    ButtonsConfig,
    DisplayConfig,
    PlayersConfig,
    RemoteConfig,
    SensorConfig,
    SpeechConfig,
    TimingConfig,
)
from controller.table.clock import NONE
from controller.table.renderer import DEFAULT_PALETTE, AnimationConfig
from controller.table.timer import ClockOptions
from hardware.leds.factory import DEFAULTS as LED_DEFAULTS
from hardware.leds.frame import RGB
from hardware.pinmap import PI_BUTTONS, PI_LED_PWM, PI_LED_SPI

#: What each [leds] key means (comment lines above the key), in the driver's key order.
LEDS_HELP: dict[str, str] = {
    "backend": 'Driver: "ws281x" (Pi 1-4, PWM on GPIO{pwm}, needs root), "spi" (any Pi,\n'
               'GPIO{spi}, SPI enabled), "sensor-board" (the Pico drives the LEDs), "terminal"\n'
               '(drawn in the terminal), "recording" (kept in memory, for tests) or "none".',
    "wiring": 'Path of the chain through the board: "rows" (every row A->K) or "serpentine"\n'
              "(rows 2 and 4 run backwards, saving return wires).",
    "rotate180": "true: the chain starts at K5 instead of A1 (the whole path turned half "
                 "round).",
    "mirror": "true: every row runs the other way (the chain enters row 1 at I1).",
    "leds_per_cell": "LEDs per space (1-8), consecutive on the chain, all lit alike.",
    "status_leds": "Extra LEDs after the last space, used as a status bar (0-64).",
    "skip": "Dark LEDs between rows (wire runs inside strip segments): one number, or a list\n"
            "of 4 (one per gap between rows 1-2, 2-3, 3-4, 4-5).",
    "brightness": "Overall brightness of the LEDs (0..1], applied after the palette.",
    "gamma": "Gamma correction of the colours (1.0 = none).",
    "max_current_ma": "Current cap in mA for all LEDs (0 = no cap): frames that would draw "
                      "more are\ndimmed. Set it to 80 % of the LED supply's rating (4 A: 3200, "
                      "3 A: 2400).",
    "ma_per_channel": "mA one colour channel draws at full level (WS2812B: about 20; check "
                      "the datasheet).",
    "idle_ma": "mA one LED draws when dark.",
    "order": 'Colour byte order on the wire: "GRB" (WS2812B, SK6812), or RGB, RBG, GBR, BRG, '
             'BGR.',
    "gpio_pin": "ws281x: the data GPIO (BCM): 18 or 12 (PWM0), 13 or 19 (PWM1, channel 1), 21 "
                "(PCM),\n10 (SPI).",
    "dma": "ws281x: the DMA channel (never 5: it can corrupt the SD card).",
    "channel": "ws281x: the PWM channel; unset = worked out from gpio_pin.",
    "spi_bus": "spi: the SPI bus and device (/dev/spidev<bus>.<device>).",
    "spi_device": "",
    "spi_hz": "spi: the SPI clock in Hz: 2400000 (3 SPI bits per LED bit) or 6400000 (8 "
              "bits).",
    "colour": "terminal: draw in colour; unset = colour on a terminal, plain text into pipes "
              "and\nlogs.",
}
#: Example values shown for [leds] keys whose default is "unset".
LEDS_EXAMPLES: dict[str, Any] = {"channel": 0, "colour": True}

#: What each button does (the comment line above its suggested pin).
BUTTONS_HELP: dict[str, str] = {
    "confirm": "Confirm a landing space the sensors cannot tell apart.",
    "next": "Step to the next candidate landing space.",
    "undo": "Take back the last action.",
    "hint": "Show the stacks that may move.",
    "new": "Start a new game (long press).",
    "clock": 'The game clock\'s button (optional): with [clock] switch = "button" the side\n'
             "that acted presses it to start the other side's clock.",
}

CAMERA_SECTION = """\
[camera]
# The camera table (sensor.backend = "camera"): camera, picture size, board geometry and
# the calibration file. Every key is shown with its default. Build guide: docs/build/camera.md.
# Frame source: "picamera2" (the Pi camera), "video" (a USB camera, video file or stream
# URL, through OpenCV) or "folder" (image files in name order, for tests).
# source = "picamera2"
# Picture size asked of the camera, in pixels.
# width = 1280
# height = 960
# video: the camera index (0 = /dev/video0) or a file path or stream URL.
# device = 0
# folder: the folder of images.
# path = "frames/"
# folder: start again after the last image.
# loop = false
# "auto": once the picture has settled after the start (a few seconds), lock the camera's
# exposure, gain and white balance where it lets them be locked (picamera2 controls, V4L2
# for a webcam), and say on the terminal what stays automatic; "off": leave them automatic.
# lock = "auto"
# The calibration file written by `dvonn-board vision calibrate` (colours of the empty board).
# calibration = "/home/pi/camera-calibration.json"
# The board geometry: set these only when your board differs from the printed sheet (they
# override the geometry stored in the calibration file).
# Distance between neighbouring space centres, in mm.
# pitch_mm = 40.0
# Side of each ArUco marker, in pitches (0.8 x 40 = 32 mm).
# marker_side = 0.8
# Marker centres in pitches from the centre of F3 (x toward K3, y toward row 5).
# markers = { 0 = [-6.2, -2.8], 1 = [6.2, -2.8], 2 = [6.2, 2.8], 3 = [-6.2, 2.8] }
# The ArUco dictionary of the markers.
# dictionary = "DICT_4X4_50"
# Piece diameter and thickness, in pitches (0.7 x 40 = 28 mm, 0.15 x 40 = 6 mm).
# disc_diameter = 0.7
# disc_thickness = 0.15
"""


def toml_value(value: Any) -> str:
    """A Python value as TOML (bool, int, float, str, list)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _comment(text: str) -> list[str]:
    return [f"# {line}" for line in text.split("\n")] if text else []


def leds_section() -> str:
    """[leds]: every key of the LED driver, commented, with its default and meaning."""
    lines = ["[leds]",
             "# The LEDs. Every key is shown with its default; the driver checks them",
             "# (`dvonn-board leds test`). `DVONN_LEDS=NAME` in the environment or `leds test",
             "# --backend NAME` override the backend. Wiring and power: hardware/LEDS.md."]
    for key, default in LED_DEFAULTS.items():
        lines += _comment(LEDS_HELP[key].format(pwm=PI_LED_PWM, spi=PI_LED_SPI))
        value = LEDS_EXAMPLES[key] if default is None else default
        lines.append(f"# {key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def buttons_lines() -> str:
    """The suggested button pins of [buttons] (the wiring diagram's), commented."""
    lines = []
    for name, pin in PI_BUTTONS.items():
        lines += _comment(BUTTONS_HELP[name])
        lines.append(f"# {name} = {pin}")
    return "\n".join(lines) + "\n"


def _toml_colour(rgb: RGB) -> str:
    return '"#{:02x}{:02x}{:02x}"'.format(*rgb)


def dump_default_config() -> str:
    """A commented TOML file holding every default (controller/config/example.toml)."""
    s, b, t, a, p = SensorConfig(), ButtonsConfig(), TimingConfig(), AnimationConfig(), \
        PlayersConfig()
    d, r = DisplayConfig(), RemoteConfig()
    sp = SpeechConfig()
    c = ClockOptions()
    ck, cp = str(c.control or NONE), str(c.pulse).lower()
    say = ", ".join(f'"{c}"' for c in sp.say)
    leds, buttons = leds_section(), buttons_lines()
    palette = "\n".join(
        f"{role + ' = ' + _toml_colour(rgb):<24}# {PALETTE_HELP[role]}"
        for role, rgb in DEFAULT_PALETTE.items()
    )
    roles = ", ".join(f'"{r}"' for r in a.blink_roles)
    return f"""\
# dvonn-board configuration (TOML). Copy to ~/.config/dvonn-board/config.toml and edit.
# Every section and every key the program reads is listed here with its meaning. A line
# `key = value` shows the default; a commented `# key = value` shows a default that lives in
# the hardware code, or an example for a key with no default: remove the `# ` to set it.
# Unknown sections and keys are errors naming the key (generated by
# controller.config.example.dump_default_config; tests/build/test_config_example.py checks it
# against the loaders). Build and install guides: docs/build/README.md.

[sensor]
# How pieces are sensed: "sensor-board" (hall sensors over USB serial), "camera" or
# "emulator" (the simulated table). Default: "sensor-board" on a Raspberry Pi, else "emulator".
# backend = "sensor-board"
# Serial port of the sensor board; unset = find the Pico by its USB id (2E8A:0005).
# scripts/install-pi.sh adds a udev rule that names it /dev/dvonn-sensorboard.
# port = "/dev/dvonn-sensorboard"
# Baud rate of the serial link (USB CDC ignores it; 115200 by convention).
baudrate = {s.baudrate}
# Check the colour of every placement by the magnet the hall board reports under the bottom
# piece: every magnet south pole down, a strong one (6 x 2 mm) under white and red pieces, a
# weak one (3 x 1 mm) under black. Set false for pieces without such magnets.
polarity = {str(s.polarity).lower()}

{leds}
[buttons]
# GPIO (BCM) numbers of the wired buttons, each from the GPIO to GND (no resistor: the
# internal pull-up is used). Leave a button out if it is not wired. The pins below are those
# of the wiring diagram (docs/build/pi-wiring.svg); any free GPIO works.
{buttons}# Seconds a button must be held to count as a long press.
long_press = {b.long_press}

{CAMERA_SECTION}
[timing]
# A cell change lasting less than `noise` seconds is ignored; one holding `stable` seconds is
# real. Must satisfy 0 < noise < stable.
noise = {t.noise}
stable = {t.stable}

[palette]
# A colour for every cell role, as "#rrggbb" or [r, g, b].
{palette}

[animation]
# Blinking cells switch on and off `blink_hz` times a second.
blink_hz = {a.blink_hz}
# Destination and hint cells pulse `pulse` times a second (0 = steady), dimming by up to
# `pulse_depth` (0..1).
pulse = {a.pulse}
pulse_depth = {a.pulse_depth}
# Overall brightness (0..1] applied to every colour.
brightness = {a.brightness}
# Roles that always blink.
blink_roles = [{roles}]

[journal]
# Where games are stored. Default: $DVONN_DATA_DIR/games.sqlite3, else
# $XDG_DATA_HOME/dvonn-board/games.sqlite3 (~/.local/share/dvonn-board/games.sqlite3).
# path = "~/dvonn-games.sqlite3"

[players]
# Names written to the journal and to exported records.
white = "{p.white}"
black = "{p.black}"
# Who plays each side on the table: "human", "ai" or "ai:LEVEL" (1 beginner .. 7 full
# strength), or "cmd:PROGRAM ARGS" (a program speaking the CodeCup protocol). The LEDs show
# the computer's action; a person carries it out. "remote:mqtt://HOST[:PORT]/MATCH": the
# side is played at another table that joins the same MATCH on that MQTT broker (see
# [remote]); its actions light like the computer's.
white_player = "{p.white_player}"
black_player = "{p.black_player}"
# Seconds the full-strength computer thinks per move (levels 1-6 are node budgets).
move_time = {p.move_time}
# Threads the full-strength computer searches on (1..64; a Pi 4 or 5 has 4 cores). Levels 1-6
# always use one, so they play the same on every machine.
threads = {p.threads}

[display]
# The language of the table's messages, the terminal board and the page: "en" (English),
# "de" (Deutsch) or "auto" (the CLI: LANGUAGE, LC_ALL, LC_MESSAGES, LANG; the page: the
# browser's Accept-Language, and its switch).
language = "{d.language}"

[speech]
# The table's voice: espeak-ng (Debian's package espeak-ng) says each action, the table's
# prompts, mismatches, cut-offs, the score and the result in the display language.
# true: speak aloud on the default sound device (as `play --speak`).
enabled = {str(sp.enabled).lower()}
# Write each utterance as a numbered WAV file (0001.wav, ...) in this folder instead of
# playing it, with spoken.txt beside them, one line a file (as --speak-to FOLDER).
# folder = "~/dvonn-spoken"
# An espeak-ng voice (espeak-ng --voices); "" = the display language's own ("en", "de").
voice = "{sp.voice}"
# Loudness: espeak-ng's amplitude, 0..200 (100 normal).
volume = {sp.volume}
# Speed in words a minute, 80..450.
speed = {sp.speed}
# What is spoken: "actions" (placements, moves, passes, take-backs), "cutoffs" (the stacks an
# action cuts off, and cut-off stacks left on the board), "prompts" (whose turn at the start,
# a landing the table asks about, the computer's action to carry out), "mismatches",
# "score" (after each move) and "result".
say = [{say}]
# Seconds a mismatch (or a cut-off stack left on the board) must last before it is said.
delay = {sp.delay}

[clock]
# The game clock (as `--clock`): "M+S" gives each side M minutes for the whole game and S
# seconds more after each of its actions (Fischer increment), e.g. "15+10"; "none": no clock.
control = "{ck}"
# Who switches the clocks: "table" (the table, when it commits an action) or "button" (the
# side that acted presses the `clock` button, [buttons] clock).
switch = "{c.switch}"
# In a side's last `pulse_seconds` its edge of the board pulses dimly (row 1 White, row 5
# Black) on the cells without a role.
pulse = {cp}
pulse_seconds = {c.pulse_seconds}
# Remote play: seconds the two tables' clocks may differ before the table says so.
tolerance = {c.tolerance}

[tutor]
# The live tutor (as `--tutor LEVEL`): each action of a person is judged beside play, a
# mistake (?, 2 pieces or more lost against the engine's best) or blunder (??, 5 or more) is
# shown at once and the table offers to take it back. "off", "marks" (the marks only),
# "better" (also the better action, lit as `suggest` for a few seconds) or "warn" (also: a
# lifted stack's landing spaces that lose 2 pieces or more blink as `mismatch`).
level = "off"
# true: a first game (as `--learn`): each rule is explained the first time it matters.
learn = false

[remote]
# Logging in to the MQTT broker of remote play (remote:mqtt://...) and --publish. Never on the
# command line; the environment overrides these: DVONN_MQTT_USERNAME, DVONN_MQTT_PASSWORD (or
# DVONN_MQTT_PASSWORD_FILE), DVONN_MQTT_TLS=1, DVONN_MQTT_CA_FILE.
# User name on the broker (unset: anonymous).
# username = "club-table-1"
# A file holding the password (one line; keep it readable by this user only).
# password_file = "~/.config/dvonn-board/mqtt-password"
# true: TLS (as the mqtts:// scheme; port 8883 by default).
tls = {str(r.tls).lower()}
# CA certificate of a broker with its own certificate authority (implies TLS).
# ca_file = "/etc/ssl/certs/club-ca.pem"
"""
