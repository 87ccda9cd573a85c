#!/usr/bin/env bash
# Install dvonn-board on Raspberry Pi OS (Bookworm or newer) from this clone, for `play` at boot.
#
#   sudo scripts/install-pi.sh [--camera] [--leds ws281x|spi|sensor-board|none]
#                              [--led-supply-amps A] [--user USER] [--no-service] [--dry-run]
#
# Hall-sensor table (default): a plain venv with the base install and the `pi` extra (no numpy,
# no OpenCV). Camera table (--camera): picamera2 from apt and a venv made with
# --system-site-packages so it can see it, plus the `camera` extra (numpy pinned to the
# system's, which picamera2 was built against). Then the udev rule for the Pico, the user's
# groups, a starting config, and the systemd unit that runs `dvonn-board play`.
# --led-supply-amps: the LED supply's rating in amperes (default 4); the config caps the LEDs'
# current at 80 % of it (4 A: max_current_ma = 3200) and chains them serpentine from A1.
# --dry-run prints every command instead of running it (nothing is changed).
# See docs/build/install-pi.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CAMERA=0
LEDS=""
SUPPLY_AMPS=4
SERVICE=1
DRY=0
TARGET_USER="${SUDO_USER:-${USER:-pi}}"

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --camera) CAMERA=1 ;;
        --leds) LEDS="${2:-}"; shift ;;
        --leds=*) LEDS="${1#--leds=}" ;;
        --led-supply-amps) SUPPLY_AMPS="${2:-}"; shift ;;
        --led-supply-amps=*) SUPPLY_AMPS="${1#--led-supply-amps=}" ;;
        --user) TARGET_USER="${2:-}"; shift ;;
        --user=*) TARGET_USER="${1#--user=}" ;;
        --no-service) SERVICE=0 ;;
        --dry-run) DRY=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

case "$LEDS" in
    ""|ws281x|spi|sensor-board|none) ;;
    *) echo "install-pi.sh: --leds '$LEDS' is not one of ws281x, spi, sensor-board, none" >&2
       exit 2 ;;
esac
# The LED current cap: 80 % of the supply's rating, in mA (4 A -> 3200, 2.5 A -> 2000).
if ! [[ "$SUPPLY_AMPS" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "install-pi.sh: --led-supply-amps '$SUPPLY_AMPS' is not a number of amperes (e.g. 4)" >&2
    exit 2
fi
MAX_CURRENT_MA="$(awk -v a="$SUPPLY_AMPS" 'BEGIN { printf "%d", a * 800 + 0.5 }')"
if [ "$MAX_CURRENT_MA" -lt 400 ] || [ "$MAX_CURRENT_MA" -gt 80000 ]; then
    echo "install-pi.sh: --led-supply-amps '$SUPPLY_AMPS' is not between 0.5 and 100 A" >&2
    exit 2
fi
if [ -z "$TARGET_USER" ] || [ "$TARGET_USER" = "root" ]; then
    echo "install-pi.sh: name the user that runs the table: --user NAME (not root)" >&2
    exit 2
fi

# What the Pi is: the LED backend follows the model unless --leds says otherwise.
MODEL_FILE="${DVONN_MODEL_FILE:-/proc/device-tree/model}"  # the variable is for tests
MODEL="$( { tr -d '\0' < "$MODEL_FILE"; } 2>/dev/null || echo unknown)"
[ -n "$MODEL" ] || MODEL=unknown
# SPI (GPIO10) works on every Pi without root; ws281x (GPIO18) needs root and not a Pi 5.
if [ -z "$LEDS" ]; then
    case "$MODEL" in
        *"Raspberry Pi"*) LEDS=spi ;;
        *) LEDS=none ;;
    esac
fi

HOME_DIR="$(getent passwd "$TARGET_USER" | cut -d: -f6 || true)"
if [ -z "$HOME_DIR" ]; then
    if [ "$DRY" = 1 ]; then HOME_DIR="/home/$TARGET_USER"; else
        echo "install-pi.sh: no such user '$TARGET_USER'" >&2; exit 2
    fi
fi
VENV="$ROOT/.venv"
DATA_DIR="$HOME_DIR/.local/share/dvonn-board"
CONFIG="$HOME_DIR/.config/dvonn-board/config.toml"
EXTRAS="pi"
[ "$CAMERA" = 1 ] && EXTRAS="camera,pi"

if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install-pi.sh: run with sudo (it installs packages, a udev rule and a service)" >&2
    exit 2
fi

# run CMD...: run (or, with --dry-run, print) one command.
run() {
    if [ "$DRY" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
# as_user CMD...: run a command as the table's user.
as_user() {
    if [ "$DRY" = 1 ]; then printf '+ (as %s) %s\n' "$TARGET_USER" "$*"
    elif [ "$(id -un)" = "$TARGET_USER" ]; then "$@"
    else runuser -u "$TARGET_USER" -- "$@"; fi
}
# write_file PATH MODE: write stdin to PATH (printed instead with --dry-run).
write_file() {
    if [ "$DRY" = 1 ]; then printf '+ write %s (mode %s):\n' "$1" "$2"; sed 's/^/|   /'
    else cat > "$1"; chmod "$2" "$1"; fi
}

echo "dvonn-board: installing for user $TARGET_USER on: $MODEL"
echo "  sensing: $([ "$CAMERA" = 1 ] && echo camera || echo hall-sensor board)," \
     "LEDs: $LEDS, extras: [$EXTRAS], clone: $ROOT"
[ "$LEDS" = none ] || echo "  LED supply: $SUPPLY_AMPS A, current cap $MAX_CURRENT_MA mA (80 %)"

# 1. System packages.
APT="python3-venv python3-pip"
[ "$CAMERA" = 1 ] && APT="$APT python3-picamera2 python3-numpy"
APT="$APT espeak-ng"  # the table's voice (play --speak, [speech] in the config)
run apt-get update
# shellcheck disable=SC2086  # APT is a word list
run apt-get install -y $APT

# 2. The venv. The camera needs picamera2 and libcamera, which exist only as system packages:
#    the venv must see the system site-packages. A hall-sensor table needs none of that.
if [ "$CAMERA" = 1 ]; then
    as_user python3 -m venv --system-site-packages "$VENV"
    # picamera2 (and simplejpeg) were built against the system numpy: keep that one.
    SYS_PY=/usr/bin/python3
    [ -x "$SYS_PY" ] || SYS_PY=python3
    NUMPY="$("$SYS_PY" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || echo)"
    if [ -n "$NUMPY" ]; then
        as_user sh -c "echo 'numpy==$NUMPY' > '$VENV/constraints.txt'"
    else
        as_user sh -c ": > '$VENV/constraints.txt'"
    fi
    as_user "$VENV/bin/pip" install --disable-pip-version-check -c "$VENV/constraints.txt" \
        -e "$ROOT[$EXTRAS]"
else
    as_user python3 -m venv "$VENV"
    as_user "$VENV/bin/pip" install --disable-pip-version-check -e "$ROOT[$EXTRAS]"
fi

# 3. The udev rule: /dev/dvonn-sensorboard for the Pico, group dialout, no ModemManager.
if [ "$CAMERA" = 0 ] || [ "$LEDS" = sensor-board ]; then
    run install -m 0644 "$ROOT/scripts/99-dvonn-board.rules" /etc/udev/rules.d/99-dvonn-board.rules
    run udevadm control --reload-rules
    run udevadm trigger --subsystem-match=tty
fi

# 4. Interfaces the LEDs need.
case "$LEDS" in
    spi)
        if command -v raspi-config >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
            run raspi-config nonint do_spi 0
        fi
        case "$MODEL" in
            *"Raspberry Pi 3"*|*"Raspberry Pi 4"*|*"Raspberry Pi Zero 2"*)
                echo "  note: the SPI clock follows the core clock here; if the LEDs flicker,"
                echo "        pin it in /boot/firmware/config.txt (docs/build/install-pi.md)" ;;
        esac ;;
    ws281x)
        echo "  note: ws281x on GPIO18 needs 'dtparam=audio=off' in /boot/firmware/config.txt"
        echo "        and root; or wire the data to GPIO10 and use --leds spi (docs/systemd.md)" ;;
esac

# 5. Groups for the devices (only those that exist on this system).
GROUPS_WANTED="gpio spi dialout"
[ "$CAMERA" = 1 ] && GROUPS_WANTED="$GROUPS_WANTED video"
GROUPS_FOUND=""
for g in $GROUPS_WANTED; do
    if getent group "$g" >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
        GROUPS_FOUND="$GROUPS_FOUND $g"
    fi
done
GROUPS_FOUND="${GROUPS_FOUND# }"
if [ -n "$GROUPS_FOUND" ]; then
    run usermod -aG "$(echo "$GROUPS_FOUND" | tr ' ' ',')" "$TARGET_USER"
fi

# 6. A starting config (an existing one is kept).
if [ -e "$CONFIG" ] && [ "$DRY" = 0 ]; then
    echo "  keeping $CONFIG"
else
    as_user mkdir -p "$(dirname "$CONFIG")"
    if [ "$CAMERA" = 1 ]; then SENSOR='backend = "camera"'; else SENSOR='backend = "sensor-board"
port = "/dev/dvonn-sensorboard"'; fi
    # The chain of docs/build/mechanical.md (the template's LED numbers), and the cap.
    LED_KEYS="backend = \"$LEDS\""
    if [ "$LEDS" != none ]; then LED_KEYS="$LED_KEYS
wiring = \"serpentine\"
max_current_ma = $MAX_CURRENT_MA   # 80 % of the LED supply's $SUPPLY_AMPS A"; fi
    if [ "$DRY" = 1 ]; then write_file "$CONFIG" 0644; else
        write_file "$CONFIG" 0644; chown "$TARGET_USER:" "$CONFIG"; fi <<EOF
# dvonn-board config written by scripts/install-pi.sh; every key with its default and meaning:
# $ROOT/controller/config/example.toml
[sensor]
$SENSOR

[leds]
$LED_KEYS
EOF
fi

# 7. The service: `dvonn-board play` at boot, as the user, restarted on failure.
if [ "$SERVICE" = 1 ]; then
    UNIT=/etc/systemd/system/dvonn-board.service
    sed -e "s#/home/pi/dvonn-board#$ROOT#g" \
        -e "s#/home/pi/.local/share/dvonn-board#$DATA_DIR#g" \
        -e "s#^User=pi#User=$TARGET_USER#" -e "s#^Group=pi#Group=$TARGET_USER#" \
        -e "s#^SupplementaryGroups=.*#SupplementaryGroups=$GROUPS_FOUND#" \
        "$ROOT/scripts/dvonn-board.service" | write_file "$UNIT" 0644
    as_user mkdir -p "$DATA_DIR"
    run systemctl daemon-reload
    run systemctl enable dvonn-board
    echo "  try it by hand first:  $VENV/bin/dvonn-board leds test"
    echo "  then start the table:  sudo systemctl start dvonn-board"
    echo "  follow its log:        journalctl -u dvonn-board -f"
fi
echo "dvonn-board: installed. Log out and in again for the new groups to apply."
