"""``dvonn-board web [HOST:]PORT``: a virtual table in the browser (and the ``--web`` helpers
that ``play`` and ``demo`` use to serve the view of a running table).

At startup the command prints the page's address and a one-time pairing code on stdout (and
once a URL carrying the code): a phone paired with a code plays (clicks the board, uses the
buttons) for the seat it chose. Pages that are not paired are a read-only spectators' view.
Scripts use a token from a file (``--token-file``) or ``DVONN_WEB_TOKEN``, never from the
command line (``ps`` shows it to every user of the machine).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from controller.i18n import Msg, _
from engine.errors import DvonnError

DEFAULT_ADDRESS = "0.0.0.0:8080"


def register(sub: Any) -> None:
    """Add ``web``."""
    p = sub.add_parser("web", help=_("a virtual table in the browser (the board is the table)"))
    p.add_argument("address", nargs="?", default=DEFAULT_ADDRESS, metavar="[HOST:]PORT",
                   help=_("where to serve (default {address}; port 0: any free port)").format(
                       address=DEFAULT_ADDRESS))
    p.add_argument("--white", default="human", metavar="PLAYER",
                   help=_("who plays White: human (clicks on a paired page; the default), "
                          "ai[:LEVEL], random or greedy"))
    p.add_argument("--black", default="human", metavar="PLAYER",
                   help=_("who plays Black (as --white)"))
    p.add_argument("--seed", type=int, default=0, help=_("seed of the computer players"))
    p.add_argument("--journal", help=_("store (and resume) the game in this journal file"))
    p.add_argument("--manual-remove", action="store_true",
                   help=_("cut-off stacks stay (role 'remove') until clicked"))
    p.add_argument("--share-hints", action="store_true",
                   help=_("spectators see hints too (players can change it on the page)"))
    add_access_options(p)
    from controller.cli.publishing import add_publish_option
    from controller.cli.speaking import add_speech_options

    add_publish_option(p)
    add_speech_options(p)
    from controller.cli.clocking import add_clock_option

    add_clock_option(p)
    from controller.cli.tutoring import add_tutor_options

    add_tutor_options(p)
    p.set_defaults(func=cmd_web)


def add_access_options(p: Any) -> None:
    """``--token-file``, ``--web-host-name`` and the refused ``--token``."""
    p.add_argument("--token-file", metavar="PATH",
                   help=_("the scripts' token (X-Dvonn-Token header) is this file's first line "
                          "(default: DVONN_WEB_TOKEN, else no token)"))
    add_host_name_option(p)
    p.add_argument("--token", help=argparse.SUPPRESS)  # refused: it would show in ps


def add_host_name_option(p: Any) -> None:
    """``--web-host-name`` (``web``, ``play --web``, ``demo --web``, ``broadcast``)."""
    p.add_argument("--web-host-name", action="append", default=[], metavar="NAME",
                   help=_("one more host name the page is served under (repeatable); its own "
                          "addresses, localhost, HOSTNAME and HOSTNAME.local always are"))


def host_names(args: argparse.Namespace) -> tuple[str, ...]:
    """The ``--web-host-name`` names, plain; DvonnError naming one that is not a host name or
    address (or has a port)."""
    from controller.web.guard import plain_host

    names = []
    for name in args.web_host_name:
        plain = plain_host(name)
        if plain is None:
            raise DvonnError(Msg("--web-host-name {name!r}: a host name or address, no port",
                                 name=name))
        names.append(plain)
    return tuple(names)


TOKEN_ENV = "DVONN_WEB_TOKEN"


def read_token(path: str | None) -> str | None:
    """The scripts' token: the first line of ``path``, else $DVONN_WEB_TOKEN, else None.
    DvonnError (never quoting the token) when it is too short or not one word."""
    if path is not None:
        where = f"--token-file {path}"
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            raise DvonnError(Msg("{where}: cannot be read ({reason})",
                                 where=where, reason=reason)) from None
        lines = text.splitlines()
        text = lines[0] if lines else ""
    else:
        where = TOKEN_ENV
        text = os.environ.get(TOKEN_ENV, "")
        if not text:
            return None
    token = text.strip()
    if not 16 <= len(token) <= 512 or not token.isascii() or not token.isprintable() \
            or " " in token:
        raise DvonnError(Msg("{where}: a token is 16 to 512 printable ASCII characters without "
                             "spaces (e.g. from: python3 -c 'import secrets; "
                             "print(secrets.token_urlsafe(24))')",
                             where=where))
    return token


def devices_file(port: int) -> Path | None:
    """Where the paired devices of the server on ``port`` are kept (the config folder); None
    for port 0 (a new port each start: nothing to keep)."""
    if port == 0:
        return None
    from controller.config.settings import default_config_path

    return default_config_path().parent / f"web-devices-{port}.json"


def web_access(args: argparse.Namespace, address: str) -> dict[str, Any]:
    """The WebView arguments of the access options: token, host names, devices file."""
    from controller.web.server import parse_address

    if getattr(args, "token", None) is not None:
        raise DvonnError(Msg("--token is refused: a token on the command line shows in ps; put it "
                             "in a file (--token-file PATH) or in {TOKEN_ENV}",
                             TOKEN_ENV=TOKEN_ENV))
    names = host_names(args)
    _host, port = parse_address(address)
    return {"token": read_token(args.token_file), "host_names": names,
            "devices": devices_file(port)}


def require_web() -> None:
    """DvonnError naming the extra to install when the web server's packages are missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise DvonnError(
            Msg("the web view needs {name}, which is not installed; install the 'web' extra: pip "
                "install 'dvonn-board[web]' (in a clone: .venv/bin/pip install -e '.[web]')",
                name=exc.name)
        ) from None


def cmd_web(args: argparse.Namespace) -> int:
    require_web()
    from controller.web.app import VirtualOptions, run_virtual_table
    from controller.web.server import parse_address
    from controller.web.virtual import Agent, agent_for

    parse_address(args.address)  # a bad address is refused before anything opens
    from controller.cli.publishing import check_publish, open_publisher, remote_credentials

    publish = check_publish(args)  # a bad --publish: one line, before anything is opened
    creds = remote_credentials() if publish is not None else None
    access = web_access(args, args.address)
    from controller.cli.clocking import clock_options

    clock = clock_options(args)  # --clock M+S (a bad one: one line, nothing opened)
    agents: dict[str, Agent] = {}
    names = []
    for side, spec, offset in (("w", args.white, 0), ("b", args.black, 1)):
        agent = agent_for(spec, side, args.seed + offset)
        if agent is not None:
            agents[side] = agent
        names.append(("White" if side == "w" else "Black") if agent is None
                     else f"computer ({spec.strip().lower()})")
    opened: list[Any] = []

    def open_journal() -> Any:  # once the address is bound: a busy port leaves no file
        from controller.journal.store import Journal

        opened.append(Journal(Path(args.journal), writer=True))  # one writer per journal
        return opened[-1]

    from controller.cli.speaking import open_speech

    speak = open_speech(args)  # a bad --speak-to: one line, before anything opens
    if speak is not None:
        opened.append(speak)
    try:
        opts = VirtualOptions(address=args.address, agents=agents, players=(names[0], names[1]),
                              auto_remove=not args.manual_remove, share_hints=args.share_hints,
                              **access,
                              open_journal=open_journal if args.journal else None,
                              speak=speak, clock=clock)
        from controller.cli.tutoring import learning, tutor_level

        opts.tutor, opts.learn = tutor_level(args), learning(args)
        if publish is not None and creds is not None:
            opts.publish = open_publisher(publish, creds)
            opened.append(opts.publish)
        ctl = run_virtual_table(opts, sys.stdout)
        if ctl.game.is_over():
            w, b = ctl.game.score()
            print(f"over white={w} black={b}", flush=True)
    finally:
        for journal in opened:
            journal.close()
    return 0


# ----------------------------------------------------------------------- play/demo --web
def add_web_option(parser: Any) -> None:
    """The ``--web [HOST:]PORT`` option of play and demo."""
    parser.add_argument("--web", metavar="[HOST:]PORT",
                        help=_("also serve the live web view here (phones, spectators)"))
    add_access_options(parser)


def bind_web_view(address: str, *, palette: Any = None,
                  access: dict[str, Any] | None = None) -> Any:
    """A WebView for ``play --web`` / ``demo --web`` with its address taken (DvonnError when
    it is busy), not serving yet: bind it before the journal is opened, so a busy port leaves
    no file. ``palette``: the LED palette (a Palette or a dict), mirrored on the page;
    ``access``: :func:`web_access` of the command's options."""
    require_web()
    from controller.web.app import WebView

    web = WebView(address, palette=getattr(palette, "colours", palette), **(access or {}))
    web.bind()
    return web


def start_web_view(address: str | Any, *, camera: Any = None, palette: Any = None,
                   access: dict[str, Any] | None = None) -> Any:
    """A started WebView for ``play --web`` / ``demo --web`` (attach it to the controller):
    ``address``, or a WebView from :func:`bind_web_view`. Prints the page's address and a
    pairing code on stdout. ``camera``: the camera sensor (its annotated frames are served)
    or None."""
    web = (bind_web_view(address, palette=palette, access=access) if isinstance(address, str)
           else address)
    frame = getattr(camera, "last_annotated", None)
    if frame is not None:
        web.use_camera(frame)
    try:
        web.start(sys.stdout)
    except BaseException:
        web.stop()
        raise
    return web
