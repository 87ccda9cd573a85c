"""The broker link against a real Mosquitto: retained state, reconnects, a broker restart."""

from __future__ import annotations

import time

import pytest

from controller.remote.link import Message, MqttLink
from controller.remote.url import BrokerURL, BrokerURLError, credentials, parse_url
from engine.errors import ConfigError
from tests.remote.broker import Broker

WAIT = 20.0  # seconds a test waits for the network before it fails (never a timing check)


def until(link: MqttLink, want: str) -> list[str]:
    seen: list[str] = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        seen += link.news()
        if want in seen:
            return seen
        time.sleep(0.01)
    raise AssertionError(f"no {want!r} from the link: {seen}")


def next_message(link: MqttLink, topic: str, text: str | None = None) -> Message:
    """The next message on ``topic`` (with ``text``: the first one that says it; duplicates
    of older states may come first, as after a reconnect)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        msg = link.wait_message(0.1)
        if msg is not None and msg.topic == topic and text in (None, msg.text()):
            return msg
    raise AssertionError(f"nothing on {topic}" + (f" saying {text}" if text else ""))


def test_urls() -> None:
    url = parse_url("mqtt://club.example:1884/club/table3")
    assert (url.host, url.port, url.path, url.tls) == ("club.example", 1884, ("club", "table3"),
                                                       False)
    assert parse_url("mqtts://h/m", levels=(1, 1)).port == 8883
    assert str(parse_url("mqtt://[::1]/m")) == "mqtt://[::1]:1883/m"
    for bad, words in [("http://h/m", "expected mqtt://"), ("mqtt://u:pw@h/m", "no user name"),
                       ("mqtt://h:99999/m", "not 1-65535"), ("mqtt://h/", "level"),
                       ("mqtt://h/a/b/c", "level"), ("mqtt://h/a#", "not a topic name"),
                       ("mqtt://h:x/m", "not a number"), ("mqtt:///m", "no host")]:
        with pytest.raises(BrokerURLError, match=words):
            parse_url(bad)


def test_credentials_from_env_and_config(tmp_path) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    c = credentials({"username": "club", "password_file": str(secret)}, env={})
    assert (c.username, c.password, c.tls) == ("club", "s3cret", False)
    assert "s3cret" not in repr(c)
    c = credentials({"username": "club"}, env={"DVONN_MQTT_USERNAME": "me",
                                               "DVONN_MQTT_PASSWORD": "pw", "DVONN_MQTT_TLS": "1"})
    assert (c.username, c.password, c.tls) == ("me", "pw", True)
    with pytest.raises(ConfigError, match="password_file"):
        credentials({"password_file": str(tmp_path / "missing")}, env={})


def test_retained_state_survives_cuts_and_a_restart(broker: Broker) -> None:
    url: BrokerURL = parse_url(broker.url("m1"), levels=(1, 1))
    with MqttLink(url, name="a") as a:
        until(a, "connected")
        a.publish("m1/white", '{"actions": ["D3"]}')
        with MqttLink(url, name="b") as b:
            until(b, "connected")
            b.subscribe("m1/#")
            assert next_message(b, "m1/white").text() == '{"actions": ["D3"]}'
            broker.stop()
            until(a, "disconnected")
            until(b, "disconnected")
            broker.start()
            until(a, "connected")
            until(b, "connected")
            # b subscribed again by itself; a published its state again
            next_message(b, "m1/white", '{"actions": ["D3"]}')
            a.publish("m1/white", '{"actions": ["D3", "E2"]}')
            next_message(b, "m1/white", '{"actions": ["D3", "E2"]}')
    # gone: the state stays retained on the broker for whoever comes next
    with MqttLink(url, name="c") as c:
        c.subscribe("m1/white")
        msg = next_message(c, "m1/white")
        assert msg.retained and msg.text() == '{"actions": ["D3", "E2"]}'


def test_close_is_safe_twice(broker: Broker) -> None:
    link = MqttLink(parse_url(broker.url("x")), name="t")
    link.close()
    link.close()
