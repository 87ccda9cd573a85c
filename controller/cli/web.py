"""``dvonn-board web [HOST:]PORT``: a virtual table in the browser (and the ``--web`` helpers
that ``play`` and ``demo`` use to serve the view of a running table).

At startup the command prints the page's pairing URL (``...?token=TOKEN``) on stdout; opening
it once on a phone lets that phone play (click the board, use the buttons). The same address
without the token is a read-only spectators' view.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.errors import DvonnError

DEFAULT_ADDRESS = "0.0.0.0:8080"


def register(sub: Any) -> None:
    """Add ``web``."""
    p = sub.add_parser("web", help="a virtual table in the browser (the board is the table)")
    p.add_argument("address", nargs="?", default=DEFAULT_ADDRESS, metavar="[HOST:]PORT",
                   help=f"where to serve (default {DEFAULT_ADDRESS}; port 0: any free port)")
    p.add_argument("--white", default="human", metavar="PLAYER",
                   help="who plays White: human (clicks on a paired page; the default), "
                        "ai[:LEVEL], random or greedy")
    p.add_argument("--black", default="human", metavar="PLAYER",
                   help="who plays Black (as --white)")
    p.add_argument("--seed", type=int, default=0, help="seed of the computer players")
    p.add_argument("--journal", help="store (and resume) the game in this journal file")
    p.add_argument("--manual-remove", action="store_true",
                   help="cut-off stacks stay (role 'remove') until clicked")
    p.add_argument("--share-hints", action="store_true",
                   help="spectators see hints too (players can change it on the page)")
    p.add_argument("--token", help="pairing token (default: a new random one each start)")
    p.set_defaults(func=cmd_web)


def require_web() -> None:
    """DvonnError naming the extra to install when the web server's packages are missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise DvonnError(
            f"the web view needs {exc.name}, which is not installed; install the 'web' extra: "
            "pip install 'dvonn-board[web]' (in a clone: .venv/bin/pip install -e '.[web]')"
        ) from None


def cmd_web(args: argparse.Namespace) -> int:
    require_web()
    from controller.web.app import VirtualOptions, run_virtual_table
    from controller.web.server import parse_address
    from controller.web.virtual import Agent, agent_for

    parse_address(args.address)  # a bad address is refused before anything opens
    if args.token is not None and (len(args.token) < 8 or not args.token.isprintable()
                                   or " " in args.token):
        raise DvonnError(f"--token {args.token!r}: use at least 8 printable characters, "
                         "no spaces")
    agents: dict[str, Agent] = {}
    names = []
    for side, spec, offset in (("w", args.white, 0), ("b", args.black, 1)):
        agent = agent_for(spec, side, args.seed + offset)
        if agent is not None:
            agents[side] = agent
        names.append(("White" if side == "w" else "Black") if agent is None
                     else f"computer ({spec.strip().lower()})")
    journal = None
    if args.journal:
        from controller.journal.store import Journal

        journal = Journal(Path(args.journal), writer=True)  # one writer per journal
    try:
        opts = VirtualOptions(address=args.address, agents=agents, players=(names[0], names[1]),
                              auto_remove=not args.manual_remove, share_hints=args.share_hints,
                              token=args.token, journal=journal)
        ctl = run_virtual_table(opts, sys.stdout)
        if ctl.game.is_over():
            w, b = ctl.game.score()
            print(f"over white={w} black={b}", flush=True)
    finally:
        if journal is not None:
            journal.close()
    return 0


# ----------------------------------------------------------------------- play/demo --web
def add_web_option(parser: Any) -> None:
    """The ``--web [HOST:]PORT`` option of play and demo."""
    parser.add_argument("--web", metavar="[HOST:]PORT",
                        help="also serve the live web view here (phones, spectators)")


def start_web_view(address: str, *, camera: Any = None, palette: Any = None) -> Any:
    """A started WebView for ``play --web`` / ``demo --web`` (attach it to the controller).

    Prints the pairing URL on stdout. ``camera``: the camera sensor (its annotated frames are
    served) or None; ``palette``: the LED palette (a Palette or a dict), mirrored on the page.
    """
    require_web()
    from controller.web.app import WebView

    colours = getattr(palette, "colours", palette)
    frame = getattr(camera, "last_annotated", None)
    web = WebView(address, camera=frame, palette=colours)
    web.start(sys.stdout)
    return web
