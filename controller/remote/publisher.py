"""A table's state on the broker for a club's broadcast page: ``--publish mqtt://HOST/CLUB/TABLE``.

Topics under ``CLUB/TABLE`` (all retained, so a page that starts later, and a broker restart,
lose nothing: the link publishes what it keeps again after every reconnect):

- ``state``: the table's ``table_state`` (controller.publish) as compact JSON, published when
  it changed. Bursts are thinned: at most one message every ``min_interval`` seconds, and the
  newest state always goes out (at the latest ``min_interval`` after the one before).
  Spectators' variant: ``shape`` takes out what only the players may see (the CLI passes the
  web view's ``public_state``; by default the computer's analysis is dropped).
- ``presence``: ``online`` while the table runs; ``offline`` when it stops (said on close,
  and by the broker's last will when the table drops without a goodbye). The last state
  stays: a table that left still shows how its game stood.
- ``result/KEY``: a finished game, ``{"format": "dvonn-board/result", "version": 1,
  "game_id", "players": {"white", "black"}, "actions": [...], "score", "winner"}``; KEY is
  ``gID`` (the journal's game id) or ``hHASH`` (the actions' hash, for a table without a
  journal). A finished game taken back (undo) clears its result again (an empty retained
  payload). The broadcast page's standings are made of these.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.publish import table_state
from controller.remote.link import MqttLink
from controller.remote.url import BrokerURL, Credentials
from controller.table.session import TableController

ONLINE, OFFLINE = "online", "offline"
RESULT_FORMAT = "dvonn-board/result"
MIN_INTERVAL = 0.1  # seconds between two state messages of one table (bursts are thinned)

Shape = Callable[[dict[str, Any]], dict[str, Any]]


def without_analysis(state: dict[str, Any]) -> dict[str, Any]:
    """The default ``shape``: the state without the computer's analysis."""
    return dict(state, analysis=None) if state.get("analysis") is not None else state


def result_key(game_id: int | None, actions: list[str]) -> str:
    """The ``result/KEY`` level of a finished game (see the module docstring)."""
    if game_id is not None:
        return f"g{int(game_id)}"
    return "h" + hashlib.sha1(" ".join(actions).encode()).hexdigest()[:12]


class StatePublisher:
    """Publishes a TableController's state (a controller listener, like the web view's
    Publisher): :meth:`attach` it; :meth:`close` says goodbye (safe twice)."""

    def __init__(self, url: BrokerURL, *, credentials: Credentials | None = None,
                 shape: Shape | None = None, min_interval: float = MIN_INTERVAL,
                 link: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.url = url
        self.prefix = url.prefix
        self.state_topic = f"{self.prefix}/state"
        self.presence_topic = f"{self.prefix}/presence"
        self.shape = shape or without_analysis
        self.min_interval = min_interval
        self.clock = clock
        self.link = link if link is not None else MqttLink(
            url, name="dvonn-table", credentials=credentials,
            will=(self.presence_topic, OFFLINE))
        self.link.publish(self.presence_topic, ONLINE)
        self.published = 0  # state messages sent
        self._cond = threading.Condition()
        self._last: bytes | None = None  # the newest state seen (sent or pending)
        self._pending: bytes | None = None
        self._sent_at = float("-inf")
        self._result: tuple[str, int | None, list[str]] | None = None  # key, game id, actions
        self._closed = False
        self._worker: threading.Thread | None = None

    def attach(self, ctl: TableController) -> None:
        """Listen to ``ctl`` and publish its state now."""
        if self not in ctl.listeners:
            ctl.listeners.append(self)
        self(ctl)

    def __call__(self, ctl: TableController) -> None:
        self.publish_state(table_state(ctl))

    # ------------------------------------------------------------------ any thread
    def publish_state(self, state: dict[str, Any]) -> None:
        """Publish ``state`` (a ``table_state``, through ``shape``) unless it is the one
        published last."""
        state = self.shape(state)
        data = json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode()
        with self._cond:
            if data == self._last or self._closed:
                return
            self._last = data
            wait = self._sent_at + self.min_interval - self.clock()
            if wait <= 0 and self._pending is None:
                self._send(data)
            else:
                self._pending = data
                self._start_worker()
                self._cond.notify()
        self._note_result(state)

    def _send(self, data: bytes) -> None:  # under self._cond
        self.link.publish(self.state_topic, data)
        self._sent_at = self.clock()
        self.published += 1

    def _start_worker(self) -> None:  # under self._cond
        if self._worker is None:
            self._worker = threading.Thread(target=self._flush_loop, name="dvonn-publish",
                                            daemon=True)
            self._worker.start()

    def _flush_loop(self) -> None:
        """Send the pending state once ``min_interval`` has passed since the last one."""
        with self._cond:
            while not self._closed:
                if self._pending is None:
                    self._cond.wait()
                    continue
                wait = self._sent_at + self.min_interval - self.clock()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                data, self._pending = self._pending, None
                self._send(data)

    def _note_result(self, state: dict[str, Any]) -> None:
        """Publish a finished game's result; clear it when the game was taken back."""
        actions = [str(a) for a in state.get("actions") or ()]
        game_id = state.get("game_id")
        game_id = game_id if isinstance(game_id, int) else None
        if state.get("phase") == "over":
            key = result_key(game_id, actions)
            if self._result is not None and self._result[0] == key:
                return
            record = {"format": RESULT_FORMAT, "version": 1, "game_id": game_id,
                      "players": state.get("players"), "actions": actions,
                      "score": state.get("score"), "winner": state.get("winner")}
            self.link.publish(f"{self.prefix}/result/{key}",
                              json.dumps(record, separators=(",", ":"), ensure_ascii=False))
            self._result = (key, game_id, actions)
            return
        if self._result is None:
            return
        key, rid, ractions = self._result
        same_game = rid == game_id if rid is not None else ractions[:len(actions)] == actions
        if same_game and len(actions) < len(ractions):  # taken back: not finished after all
            self.link.publish(f"{self.prefix}/result/{key}", b"")
        self._result = None

    def flush(self) -> None:
        """Send the pending state now (if any)."""
        with self._cond:
            if self._pending is not None:
                data, self._pending = self._pending, None
                self._send(data)

    def close(self) -> None:
        """Send the newest state, say ``offline`` and close the link (safe twice)."""
        with self._cond:
            if self._closed:
                return
            if self._pending is not None:
                data, self._pending = self._pending, None
                self._send(data)
            self._closed = True
            self._cond.notify_all()
        self.link.publish(self.presence_topic, OFFLINE)
        self.link.close()
        if self._worker is not None:
            self._worker.join(2.0)

    def __enter__(self) -> StatePublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

