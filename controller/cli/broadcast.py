"""``dvonn-board broadcast [HOST:]PORT --broker mqtt://HOST[:PORT]/CLUB``: every table of a
club on one page (controller.web.broadcast). The tables publish with ``--publish``
(controller.cli.publishing). Credentials and TLS come from the config's ``[remote]`` section
or the environment (controller.remote.url.credentials), never from the command line.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from controller.i18n import Msg, _
from controller.remote.url import parse_url
from engine.errors import DvonnError

DEFAULT_ADDRESS = "0.0.0.0:8090"


def register(sub: Any) -> None:
    """Add ``broadcast``."""
    p = sub.add_parser("broadcast", help=_("one page with every table of a club, live, from "
                                           "an MQTT broker"))
    p.add_argument("address", nargs="?", default=DEFAULT_ADDRESS, metavar="[HOST:]PORT",
                   help=_("where to serve (default {address}; port 0: any free port)").format(
                       address=DEFAULT_ADDRESS))
    p.add_argument("--broker", required=True, metavar="mqtt://HOST[:PORT]/CLUB",
                   help=_("the broker and the club whose tables publish there (--publish "
                          "mqtt://HOST/CLUB/TABLE)"))
    p.add_argument("--config", metavar="FILE",
                   help=_("config file (TOML): its [remote] section's credentials and TLS"))
    p.add_argument("--web-host-name", action="append", default=[], metavar="NAME",
                   help=_("one more host name the page is served under (repeatable); its own "
                          "addresses, localhost, HOSTNAME and HOSTNAME.local always are"))
    p.set_defaults(func=cmd_broadcast)


def cmd_broadcast(args: argparse.Namespace) -> int:
    from controller.cli.web import require_web

    url = parse_url(args.broker, levels=(1, 1), what="--broker")
    require_web()
    from controller.web.guard import plain_host
    from controller.web.server import parse_address

    host, port = parse_address(args.address)
    names = []
    for name in args.web_host_name:
        plain = plain_host(name)
        if plain is None:
            raise DvonnError(Msg("--web-host-name {name!r}: a host name or address, no port",
                                 name=name))
        names.append(plain)
    from controller.cli.publishing import remote_credentials

    creds = remote_credentials(path=args.config)
    from controller.web.broadcast import BroadcastServer

    server = BroadcastServer(url, host=host, port=port, credentials=creds,
                             host_names=tuple(names))
    server.start()
    try:
        urls = server.urls()
        print(f"broadcast of club {url.path[0]} from {url}: {urls[0]}", flush=True)
        for extra in urls[1:]:
            print(f"broadcast on the network: {extra}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopped", flush=True)
    finally:
        server.stop()
    return 0
