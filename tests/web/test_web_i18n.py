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
