"""The bad-input battery: every command against missing, empty, folder, binary, truncated,
huge, wrong-type, out-of-range and read-only inputs (tests/cli/data/bad_inputs.json).

Each run must exit 2 with exactly one line on stderr naming the input, no traceback, and
no file created or changed. The runs are in-process (controller.cli.main); a few also run as
real processes, to see the real exit code and streams."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import snapshot

from controller.cli import main
from controller.journal.store import Journal

REPO = Path(__file__).resolve().parents[2]
BATTERY: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "bad_inputs.json").read_text(encoding="utf-8"))
FILES: dict[str, dict[str, Any]] = BATTERY["files"]
VALUES: dict[str, str] = BATTERY["values"]


def _runs() -> list[Any]:
    runs = []
    for n, case in enumerate(BATTERY["cases"]):
        for name in case["inputs"]:
            assert name in FILES or name in VALUES, f"case {n}: unknown input {name!r}"
            label = "-".join(a for a in case["argv"] if not a.startswith("-") and
                             a != "{input}")[:40]
            runs.append(pytest.param(case, name, id=f"{n:02d}-{label}-{name}"))
    return runs


def make(folder: Path, name: str) -> str:
    """Make the input file ``name`` of the battery in ``folder``; its text for the argv."""
    spec = FILES[name]
    path = Path(spec["path"])
    if spec.get("outside"):
        return str(path)
    target = folder / path
    if spec.get("directory"):
        target.mkdir(parents=True, exist_ok=True)
    elif "text" in spec:
        target.write_bytes(spec["text"].encode("utf-8"))
    elif "hex" in spec:
        target.write_bytes(bytes.fromhex(spec["hex"]))
    elif "repeat" in spec:
        target.write_bytes(spec["repeat"].encode("utf-8") * spec["times"])
    elif "journal_games" in spec:
        with Journal(target) as journal:
            for _ in range(spec["journal_games"]):
                journal.append(journal.new_game(), "C3")
    return str(path)


def prepare(folder: Path, case: dict[str, Any], name: str) -> tuple[list[str], str]:
    """The argv of one run (files made) and the text its error line must contain."""
    for setup in case.get("setup", []):
        make(folder, setup)
    if name in FILES:
        value = make(folder, name)
        names = FILES[name].get("names", value)
    else:
        value = names = VALUES[name]
    return [value if a == "{input}" else a for a in case["argv"]], names


def outside_paths(case: dict[str, Any]) -> dict[str, bool]:
    return {spec["path"]: Path(spec["path"]).exists() for spec in FILES.values()
            if spec.get("outside")}


@pytest.mark.parametrize(("case", "name"), _runs())
def test_bad_input_is_one_line_exit_2_and_changes_nothing(
        world: Path, capsys: pytest.CaptureFixture[str], case: dict[str, Any],
        name: str) -> None:
    argv, names = prepare(world, case, name)
    before, outside = snapshot(world), outside_paths(case)
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 2, (argv, out[-500:], err[-500:])
    assert len(lines) == 1, lines[:5]
    assert names in lines[0], lines[0]
    assert lines[0].startswith("dvonn-board") and "unexpected" not in lines[0]
    assert len(lines[0]) <= 400
    assert snapshot(world) == before
    assert outside_paths(case) == outside


@pytest.mark.parametrize("argv", [
    ["replay", "missing.txt"],
    ["perft", "99999999999999999999"],
    ["vision", "render", "--out", "x.png", "--moves", "-5"],
    ["games", "list", "--journal", "no/such/folder/x.db"],
])
def test_real_processes_give_one_line_and_exit_2(world: Path, argv: list[str]) -> None:
    before = snapshot(world)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "controller.cli", *argv], cwd=world, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert argv[-1] in line and "Traceback" not in done.stderr
    assert snapshot(world) == before
