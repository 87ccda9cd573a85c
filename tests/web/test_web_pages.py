"""The page in a real headless Chromium: the position, live updates, a game by clicks, and a
read-only page that is not paired. One browser serves the whole module (see conftest.py)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from web_helpers import click, get_json, moving_game, pair_page, sim_table, virtual_server

from engine.game import Game
from engine.geometry import CELL_NAMES

BUSY_ROLES = {"remove", "source", "destination", "mismatch", "suggest"}


def _wait(driver: Any, cond: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(
        lambda d: cond(), message=what)


def _cells(driver: Any) -> dict[str, tuple[str, str]]:
    """name -> (data-stack, data-role) of every [data-cell] element, read in one script."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-cell]')).map(e => "
        "[e.getAttribute('data-cell'), e.getAttribute('data-stack'), "
        "e.getAttribute('data-role')])")
    assert len(rows) == 49
    return {n: (s, r) for n, s, r in rows}


def _actions(driver: Any) -> list[str]:
    text = driver.find_element("id", "actions").text
    return [line for line in text.splitlines() if line]


def _page_state(driver: Any) -> dict[str, Any]:
    return driver.execute_script("return window.dvonn.state") or {}


def test_the_board_shows_the_position_on_a_desktop_and_on_a_phone(browser: Any) -> None:
    with sim_table(moving_game(9, 8), hints=True) as sim:
        state = get_json(f"{sim.base}/api/state")
        browser.set_window_size(1200, 900)
        browser.get(f"{sim.base}/")
        _wait(browser, lambda: browser.execute_script("return !!window.dvonn.state"))
        cells = _cells(browser)
        assert {n: s for n, (s, _) in cells.items() if s} == state["stacks"]
        assert {n: r for n, (_, r) in cells.items() if r} == state["roles"]
        assert set(cells) == set(CELL_NAMES)
        assert _actions(browser) == state["actions"]
        # every piece is drawn, bottom to top, in its colour
        drawn = browser.execute_script(
            "return Object.fromEntries(Array.from(document.querySelectorAll('[data-cell]'))"
            ".map(e => [e.getAttribute('data-cell'), Array.from(e.querySelectorAll("
            "'.piece')).map(p => p.getAttribute('class').slice(-1)).join('')]))")
        assert {n: s for n, s in drawn.items() if s} == state["stacks"]
        w, b = state["score"]["white"], state["score"]["black"]
        assert browser.find_element("id", "score-w").text == str(w)
        assert browser.find_element("id", "score-b").text == str(b)
        assert browser.find_element("id", "turn").text.endswith("to move")
        assert browser.find_elements("css selector", ".cell.last-to"), "last move marked"
        # a phone in portrait: the board turns to fit, every space stays on screen
        browser.set_window_size(390, 844)
        _wait(browser, lambda: browser.execute_script(
            "return document.body.getAttribute('data-orientation')") == "portrait")
        box = browser.execute_script(
            "const r = document.getElementById('board').getBoundingClientRect();"
            "return [r.left, r.right, window.innerWidth, Array.from(document.querySelectorAll("
            "'[data-cell]')).map(e => e.getBoundingClientRect().width)]")
        left, right, width, sizes = box
        assert left >= 0 and right <= width + 1
        assert min(sizes) > 30  # a space is big enough to read and tap
        browser.set_window_size(1200, 900)


def test_a_move_on_the_table_appears_on_an_open_page_without_reload(browser: Any) -> None:
    with sim_table(moving_game(21, 8)) as sim:
        browser.get(f"{sim.base}/")
        _wait(browser, lambda: browser.execute_script("return !!window.dvonn.state"))
        browser.execute_script("window.__notReloaded = 42")
        game = sim.ctl.game
        move = next(m for m in game.legal_moves() if m.is_step)
        assert move.source is not None and move.target is not None
        s, d = CELL_NAMES[move.source], CELL_NAMES[move.target]
        ply = game.ply
        after = game.copy()
        after.push(move)
        # the hands on the simulated table: lift, (the page lights it), set down, confirm
        stack = sim.table.lift(move.source)
        sim.settle()
        _wait(browser, lambda: _cells(browser)[s][1] == "source", what="lifted stack lit")
        sim.table.put(move.target, sim.table.get(move.target) + stack)
        sim.settle()
        if sim.ctl.game.ply == ply and sim.ctl.view().prompt:
            held = sim.table.lift(move.target)
            sim.settle()
            sim.table.put(move.target, held)
            sim.settle()
        assert sim.ctl.actions[-1] == str(move)
        _wait(browser, lambda: _cells(browser)[d][0] == after.stack(move.target)
              and _cells(browser)[s][0] == "", what="the move on the page")
        assert _actions(browser)[-1] == str(move)
        assert browser.execute_script("return window.__notReloaded") == 42
        state = _page_state(browser)
        assert state["last_move"] == {"action": str(move), "from": s, "to": d}


def _idle(browser: Any, ply: int) -> bool:
    state = _page_state(browser)
    return (state.get("ply", -1) > ply and not state.get("prompt")
            and not BUSY_ROLES & set((state.get("roles") or {}).values()))


def test_a_virtual_table_game_played_by_clicks_reaches_the_end(browser: Any) -> None:
    rng = random.Random(7)
    with virtual_server() as server:
        pair_page(browser, server)
        assert browser.current_url == f"{server.base}/"  # the code left the address bar
        assert browser.find_element("id", "controls").is_displayed()
        element = {n: browser.find_element("css selector", f'[data-cell="{n}"]')
                   for n in CELL_NAMES}
        chosen: list[str] = []
        for _ in range(200):
            state = _page_state(browser)
            if state["phase"] == "over":
                break
            game = Game.from_moves(state["actions"])
            move = rng.choice(game.legal_moves())
            chosen.append(str(move))
            ply = state["ply"]
            if move.is_placement:
                assert move.target is not None
                element[CELL_NAMES[move.target]].click()
            else:
                assert move.source is not None and move.target is not None
                s = CELL_NAMES[move.source]
                element[s].click()
                _wait(browser, lambda s=s: _cells(browser)[s][1] == "source", what="lift")
                lit = {n for n, (_, r) in _cells(browser).items() if r == "destination"}
                legal = game.destinations(move.source)
                assert lit == {CELL_NAMES[c] for c in range(49) if (legal >> c) & 1}
                element[CELL_NAMES[move.target]].click()
            _wait(browser, lambda ply=ply: _idle(browser, ply), what=f"after {move}")
        state = _page_state(browser)
        assert state["phase"] == "over"
        assert [a for a in state["actions"] if a != "PASS"] == chosen
        final = Game.from_moves(state["actions"])
        assert final.is_over()
        w, b = final.score()
        assert state["score"] == {"white": w, "black": b} == {
            "white": int(browser.find_element("id", "score-w").text),
            "black": int(browser.find_element("id", "score-b").text)}
        assert _actions(browser) == state["actions"]
        result = browser.find_element("id", "result").text
        if w == b:
            assert result.startswith("Tie")
        else:
            assert result.startswith("White wins" if w > b else "Black wins")
            assert f"{max(w, b)} to {min(w, b)}" in result
        cells = _cells(browser)
        assert {n: s for n, (s, _) in cells.items() if s} == {
            CELL_NAMES[c]: final.stack(c) for c in range(49) if final.stack(c)}


def test_without_pairing_the_page_is_read_only(browser: Any) -> None:
    with virtual_server() as server:
        for cell in ("C3", "D3"):
            assert click(server, cell)[0] == 200
        browser.get(f"{server.base}/")
        browser.delete_all_cookies()
        browser.get(f"{server.base}/")
        _wait(browser, lambda: browser.execute_script("return !!window.dvonn.state"))
        assert not browser.find_element("id", "controls").is_displayed()
        assert browser.find_element("id", "spectator").is_displayed()
        before = get_json(f"{server.base}/api/state")
        browser.find_element("css selector", '[data-cell="E3"]').click()
        statuses = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "Promise.all(['confirm', 'next', 'undo', 'hint', 'new', 'share', 'click/E3']"
            ".map(n => fetch('/api/control/' + n, {method: 'POST'}).then(r => r.status)))"
            ".then(done)")
        assert statuses == [403] * 7
        assert get_json(f"{server.base}/api/state") == before
        assert _cells(browser)["E3"][0] == "" and _actions(browser) == ["C3", "D3"]


def test_a_new_game_does_not_leave_an_open_page_stale(browser: Any) -> None:
    with virtual_server() as server:
        pair_page(browser, server)
        for cell in ("C3", "D3", "E3"):
            assert click(server, cell)[0] == 200
        _wait(browser, lambda: _actions(browser) == ["C3", "D3", "E3"])
        browser.execute_script("window.confirm = () => true")
        browser.find_element("css selector", '[data-control="new"]').click()
        _wait(browser, lambda: _actions(browser) == [] and not any(
            s for s, _ in _cells(browser).values()), what="the new game on the page")
        browser.find_element("css selector", '[data-control="undo"]').click()  # nothing to undo
        element = browser.find_element("css selector", '[data-cell="F3"]')
        element.click()
        _wait(browser, lambda: _actions(browser) == ["F3"])
        assert _page_state(browser)["stacks"] == {"F3": "r"}


def test_a_page_that_lost_its_table_gets_the_whole_state_when_it_is_back(browser: Any) -> None:
    with virtual_server() as first:
        port = first.web.server.port
        assert click(first, "C3")[0] == 200
        browser.get(f"{first.base}/")
        _wait(browser, lambda: _actions(browser) == ["C3"])
        _wait(browser, lambda: "on" in browser.find_element("id", "live").get_attribute("class"))
    _wait(browser, lambda: "on" not in browser.find_element("id", "live").get_attribute("class"),
          what="the page notices the table is gone")
    with virtual_server(address=f"127.0.0.1:{port}") as second:  # restarted: another game
        for cell in ("D3", "E3"):
            assert click(second, cell)[0] == 200
        _wait(browser, lambda: _actions(browser) == ["D3", "E3"], timeout=30,
              what="the page back in step after the restart")
        cells = _cells(browser)
        assert {n: s for n, (s, _) in cells.items() if s} == {"D3": "r", "E3": "r"}


def test_one_page_against_the_computer(browser: Any) -> None:
    from controller.web.virtual import agent_for

    agents = {"b": agent_for("ai:1", "b", 3)}
    with virtual_server(agents=agents, players=("White", "computer (ai:1)")) as server:
        pair_page(browser, server)
        assert browser.find_element("id", "name-b").text == "computer (ai:1)"
        browser.find_element("css selector", '[data-cell="F3"]').click()
        _wait(browser, lambda: len(_actions(browser)) == 2, what="the computer's answer")
        assert _actions(browser)[0] == "F3"
        placed = [n for n, (s, _) in _cells(browser).items() if s]
        assert sorted(placed) == sorted(_actions(browser))
