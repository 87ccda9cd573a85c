"""Running the firmware's scenarios on the real MicroPython interpreter, from CPython.

The interpreter is MicroPython's WebAssembly build from npm, run by Node: `python3 dev.py test`
installs the version pinned in tests/firmware/mpy/package.json (with its hash in
package-lock.json) into .cache/micropython/. ``missing()`` says why it cannot run here;
``run(scenario, *args)`` runs tests/firmware/mpy/run.mjs on one scenario and parses what it
printed. Used by tests/firmware/test_on_micropython.py and benchmarks/firmware_heap.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MPY = ROOT / "tests" / "firmware" / "mpy"
RUNNER = MPY / "run.mjs"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
INSTALLED = ROOT / ".cache" / "micropython" / "node_modules" / PACKAGE
MARK = "@@ "


def pinned() -> str:
    """The interpreter version tests/firmware/mpy/package.json pins."""
    return str(json.loads((MPY / "package.json").read_text())["dependencies"][PACKAGE])


def installed() -> str | None:
    """The version installed in .cache/micropython/, or None."""
    try:
        return str(json.loads((INSTALLED / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def node() -> str | None:
    return shutil.which("node") or shutil.which("nodejs")


def missing() -> str | None:
    """Why the scenarios cannot run on MicroPython here, or None when they can."""
    if node() is None:
        return "no Node.js to run MicroPython's WebAssembly build (python3 dev.py test " \
               "installs Debian's nodejs as root)"
    have = installed()
    if have is None:
        return f"MicroPython {pinned()} ({PACKAGE}) is not installed in .cache/micropython/ " \
               "(python3 dev.py test installs it with npm)"
    if have != pinned():
        return f"MicroPython {have} is installed in .cache/micropython/, the tests pin " \
               f"{pinned()} (python3 dev.py test reinstalls it)"
    return None


@dataclass
class Run:
    """What one run.mjs process printed: per-test results and the other lines."""

    returncode: int
    stdout: str
    stderr: str
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def tagged(self, tag: str) -> str:
        """The rest of the line starting with ``@@TAG `` (e.g. '@@heap {...}')."""
        prefix = f"@@{tag} "
        for line in self.lines:
            if line.startswith(prefix):
                return line[len(prefix):]
        raise LookupError(f"no {prefix!r} line in the output:\n{self.stdout}\n{self.stderr}")


def run(scenario: str, *args: str, heap: int | None = None, timeout: float = 120) -> Run:
    """Run ``scenario`` (a module in tests/firmware/mpy/) on MicroPython."""
    exe = node()
    if exe is None:
        raise RuntimeError(missing())
    cmd = [exe, str(RUNNER)]
    if heap is not None:
        cmd += ["--heap", str(heap)]
    cmd += [scenario, *args]
    env = dict(os.environ, MICROPYTHON_MJS=str(INSTALLED / "micropython.mjs"))
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=env)
    out = Run(proc.returncode, proc.stdout, proc.stderr)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            record = json.loads(line[len(MARK):])
            out.results[record["test"]] = record
        else:
            out.lines.append(line)
    return out


def heap_figures(result: Run) -> dict[str, Any]:
    """scenario_heap's figures (its '@@heap {...}' line), with ``area``: the heap's size from
    the 'GC: total: N, ...' line of the mem_info() it prints after them."""
    heap: dict[str, Any] = json.loads(result.tagged("heap"))
    gc_line = next(line for line in result.lines if line.startswith("GC: total:"))
    heap["area"] = int(gc_line.split(":")[2].split(",")[0])
    return heap
