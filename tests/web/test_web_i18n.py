"""The page in German (issue 28): a browser asking for German (``--lang=de-DE``) gets the page,
the status and the prompts in German; the switch changes the words without reloading the
game's state and is remembered; /api/i18n/LANG serves the catalog behind the same guard."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import http, moving_game, new_browser, sim_table

from controller.i18n import catalog


def _wait(driver: Any, cond: Any, timeout: float = 30.0, what: str = "") -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(
        lambda d: cond(), message=what)


@pytest.fixture(scope="module")
def german() -> Iterator[Any]:
    driver = new_browser(lang="de-DE")
    try:
        yield driver
    finally:
        driver.quit()


def _text(driver: Any, element: str) -> str:
    return str(driver.execute_script(
        f"return document.getElementById('{element}').textContent"))


def test_the_catalog_route_and_the_page_by_accept_language() -> None:
    with sim_table(moving_game(9, 8)) as sim:
        status, body, headers = http(f"{sim.base}/api/i18n/de")
        assert status == 200 and json.loads(body) == catalog("de")
        assert "content-security-policy" in headers  # the same guard as every answer
        assert http(f"{sim.base}/api/i18n/en")[:2] == (200, b"{}")
        assert http(f"{sim.base}/api/i18n/xx")[0] == 404
        import urllib.request

        req = urllib.request.Request(f"{sim.base}/", headers={"Accept-Language": "de-DE,de"})
        with urllib.request.urlopen(req, timeout=30) as r:
            page = r.read().decode()
        assert '<html lang="de">' in page and ">Eine Partie nachspielen<" in page
        assert 'data-i18n="Review a game"' in page  # what the switch translates again
        with urllib.request.urlopen(f"{sim.base}/", timeout=30) as r:
            page = r.read().decode()
        assert '<html lang="en">' in page and ">Review a game<" in page
        sim.web.server.language = "de"  # the config's [display] language wins
        with urllib.request.urlopen(f"{sim.base}/", timeout=30) as r:
            assert '<html lang="de">' in r.read().decode()


def test_the_page_speaks_german_and_the_switch_keeps_the_game(german: Any) -> None:
    with sim_table(moving_game(9, 8), hints=True) as sim:
        german.get(f"{sim.base}/")
        german.execute_script("localStorage.clear()")
        german.get(f"{sim.base}/")
        _wait(german, lambda: german.execute_script("return !!window.dvonn.state"))
        assert german.execute_script("return document.documentElement.lang") == "de"
        assert "ist am Zug" in _text(german, "turn")
        assert _text(german, "games-open") == "Eine Partie nachspielen"
        assert german.find_element("id", "lang").get_attribute("value") == "de"
        seq = german.execute_script("return document.body.getAttribute('data-seq')")
        german.execute_script("var s = document.getElementById('lang'); s.value = 'en';"
                              "s.dispatchEvent(new Event('change'))")
        _wait(german, lambda: "to move" in _text(german, "turn"), what="English after the switch")
        assert _text(german, "games-open") == "Review a game"
        assert german.execute_script("return document.documentElement.lang") == "en"
        # no reload: the same page object, the same event stream position
        assert german.execute_script("return document.body.getAttribute('data-seq')") == seq
        assert german.execute_script("return localStorage.getItem('dvonn-lang')") == "en"
        german.get(f"{sim.base}/")  # remembered over the browser's Accept-Language
        _wait(german, lambda: "to move" in _text(german, "turn"), what="the remembered English")
        german.execute_script("var s = document.getElementById('lang'); s.value = 'de';"
                              "s.dispatchEvent(new Event('change'))")
        _wait(german, lambda: "ist am Zug" in _text(german, "turn"), what="German again")
        german.execute_script("localStorage.clear()")


def _post(port: int, path: str, cookie: str = "", body: Any = None,
          page: bool = True) -> tuple[int, Any]:
    from web_helpers import send

    data = b"" if body is None else json.dumps(body).encode()
    headers = [("Host", f"127.0.0.1:{port}"), ("Content-Length", str(len(data)))]
    if page:
        headers.append(("X-Dvonn-Request", "1"))
    if cookie:
        headers.append(("Cookie", cookie))
    status, _headers, answer = send(port, "POST", path, headers, data)
    return status, json.loads(answer)


def test_refusals_carry_their_words_in_every_language() -> None:
    """``detail`` stays English (the contract); ``details`` has it in each language, built
    with the catalog, for the page to show in its own."""
    from web_helpers import pair, virtual_server

    with virtual_server() as server:
        port, pairing = server.web.server.port, server.web.server.pairing
        code = pairing.new_code()
        wrong = f"{(int(code) + 1) % 10**6:06d}"
        status, answer = _post(port, "/api/pair", body={"code": wrong, "seat": "white"})
        assert status == 403 and answer["detail"].startswith("wrong or expired pairing code")
        assert answer["details"] == {
            "en": answer["detail"],
            "de": "falscher oder abgelaufener Kopplungscode: lass den Tisch einen neuen zeigen"}
        black = pair(port, pairing.new_code(), "black")
        status, answer = _post(port, "/api/control/click/C3", black)  # White's turn
        assert status == 403 and answer["detail"] == "this device plays Black: it is White's turn"
        assert answer["details"]["de"] == "dieses Gerät spielt Schwarz: Weiß ist am Zug"
        status, answer = _post(port, "/api/control/click/C3?seat=w", black)
        assert answer["details"]["de"] == "dieses Gerät spielt nur Schwarz"
        both = pair(port, pairing.new_code(), "both")
        assert _post(port, "/api/control/click/C3", both)[0] == 200
        status, answer = _post(port, "/api/control/click/C3", both)  # the table's own refusal
        assert (status, answer["detail"]) == (409, "C3 is occupied")
        assert answer["details"]["de"] == "C3 ist besetzt"
        status, answer = _post(port, "/api/control/hint", both, page=False)  # the gate's
        assert status == 403 and answer["details"]["de"].startswith("eine Steueranfrage braucht")
        status, answer = _post(port, "/api/control/hint")
        assert status == 403 and answer["details"]["de"].startswith(
            "dieses Gerät ist nicht gekoppelt")
        status, body, _ = http(f"{server.base}/api/review/nope")
        answer = json.loads(body)
        assert status == 404 and answer["details"]["de"].startswith("keine Partie 'nope'")


def test_the_page_shows_a_refusal_in_german(german: Any) -> None:
    from web_helpers import pair_page, virtual_server

    with virtual_server() as server:
        try:
            pair_page(german, server, seat="white")
            german.find_element("css selector", '[data-cell="C3"]').click()
            _wait(german, lambda: german.execute_script(
                "return (window.dvonn.state.actions || []).join() === 'C3'"), what="C3 placed")
            german.find_element("css selector", '[data-cell="D3"]').click()  # Black's turn
            _wait(german, lambda: _text(german, "notice") ==
                  "dieses Gerät spielt Weiß: Schwarz ist am Zug", what="the German refusal")
        finally:
            german.delete_all_cookies()
            german.execute_script("localStorage.clear()")
