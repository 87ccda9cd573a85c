"""The build docs: every relative link resolves, every `dvonn-board ...` command they show
exists, the install page's extras are pyproject's, and the service page installs for play."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from controller.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([*(ROOT / "docs").rglob("*.md"), ROOT / "hardware" / "README.md",
               ROOT / "hardware" / "LEDS.md", ROOT / "README.md"])
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def _anchor(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    for target, anchor in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        path = (doc.parent / target).resolve()
        assert path.exists(), f"{doc.relative_to(ROOT)}: broken link {target}"
        if anchor and path.suffix == ".md":
            heads = {_anchor(h) for h in re.findall(r"^#+ (.+)$", path.read_text(), re.M)}
            assert anchor[1:] in heads, f"{doc.relative_to(ROOT)}: no section {target}{anchor}"


def test_commands_in_the_build_docs_exist() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    commands = set(sub.choices)  # type: ignore[union-attr]
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        blocks = re.findall(r"```.*?```", text, re.S)
        spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
        code = "\n".join(blocks + spans)
        for cmd in re.findall(r"(?:^|[\s/])dvonn-board ([a-z][a-z-]*)", code, re.M):
            assert cmd in commands, f"{doc.relative_to(ROOT)}: unknown command {cmd!r}"


def test_install_page_lists_every_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    page = (ROOT / "docs" / "build" / "install-pi.md").read_text(encoding="utf-8")
    for name in extras:
        assert f"| `{name}` extra |" in page, name
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not any(d.startswith(("numpy", "opencv")) for d in deps)
    assert any(d.startswith("opencv-python-headless") for d in extras["camera"])


def test_service_page_installs_for_play_not_the_demo() -> None:
    page = (ROOT / "docs" / "systemd.md").read_text(encoding="utf-8")
    assert "--system-site-packages" in page and "scripts/install-pi.sh" in page
    assert "run `python3 dev.py demo` once" not in page
    unit = (ROOT / "scripts" / "dvonn-board.service").read_text(encoding="utf-8")
    assert re.search(r"^ExecStart=\S+/\.venv/bin/dvonn-board play$", unit, re.M)


def test_the_hall_build_docs_give_one_magnet_scheme_and_safe_power() -> None:
    """Issue 23: every magnet south pole down (colour from strength), one sensor variant
    under 3 mm, the settling 1 nF filter, a VBUS-fed low-dropout regulator, a fused supply
    and a current cap at 80 % of it; none of the old claims is left in the guides."""
    guides = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in (
        ROOT / "docs" / "build" / "README.md", ROOT / "docs" / "build" / "hall-board.md",
        ROOT / "docs" / "build" / "mechanical.md", ROOT / "hardware" / "README.md",
        ROOT / "hardware" / "LEDS.md")}
    text = "\n".join(guides.values())
    for old in ("white and red north down", "White pieces: north pole", "| **north** |",
                "(or A2)", "and 10 nF", "AMS1117-3.3 (1 A)", "≤ 2 mm", "17 mm",
                "(readings are ratiometric)", "≥ 6.3 V", "RS-25-5** (5 A)"):
        assert old not in text, old
    mech = guides["docs/build/mechanical.md"]
    assert "**south pole down**" in mech and "6 × 2 mm N35" in mech and "3 × 1 mm N35" in mech
    for figure in ("**56 mT**", "**13 mT**", "**11.5 mT**", "**29.2 mT**", "**45.5 mT**",
                   "0.6 N", "exactly 3 mm", "19 mm"):
        assert figure in mech, figure
    assert "a 3 × 1 mm one `s`" in mech and "`?` means its" in mech
    hall = guides["docs/build/hall-board.md"]
    assert "DRV5055A3" in hall and "MCP1826S-3302E" in hall and "ADC_VREF" in hall
    readme = guides["docs/build/README.md"]
    safety = readme.split("## The LED supply: safety", 1)[1].split("\n## ", 1)[0]
    for rule in ("certified external 5 V adapter", "T5A", "5.2 V", "rated 10 V",
                 "Epoxy, not hot glue", "80 % of the supply's rating", "--led-supply-amps"):
        assert rule in safety, rule
