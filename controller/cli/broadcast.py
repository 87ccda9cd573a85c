"""``dvonn-board broadcast [HOST:]PORT --broker mqtt://HOST[:PORT]/CLUB``: every table of a
club on one page (controller.web.broadcast). The tables publish with ``--publish``
(controller.cli.publishing). Credentials and TLS come from the config's ``[remote]`` section
or the environment (controller.remote.url.credentials), never from the command line.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from controller.cli.web import add_host_name_option, host_names, require_web
from controller.i18n import _
from controller.remote.url import parse_url

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
    add_host_name_option(p)
    p.set_defaults(func=cmd_broadcast)


def cmd_broadcast(args: argparse.Namespace) -> int:
    url = parse_url(args.broker, levels=(1, 1), what="--broker")
    require_web()
    from controller.web.server import parse_address

    host, port = parse_address(args.address)
    names = host_names(args)
    from controller.cli.publishing import remote_credentials

    creds = remote_credentials(path=args.config)
    from controller.web.broadcast import BroadcastServer

    server = BroadcastServer(url, host=host, port=port, credentials=creds,
                             host_names=names)
    server.start()
    try:
        urls = server.urls()
        print(_("broadcast of club {club} from {broker}: {url}").format(
            club=url.path[0], broker=url, url=urls[0]), flush=True)
        for extra in urls[1:]:
            print(_("broadcast on the network: {url}").format(url=extra), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print(_("stopped"), flush=True)
    finally:
        server.stop()
    return 0
