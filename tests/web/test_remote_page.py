"""A remote player's page in a real headless Chromium (issue 27) plays Black against a demo
table: the page opens the invitation, takes the seat, and clicks Black's actions; the
simulated hands at the table play White and carry out what the page chose (lit as
``suggest``); the page follows the table live. The table's game is what the page clicked."""

from __future__ import annotations

import io
import random
import threading
from typing import Any

from web_helpers import TEST_TOKEN

from controller.sim.demo import DemoOptions, DemoResult, run_demo
from controller.sim.hands import Habits
from controller.web.app import WebView
from engine.game import Game
from engine.geometry import CELL_NAMES
from hardware.leds.base import NullStrip

SEED = 11


def _wait(browser: Any, cond: Any, what: str, timeout: float = 30.0) -> Any:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout, poll_frequency=0.03,
                         ignored_exceptions=(WebDriverException,)).until(
        lambda d: cond(), message=f"waiting for {what}")


def _js(browser: Any, script: str) -> Any:
    return browser.execute_script(script)


def _page(browser: Any) -> dict[str, Any]:
    """The page's view: the table's state, the seat's status and what the page says."""
    return dict(_js(browser, """
        var b = document.body;
        return {state: window.dvonn.state, seat: window.dvonn.remote || null,
                mine: b.getAttribute('data-remote-mine') === '1',
                offered: b.getAttribute('data-remote-offered') || '',
                status: document.getElementById('remote-status').textContent,
                notice: document.getElementById('notice').hidden ? '' :
                        document.getElementById('notice').textContent};"""))


def _roles(browser: Any, role: str) -> set[str]:
    return set(_js(browser, f"""return Array.prototype.map.call(
        document.querySelectorAll('[data-cell][data-role="{role}"]'),
        function (g) {{ return g.getAttribute('data-cell'); }});"""))


def test_a_remote_page_plays_black_against_a_demo_table(browser: Any) -> None:
    out = io.StringIO()
    web = WebView("127.0.0.1:0", token=TEST_TOKEN)
    web.start(out)
    opts = DemoOptions(fast=True, seed=SEED, direct=True, noise=False, quiet=True,
                       strip=NullStrip(), black="remote", web=web, remote_timeout=60.0,
                       habits=Habits(pace=0.8, noise=0.0, cancel=0.05))
    results: list[DemoResult | BaseException] = []

    def table() -> None:
        try:
            results.append(run_demo(opts, io.StringIO()))
        except BaseException as exc:  # reported below
            results.append(exc)

    thread = threading.Thread(target=table, daemon=True)
    thread.start()
    try:
        _wait(browser, lambda: "invitation for the remote player of Black" in out.getvalue(),
              "the invitation")
        path = web.server.remote.invitation("b")
        assert path is not None and path in out.getvalue()  # printed on the table
        base = f"http://127.0.0.1:{web.server.port}"
        browser.get(base + path)
        join = browser.find_element("id", "remote-join")
        assert browser.current_url == f"{base}/remote"  # the code left the address bar
        join.click()
        _wait(browser, lambda: _js(browser, "return document.body.getAttribute("
                                            "'data-remote-side')") == "b", "the seat")
        assert web.server.remote.invitation("b") is None  # used up
        element = {n: browser.find_element("css selector", f'[data-cell="{n}"]')
                   for n in CELL_NAMES}
        rng = random.Random(SEED)
        chosen: list[str] = []
        told_not_yours = told_occupied = checked_landings = False
        for _ in range(120):
            _wait(browser, lambda: _mine_or_over(_page(browser)), "Black's turn", 60)
            page = _page(browser)
            state, seat = page["state"], page["seat"]
            if state["phase"] == "over":
                break
            assert seat["turn"] == "b" and seat["ply"] == state["ply"]
            game = Game.from_moves(state["actions"])
            legal = sorted(str(m) for m in game.legal_moves())
            assert sorted(seat["moves"]) == legal  # the page offers Black's legal actions
            if not told_occupied and state["phase"] == "placing" and state["stacks"]:
                element[next(iter(state["stacks"]))].click()  # an occupied space: refused
                _wait(browser, lambda: "occupied" in _page(browser)["notice"], "a refusal")
                told_occupied = True
                assert _page(browser)["offered"] == ""
            move = rng.choice(seat["moves"])
            chosen.append(move)
            if len(move) == 2:
                element[move].click()
            else:
                element[move[:2]].click()
                if not checked_landings:  # the landing spaces light on the page
                    _wait(browser, lambda m=move: _roles(browser, "source") == {m[:2]},
                          "the lifted stack")
                    assert _roles(browser, "destination") == {
                        m[2:] for m in seat["moves"] if m[:2] == move[:2]}
                    checked_landings = True
                element[move[2:]].click()
            _wait(browser, lambda m=move, ply=state["ply"]: _offered(_page(browser), m, ply),
                  f"the offer of {move}")
            if not told_not_yours and len(move) == 2:
                now = _page(browser)
                if now["offered"]:
                    assert f"carry out {move}" in now["status"]
                    element[move].click()  # again: the table carries it out already
                    _wait(browser, lambda m=move: _refused(_page(browser)["notice"], m),
                          "a refusal")  # (or the table did already: not Black's turn)
                    told_not_yours = True
        thread.join(60)
        assert not thread.is_alive() and results, "the demo table did not finish"
        result = results[0]
        if isinstance(result, BaseException):
            raise result
        assert result.over
        game = Game.from_moves(result.actions)
        blacks = [str(m) for i, m in enumerate(game.move_stack)
                  if _mover(i) == "b" and not m.is_pass]
        assert blacks == chosen  # the table played what the page clicked, in order
        _wait(browser, lambda: _page(browser)["state"]["phase"] == "over", "the end")
        page = _page(browser)
        assert page["state"]["actions"] == result.actions
        assert page["status"] == "The game is over."
        assert browser.find_element("id", "result").is_displayed()
        assert told_occupied and checked_landings  # (the refusal of a second click: when
        # the table was slower than the page; test_web_remote.py checks it every time)
    finally:
        web.stop()
        thread.join(10)


def _mine_or_over(page: dict[str, Any]) -> bool:
    """Black's turn, the seat's status and the state stream both at the same ply (they come
    by two channels, one may be a moment behind the other), or the game is over."""
    state = page["state"] or {}
    if state.get("phase") == "over":
        return True
    seat = page["seat"] or {}
    return bool(page["mine"]) and seat.get("ply") == state.get("ply")


def _offered(page: dict[str, Any], move: str, ply: int) -> bool:
    """The page offered ``move`` (or the table has carried it out already)."""
    return bool(page["offered"] == move or page["state"]["ply"] > ply)


def _refused(notice: str, move: str) -> bool:
    return move in notice or "not your turn" in notice or "occupied" in notice


def _mover(index: int) -> str:
    """The side that took action number ``index`` of a game (passes included)."""
    if index < 49:
        return "w" if index % 2 == 0 else "b"
    return "w" if index % 2 == 1 else "b"
