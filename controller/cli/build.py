"""``dvonn-board drawings``: the build guide's SVG drawings and the placement template pages.

Writes the schematic, the Pi wiring and the true-scale placement/drilling template
(hardware/drawings.py, generated from hardware/pinmap.py), and the template split onto A4 or
A3 pages with alignment targets (vision.sheet.tile_svg). Standard library only: runs on a
hall-only install.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from controller.i18n import Msg, _
from engine.errors import DvonnError

PAPERS = ("A4", "A3")


def template_pages(paper: str) -> dict[str, str]:
    """File name -> SVG of each page of the placement template on ``paper``."""
    from hardware.drawings import placement_template
    from vision.sheet import tile_svg

    pages = tile_svg(placement_template(), paper, "dvonn-board placement template")
    return {f"placement-template-{paper}-{i + 1}.svg": page for i, page in enumerate(pages)}


def all_drawings(papers: tuple[str, ...] = PAPERS) -> dict[str, str]:
    """File name -> SVG of every drawing docs/build/ holds."""
    from hardware.drawings import DRAWINGS

    out = {name: make() for name, make in DRAWINGS.items()}
    for paper in papers:
        out.update(template_pages(paper))
    return out


def cmd_drawings(args: argparse.Namespace) -> int:
    folder = Path(args.out)
    papers = tuple(args.paper) if args.paper else PAPERS
    drawings = all_drawings(papers)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, svg in drawings.items():
            (folder / name).write_text(svg, encoding="utf-8")
    except OSError as exc:
        raise DvonnError(Msg("cannot write into {folder!r}: {value}",
                             folder=str(folder), value=exc.strerror or exc)) from None
    for name in drawings:
        print(folder / name)
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "drawings", help=_("write the build drawings (SVG): schematic, Pi wiring, template pages"))
    p.add_argument("--out", default="docs/build", metavar="DIR",
                   help=_("folder to write into (default docs/build)"))
    p.add_argument("--paper", action="append", choices=PAPERS,
                   help=_("template pages for this paper (repeatable; default A4 and A3)"))
    p.set_defaults(func=cmd_drawings)
