"""One connection to an MQTT broker (paho-mqtt), for a table, a remote seat or a broadcast page.

paho's network thread connects, reconnects after a cut (0.2 s to 5 s apart) and calls back
here; everything the rest of the program sees goes through two thread-safe queues that the
owner drains from its own loop (:meth:`messages`, :meth:`news`). What the link publishes
retained it also keeps, and publishes again after every reconnect, so neither a cut nor a
broker restart (even one without persistence) loses a table's state.
"""

from __future__ import annotations

import queue
import socket
import threading
import uuid
from dataclasses import dataclass
from typing import Any, TypeVar

from controller.i18n import Msg, config_error
from controller.remote.url import BrokerURL, Credentials
from engine.errors import DvonnError

QOS = 1
KEEPALIVE = 15
FLUSH = 2.0  # seconds close() waits for the last publish and the goodbye to go out
T = TypeVar("T")


class LinkError(DvonnError):
    """The broker cannot be used (paho-mqtt missing, a TLS file that cannot be read)."""


@dataclass(frozen=True)
class Message:
    """A message as it arrived: ``retained`` when the broker kept it from before."""

    topic: str
    payload: bytes
    retained: bool = False

    def text(self) -> str:
        return self.payload.decode("utf-8", "replace")


def _paho() -> Any:
    try:
        import paho.mqtt.client as mqtt
    except ImportError:  # pragma: no cover - the remote extra installs it
        raise LinkError(Msg("remote play needs paho-mqtt: pip install 'dvonn-board[remote]'")) \
            from None
    return mqtt


def _no_delay(client: Any, userdata: Any, sock: Any) -> None:
    """Small packets go out at once: without TCP_NODELAY two publishes in a row wait for
    the broker's delayed ACK (some 40 ms each)."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):  # not a TCP socket (a websocket wrapper, a Unix socket)
        pass


def _drain(waiting: queue.SimpleQueue[T]) -> list[T]:
    """What ``waiting`` holds now, oldest first (it is left empty)."""
    out: list[T] = []
    while True:
        try:
            out.append(waiting.get_nowait())
        except queue.Empty:
            return out


class MqttLink:
    """A broker connection that comes back by itself. ``will``: (topic, payload) the broker
    publishes retained when this link drops without saying goodbye."""

    def __init__(self, url: BrokerURL, *, name: str = "dvonn-board",
                 credentials: Credentials | None = None,
                 will: tuple[str, str] | None = None) -> None:
        mqtt = _paho()
        self.url = url
        self.client_id = f"{name}-{uuid.uuid4().hex[:10]}"
        self._lock = threading.Lock()
        self._inbox: queue.SimpleQueue[Message] = queue.SimpleQueue()
        self._news: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._kept: dict[str, bytes] = {}
        self._subs: set[str] = set()
        self._closed = False
        self._last: Any = None  # the last publish's MQTTMessageInfo (close waits for it)
        self._gone = threading.Event()  # set when paho reports the disconnect
        self.connected = False
        self.error = ""
        client = mqtt.Client(callback_api_version=mqtt.CallbackAPIVersion.VERSION2,
                             client_id=self.client_id, clean_session=True)
        self._client = client
        try:
            creds = credentials or Credentials()
            if creds.username is not None:
                client.username_pw_set(creds.username, creds.password)
            if url.tls or creds.tls:
                try:
                    client.tls_set(ca_certs=creds.ca_file)
                except (OSError, ValueError) as exc:
                    raise config_error("remote.ca_file", Msg(
                        "cannot use {path} ({error})", path=creds.ca_file, error=exc)) from None
            if will is not None:
                client.will_set(will[0], will[1], qos=QOS, retain=True)
            client.on_connect = self._on_connect
            client.on_disconnect = self._on_disconnect
            client.on_message = self._on_message
            client.on_socket_open = _no_delay
            client.reconnect_delay_set(min_delay=0.2, max_delay=5)
            client.connect_async(url.host, url.port, keepalive=KEEPALIVE)
            client.loop_start()
        except BaseException:
            self.close()
            raise

    # ---------------------------------------------------------------- paho's thread
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            self.error = str(reason)
            self._news.put("refused")
            return
        with self._lock:
            subs = sorted(self._subs)
            kept = dict(self._kept)
            self.connected = True
            self.error = ""
        for topic in subs:
            client.subscribe(topic, qos=QOS)
        for topic, payload in kept.items():
            client.publish(topic, payload, qos=QOS, retain=True)
        self._news.put("connected")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        with self._lock:
            was = self.connected
            self.connected = False
        self._gone.set()
        if was and not self._closed:
            self._news.put("disconnected")

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        self._inbox.put(Message(msg.topic, bytes(msg.payload), bool(msg.retain)))

    # ---------------------------------------------------------------- the owner's thread
    def subscribe(self, topic: str) -> None:
        """Receive ``topic`` (wildcards allowed), now and after every reconnect."""
        with self._lock:
            self._subs.add(topic)
            live = self.connected
        if live:
            self._client.subscribe(topic, qos=QOS)

    def publish(self, topic: str, payload: str | bytes, *, retain: bool = True) -> None:
        """Publish ``payload``; retained payloads are kept and published again after every
        reconnect (an empty retained payload clears the topic and is not kept)."""
        data = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        with self._lock:
            if retain and data:
                self._kept[topic] = data
            elif retain:
                self._kept.pop(topic, None)
            live = self.connected
        if live:
            self._last = self._client.publish(topic, data, qos=QOS, retain=retain)

    def messages(self) -> list[Message]:
        """The messages that arrived since the last call, oldest first."""
        return _drain(self._inbox)

    def wait_message(self, timeout: float) -> Message | None:
        """Block up to ``timeout`` seconds for the next message (for loops with nothing else
        to wait on); None when none came."""
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def news(self) -> list[str]:
        """Connection changes since the last call: 'connected', 'disconnected', 'refused'."""
        return _drain(self._news)

    def close(self) -> None:
        """Say goodbye to the broker and stop the network thread; safe twice. What was
        published last is delivered first (up to ``FLUSH`` seconds while connected): stopping
        paho's thread at once would drop it, and the broker would send the last will."""
        if self._closed:
            return
        self._closed = True
        client = getattr(self, "_client", None)
        if client is None:
            return
        live = self.connected
        try:
            if live and self._last is not None:
                self._last.wait_for_publish(FLUSH)
            self._gone.clear()
            client.disconnect()
            if live:
                self._gone.wait(FLUSH)  # the DISCONNECT went out: no last will
        except Exception:  # noqa: BLE001 - closing: nothing to report to
            pass
        client.loop_stop()

    def __enter__(self) -> MqttLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
