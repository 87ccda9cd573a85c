#!/usr/bin/env python3
"""Set up and run dvonn-board with nothing but python3.

    python3 dev.py demo [ARGS...]   make .venv, install the project (base: no numpy/OpenCV),
                                    run `dvonn-board demo`
    python3 dev.py test [ARGS...]   make .venv, install the project with the test, camera and
                                    web extras, run pytest (which also runs ruff and mypy, see
                                    tests/test_lint.py)
    python3 dev.py bench            run every benchmark under benchmarks/

`test` also installs Debian's chromium and chromium-driver (apt-get, when run as root) for
the page tests in tests/web; without them those tests skip, or fail when CI is set.
"""

from __future__ import annotations

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
TEST_EXTRAS = "test,camera,web"


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
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        print("dev.py: chromium and chromium-driver are missing and cannot be installed here "
              "(needs root and apt-get): the page tests will skip (and fail when CI is set)",
              flush=True)
        return
    print("dev.py: installing chromium and chromium-driver (apt-get) for the page tests",
          flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                 *BROWSER_PACKAGES]):
        code = subprocess.call(cmd, env=env)
        if code != 0:
            print(f"dev.py: {' '.join(cmd)} failed (exit {code}): the page tests will skip "
                  "(and fail when CI is set)", flush=True)
            return


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
        return subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT)
    status = 0
    for bench in sorted((ROOT / "benchmarks").glob("[!_]*.py")):  # _name.py: run by others
        print(f"== {bench.name}", flush=True)
        status |= subprocess.call([str(PY), str(bench)], cwd=ROOT)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
