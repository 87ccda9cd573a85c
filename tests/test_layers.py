"""The house keeps its shape: each part imports only the parts below it (CONTRIBUTING.md,
"Package dependencies"), no two files import each other (directly or round a circle), and no
file grows past 600 lines. Imports inside functions count: a lazy import is still an arrow."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "hardware", "vision", "controller", "firmware")
MAX_LINES = 600

#: part -> the parts it may import (its own files aside). A part is a top-level package, or a
#: folder (or a lone module) directly inside controller/ or vision/.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "controller.i18n": {"engine"},  # its errors; every controller part may use the catalogs
    "firmware": set(),
    "controller.files": set(),  # the standard library only
    "controller.interrupts": set(),  # the standard library only
    "hardware": {"engine"},
    # hardware: the events the camera backend emits; the reader's cues sit inside vision's
    # own order (VISION_TIERS): above the sampling, below the colour model
    "vision": {"engine", "hardware", "vision.cues"},
    "vision.cues": {"engine", "vision"},
    "vision.synthetic": {"engine", "vision", "vision.cues"},
    "controller.table": {"engine", "hardware"},
    "controller.journal": {"engine"},
    "controller.remote": {"engine", "controller.table", "controller.publish"},
    "controller.players": {"engine", "controller.table", "controller.remote"},
    # the table's voice: listens to the controller, speaks through espeak-ng
    "controller.speech": {"engine", "controller.table"},
    "controller.config": {"engine", "hardware", "controller.table", "controller.players",
                          "controller.remote", "controller.speech"},
    "controller.sensorlog": {"engine", "hardware", "controller.table"},
    "controller.publish": {"engine", "controller.table"},
    "controller.runner": {"engine", "hardware", "controller.table", "controller.sensorlog",
                          "controller.interrupts"},
    "controller.recording": {"engine", "hardware", "vision", "controller.table",
                             "controller.sensorlog", "controller.runner"},
}
for _part in [p for p in ALLOWED
              if p.startswith("controller.")
              and p not in ("controller.i18n", "controller.files", "controller.interrupts")]:
    ALLOWED[_part].add("controller.i18n")
_BELOW_SIM = {"engine", "hardware", "vision", "controller.i18n", "controller.files",
              "controller.interrupts",
              "controller.table",
              "controller.journal",
              "controller.remote", "controller.players", "controller.speech",
              "controller.config",
              "controller.sensorlog",
              "controller.publish", "controller.runner", "controller.recording"}
ALLOWED["controller.sim"] = _BELOW_SIM
ALLOWED["controller.web"] = _BELOW_SIM
ALLOWED["controller.cli"] = _BELOW_SIM | {"vision.synthetic", "controller.sim", "controller.web"}


#: vision's own floors, bottom up: a file imports only files on its floor's level or below
#: (the cues among themselves; a top-level file none of its own level).
VISION_TIERS: list[set[str]] = [
    {"vision.geometry", "vision.stats"},
    {"vision.pose", "vision.sampling"},
    {"vision.cues"},
    {"vision.classify"},
    {"vision.calibration", "vision.framing", "vision.sheet"},
    {"vision.reader"},
    {"vision.backend"},
]
#: At most this many files at vision's top level (the cues have a folder of their own).
VISION_TOP_FILES = 14


def vision_tier(module: str) -> int | None:
    """The floor of a vision module (``vision.cues.*`` counts as ``vision.cues``)."""
    parts = module.split(".")
    if parts[0] != "vision" or len(parts) < 2:
        return None
    key = ".".join(parts[:2])
    for floor, members in enumerate(VISION_TIERS):
        if key in members:
            return floor
    return None


def part_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] in ("controller", "vision") and len(parts) > 1:
        inner = ROOT / parts[0] / parts[1]
        if inner.is_dir() or parts[0] == "controller":
            return f"{parts[0]}.{parts[1]}"
    return parts[0]


def project_files() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield module.removesuffix(".__init__"), path


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imports(module: str, path: Path) -> set[str]:
    """The project modules ``path`` imports (at the top or inside a function)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base)
    return {name for name in found if name.split(".")[0] in PACKAGES and is_module(name)}


GRAPH = {module: imports(module, path) for module, path in project_files()}


def test_every_part_is_known() -> None:
    unknown = sorted({part_of(m) for m in GRAPH} - set(ALLOWED) - {"controller"})
    assert not unknown, f"add these parts to ALLOWED (and CONTRIBUTING.md): {unknown}"


def test_no_part_imports_one_above_it() -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if part_of(target) != part_of(module)
        and part_of(module) != "controller"
        and part_of(target) not in ALLOWED[part_of(module)]
    )
    assert not wrong, "\n".join(wrong)


def test_vision_files_stand_on_their_floors() -> None:
    """pose and sampling, then the cues, then the colour model, calibration, the reader and
    the backend: no vision file imports one on a higher floor (or, at the top level, its own)."""
    unplaced = sorted(m for m in GRAPH if m.startswith("vision.")
                      and not m.startswith("vision.synthetic") and m != "vision.cues"
                      and vision_tier(m) is None)
    assert not unplaced, f"add these to VISION_TIERS (and CONTRIBUTING.md): {unplaced}"
    wrong = []
    for module, targets in GRAPH.items():
        here = vision_tier(module)
        if here is None:
            continue
        for target in targets:
            there = vision_tier(target)
            if there is None:
                continue
            same_cue = module.startswith("vision.cues") and target.startswith("vision.cues")
            if there > here or (there == here and not same_cue):
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(sorted(wrong))


def test_vision_top_level_stays_small() -> None:
    top = sorted(p.name for p in (ROOT / "vision").glob("*.py"))
    assert len(top) <= VISION_TOP_FILES, f"vision/ holds {len(top)} files: {top}"


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of files that import each other (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in graph or nxt == node:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_files_import_each_other() -> None:
    assert not circles(GRAPH), circles(GRAPH)


@pytest.mark.parametrize("folder", [*PACKAGES, "tests", "benchmarks"])
def test_no_file_over_600_lines(folder: str) -> None:
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / folder).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these by idea: {long}"


def test_the_checks_can_fail() -> None:
    """The graph holds the arrows the code has, a circle round three files is found, and the
    parts are told apart as CONTRIBUTING.md names them."""
    assert "controller.table.guide" in GRAPH["controller.table.session"]
    assert "controller.table.session" in GRAPH["controller.sensorlog"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    assert part_of("controller.table.session") == "controller.table"
    assert part_of("controller.runner") == "controller.runner"
    assert part_of("vision.synthetic.render") == "vision.synthetic"
    assert part_of("vision.reader") == "vision"
    assert part_of("vision.cues.touch") == "vision.cues"
    assert vision_tier("vision.cues.touch") == vision_tier("vision.cues")
    assert vision_tier("vision.reader") > vision_tier("vision.classify")  # type: ignore[operator]
    assert "controller.cli" not in ALLOWED["controller.sim"]
