#!/usr/bin/env python3
"""Set up and run dvonn-board with nothing but python3.

    python3 dev.py demo [ARGS...]   make .venv, install the project (base: no numpy/OpenCV),
                                    run `dvonn-board demo`
    python3 dev.py test [ARGS...]   make .venv, install the project with the test, camera and
                                    web extras, run pytest (which also runs ruff and mypy, see
                                    tests/test_lint.py)
    python3 dev.py bench            run every benchmark under benchmarks/

`test` also installs Debian's chromium and chromium-driver (apt-get, when run as root) for
the page tests in tests/web, and the MicroPython interpreter the firmware tests also run on
(its WebAssembly build from npm, the version pinned in tests/firmware/mpy/package-lock.json,
into .cache/micropython/; Debian's nodejs and npm first, as root, when there is no Node);
It also installs Debian's mosquitto (as root) for the remote-play and broadcast tests in
tests/remote (they start their own broker on a free loopback port), and Debian's espeak-ng
(as root) for the table's speech tests (tests/controller/test_speech*.py). Without them those
tests skip, or fail when CI is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


#: The extras each command needs: the demo runs on the base install (no numpy/OpenCV, like a
#: hall-sensor table); the tests and benchmarks need the test tools, the camera code and the
#: web view.
DEMO_EXTRAS = ""
TEST_EXTRAS = "test,camera,web,remote"


def build_inputs() -> list[Path]:
    """Files whose change needs a reinstall (the install builds the optional C core)."""
    return [ROOT / "pyproject.toml", ROOT / "setup.py", *(ROOT / "engine").glob("_dvonn*.[ch]")]


def _extras_set(extras: str) -> frozenset[str]:
    return frozenset(e.strip() for e in extras.split(",") if e.strip())


def installed_covers(extras: str) -> bool:
    """True when a fresh install stamp (newer than pyproject.toml, and than setup.py and the
    compiled search core's C source, which an install builds) holds all of ``extras``."""
    newest = max(p.stat().st_mtime for p in build_inputs() if p.exists())
    want = _extras_set(extras)
    for stamp in VENV.glob(".installed-*"):
        have = _extras_set(stamp.name[len(".installed-"):].replace("base", ""))
        if want <= have and stamp.stat().st_mtime >= newest:
            return True
    return False


def ensure_venv(extras: str) -> None:
    """Make .venv if needed and install the project with ``extras`` (comma-separated)."""
    stamp = VENV / f".installed-{extras or 'base'}"
    if installed_covers(extras):
        return
    if not PY.exists():
        print(f"dev.py: creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    spec = f".[{extras}]" if extras else "."
    print(f"dev.py: installing {spec} into {VENV}", flush=True)
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "-e", spec], cwd=ROOT, check=True)
    stamp.touch()


#: Debian packages the page tests (tests/web) drive: a headless Chromium and its WebDriver.
BROWSER_PACKAGES = ("chromium", "chromium-driver")


def browser_installed() -> bool:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or Path("/usr/bin/chromedriver").exists()
    return bool(browser and driver)


def ensure_browser() -> None:
    """Install chromium and chromium-driver for the page tests when they are missing and this
    runs as root with apt-get; otherwise say so (the page tests skip, or fail when CI is set)."""
    if browser_installed():
        return
    apt_install(BROWSER_PACKAGES, "the page tests",
                "the page tests will skip (and fail when CI is set)")


def apt_install(packages: tuple[str, ...], purpose: str, why: str) -> bool:
    """Install Debian ``packages`` for ``purpose`` when this runs as root with apt-get; else,
    or when apt-get fails, say so with ``why`` (what then skips). True when installed."""
    names = " and ".join(packages)
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        print(f"dev.py: {names} are missing and cannot be installed here (needs root and "
              f"apt-get): {why}", flush=True)
        return False
    print(f"dev.py: installing {names} (apt-get) for {purpose}", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages]):
        code = subprocess.call(cmd, env=env)
        if code != 0:
            print(f"dev.py: {' '.join(cmd)} failed (exit {code}): {why}", flush=True)
            return False
    return True


#: The MQTT broker the remote-play and broadcast tests start (tests/remote/broker.py).
BROKER_PACKAGES = ("mosquitto",)


def ensure_broker() -> None:
    """Install Debian's mosquitto for tests/remote when it is missing (as root with apt-get)."""
    if shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists():
        return
    apt_install(BROKER_PACKAGES, "the remote-play tests",
                "the remote-play tests will skip (and fail when CI is set)")


#: The speech engine the table speaks through (controller/speech; tests/controller/test_speech*).
SPEECH_PACKAGES = ("espeak-ng",)


def ensure_speech() -> None:
    """Install Debian's espeak-ng for the speech tests when it is missing (as root with
    apt-get)."""
    if shutil.which("espeak-ng"):
        return
    apt_install(SPEECH_PACKAGES, "the speech tests",
                "the speech tests will skip (and fail when CI is set)")


#: The MicroPython interpreter the firmware's scenarios also run on (tests/firmware/
#: test_on_micropython.py): the WebAssembly build published on npm, run by Node. The version and
#: its integrity hash are pinned in MICROPYTHON_PIN (package.json, package-lock.json); `npm ci`
#: installs exactly that into MICROPYTHON_DIR, which git ignores.
MICROPYTHON_PACKAGE = "@micropython/micropython-webassembly-pyscript"
MICROPYTHON_PIN = ROOT / "tests" / "firmware" / "mpy"
MICROPYTHON_DIR = ROOT / ".cache" / "micropython"
NODE_PACKAGES = ("nodejs", "npm")


def micropython_pinned() -> str:
    """The version of MICROPYTHON_PACKAGE that MICROPYTHON_PIN/package.json asks for."""
    manifest = json.loads((MICROPYTHON_PIN / "package.json").read_text())
    return str(manifest["dependencies"][MICROPYTHON_PACKAGE])


def micropython_installed() -> bool:
    """True when MICROPYTHON_DIR holds the pinned version of the interpreter."""
    manifest = MICROPYTHON_DIR / "node_modules" / MICROPYTHON_PACKAGE / "package.json"
    try:
        version = json.loads(manifest.read_text()).get("version")
    except (OSError, ValueError):
        return False
    node = shutil.which("node") or shutil.which("nodejs")
    return version == micropython_pinned() and node is not None


def ensure_micropython() -> None:
    """Install the pinned MicroPython (npm ci into MICROPYTHON_DIR) when it is missing; Debian's
    nodejs and npm first when there is no Node and this runs as root with apt-get. Otherwise
    say why (the MicroPython tests skip, or fail when CI is set)."""
    if micropython_installed():
        return
    why = "the firmware's MicroPython tests will skip (and fail when CI is set)"
    if not ((shutil.which("node") or shutil.which("nodejs")) and shutil.which("npm")):
        if not apt_install(NODE_PACKAGES, "the MicroPython tests", why):
            return
    print(f"dev.py: installing {MICROPYTHON_PACKAGE}@{micropython_pinned()} (npm ci) into "
          f"{MICROPYTHON_DIR}", flush=True)
    MICROPYTHON_DIR.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(MICROPYTHON_PIN / name, MICROPYTHON_DIR / name)
    npm = shutil.which("npm") or "npm"
    code = subprocess.call([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                            "--loglevel=error"], cwd=MICROPYTHON_DIR)
    if code != 0:
        print(f"dev.py: npm ci failed (exit {code}): {why}", flush=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("demo", "test", "bench"):
        print(__doc__)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "demo":
        ensure_venv(DEMO_EXTRAS)
        return subprocess.call([str(BIN / "dvonn-board"), "demo", *rest], cwd=ROOT)
    ensure_venv(TEST_EXTRAS)
    if command == "test":
        ensure_browser()
        ensure_broker()
        ensure_speech()
        ensure_micropython()
        return subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT)
    ensure_micropython()  # benchmarks/firmware_heap.py runs the firmware on it
    status = 0
    for bench in sorted((ROOT / "benchmarks").glob("[!_]*.py")):  # _name.py: run by others
        print(f"== {bench.name}", flush=True)
        status |= subprocess.call([str(PY), str(bench)], cwd=ROOT)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
