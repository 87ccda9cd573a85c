"""``--publish mqtt://HOST[:PORT]/CLUB/TABLE`` of ``play``, ``demo`` and ``web``: the table's
state for the club's broadcast page (controller.remote.publisher; ``dvonn-board broadcast``
shows it). Credentials and TLS come from the config's ``[remote]`` section or the environment
(controller.remote.url.credentials), never from the command line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from controller.i18n import _
from controller.remote.url import BrokerURL, Credentials, credentials, parse_url


def add_publish_option(p: Any) -> None:
    """The ``--publish`` option of play, demo and web."""
    p.add_argument("--publish", metavar="mqtt://HOST[:PORT]/CLUB/TABLE",
                   help=_("publish the table's state on this MQTT broker for the club's "
                          "broadcast page (dvonn-board broadcast)"))


def check_publish(args: argparse.Namespace) -> BrokerURL | None:
    """``--publish``'s broker address (BrokerURLError, one line, when it is not one), checked
    before anything is opened; None without the option."""
    text = getattr(args, "publish", None)
    if not text:
        return None
    return parse_url(text, levels=(2, 2), what="--publish")


def remote_credentials(config: Any = None, path: str | None = None) -> Credentials:
    """The broker credentials: the config's ``[remote]`` section (``config``: a loaded
    config, else the file at ``path`` or the default one when it exists), then the
    environment."""
    section: Any = None
    if config is None:
        from controller.config.settings import default_config_path, load_config

        if path is not None or default_config_path().exists():
            config = load_config(path)
    if config is not None:
        section = getattr(config, "remote", None)
    if section is not None and not isinstance(section, dict):
        section = {k: v for k, v in vars(section).items() if not k.startswith("_")} \
            if hasattr(section, "__dict__") else dict(section)
    return credentials(section)


def open_publisher(url: BrokerURL, creds: Credentials, out: Any = sys.stderr) -> Any:
    """A StatePublisher of ``url`` (the spectators' variant of the state); says where."""
    from controller.remote.publisher import StatePublisher

    shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    try:
        from controller.web.hub import public_state

        def shape(state: dict[str, Any]) -> dict[str, Any]:
            return public_state(state, False)
    except ImportError:  # pragma: no cover - the web extra is not installed
        shape = None
    publisher = StatePublisher(url, credentials=creds, shape=shape)
    print(f"publishing the table's state to {url} (the club's broadcast page shows it)",
          file=out, flush=True)
    return publisher
