"""scripts/install-pi.sh, run with --dry-run: the right venv, extras, udev rule, groups, config
and service unit for each kind of table; nothing is changed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.config.settings import parse_config
from hardware.leds.factory import check_section
from hardware.sensorboard.client import PICO_PID, PICO_VID

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-pi.sh"
RULES = ROOT / "scripts" / "99-dvonn-board.rules"


def dry_run(tmp_path: Path, *args: str, model: str = "Raspberry Pi 4 Model B Rev 1.5"
            ) -> subprocess.CompletedProcess[str]:
    model_file = tmp_path / "model"
    model_file.write_bytes(model.encode() + b"\0")
    return subprocess.run(["bash", str(SCRIPT), "--dry-run", "--user", "tableuser", *args],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "DVONN_MODEL_FILE": str(model_file)})


def written(out: str, path_end: str) -> str:
    """The text the script would write to a file whose path ends with ``path_end``."""
    m = re.search(rf"^\+ write \S*{re.escape(path_end)} \(mode \d+\):\n((?:\|   .*\n?)*)", out,
                  re.M)
    assert m, out
    return "".join(line[4:] + "\n" for line in m.group(1).splitlines())


def test_script_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    if shutil.which("shellcheck"):
        subprocess.run(["shellcheck", str(SCRIPT)], check=True)


def test_hall_table_install_has_no_camera_parts(tmp_path: Path) -> None:
    proc = dry_run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "--system-site-packages" not in out and "picamera2" not in out
    assert re.search(r"python3 -m venv \S+/\.venv$", out, re.M)
    assert re.search(r"pip install .* -e \S+\[pi\]$", out, re.M)
    assert "/etc/udev/rules.d/99-dvonn-board.rules" in out
    assert "usermod -aG gpio,spi,dialout tableuser" in out
    config = parse_config(written(out, "config.toml"))
    assert config.sensor.backend == "sensor-board"
    assert config.sensor.port == "/dev/dvonn-sensorboard"
    leds = check_section(config.leds)
    assert leds["backend"] == "spi"
    # The chain of the template (serpentine from A1) and 80 % of the default 4 A supply.
    assert leds["wiring"] == "serpentine" and leds["max_current_ma"] == 3200
    unit = written(out, "dvonn-board.service")
    assert f"ExecStart={ROOT}/.venv/bin/dvonn-board play" in unit
    assert "User=tableuser" in unit and "SupplementaryGroups=gpio spi dialout\n" in unit
    assert "/home/pi" not in unit
    assert "systemctl enable dvonn-board" in out
    assert "dev.py" not in out


def test_camera_table_install_sees_picamera2(tmp_path: Path) -> None:
    proc = dry_run(tmp_path, "--camera", model="Raspberry Pi 5 Model B Rev 1.0")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "apt-get install -y python3-venv python3-pip python3-picamera2 python3-numpy" in out
    assert re.search(r"python3 -m venv --system-site-packages \S+/\.venv$", out, re.M)
    assert re.search(r"pip install .*-c \S+constraints.txt -e \S+\[camera,pi\]$", out, re.M)
    assert "video" in out.split("usermod -aG", 1)[1].splitlines()[0]
    assert "99-dvonn-board.rules" not in out  # no Pico on a camera table
    config = parse_config(written(out, "config.toml"))
    assert config.sensor.backend == "camera"
    unit = written(out, "dvonn-board.service")
    assert "SupplementaryGroups=gpio spi dialout video" in unit


def test_led_choice_and_no_service(tmp_path: Path) -> None:
    proc = dry_run(tmp_path, "--leds", "sensor-board", "--no-service")
    assert proc.returncode == 0, proc.stderr
    assert parse_config(written(proc.stdout, "config.toml")).leds == {
        "backend": "sensor-board", "wiring": "serpentine", "max_current_ma": 3200}
    assert "systemctl" not in proc.stdout and "dvonn-board.service" not in proc.stdout


@pytest.mark.parametrize(("amps", "cap"), [("3", 2400), ("4", 3200), ("2.5", 2000), ("6", 4800)])
def test_led_current_cap_is_80_percent_of_the_supply(tmp_path: Path, amps: str, cap: int
                                                     ) -> None:
    proc = dry_run(tmp_path, "--led-supply-amps", amps, "--no-service")
    assert proc.returncode == 0, proc.stderr
    leds = check_section(parse_config(written(proc.stdout, "config.toml")).leds)
    assert leds["max_current_ma"] == cap and leds["wiring"] == "serpentine"
    assert f"current cap {cap} mA (80 %)" in proc.stdout


def test_no_leds_writes_no_led_keys(tmp_path: Path) -> None:
    proc = dry_run(tmp_path, "--leds", "none", "--no-service")
    assert proc.returncode == 0, proc.stderr
    assert parse_config(written(proc.stdout, "config.toml")).leds == {"backend": "none"}


@pytest.mark.parametrize(("args", "words"), [
    (["--leds", "neon"], "--leds 'neon' is not one of"),
    (["--frobnicate"], "unknown option '--frobnicate'"),
    (["--led-supply-amps", "four"], "--led-supply-amps 'four' is not a number"),
    (["--led-supply-amps", "0.2"], "is not between 0.5 and 100 A"),
    (["--user", "root"], "not root"),
])
def test_bad_options_are_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    proc = dry_run(tmp_path, *args)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and words in proc.stderr
    assert proc.stdout == ""


def test_udev_rule_matches_the_client_usb_id() -> None:
    rule = [ln for ln in RULES.read_text().splitlines() if ln and not ln.startswith("#")]
    assert len(rule) == 1
    assert f'ATTRS{{idVendor}}=="{PICO_VID:04x}"' in rule[0]
    assert f'ATTRS{{idProduct}}=="{PICO_PID:04x}"' in rule[0]
    assert 'SYMLINK+="dvonn-sensorboard"' in rule[0] and 'GROUP="dialout"' in rule[0]
