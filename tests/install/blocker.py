"""Run dvonn-board commands with numpy and cv2 made unimportable, as on a hall-only install.

Usage: python blocker.py RESULTS.json '[["moves"], ["leds", "test", "--fast"]]'
Each command runs through controller.cli.main in this process; RESULTS.json gets, for each,
its exit code and the blocked modules it tried to import.
"""

from __future__ import annotations

import importlib.abc
import json
import sys

BLOCKED = ("numpy", "cv2")
attempts: list[str] = []


class Blocker(importlib.abc.MetaPathFinder):
    """Refuses numpy and cv2 (and their submodules) as if they were not installed."""

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname.split(".")[0] in BLOCKED:
            attempts.append(fullname)
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def main() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.meta_path.insert(0, Blocker())
    out_path, commands = sys.argv[1], json.loads(sys.argv[2])
    from controller.cli import main as cli_main

    results = []
    for argv in commands:
        attempts.clear()
        try:
            code = cli_main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 1
        results.append({"argv": argv, "code": code, "attempts": sorted(set(attempts))})
        with open(out_path, "w", encoding="utf-8") as f:
            json.dump(results, f)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
