"""Broker addresses: ``mqtt://HOST[:PORT]/PATH`` (``mqtts://`` for TLS, default ports 1883/8883).

The path is the topic prefix: a match name (``remote:mqtt://HOST/MATCH``), a club and table
(``--publish mqtt://HOST/CLUB/TABLE``) or a club (``broadcast --broker mqtt://HOST/CLUB``).
Credentials never come from the command line (they would show in ``ps`` and shell
histories): a user name or password in the URL is refused. They come from the config's
``[remote]`` section or the environment: ``DVONN_MQTT_USERNAME``, ``DVONN_MQTT_PASSWORD``
(or ``DVONN_MQTT_PASSWORD_FILE``), ``DVONN_MQTT_CA_FILE`` and ``DVONN_MQTT_TLS=1``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from controller.i18n import Msg, config_error
from engine.errors import DvonnError

DEFAULT_PORT = 1883
TLS_PORT = 8883
#: A topic level: letters, digits and ``-_.`` (no MQTT wildcards, no empty levels).
class BrokerURLError(DvonnError, ValueError):
    """A broker address that cannot be used; the message quotes it and says why."""


_LEVEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Credentials:
    """How to log in to the broker (all optional)."""

    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: bool = False
    ca_file: str | None = None


@dataclass(frozen=True)
class BrokerURL:
    """A parsed ``mqtt://HOST[:PORT]/PATH``; ``path`` is the list of topic levels."""

    host: str
    port: int
    path: tuple[str, ...]
    tls: bool = False

    @property
    def prefix(self) -> str:
        """The topic prefix (``CLUB/TABLE``)."""
        return "/".join(self.path)

    def __str__(self) -> str:
        scheme = "mqtts" if self.tls else "mqtt"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{self.port}/{self.prefix}"


def parse_url(text: str, *, levels: tuple[int, int] = (1, 2), what: str = "broker") -> BrokerURL:
    """Parse ``text``; ``levels``: how many path levels are allowed (min, max). ConfigError
    quotes the text and says what is wrong."""
    m = re.fullmatch(r"(mqtts?)://([^/]*)(/.*)?", text.strip())
    if m is None:
        raise BrokerURLError(Msg("{what} {text!r}: expected mqtt://HOST[:PORT]/PATH",
                              what=what, text=text))
    scheme, netloc, path = m.group(1), m.group(2), (m.group(3) or "")
    if "@" in netloc:
        raise BrokerURLError(Msg("{what} {text!r}: no user name or password on the command line; "
                              "use the config's [remote] section or DVONN_MQTT_USERNAME and "
                              "DVONN_MQTT_PASSWORD", what=what, text=text))
    tls = scheme == "mqtts"
    port = TLS_PORT if tls else DEFAULT_PORT
    host = netloc
    v6 = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::(\d+))?", netloc)
    if v6:
        host = v6.group(1)
        if v6.group(2):
            port = int(v6.group(2))
    elif ":" in netloc:
        host, _, digits = netloc.rpartition(":")
        if not digits.isdigit():
            raise BrokerURLError(Msg("{what} {text!r}: port {port!r} is not a number",
                                  what=what, text=text, port=digits))
        port = int(digits)
    if not host or not re.fullmatch(r"[A-Za-z0-9.:_-]+", host):
        raise BrokerURLError(Msg("{what} {text!r}: no host name", what=what, text=text))
    if not 1 <= port <= 65535:
        raise BrokerURLError(Msg("{what} {text!r}: port {port} is not 1-65535",
                              what=what, text=text, port=port))
    raw = path.split("/")[1:] if path else []
    parts = tuple(raw)
    lo, hi = levels
    if not lo <= len(parts) <= hi or "" in parts:
        raise BrokerURLError(Msg("{what} {text!r}: the path must have {lo} to {hi} level(s), "
                              "e.g. mqtt://HOST/{example}", what=what, text=text, lo=lo, hi=hi,
                              example="/".join(("club", "table", "x")[:hi])))
    for part in parts:
        if not _LEVEL.match(part):
            raise BrokerURLError(Msg("{what} {text!r}: {part!r} is not a topic name (letters, "
                                  "digits, - _ . only)", what=what, text=text, part=part))
    return BrokerURL(host, port, parts, tls)


def credentials(config: Mapping[str, object] | None = None,
                env: Mapping[str, str] | None = None) -> Credentials:
    """Credentials from the config's ``[remote]`` table (``username``, ``password_file``,
    ``tls``, ``ca_file``), overridden by the environment."""
    env = os.environ if env is None else env
    cfg = dict(config or {})
    username = env.get("DVONN_MQTT_USERNAME") or _opt(cfg.get("username"))
    password = env.get("DVONN_MQTT_PASSWORD")
    password_file = env.get("DVONN_MQTT_PASSWORD_FILE") or _opt(cfg.get("password_file"))
    if password is None and password_file:
        try:
            password = Path(password_file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise config_error("remote.password_file", Msg(
                "cannot read {path} ({error})", path=password_file,
                error=exc.strerror or exc)) from None
    ca_file = env.get("DVONN_MQTT_CA_FILE") or _opt(cfg.get("ca_file"))
    tls = env.get("DVONN_MQTT_TLS", "") not in ("", "0") or bool(cfg.get("tls")) or bool(ca_file)
    return Credentials(username, password, tls, ca_file)


def _opt(value: object) -> str | None:
    return str(value) if value else None
