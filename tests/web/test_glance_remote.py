"""Issue 42 (the pages read at a glance), the remote seat, pairing and German parts:

- a remote seat's cookie lives as long as the pairing cookie: the seat survives a browser
  restart (point 4);
- no English on the German pages: the live page (spectator and paired, with the devices
  panel, German from the browser or from the page's switch, also after a reload), the pairing
  form, the remote invitation and the remote seat (point 10);
- the ``?pair=`` link shows the pairing form on a phone; the remote page never says "Your
  turn" beside the table's "waiting for Black (remote)"; the invitation names the colour;
  Revoke and the other buttons of these panels are 44x44 CSS px at least; "Back to the
  table" stays on one line on a phone (point 11).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_web_remote import RemoteTable as WebRemoteTable
from web_helpers import new_browser, pair, send

from controller.i18n import po_path
from controller.i18n.msgfmt import parse_po
from controller.web.devices import COOKIE_AGE

PHONE = (390, 844)


# ---------------------------------------------------------------------------- the table
class RemoteTable(WebRemoteTable):
    """test_web_remote's table (Black played on a remote page), with its address."""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def remote_table() -> Iterator[RemoteTable]:
    table = RemoteTable()
    try:
        yield table
    finally:
        table.web.stop()


def _post(port: int, path: str, body: Any, cookie: str = "") -> tuple[int, dict[str, str], Any]:
    data = json.dumps(body).encode()
    headers = [("Host", f"127.0.0.1:{port}"), ("Content-Length", str(len(data))),
               ("Content-Type", "application/json"), ("X-Dvonn-Request", "1")]
    if cookie:
        headers.append(("Cookie", cookie))
    status, got, answer = send(port, "POST", path, headers, data)
    return status, got, json.loads(answer) if answer else None


def _attributes(set_cookie: str) -> dict[str, str]:
    """A Set-Cookie header's attributes (lower-case names) without its name=value."""
    parts = [p.strip() for p in set_cookie.split(";")][1:]
    return {k.strip().lower(): v.strip().lower()
            for k, _, v in (p.partition("=") for p in parts)}


# ---------------------------------------------------------------------------- browsers
def _wait(driver: Any, cond: Any, what: str, timeout: float = 30.0) -> Any:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(WebDriverException,)).until(
        lambda d: cond(), message=f"waiting for {what}")


def _js(driver: Any, script: str, *args: Any) -> Any:
    return driver.execute_script(script, *args)


@pytest.fixture(scope="module")
def german() -> Iterator[Any]:
    """A phone-sized Chromium asking for German."""
    driver = new_browser(*PHONE, lang="de-DE")
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def english() -> Iterator[Any]:
    """A phone-sized Chromium asking for English."""
    driver = new_browser(*PHONE, lang="en-US")
    try:
        yield driver
    finally:
        driver.quit()


def _fresh(driver: Any, base: str) -> None:
    """Forget what earlier tests left: cookies and the remembered language."""
    driver.get(f"{base}/api/state")
    driver.delete_all_cookies()
    _js(driver, "try { localStorage.clear(); } catch (e) {}")


def _ready(driver: Any) -> None:
    _wait(driver, lambda: _js(driver, "return !!(window.dvonn && window.dvonn.state)"),
          "the page's first state")


# ---------------------------------------------------------------------------- point 4
def test_the_remote_cookie_lives_like_the_pairing_cookie() -> None:
    with remote_table() as t:
        status, headers, body = _post(t.port, "/api/remote/join", {"code": t.seat.code})
        assert status == 200 and body == {"ok": True, "side": "b"}
        remote = _attributes(headers["set-cookie"])
        assert remote.get("max-age") == str(COOKIE_AGE)
        phone = t.web.server.pairing.new_code()
        status, paired, _ = _post(t.port, "/api/pair", {"code": phone, "seat": "white"})
        assert status == 200
        assert remote == _attributes(paired["set-cookie"])  # HttpOnly, SameSite, Path, age
        assert "httponly" in remote and remote["samesite"] == "strict"
        cookie = headers["set-cookie"].split(";")[0]
        status, _, seen = send(t.port, "GET", "/api/remote/status", [  # a fresh client
            ("Host", f"127.0.0.1:{t.port}"), ("Cookie", cookie)])
        assert status == 200 and json.loads(seen)["side"] == "b"


def test_a_remote_seat_survives_a_browser_restart(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    with remote_table() as t:
        first = new_browser(*PHONE, profile=profile)
        try:
            first.get(f"{t.base}/remote?invite={t.seat.code}")
            first.find_element("id", "remote-join").click()
            _wait(first, lambda: _js(first, "return document.body.getAttribute("
                                            "'data-remote-side')") == "b", "the seat")
            kept = [c for c in first.get_cookies() if c["name"] == f"dvonn_remote_{t.port}"]
            assert kept and kept[0].get("expiry"), kept  # not a session cookie
        finally:
            first.quit()  # the browser is closed: a session cookie would be gone
        again = new_browser(*PHONE, profile=profile)
        try:
            again.get(f"{t.base}/remote")
            _wait(again, lambda: _js(again, "return document.body.getAttribute("
                                            "'data-remote-side')") == "b",
                  "the seat after the restart")
        finally:
            again.quit()


# ---------------------------------------------------------------------------- point 10
def _english_words() -> tuple[set[str], list[re.Pattern[str]]]:
    """The English texts the German catalog translates: whole ones, and patterns for those
    with {placeholders} (long enough not to match German)."""
    whole: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for entry in parse_po(po_path("de").read_text("utf-8")):
        if not entry.msgid or not entry.msgstr or entry.msgstr[0] == entry.msgid:
            continue
        for text in (entry.msgid, entry.plural):
            if not text:
                continue
            whole.add(text)
            literal = re.sub(r"\{\w+\}", "", text)
            if "{" in text and len(literal.strip()) >= 8:
                parts = [re.escape(p) for p in re.split(r"\{\w+\}", text)]
                patterns.append(re.compile("^" + ".+?".join(parts) + "$", re.S))
    return whole, patterns


ENGLISH, ENGLISH_PATTERNS = _english_words()
#: English words that German text never has (the catalog misses texts built in code)
WORDS = re.compile(r"\b(the|your|you|this|that|with|waiting|turn|play|plays|phone|remote|"
                   r"invitation|seat|pair|paired|devices?|review|action|actions|"
                   r"optional|spectator|table|hints?)\b", re.I)
#: what is the same in both languages: names of languages, addresses, codes
SAME = re.compile(r"^(English|Deutsch|Language / Sprache|https?://\S+|[A-K][1-5]|DVONN|"
                  r"dvonn-board)$")

WALK = """
var out = [];
var walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
var n;
while ((n = walker.nextNode())) {
  var p = n.parentNode, tag = p ? p.nodeName.toLowerCase() : "";
  if (tag === "script" || tag === "style") { continue; }
  var v = n.nodeValue.replace(/\\s+/g, " ").trim();
  if (v) { out.push([tag + (p.id ? "#" + p.id : ""), v]); }
}
Array.prototype.forEach.call(document.querySelectorAll("*"), function (e) {
  ["placeholder", "title", "aria-label", "alt"].forEach(function (a) {
    var v = e.getAttribute(a);
    if (v && v.trim()) { out.push([e.nodeName.toLowerCase() + (e.id ? "#" + e.id : "") +
                                   "@" + a, v.trim()]); }
  });
  if (e.nodeName === "INPUT" && /^(button|submit|reset)$/.test(e.type) && e.value) {
    out.push(["input@value", e.value]);
  }
});
return out;
"""


def _english_left(driver: Any) -> list[tuple[str, str]]:
    """(where, text) of every text node and attribute of the page that is English."""
    found = []
    for where, text in _js(driver, WALK):
        if SAME.match(text):
            continue
        pieces = [text, *(p.strip() for p in re.split(r" · |: ", text))]
        if any(p in ENGLISH or any(r.match(p) for r in ENGLISH_PATTERNS) for p in pieces) \
                or WORDS.search(re.sub(r"https?://\S+", "", text)):
            found.append((where, text))
    return found


def _no_english(driver: Any, page: str) -> None:
    assert _js(driver, "return document.documentElement.lang") == "de", page
    left = _english_left(driver)
    assert not left, f"English on the German {page}: {left}"


def test_the_english_detector_finds_english() -> None:
    """The check below sees English where there is some (else it would prove nothing)."""
    assert "this device's name (optional)" in ENGLISH and "Revoke" in ENGLISH
    assert any(r.match("waiting for Black (remote)") for r in ENGLISH_PATTERNS)
    assert WORDS.search("Chrome on Linux (this phone)")
    assert not WORDS.search("Chrome (Linux) (dieses Gerät) · beide · gesehen gerade eben")


def test_no_english_on_the_german_pages(german: Any) -> None:
    with remote_table() as t:
        _fresh(german, t.base)
        german.get(f"{t.base}/")  # a spectator, German from the browser
        _ready(german)
        _no_english(german, "spectator page")
        german.get(f"{t.base}/?pair={t.web.server.pairing.new_code()}")  # the pairing form
        _ready(german)
        assert german.find_element("id", "pair-name").get_attribute("placeholder") == \
            "Name dieses Geräts (freiwillig)"
        _no_english(german, "pairing form")
        german.get(f"{t.base}/remote?invite={t.seat.code}")  # the invitation
        _ready(german)
        _wait(german, lambda: "Schwarz" in german.find_element("id", "remote-status").text,
              "the invitation naming the colour")
        _no_english(german, "remote invitation")
        german.find_element("id", "remote-join").click()
        _wait(german, lambda: _js(german, "return document.body.getAttribute("
                                          "'data-remote-side')") == "b", "the seat")
        _no_english(german, "remote seat")
        german.delete_all_cookies()
        pair(t.port, t.web.server.pairing.new_code(), "white")  # a second device to revoke
        german.get(f"{t.base}/?pair={t.web.server.pairing.new_code()}")
        german.find_element("css selector", '#pair button[type="submit"]').click()
        _wait(german, lambda: _js(german, "return document.body.classList.contains('paired') "
                                          "&& document.querySelectorAll('#device-list li')"
                                          ".length === 2 && !!document.querySelector("
                                          "'#invitations li')"), "the paired page")
        _ready(german)
        _no_english(german, "paired page with its devices panel")


def test_german_from_the_switch_reaches_the_devices_panel_after_a_reload(english: Any) -> None:
    with remote_table() as t:
        _fresh(english, t.base)
        english.get(f"{t.base}/?pair={t.web.server.pairing.new_code()}")
        english.find_element("css selector", '#pair button[type="submit"]').click()
        _wait(english, lambda: _js(english, "return document.querySelectorAll("
                                            "'#device-list li button').length === 1"),
              "the devices panel")
        assert _js(english, "return document.documentElement.lang") == "en"
        _js(english, "var s = document.getElementById('lang'); s.value = 'de';"
                     "s.dispatchEvent(new Event('change'))")
        panel = "return document.getElementById('devices').textContent"
        _wait(english, lambda: "Dieses Gerät vergessen" in _js(english, panel) or
              "Dieses Gerät vergessen" in _js(english, panel), "the panel in German")
        _no_english(english, "paired page after the switch")
        for _ in range(3):  # a reload: the remembered German, the panel's list too
            english.get(f"{t.base}/")
            _wait(english, lambda: _js(english, "return document.documentElement.lang === "
                                                "'de' && document.querySelectorAll("
                                                "'#device-list li').length === 1 && "
                                                "!!window.dvonn.state"), "the reload")
            _wait(english, lambda: not _english_left(english), "no English after the reload",
                  timeout=10)
        _js(english, "localStorage.clear()")


# ---------------------------------------------------------------------------- point 11
def test_the_pairing_link_shows_the_form_on_a_phone(english: Any) -> None:
    with remote_table() as t:
        _fresh(english, t.base)
        english.get(f"{t.base}/?pair={t.web.server.pairing.new_code()}")
        _ready(english)
        script = """var f = document.getElementById('pair').getBoundingClientRect();
            var b = document.querySelector('#pair button[type=submit]').getBoundingClientRect();
            var h = document.querySelector('header').getBoundingClientRect();
            return {top: f.top, submit: b.bottom, header: h.bottom, height: innerHeight,
                    code: document.getElementById('pair-code').value};"""
        _wait(english, lambda: (lambda r: r["top"] >= r["header"] - 1 and
                                r["submit"] <= r["height"])(_js(english, script)),
              "the pairing form in view")
        seen = _js(english, script)
        assert seen["code"] and seen["top"] < seen["height"] / 2, seen
        english.get(f"{t.base}/")  # without the link: the board first, as before
        _ready(english)
        assert _js(english, script)["top"] > PHONE[1] / 2


def test_the_invitation_names_the_colour_and_the_turn_is_said_once(english: Any) -> None:
    with remote_table() as t:
        _fresh(english, t.base)
        english.get(f"{t.base}/remote?invite={t.seat.code}")
        _ready(english)
        status = "return document.getElementById('remote-status').textContent"
        _wait(english, lambda: "play Black" in _js(english, status), "the colour")
        english.find_element("id", "remote-join").click()
        _wait(english, lambda: "White at the table" in _js(english, status), "White's turn")
        t.place("C3")  # White at the table: now Black, the remote page, is to act

        def said() -> dict[str, Any]:
            return dict(_js(english, """var m = document.getElementById('message');
                return {status: document.getElementById('remote-status').textContent,
                        message: m.hidden ? '' : m.textContent};"""))

        _wait(english, lambda: said()["status"].startswith("Your turn"), "Black's turn")
        seen = said()
        assert "waiting for" not in seen["message"].lower(), seen
        assert "Black (remote)" in (t.web.hub.state or {}).get("message", "")  # the table's
        english.delete_all_cookies()
        english.get(f"{t.base}/remote?invite=used-or-wrong")  # a wrong code says so
        _ready(english)
        _wait(english, lambda: "wrong or was used" in _js(english, status), "the refusal")
        assert not english.find_elements("id", "remote-join")


BUTTONS = """return Array.prototype.map.call(document.querySelectorAll(arguments[0]),
    function (b) { var r = b.getBoundingClientRect();
                   return [b.textContent, r.width, r.height]; });"""


def test_revoke_and_the_panel_buttons_are_44_px(english: Any) -> None:
    with remote_table() as t:
        _fresh(english, t.base)
        pair(t.port, t.web.server.pairing.new_code(), "white")
        english.get(f"{t.base}/?pair={t.web.server.pairing.new_code()}")
        english.find_element("css selector", '#pair button[type="submit"]').click()
        _wait(english, lambda: len(_js(english, BUTTONS, "#device-list button")) == 2 and
              len(_js(english, BUTTONS, "#invitations li button")) == 1, "the panels")
        for text, width, height in (_js(english, BUTTONS, "#device-list button") +
                                    _js(english, BUTTONS, "#invitations li button")):
            assert width >= 44 and height >= 44, (text, width, height)
        english.delete_all_cookies()
        english.get(f"{t.base}/remote?invite={t.seat.code}")
        _ready(english)
        ((text, width, height),) = _js(english, BUTTONS, "#remote-join")
        assert width >= 44 and height >= 44, (text, width, height)


LINES = """var b = document.getElementById('review-close');
var r = document.createRange(); r.selectNodeContents(b);
var tops = {};
Array.prototype.forEach.call(r.getClientRects(), function (q) { tops[Math.round(q.top)] = 1; });
var box = b.getBoundingClientRect();
return {lines: Object.keys(tops).length, right: box.right, width: innerWidth,
        height: box.height};"""


@pytest.mark.parametrize("lang", ["en", "de"])
def test_back_to_the_table_stays_on_one_line_on_a_phone(english: Any, lang: str) -> None:
    with remote_table() as t:
        _fresh(english, t.base)
        english.get(f"{t.base}/")
        _ready(english)
        if lang == "de":
            _js(english, "window.dvonn.setLanguage('de')")
            _wait(english, lambda: _js(english, "return document.documentElement.lang") == "de",
                  "German")
        _js(english, """document.getElementById('review').hidden = false;
            document.getElementById('review-title').textContent =
              'A long player name vs Another long player name · 2024-05-01';""")
        seen = _js(english, LINES)
        assert seen["lines"] == 1 and seen["right"] <= seen["width"], seen
        assert seen["height"] >= 44, seen
        _js(english, "localStorage.clear()")
