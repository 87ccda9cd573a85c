"""The review mode (issue 26): a journaled game (or the one just finished on the table) step
by step in a real headless Chromium, with the engine's evaluation graph; and the review
routes' rules over plain HTTP (who sees the engine's review of the game still being played).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TEST_TOKEN, get_json, http, sim_table

from controller.journal.store import Journal
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import Move

BUDGET = 1.0  # seconds of engine time a review: enough for marks, quick for the tests


def _wait(driver: Any, cond: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(
        lambda d: cond(), message=what)


def random_game(seed: int) -> Game:
    rng = random.Random(seed)
    game = Game()
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    return game


def store(journal: Journal, game: Game, white: str = "Ann", black: str = "Bob",
          finish: bool = True) -> int:
    gid = journal.new_game(white=white, black=black)
    for move in game.move_stack:
        journal.append(gid, str(move))
    if finish:
        w, b = game.score()
        journal.finish(gid, white_score=w, black_score=b,
                       result={"w": "white", "b": "black"}.get(game.winner() or "", "tie"))
    return gid


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal(tmp_path / "games.sqlite3") as j:
        yield j


def stacks_at(actions: list[str], ply: int) -> dict[str, str]:
    game = Game.from_moves([Move.parse(a) for a in actions[:ply]])
    return {CELL_NAMES[c]: game.stack(c) for c in range(49) if game.stack(c)}


def page_stacks(driver: Any) -> dict[str, str]:
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('[data-cell]')).map(e => "
        "[e.getAttribute('data-cell'), e.getAttribute('data-stack'), "
        "Array.from(e.querySelectorAll('.piece')).map(p => p.getAttribute('class')"
        ".slice(-1)).join('')])")
    assert all(s == drawn for _, s, drawn in rows), "every piece drawn as data-stack says"
    return {n: s for n, s, _ in rows if s}


def step_of(driver: Any) -> int:
    return int(driver.execute_script("return document.body.getAttribute('data-review-step')"))


def open_review(driver: Any, base: str, game: int | str) -> dict[str, Any]:
    """Open the review of ``game`` by its address; once analysed, the routes' answer."""
    driver.get(f"{base}/#review={game}")
    _wait(driver, lambda: driver.execute_script(
        "return document.getElementById('review').getAttribute('data-status')") == "done",
        timeout=60, what="the review was not analysed")
    answer = get_json(f"{base}/api/review/{game}")
    assert answer["status"] == "done"
    return dict(answer)


def test_stepping_through_a_journaled_game_shows_the_engine_s_board(browser: Any,
                                                                    journal: Journal) -> None:
    game = random_game(5)
    gid = store(journal, game)
    with sim_table(review_budget=BUDGET) as sim:
        sim.web.server.journal = journal
        browser.set_window_size(1200, 900)
        review = open_review(browser, sim.base, gid)
        actions = review["actions"]
        assert actions == [str(m) for m in game.move_stack]
        assert len(review["steps"]) == len(actions) + 1
        # the graph: one point per action, drawn by the page itself
        points = browser.execute_script(
            "return Array.from(document.querySelectorAll('#eval-graph circle.point'))"
            ".map(c => Number(c.getAttribute('data-ply')))")
        assert points == list(range(1, len(actions) + 1))
        assert browser.find_element("id", "live-panel").get_attribute("hidden") is not None
        assert step_of(browser) == 0 and page_stacks(browser) == {}
        body = browser.find_element("tag name", "body")
        from selenium.webdriver.common.keys import Keys

        # forward with the arrow key, every step the engine's board
        for ply in range(1, len(actions) + 1):
            body.send_keys(Keys.ARROW_RIGHT)
            _wait(browser, lambda p=ply: step_of(browser) == p)
            assert page_stacks(browser) == stacks_at(actions, ply), f"after {ply} actions"
        body.send_keys(Keys.ARROW_RIGHT)  # the end: stays
        assert step_of(browser) == len(actions)
        # back with the buttons
        prev = browser.find_element("css selector", '#review [data-step="prev"]')
        for ply in range(len(actions) - 1, len(actions) - 15, -1):
            prev.click()
            _wait(browser, lambda p=ply: step_of(browser) == p)
            assert page_stacks(browser) == stacks_at(actions, ply), f"after {ply} actions"
        browser.find_element("css selector", '#review [data-step="first"]').click()
        _wait(browser, lambda: step_of(browser) == 0)
        assert page_stacks(browser) == {}
        assert browser.find_element("css selector", '#review [data-step="prev"]').get_attribute(
            "disabled") is not None
        browser.find_element("css selector", '#review [data-step="next"]').click()
        _wait(browser, lambda: step_of(browser) == 1)
        body.send_keys(Keys.END)
        _wait(browser, lambda: step_of(browser) == len(actions))
        body.send_keys(Keys.HOME)
        _wait(browser, lambda: step_of(browser) == 0)
        # back to the table: the live board again
        browser.find_element("id", "review-close").click()
        _wait(browser, lambda: browser.execute_script(
            "return !document.body.hasAttribute('data-review-step')"))
        assert page_stacks(browser) == {}  # the table is empty
        assert browser.find_element("id", "review").get_attribute("hidden") is not None


def test_the_graph_jumps_mistakes_are_marked_the_best_action_is_drawn(
        browser: Any, journal: Journal) -> None:
    game = random_game(11)
    gid = store(journal, game)
    with sim_table(review_budget=BUDGET) as sim:
        sim.web.server.journal = journal
        browser.set_window_size(1200, 900)
        review = open_review(browser, sim.base, gid)
        actions, analysed = review["actions"], review["analysis"]["actions"]
        assert len(analysed) == len(actions)
        # clicking a point jumps to the position after that action
        for ply in (len(actions) // 2, 7, len(actions)):
            browser.find_element("css selector", f'#eval-graph circle[data-ply="{ply}"]').click()
            _wait(browser, lambda p=ply: step_of(browser) == p)
            assert page_stacks(browser) == stacks_at(actions, ply)
        # anywhere on the graph: the nearest action (its left edge: the first)
        graph = browser.find_element("id", "eval-graph")
        from selenium.webdriver.common.action_chains import ActionChains

        width = graph.size["width"]
        ActionChains(browser).move_to_element_with_offset(graph, -width // 2 + 2, 0).click(
        ).perform()
        _wait(browser, lambda: step_of(browser) == 1)
        # mistakes (? and ??) marked in the action list and on the graph, as analysed
        rows = browser.execute_script(
            "return Array.from(document.querySelectorAll('#review-actions li')).map(li => "
            "[li.textContent, li.getAttribute('data-mark'), li.className])")
        marks = [a["mark"] for a in analysed]
        assert [r[1] for r in rows] == marks
        assert [r[0] for r in rows] == [a + m for a, m in zip(actions, marks, strict=True)]
        assert any(marks), "a random game has mistakes"
        for (_, _, cls), a in zip(rows, analysed, strict=True):
            assert cls.replace("current", "").strip() == {"?": "mistake", "??": "blunder"}.get(
                a["mark"], "")
        kinds = browser.execute_script(
            "return Array.from(document.querySelectorAll('#eval-graph circle.point'))"
            ".map(c => c.classList.contains('blunder') ? '??' : "
            "c.classList.contains('mistake') ? '?' : '')")
        assert kinds == marks
        # a mistake: the engine's best action there is drawn on the board before it
        ply = next(i for i, a in enumerate(analysed) if a["mark"])  # the position before it
        browser.find_elements("css selector", "#review-actions li")[ply - 1].click() if ply \
            else browser.find_element("css selector", '#review [data-step="first"]').click()
        _wait(browser, lambda: step_of(browser) == ply)
        best = analysed[ply]["best"]
        assert browser.find_element("id", "board").get_attribute("data-best") == best
        assert browser.find_elements("css selector", "#board .cell.rv-best-to")  # outlined
        assert best in browser.find_element("id", "review-note").text
        # a swipe on a phone: to the left for the next action
        browser.execute_script(
            "const w = document.querySelector('.board-wrap');"
            "function fire(type, x) { const t = new Touch({identifier: 1, target: w, "
            "clientX: x, clientY: 200});"
            "w.dispatchEvent(new TouchEvent(type, {touches: type === 'touchend' ? [] : [t], "
            "changedTouches: [t], bubbles: true})); }"
            "fire('touchstart', 300); fire('touchend', 180);")
        _wait(browser, lambda: step_of(browser) == ply + 1)


def test_the_game_just_finished_is_one_tap_from_the_result(browser: Any) -> None:
    game = random_game(2)
    with sim_table(game=game, review_budget=BUDGET) as sim:
        browser.set_window_size(390, 844)  # a phone
        browser.get(f"{sim.base}/")
        button = browser.find_element("id", "review-this")
        _wait(browser, lambda: button.is_displayed(), what="no review button by the result")
        assert browser.find_element("id", "result").is_displayed()
        button.click()
        _wait(browser, lambda: browser.execute_script(
            "return document.getElementById('review').getAttribute('data-status')") == "done",
            timeout=60)
        n = game.ply
        assert browser.execute_script(
            "return document.querySelectorAll('#eval-graph circle.point').length") == n
        assert browser.execute_script("return document.getElementById('review')"
                                      ".getAttribute('data-game')") == "live"
        browser.find_element("css selector", '#review [data-step="last"]').click()
        _wait(browser, lambda: step_of(browser) == n)
        actions = [str(m) for m in game.move_stack]
        assert page_stacks(browser) == stacks_at(actions, n)
        browser.set_window_size(1200, 900)


def test_the_games_list_opens_a_review(browser: Any, journal: Journal) -> None:
    first = store(journal, random_game(3), "Cy", "Di")
    second = store(journal, random_game(4), "Ed", "Flo")
    with sim_table(review_budget=BUDGET) as sim:
        sim.web.server.journal = journal
        browser.get(f"{sim.base}/")
        browser.find_element("id", "games-open").click()
        _wait(browser, lambda: len(browser.find_elements("css selector", "#game-list li")) == 2)
        items = browser.find_elements("css selector", "#game-list li")
        assert [i.get_attribute("data-game") for i in items] == [str(second), str(first)]
        assert "Ed vs Flo" in items[0].text
        items[1].find_element("tag name", "button").click()
        _wait(browser, lambda: browser.execute_script(
            "return document.getElementById('review').getAttribute('data-game')") == str(first))
        _wait(browser, lambda: "Cy vs Di" in browser.find_element("id", "review-title").text)


# ------------------------------------------------------------------------ the routes' rules
def test_spectators_see_the_review_of_a_finished_game_not_of_the_one_being_played(
        journal: Journal) -> None:
    done = store(journal, random_game(6))
    playing = random_game(7)
    while playing.ply > 60:
        playing.pop()
    with sim_table(game=playing, review_budget=0.3) as sim:
        unfinished = store(journal, playing, finish=False)
        sim.web.server.journal = journal
        listed = get_json(f"{sim.base}/api/games")
        assert listed["journal"] is True
        assert [g["id"] for g in listed["games"]] == [unfinished, done]
        assert listed["games"][1]["score"] is not None and listed["games"][0]["result"] is None
        for game_id in (unfinished, "live"):  # the game still being played
            spectator = get_json(f"{sim.base}/api/review/{game_id}")
            assert spectator["status"] == "hidden" and spectator["analysis"] is None
            assert len(spectator["steps"]) == playing.ply + 1  # the positions are public
            player = get_json(f"{sim.base}/api/review/{game_id}", token=TEST_TOKEN)
            assert player["status"] in ("queued", "analysing", "done")
        assert get_json(f"{sim.base}/api/review/{done}")["status"] in ("queued", "analysing",
                                                                       "done")
        sim.web.hub.set_share_hints(True)  # the players share their hints
        assert get_json(f"{sim.base}/api/review/live")["status"] != "hidden"
        status, body, _ = http(f"{sim.base}/api/review/12345")
        assert status == 404 and "no game 12345" in json.loads(body)["detail"]
        assert str(journal.path) not in body.decode()
        assert http(f"{sim.base}/api/review/..%2Fx")[0] == 404
        status, _, headers = http(f"{sim.base}/api/games")
        assert "script-src 'self'" in headers["content-security-policy"]


def test_without_a_journal_only_the_live_game(journal: Journal) -> None:
    with sim_table(review_budget=0.2) as sim:
        assert get_json(f"{sim.base}/api/games") == {"journal": False, "games": []}
        status, body, _ = http(f"{sim.base}/api/review/1")
        assert status == 404 and "no journal" in json.loads(body)["detail"]
        live = get_json(f"{sim.base}/api/review/live", token=TEST_TOKEN)
        assert live["actions"] == [] and len(live["steps"]) == 1


def test_a_review_is_cached_and_given_the_servers_budget(journal: Journal) -> None:
    import time

    gid = store(journal, random_game(8))
    with sim_table(review_budget=0.5) as sim:
        sim.web.server.journal = journal
        start = time.monotonic()
        while (answer := get_json(f"{sim.base}/api/review/{gid}"))["status"] != "done":
            assert time.monotonic() - start < 20, answer["status"]
            time.sleep(0.05)
        assert answer["analysis"]["budget"] == 0.5  # the server's budget (time: benchmarks)
        again = get_json(f"{sim.base}/api/review/{gid}")
        assert again["analysis"] == answer["analysis"]  # the cache: no second analysis
        assert len(sim.web.server.reviews._jobs) == 1


# ------------------------------------------------------------------------ play --review
def test_play_review_walks_the_table_through_a_journaled_game(tmp_path: Path) -> None:
    """``play --review ID --web`` on the emulated sensor board (real firmware over a pty):
    the record's first placement lights as ``suggest``; put on the table, it commits; the
    page's next steps on (the table must follow: a mismatch), undo steps back; the page
    reviews the journal's games; nothing is journaled."""
    import os
    import re
    import select
    import signal
    import subprocess
    import sys
    import time

    from web_helpers import wait_state

    from engine.geometry import parse_cell
    from hardware.clock import SystemClock
    from hardware.sensorboard.emulator import SensorBoardEmulator, VirtualTable

    game = random_game(12)
    path = tmp_path / "g.sqlite3"
    with Journal(path) as journal:
        gid = store(journal, game, "Master", "Pupil")
    first, second = (str(m) for m in game.move_stack[:2])
    emu = SensorBoardEmulator(VirtualTable(seed=5), clock=SystemClock(), seed=2)
    emu.start()
    cfg = tmp_path / "hall.toml"
    cfg.write_text(f'[sensor]\nbackend = "sensor-board"\nport = "{emu.port}"\n'
                   '[leds]\nbackend = "terminal"\ncolour = false\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_DATA_HOME=str(tmp_path),
               DVONN_DATA_DIR=str(tmp_path), NO_COLOR="1", DVONN_WEB_TOKEN=TEST_TOKEN)
    env.pop("DVONN_LEDS", None)
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "play", "--config",
                             str(cfg), "--journal", str(path), "--review", str(gid), "--web",
                             "127.0.0.1:0"], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        seen = b""
        url = re.compile(rb"web view: http://127\.0\.0\.1:(\d+)/")
        deadline = time.monotonic() + 60
        while not url.search(seen):
            assert proc.poll() is None and time.monotonic() < deadline, seen[-300:]
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                seen += os.read(proc.stdout.fileno(), 65536)
        m = url.search(seen)
        assert m is not None
        base = f"http://127.0.0.1:{int(m.group(1))}"
        total = len(game.move_stack)
        state = wait_state(base, lambda s: f"review 1/{total}" in s["message"], "the record")
        assert state["roles"] == {first: "suggest"}
        assert state["players"] == {"white": "Master", "black": "Pupil"}
        emu.table.put(parse_cell(first), "r")  # the person follows the LEDs
        state = wait_state(base, lambda s: s["actions"] == [first], "the first placement")
        assert state["roles"] == {second: "suggest", first: "last"}
        status, _, _ = http(f"{base}/api/control/next", "POST", token=TEST_TOKEN)
        assert status == 200
        state = wait_state(base, lambda s: s["actions"] == [first, second], "next")
        assert state["roles"] == {second: "mismatch"}  # the table must follow
        assert http(f"{base}/api/control/undo", "POST", token=TEST_TOKEN)[0] == 200
        state = wait_state(base, lambda s: s["actions"] == [first] and
                           s["roles"].get(second) == "suggest", "undo")
        answer = get_json(f"{base}/api/review/{gid}")  # the page reviews the journal's games
        assert answer["actions"] == [str(m) for m in game.move_stack]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err.decode()
        assert f"reviewing journal game {gid}: Master vs Pupil" in err.decode()
        with Journal(path, readonly=True) as journal:
            assert [g.id for g in journal.games()] == [gid]  # the walk is not journaled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        emu.close()
