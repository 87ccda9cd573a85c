"""Pairing phones with the table, like a TV app: a one-time code for a per-device session.

- **Codes.** The table shows a 6-digit code on its terminal (and once, at start, a URL that
  carries it, for a table without a screen). A code is good for one phone and
  :data:`CODE_TTL` seconds. A page asks for a new one with ``POST /api/pair/request``: the
  code is printed on the table's terminal (a phone paired for both seats, or a script with
  the token, gets it in the answer too, to pair another phone).
- **Pairing.** ``POST /api/pair`` with ``{"code": "123456", "seat": "white" | "black" |
  "both", "name": "optional"}`` uses the code up and answers a session: a random id in an
  HttpOnly SameSite=Strict cookie. The server keeps only its SHA-256, with the device's name
  (given, or from its User-Agent), its seat and when it was last seen, in a small JSON file
  (written atomically, mode 0600), so a restart keeps the phones paired.
- **Throttling.** :data:`FAILURES` wrong codes (or wrong ``X-Dvonn-Token`` headers) a minute
  from one address (an IPv6 /64), or :data:`GLOBAL_FAILURES` from all, and pairing answers
  429 until the minute is over.
- **Devices.** ``GET /api/devices`` lists the paired devices and ``POST
  /api/devices/ID/revoke`` ends one's session at once; both for paired devices only (any
  seat: a player can cut off a stranger's or a lost phone).
- **Seats** (:func:`seat_refusal`): a device paired for one seat clicks, confirms and picks
  (``next``) only on its side's turn, and undoes only its side's (or the computer's) last
  action; ``hint``, ``share`` and ``new`` are seat-neutral: any paired device. A device
  paired for both seats, and a script with the token, act for either side.
- **The token** (``--token-file`` or ``DVONN_WEB_TOKEN``) is for scripts: the
  ``X-Dvonn-Token`` header, acting for both seats. It never goes into a cookie or a URL.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from controller.files import write_atomically
from controller.i18n import Msg, in_every_language
from controller.i18n import side as side_name
from engine.errors import DvonnError
from engine.game import Game
from engine.move import PASS

CODE_DIGITS = 6
CODE_TTL = 300.0  # seconds a pairing code lives
CODE_REANNOUNCE = 10.0  # a code asked for again is printed again at most this often
FAILURES = 5  # wrong codes or tokens a minute from one address, then 429
GLOBAL_FAILURES = 30  # ... from all addresses together
REQUESTS = 5  # code requests a minute from one address
WINDOW = 60.0
MAX_DEVICES = 64  # the least recently seen device goes when one more pairs
SAVE_EVERY = 60.0  # seconds between writes of the devices' 'last seen' times
SEATS = {"white": "w", "black": "b", "both": ""}
SIDE_NAMES = {"w": "White", "b": "Black"}
#: Controls any paired device may send, whatever its seat.
NEUTRAL = frozenset({"hint", "share", "new"})
FORMAT = "dvonn-board/web-devices"


class Refused(Exception):
    """A pairing request refused: the HTTP status and the reason (and seconds to wait)."""

    def __init__(self, status: int, detail: str, retry_after: int = 0) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after

    def body(self) -> dict[str, Any]:
        """The answer's JSON: ``detail`` in English, ``details`` in every language."""
        return refusal_body(self.detail)


def refusal_body(detail: str) -> dict[str, Any]:
    """``{"ok": false, "detail": English, "details": {"en": ..., "de": ...}}`` (a Msg
    ``detail`` is shown in the page's language; a plain one as a fixed catalog message)."""
    return {"ok": False, "detail": detail, "details": in_every_language(detail)}


@dataclass
class Device:
    """A paired device: ``key`` is the SHA-256 (hex) of its session id, never the id."""

    id: str
    key: str
    name: str
    seat: str  # white, black or both
    paired_at: float
    last_seen: float

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "seat": self.seat,
                "paired_at": round(self.paired_at), "last_seen": round(self.last_seen)}


@dataclass(frozen=True)
class Who:
    """Who sent a request: a paired device, or (``device`` None) a script with the token."""

    seat: str  # white, black or both
    device: Device | None = None

    @property
    def side(self) -> str:
        """'w' or 'b' for a one-seat device, '' for both seats."""
        return SEATS[self.seat]


def address_key(address: str) -> str:
    """The throttle's key of a client address: the address, or its /64 for IPv6."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip.ipv4_mapped or ip) if isinstance(ip, ipaddress.IPv6Address) else str(ip)


class Throttle:
    """At most ``limit`` events per ``window`` seconds for each key."""

    def __init__(self, limit: int, window: float = WINDOW) -> None:
        self.limit = limit
        self.window = window
        self._events: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            if len(self._events) > 4096:  # forget quiet addresses
                self._events = {k: v for k, v in self._events.items()
                                if v and now - v[-1] < self.window}
            events = self._events[key] = deque()
        while events and now - events[0] >= self.window:
            events.popleft()
        return events

    def wait(self, key: str, now: float) -> int:
        """Seconds until ``key`` may try again (0: now)."""
        events = self._recent(key, now)
        if len(events) < self.limit:
            return 0
        return max(1, int(events[0] + self.window - now + 0.999))

    def add(self, key: str, now: float) -> None:
        self._recent(key, now).append(now)


def device_name(user_agent: str) -> str:
    """A short name for a device from its User-Agent, the same in every language
    ('Chrome (Android)'; 'Browser' when the User-Agent names neither)."""
    ua = user_agent.lower()
    system = next((n for k, n in (("iphone", "iPhone"), ("ipad", "iPad"),
                                  ("android", "Android"), ("cros", "ChromeOS"),
                                  ("windows", "Windows"), ("mac os", "Mac"),
                                  ("linux", "Linux")) if k in ua), "")
    browser = next((n for k, n in (("firefox", "Firefox"), ("edg/", "Edge"), ("opr/", "Opera"),
                                   ("chrom", "Chrome"), ("safari", "Safari"), ("curl", "curl"),
                                   ("python", "Python")) if k in ua), "")
    if browser and system:
        return f"{browser} ({system})"
    return browser or system or "Browser"


def clean_name(text: Any) -> str:
    """A device name as given (printable, at most 40 characters), or ''."""
    if not isinstance(text, str):
        return ""
    return "".join(c for c in text if c.isprintable()).strip()[:40]


class Pairing:
    """Codes, sessions, throttles and the devices file of one server (module docstring).

    ``token``: the scripts' token or None; ``path``: the devices file or None (kept in
    memory only); ``announce``: prints a line on the table's terminal."""

    def __init__(self, token: str | None = None, path: Path | None = None, *,
                 clock: Callable[[], float] = time.time,
                 announce: Callable[[str], None] | None = None) -> None:
        self.token = token
        self.path = path
        self.clock = clock
        self.announce = announce or (lambda line: None)
        self._lock = threading.Lock()
        self._code: tuple[str, float] | None = None  # (code, expires at)
        self._announced = float("-inf")
        self._devices: dict[str, Device] = {}  # by key
        self._failures = Throttle(FAILURES)
        self._all_failures = Throttle(GLOBAL_FAILURES)
        self._requests = Throttle(REQUESTS)
        self._dirty = False
        self._saved_at = clock()
        if path is not None:
            self._load(path)

    # ------------------------------------------------------------------ codes
    def new_code(self) -> str:
        """A fresh pairing code (the one before it is void)."""
        code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
        with self._lock:
            self._code = (code, self.clock() + CODE_TTL)
        return code

    def code(self) -> str | None:
        """The pairing code in force, if any."""
        with self._lock:
            if self._code is None or self.clock() >= self._code[1]:
                return None
            return self._code[0]

    def request_code(self, address: str, who: Who | None) -> str:
        """A code for a page that asked for one: printed on the terminal (the one in force
        when it has a minute left, else a new one); Refused 429 when asked too often."""
        now = self.clock()
        key = address_key(address)
        with self._lock:
            wait = self._requests.wait(key, now)
            if wait and (who is None or who.device is not None and who.seat != "both"):
                raise Refused(429, Msg("too many code requests: wait a minute"), wait)
            self._requests.add(key, now)
            current = self._code
        if current is None or current[1] - now < 60:
            code, again = self.new_code(), True
        else:
            code, again = current[0], now - self._announced >= CODE_REANNOUNCE
        if again:
            self._announced = now
            self.announce(f"pairing code: {code} (one phone, {int(CODE_TTL // 60)} minutes)")
        return code

    def _throttled(self, key: str, now: float) -> int:
        return max(self._failures.wait(key, now), self._all_failures.wait("", now))

    def _failed(self, key: str, now: float) -> None:
        self._failures.add(key, now)
        self._all_failures.add("", now)

    def pair(self, code: Any, seat: Any, name: str, address: str) -> tuple[Device, str]:
        """Use the code up: a new device and its session id; Refused otherwise."""
        now = self.clock()
        key = address_key(address)
        if not isinstance(code, str) or len(code) != CODE_DIGITS or not code.isdigit():
            raise Refused(400, Msg("a pairing code is {digits} digits", digits=CODE_DIGITS))
        if seat not in SEATS:
            raise Refused(400, Msg("seat: white, black or both"))
        with self._lock:
            wait = self._throttled(key, now)
            if wait:
                raise Refused(429, Msg("too many wrong codes: wait {wait} s", wait=wait), wait)
            current = self._code
            if (current is None or now >= current[1]
                    or not hmac.compare_digest(code.encode(), current[0].encode())):
                self._failed(key, now)
                raise Refused(403, Msg("wrong or expired pairing code: ask the table for a "
                                       "new one"))
            self._code = None  # one phone per code
            session = secrets.token_urlsafe(32)
            device = Device(secrets.token_hex(8), _hash(session), name or "Browser", seat,
                            now, now)
            self._devices[device.key] = device
            while len(self._devices) > MAX_DEVICES:
                oldest = min(self._devices.values(), key=lambda d: d.last_seen)
                del self._devices[oldest.key]
        self.save()
        return device, session

    # ------------------------------------------------------------------ sessions
    def identify(self, session: str | None, token: str | None, address: str) -> Who | None:
        """Who sends a request with this session cookie and token header (None: nobody
        paired). A wrong token counts as a failed attempt of ``address``."""
        if token is not None and self.token is not None:
            now = self.clock()
            key = address_key(address)
            with self._lock:
                if not self._throttled(key, now):
                    if hmac.compare_digest(token.encode(), self.token.encode()):
                        return Who("both")
                    self._failed(key, now)
        elif token is not None:
            with self._lock:
                self._failed(address_key(address), self.clock())
        if not session:
            return None
        with self._lock:
            device = self._devices.get(_hash(session))
            if device is None:
                return None
            now = self.clock()
            if now - device.last_seen > 30:
                device.last_seen = now
                self._dirty = True
            due = self._dirty and now - self._saved_at >= SAVE_EVERY
        if due:
            self.save()
        return Who(device.seat, device)

    def throttled(self, address: str) -> int:
        """Seconds ``address`` must wait before it may try a code or token again."""
        with self._lock:
            return self._throttled(address_key(address), self.clock())

    def failed(self, address: str) -> None:
        """A wrong code of another kind (a remote seat's invitation) from ``address``: it
        counts against the same limits as a wrong pairing code."""
        with self._lock:
            self._failed(address_key(address), self.clock())

    def devices(self) -> list[Device]:
        with self._lock:
            return sorted(self._devices.values(), key=lambda d: d.paired_at)

    def revoke(self, device_id: str) -> bool:
        """End a device's session now; False when there is no such device."""
        with self._lock:
            found = [d for d in self._devices.values() if d.id == device_id]
            for d in found:
                del self._devices[d.key]
        if found:
            self.save()
        return bool(found)

    # ------------------------------------------------------------------ the file
    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise DvonnError(Msg("{path}: the paired devices cannot be read ({exc}); delete the "
                                 "file to forget them (phones pair again)",
                                 path=path, exc=exc)) from None
        try:
            assert data["format"] == FORMAT
            for d in data["devices"]:
                device = Device(str(d["id"]), str(d["key"]), clean_name(d["name"]),
                                str(d["seat"]), float(d["paired_at"]), float(d["last_seen"]))
                if device.seat in SEATS and len(device.key) == 64:
                    self._devices[device.key] = device
        except (AssertionError, KeyError, TypeError, ValueError):
            raise DvonnError(Msg("{path}: not a file of paired devices; delete it to forget them "
                                 "(phones pair again)",
                                 path=path)) from None

    def save(self) -> None:
        """Write the devices file now (atomically, mode 0600), when there is one."""
        with self._lock:
            self._dirty = False
            self._saved_at = self.clock()
            devices = [asdict(d) for d in sorted(self._devices.values(),
                                                  key=lambda d: d.paired_at)]
        if self.path is None:
            return
        text = json.dumps({"format": FORMAT, "version": 1, "devices": devices}, indent=1)
        with self._lock:  # one writer at a time
            write_atomically(self.path, text, private=True)

    def close(self) -> None:
        """Save the last-seen times if they changed."""
        if self._dirty:
            self.save()


def _hash(session: str) -> str:
    return hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()


# ---------------------------------------------------------------------------- seats
def last_mover(actions: list[str]) -> str | None:
    """The side ('w' or 'b') that made the last action other than a pass, if any."""
    try:
        game = Game.from_moves(actions)
    except (DvonnError, ValueError):
        return None
    while game.move_stack and game.move_stack[-1] == PASS:
        game.pop()
    if not game.move_stack:
        return None
    game.pop()
    return str(game.turn)


def seat_refusal(side: str, name: str, cell: str, state: dict[str, Any] | None,
                 computer: Collection[str] = ()) -> str:
    """Why a device playing ``side`` ('w'/'b'; '' for both) may not send control ``name``
    (``cell`` for a click) in ``state``; '' when it may (see the module docstring)."""
    if not side or name in NEUTRAL or state is None:
        return ""
    me, other = side_name(side), side_name("b" if side == "w" else "w")
    if name == "undo":
        mover = last_mover(list(state.get("actions") or []))
        if mover is None or mover == side or mover in computer:
            return ""
        return Msg("this device plays {me}: the last action was {other}'s", me=me, other=other)
    roles = state.get("roles") or {}
    if name == "click" and roles.get(cell.upper()) == "remove":
        return ""  # whoever is at the table takes a cut-off stack away
    if state.get("phase") == "over" or state.get("turn") == side:
        return ""
    return Msg("this device plays {me}: it is {other}'s turn", me=me, other=other)
