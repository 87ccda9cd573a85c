"""StateHub: the latest table state, handed from the controller's thread to every open page.

The thread that drives the TableController calls :meth:`StateHub.publish` with a
``table_state`` dict; the web server's asyncio loop fans it out to every subscriber (one per
open event stream). Each published state gets the next sequence number; a subscriber first
receives the whole current state, then every later one in order. Every message is a whole
state, so a page that falls behind (its queue full) skips to the newest state instead of
holding the server's memory: it never misses the latest one.

Spectators (pages of devices that are not paired) get a *public* variant: hints and analysis are
taken out unless the players share them (:meth:`StateHub.set_share_hints`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass
from typing import Any

#: Roles that are hints: a spectator sees them only when the players share their hints.
HINT_ROLES = frozenset({"movable"})
#: Keys of a state that carry analysis (a computer's evaluation, its hint).
PRIVATE_KEYS = ("analysis",)
QUEUE_SIZE = 1024  # states a page may fall behind before it skips to the newest


@dataclass(frozen=True)
class Message:
    """One published state: its sequence number and both variants, encoded once (as JSON and
    as Server-Sent Events frames: ``id`` is the sequence number, ``event`` is state)."""

    seq: int
    full: bytes  # JSON of the state as published (players)
    public: bytes  # JSON of the spectators' variant
    frames: tuple[bytes, bytes] = (b"", b"")  # (spectators', players') SSE frames

    @staticmethod
    def make(seq: int, full: bytes, public: bytes) -> Message:
        frame = b"id: %d\nevent: state\ndata: %s\n\n"
        return Message(seq, full, public, (frame % (seq, public), frame % (seq, full)))

    def json(self, paired: bool) -> bytes:
        return self.full if paired else self.public

    def sse(self, paired: bool) -> bytes:
        """The Server-Sent Events frame of this state for a page."""
        return self.frames[paired]


#: Sent to every stream now and then so that proxies and phones keep a quiet stream open.
KEEPALIVE = Message(0, b"", b"", (b": keep-alive\n\n", b": keep-alive\n\n"))


def public_state(state: dict[str, Any], share_hints: bool) -> dict[str, Any]:
    """The spectators' variant unless hints are shared: no ``movable`` roles, no analysis,
    and none of what a hint lights (its action's ``suggest``, its cut-offs' ``remove``) or
    says (the message's ``hint:`` part)."""
    if share_hints:
        return state
    out = {k: None if k in PRIVATE_KEYS else v for k, v in state.items()}
    hinted: set[str] = set()
    shown = state.get("analysis")
    if isinstance(shown, dict):
        best = str(shown.get("best") or "")
        hinted = {best[i:i + 2].upper() for i in range(0, len(best) - 1, 2)}
        hinted |= {str(c) for c in shown.get("cuts") or ()}
    roles = state.get("roles")
    if isinstance(roles, dict):
        out["roles"] = {c: r for c, r in roles.items() if r not in HINT_ROLES
                        and not (c in hinted and r in ("suggest", "remove"))}
    blink = state.get("blink")
    if hinted and isinstance(blink, list):
        out["blink"] = [c for c in blink if c not in hinted]
    message = state.get("message")
    if isinstance(message, str) and "hint:" in message:
        parts = message.split(" | ")
        out["message"] = " | ".join(p for p in parts if not p.startswith("hint:"))
        messages = state.get("messages")
        if isinstance(messages, dict):  # the same parts in each language: drop the hint's
            out["messages"] = {lang: " | ".join(p for i, p in enumerate(str(m).split(" | "))
                                                if i >= len(parts) or
                                                not parts[i].startswith("hint:"))
                               for lang, m in messages.items()}
    return out


class Subscriber:
    """One open event stream: a bounded queue of messages on the server's loop."""

    def __init__(self, paired: bool) -> None:
        self.paired = paired
        self.queue: asyncio.Queue[Message | None] = asyncio.Queue(QUEUE_SIZE)
        self.skipped = 0

    def offer(self, msg: Message | None) -> None:
        """Queue ``msg`` (None: the stream ends); when full, drop the backlog, keep the newest."""
        try:
            self.queue.put_nowait(msg)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
                self.skipped += 1
            self.queue.put_nowait(msg)


class StateHub:
    """Thread-safe publication of states to asyncio subscribers (see the module docstring)."""

    def __init__(self, *, share_hints: bool = False) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: set[Subscriber] = set()
        self._state: dict[str, Any] | None = None
        self._seq = 0
        self._share_hints = share_hints
        self._latest: Message | None = None  # what subscribers have been sent (loop thread)
        self._closed = False

    # ------------------------------------------------------------------ any thread
    @property
    def share_hints(self) -> bool:
        return self._share_hints

    @property
    def state(self) -> dict[str, Any] | None:
        """The last published state (players' variant), or None before the first."""
        return self._state

    def publish(self, state: dict[str, Any]) -> int:
        """Publish a new state (any thread); returns its sequence number."""
        with self._lock:
            self._state = state
            return self._encode_and_send()

    def set_share_hints(self, share: bool) -> None:
        """Let spectators see hints (True) or not; republishes the current state."""
        with self._lock:
            self._share_hints = share
            if self._state is not None:
                self._encode_and_send()

    def _encode_and_send(self) -> int:
        assert self._state is not None
        self._seq += 1
        full = json.dumps(self._state, separators=(",", ":")).encode()
        public = full if self._share_hints else json.dumps(
            public_state(self._state, False), separators=(",", ":")).encode()
        msg = Message.make(self._seq, full, public)
        loop = self._loop
        if loop is None:
            self._latest = msg
        else:
            try:
                loop.call_soon_threadsafe(self._fan_out, msg)
            except RuntimeError:  # the loop has closed: nobody is listening
                self._latest = msg
        return msg.seq

    @property
    def latest(self) -> Message | None:
        """The newest message handed to subscribers (read it on the loop for consistency)."""
        return self._latest

    # ------------------------------------------------------------------ the server's loop
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver to subscribers on ``loop`` from now on (called on that loop)."""
        with self._lock:
            self._loop = loop

    def subscribe(self, paired: bool) -> Subscriber:
        """A new subscriber whose queue starts with the whole current state (on the loop)."""
        sub = Subscriber(paired)
        if self._closed:
            sub.offer(None)
            return sub
        if self._latest is not None:
            sub.offer(self._latest)
        self._subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subscribers.discard(sub)

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def _fan_out(self, msg: Message) -> None:
        if self._latest is not None and msg.seq <= self._latest.seq:
            return
        self._latest = msg
        for sub in self._subscribers:
            sub.offer(msg)

    def keep_alive(self) -> None:
        """A comment to every stream that has nothing queued (on the loop)."""
        for sub in self._subscribers:
            if sub.queue.empty():
                sub.offer(KEEPALIVE)

    def close(self) -> None:
        """End every stream (on the loop): the server is stopping."""
        self._closed = True
        for sub in self._subscribers:
            sub.offer(None)
        self._subscribers.clear()
