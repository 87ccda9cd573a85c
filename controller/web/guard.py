"""The web server's gate (an ASGI middleware): which requests reach the routes at all.

- **Host** (DNS rebinding): only the names and addresses the table really has are served:
  its IP literals (every address of a local interface, the bound address, any loopback
  address), ``localhost``, its host name and ``HOSTNAME.local``, and the names given by
  ``--web-host-name``. Any other ``Host`` gets 421, a request without one 400. A web page
  on the internet that points its own name at the table's address is refused this way.
- **Control requests** (every method but GET and HEAD: the buttons, pairing, revoking) must
  come from the table's own page: an ``Origin`` header, when there is one, names this
  server's own origin, a ``Sec-Fetch-Site`` header, when there is one, says
  ``same-origin``, and the request carries ``X-Dvonn-Request`` (the page's ``fetch`` sends
  it) or ``X-Dvonn-Token`` (scripts). A page of another site (or of another port of this
  host) cannot add such a header without the browser asking first, which this server never
  allows, and a cross-site form cannot add one at all. Otherwise: 403.
- **Size**: a request body over :data:`MAX_BODY` bytes (by its ``Content-Length``) gets 413,
  a request line and headers over :data:`MAX_HEAD` bytes 431.
- **Every response** refuses to be framed (``Content-Security-Policy: frame-ancestors
  'none'`` and ``X-Frame-Options: DENY``), to be read by other origins' pages
  (``Cross-Origin-Resource-Policy: same-origin``), to be sniffed (``nosniff``) and to send a
  referrer; the page runs only the server's own script. A ``Location`` header is made
  relative: no redirect is ever built from the ``Host`` a client sent.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any

from controller.i18n import Msg, in_every_language

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The header the page's own requests carry (a cross-site page or form cannot send it).
REQUEST_HEADER = "x-dvonn-request"
TOKEN_HEADER = "x-dvonn-token"
#: Largest request body served (a pairing request is well under 1 kB).
MAX_BODY = 16 * 1024
#: Largest request line and headers served (cookies of other servers on the host included).
MAX_HEAD = 8 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD"})
#: The script's and style's only source is the table itself; the page's inline JSON is
#: data, never run; inline style: the palette's colours.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})


# ---------------------------------------------------------------------------- host names
def host_name(host_header: str) -> str | None:
    """The name or address in a ``Host`` header (port and IPv6 brackets taken off, lower
    case, no trailing dot); None when it is not one."""
    text = host_header.strip().lower()
    if text.startswith("["):
        inner, sep, rest = text[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        text = inner
    else:
        name, sep, port = text.rpartition(":")
        if sep:
            if not port.isdigit() or ":" in name:
                return None
            text = name
    text = text.rstrip(".")
    if not text or any(c.isspace() or c in "/\\@?#" for c in text):
        return None
    return text


_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def plain_host(text: str) -> str | None:
    """``text`` as a host name or address without a port (lower case), or None."""
    name = text.strip().lower().rstrip(".")
    ip = _ip(name.removeprefix("[").removesuffix("]"))
    if ip is not None:
        return str(ip)
    labels = name.split(".")
    if len(name) > 253 or labels[-1].isdigit() or not all(_LABEL.fullmatch(x) for x in labels):
        return None
    return name


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return None


def local_addresses() -> set[str]:
    """Every address of this machine's interfaces that can be found without privileges
    (Linux: /proc; elsewhere: what the host name resolves to and the outgoing address)."""
    found: set[str] = set()
    try:  # IPv4: the kernel's local routing table lists every local address
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        for before, line in zip(lines, lines[1:], strict=False):
            if line.strip() == "/32 host LOCAL":
                found.add(before.strip().lstrip("|-+` ").strip())
    except OSError:
        pass
    try:
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0] if line.split() else ""
            if len(raw) == 32:
                found.add(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
    except (OSError, ValueError):
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]).partition("%")[0])
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 1))  # no packet is sent
            found.add(str(s.getsockname()[0]))
    except OSError:
        pass
    return {str(ip) for ip in map(_ip, found) if ip is not None}


class HostCheck:
    """Whether a ``Host`` names this table (see the module docstring). The interfaces'
    addresses are read again, at most every ``refresh`` seconds, when an address literal is
    not among them (a phone may come in on an address the table got after it started)."""

    def __init__(self, bound: str = "", names: Iterable[str] = (), *,
                 refresh: float = 2.0,
                 addresses: Callable[[], set[str]] = local_addresses) -> None:
        hostname = socket.gethostname().lower().rstrip(".")
        short = hostname.split(".")[0]
        self.names = set(LOOPBACK_NAMES) | {n.lower().rstrip(".") for n in names if n}
        self.names |= {n for n in (hostname, short, f"{short}.local", f"{hostname}.local")
                       if n and n != ".local"}
        self.bound = _ip(bound) if bound not in WILDCARDS else None
        self.refresh = refresh
        self._addresses = addresses
        self._known: set[str] = addresses()
        self._read_at = time.monotonic()

    def allowed(self, host_header: str) -> bool:
        name = host_name(host_header)
        if name is None:
            return False
        ip = _ip(name)
        if ip is None:
            return name in self.names
        if ip.is_loopback or ip == self.bound or str(ip) in self.names:
            return True
        if str(ip) in self._known:
            return True
        if time.monotonic() - self._read_at >= self.refresh:
            self._known = self._addresses()
            self._read_at = time.monotonic()
        return str(ip) in self._known


# ---------------------------------------------------------------------------- the middleware
def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers") or ():
        name = key.decode("latin-1").lower()
        text = value.decode("latin-1")
        out[name] = f"{out[name]},{text}" if name in out and name != "host" else text
    return out


def _relative(location: bytes) -> bytes:
    """An absolute ``Location`` as a path on this server (the host part is dropped)."""
    text = location.decode("latin-1")
    scheme, sep, rest = text.partition("://")
    if not sep or "/" in scheme:
        return location
    path = rest[rest.find("/"):] if "/" in rest else "/"
    return path.encode("latin-1")


class Guard:
    """The gate in front of the routes (see the module docstring)."""

    def __init__(self, app: ASGIApp, hosts: HostCheck, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.hosts = hosts
        self.max_body = max_body

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, reason) when the request must not reach the routes, else None."""
        head = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
        head += sum(len(k) + len(v) + 4 for k, v in scope.get("headers") or ())
        if head > MAX_HEAD:
            return 431, Msg("a request line and headers may have at most {limit} bytes",
                           limit=MAX_HEAD)
        headers = _headers(scope)
        host = headers.get("host")
        if host is None:
            return 400, Msg("a request needs a Host header")
        if not self.hosts.allowed(host):
            return 421, Msg("this table does not answer to that host name")
        length = headers.get("content-length", "0").strip()
        if not length.isdigit() or int(length) > self.max_body:
            return 413, Msg("a request body may have at most {limit} bytes", limit=self.max_body)
        if scope.get("method", "GET") in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in (f"http://{host.lower()}",
                                                         f"https://{host.lower()}"):
            return 403, Msg("a control request from another site's page is refused")
        site = headers.get("sec-fetch-site")
        if site is not None and site.lower() != "same-origin":
            return 403, Msg("a control request from another site's page is refused")
        if REQUEST_HEADER not in headers and TOKEN_HEADER not in headers:
            return 403, Msg("a control request needs the X-Dvonn-Request header (the page "
                            "sends it) or X-Dvonn-Token (scripts)")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, _relative(v) if k.lower() == b"location" else v)
                           for k, v in message.get("headers") or ()]
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = dict(message, headers=headers)
            await send(message)

        refused = self.refusal(scope)
        if refused is None:
            await self.app(scope, receive, send_guarded)
            return
        status, reason = refused
        body = json.dumps({"ok": False, "detail": reason,
                           "details": in_every_language(reason)}).encode()
        await send_guarded({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store")]})
        await send_guarded({"type": "http.response.body",
                            "body": b"" if scope.get("method") == "HEAD" else body})
