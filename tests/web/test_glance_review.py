"""The review reads at a glance (issue 42), in a real headless Chromium as a phone (390x844,
touch) and a laptop (1366x768): the shown action is tinted under the pieces (no mark over a
piece or a height number), the board and the step buttons fit one phone screen, every control
is at least 44x44 CSS px, a swipe over the board steps the review and stays on the page, at a
?/?? the board outlines the better action of the side who erred, the graph has axes, grows
while the engine analyses and the ? and ?? of each side are counted; in German nothing of
the review is left in English."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_review import random_game
from web_helpers import get_json, new_browser, sim_table

from controller.journal.store import Journal
from engine.game import Game

BUDGET = 1.0  # seconds of engine time a review: enough for marks, quick under load
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}


def _wait(cond: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        assert time.monotonic() < deadline, what or "timed out"
        time.sleep(0.05)




def store(journal: Journal, game: Game, white: str = "Ann", black: str = "Bob") -> int:
    gid = journal.new_game(white=white, black=black)
    for move in game.move_stack:
        journal.append(gid, str(move))
    w, b = game.score()
    journal.finish(gid, white_score=w, black_score=b,
                   result={"w": "white", "b": "black"}.get(game.winner() or "", "tie"))
    return gid


def device(kind: str, lang: str = "") -> Any:
    """A Chromium whose viewport is exactly the phone's (with touch) or the laptop's."""
    width, height = SIZES[kind]
    driver = new_browser(width, height, lang=lang)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": kind == "phone"})
    if kind == "phone":
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                               {"enabled": True, "maxTouchPoints": 5})
    return driver


@pytest.fixture(scope="module", params=list(SIZES))
def screen(request: Any) -> Iterator[tuple[str, Any]]:
    driver = device(request.param)
    try:
        yield request.param, driver
    finally:
        driver.quit()


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal(tmp_path / "games.sqlite3") as j:
        yield j


def js(driver: Any, script: str, *args: Any) -> Any:
    return driver.execute_script(script, *args)


def status_of(driver: Any) -> str:
    return str(js(driver, "return document.getElementById('review').getAttribute('data-status')"))


def step_of(driver: Any) -> int:
    return int(js(driver, "return Number(document.body.getAttribute('data-review-step'))"))


def open_review(driver: Any, base: str, game: int) -> dict[str, Any]:
    driver.get(f"{base}/#review={game}")
    _wait(lambda: status_of(driver) == "done", 90, "the review was not analysed")
    answer = get_json(f"{base}/api/review/{game}")
    assert answer["status"] == "done"
    return dict(answer)


def go_to(driver: Any, ply: int) -> None:
    js(driver, "dvonn.review.go('first'); for (let i = 0; i < arguments[0]; i++) "
               "dvonn.review.go('next');", ply)
    _wait(lambda: step_of(driver) == ply, 10)


# what lies over what: every mark on the board against every piece and height number
OVERLAPS = """
const boxes = sel => Array.from(document.querySelectorAll(sel)).map(e => {
  const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })
  .filter(b => b[2] > b[0] && b[3] > b[1]);
const marks = Array.from(document.querySelectorAll('#marks *'))
  .filter(e => !['title', 'g'].includes(e.tagName));
const things = boxes('#board .pile .piece, #board .pile .height');
const out = [];
for (const m of marks) {
  const r = m.getBoundingClientRect();
  for (const b of things) {
    if (r.left < b[2] - 0.5 && b[0] < r.right - 0.5 &&
        r.top < b[3] - 0.5 && b[1] < r.bottom - 0.5) {
      out.push(m.outerHTML.slice(0, 80)); break;
    }
  }
}
return out;
"""


def test_the_shown_action_is_tinted_under_the_pieces(screen: tuple[str, Any],
                                                       journal: Journal) -> None:
    kind, driver = screen
    game = random_game(11)
    gid = store(journal, game)
    with sim_table(review_budget=BUDGET) as sim:
        sim.web.server.journal = journal
        review = open_review(driver, sim.base, gid)
        actions = review["actions"]
        marked = [a["ply"] for a in review["analysis"]["actions"] if a["mark"]]
        heights = 0
        for ply in sorted({1, 30, 49, 50, 51, *range(60, len(actions) + 1, 3), *marked[:6],
                           len(actions)}):
            go_to(driver, ply)
            assert js(driver, OVERLAPS) == [], f"a mark over a piece at step {ply} ({kind})"
            assert not js(driver, "return document.querySelectorAll('#marks line').length")
            heights += js(driver, "return document.querySelectorAll('#board .height').length")
            last = review["steps"][ply]["last_move"]
            tinted = js(driver, """
              const out = {};
              for (const c of ['rv-last-from', 'rv-last-to', 'rv-best-from', 'rv-best-to']) {
                const g = document.querySelector('#board .cell.' + c);
                if (!g) { continue; }
                const hex = g.querySelector('.hex'), glow = g.querySelector('.glow');
                // the tint and the outline are the space's own, drawn before its pile
                const before = !!(g.querySelector('.pile').compareDocumentPosition(glow) &
                                  Node.DOCUMENT_POSITION_PRECEDING);
                out[c] = [g.getAttribute('data-cell'), getComputedStyle(hex).fill,
                          getComputedStyle(glow).stroke, before];
              }
              out.plain = getComputedStyle(document.querySelector(
                '#board .cell:not([class*="rv-"]) .hex')).fill;
              return out;""")
            assert tinted["rv-last-to"][0] == last["to"], (ply, tinted)
            assert tinted["rv-last-to"][1] != tinted["plain"], "the landing space is tinted"
            if last["from"]:
                assert tinted["rv-last-from"][0] == last["from"]
                assert tinted["rv-last-from"][1] != tinted["plain"]
            for mark in ("rv-best-from", "rv-best-to"):
                if mark in tinted:
                    assert tinted[mark][2] not in ("none", ""), "the outline shows"
            assert all(v[3] for k, v in tinted.items() if k != "plain")
        assert heights, "stacks with height numbers were checked"


def test_board_and_step_buttons_fit_one_screen_and_controls_are_44px(
        screen: tuple[str, Any], journal: Journal) -> None:
    kind, driver = screen
    gid = store(journal, random_game(5))
    store(journal, random_game(6), "Cy", "Di")
    with sim_table(review_budget=BUDGET) as sim:
        sim.web.server.journal = journal
        driver.get(f"{sim.base}/")
        js(driver, "window.scrollTo(0, 0)")
        driver.find_element("id", "games-open").click()
        _wait(lambda: len(driver.find_elements("css selector", "#game-list li")) == 2, 30)
        rows = js(driver, "return Array.from(document.querySelectorAll('#game-list li'))"
                          ".map(li => li.getBoundingClientRect().height)")
        assert all(h >= 44 for h in rows), rows
        small = js(driver, SMALL, "#games")
        assert small == [], small
        open_review(driver, sim.base, gid)
        go_to(driver, 60)
        js(driver, "window.scrollTo(0, 0)")
        view = js(driver, """
          const b = document.getElementById('board').getBoundingClientRect();
          const nav = Array.from(document.querySelectorAll('#review [data-step], #review-ply'))
            .map(e => e.getBoundingClientRect());
          return {height: innerHeight, width: innerWidth, board: [b.top, b.bottom, b.height],
                  nav: nav.map(r => [r.top, r.bottom, r.width, r.height])};""")
        assert view["board"][0] >= 0 and view["board"][1] <= view["height"], view
        for top, bottom, width, height in view["nav"]:
            assert 0 <= top and bottom <= view["height"] and width > 0 and height > 0, view
        assert view["board"][2] >= 0.35 * view["height"], "the board is still the main thing"
        small = js(driver, SMALL, "body")
        assert small == [], f"controls under 44x44 CSS px on the {kind}: {small}"


SMALL = """
const root = document.querySelector(arguments[0]);
const sel = 'button, select, input, a[href], textarea, #review-actions li, #eval-graph';
return Array.from(root.querySelectorAll(sel)).filter(e => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden' &&
         (r.width < 44 || r.height < 44);
}).map(e => (e.id || e.getAttribute('data-step') || e.tagName) + ' ' +
       Math.round(e.getBoundingClientRect().width) + 'x' +
       Math.round(e.getBoundingClientRect().height));
"""


def test_a_swipe_over_the_board_steps_the_review_and_stays_on_the_page(
        journal: Journal) -> None:
    gid = store(journal, random_game(7))
    driver = device("phone")
    try:
        with sim_table(review_budget=BUDGET) as sim:
            sim.web.server.journal = journal
            driver.get(f"{sim.base}/api/games")  # a page to go back to
            open_review(driver, sim.base, gid)
            go_to(driver, 20)
            js(driver, "window.scrollTo(0, 0); window.stayed = 'here';")
            url = driver.current_url
            styles = js(driver, "return [getComputedStyle(document.querySelector('.board-wrap'))"
                                ".touchAction, getComputedStyle(document.getElementById('board'))"
                                ".touchAction]")
            assert all("pan-y" in s and "pan-x" not in s for s in styles), styles
            box = js(driver, "const r = document.getElementById('board').getBoundingClientRect();"
                             "return [r.left + r.width / 2, r.top + r.height / 2];")

            def swipe(dx: float) -> None:  # a finger on the board, through the input pipeline
                x, y = box
                points = [x - dx / 2 + dx * i / 6 for i in range(7)]
                driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
                    "type": "touchStart", "touchPoints": [{"x": points[0], "y": y}]})
                for px in points[1:]:
                    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
                        "type": "touchMove", "touchPoints": [{"x": px, "y": y}]})
                driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                                       {"type": "touchEnd", "touchPoints": []})

            swipe(160)  # to the right: back one action (not the browser's back)
            _wait(lambda: step_of(driver) == 19, 10, "a swipe to the right steps back")
            swipe(-160)  # to the left: on
            _wait(lambda: step_of(driver) == 20, 10, "a swipe to the left steps on")
            swipe(-160)
            _wait(lambda: step_of(driver) == 21, 10)
            time.sleep(0.3)
            assert driver.current_url == url
            assert js(driver, "return window.stayed") == "here", "the page was left"
            # the page keeps a horizontal move over the board for itself
            cancelled = js(driver, """
              const w = document.querySelector('.board-wrap');
              const t = x => new Touch({identifier: 7, target: w, clientX: x, clientY: 300});
              w.dispatchEvent(new TouchEvent('touchstart', {touches: [t(200)],
                changedTouches: [t(200)], bubbles: true, cancelable: true}));
              const move = new TouchEvent('touchmove', {touches: [t(120)],
                changedTouches: [t(120)], bubbles: true, cancelable: true});
              w.dispatchEvent(move);
              w.dispatchEvent(new TouchEvent('touchcancel', {changedTouches: [t(120)],
                bubbles: true}));
              return move.defaultPrevented;""")
            assert cancelled is True
            assert step_of(driver) == 21  # a cancelled touch steps nothing
    finally:
        driver.quit()


def test_at_a_mistake_the_board_outlines_the_better_action_of_the_side_who_erred(
        journal: Journal) -> None:
    gid = store(journal, random_game(11))
    driver = device("laptop")
    try:
        with sim_table(review_budget=BUDGET) as sim:
            sim.web.server.journal = journal
            review = open_review(driver, sim.base, gid)
            analysed = review["analysis"]["actions"]
            mistakes = [a for a in analysed if a["mark"] and a["best"] != a["action"]]
            assert mistakes, "a random game has mistakes"
            for a in mistakes[:8]:
                ply = a["ply"]
                go_to(driver, ply)
                seen = js(driver, """
                  const b = document.getElementById('board');
                  const cell = c => (document.querySelector('#board .cell.' + c) || {})
                    .getAttribute ? document.querySelector('#board .cell.' + c)
                    .getAttribute('data-cell') : null;
                  return [b.getAttribute('data-best'), b.getAttribute('data-best-side'),
                          b.getAttribute('data-best-kind'), cell('rv-best-from'),
                          cell('rv-best-to')];""")
                best = a["best"]
                assert seen[:3] == [best, a["side"], "alternative"], (ply, a, seen)
                assert seen[4] == (best[2:] if len(best) == 4 else best)
                assert seen[3] == (best[:2] if len(best) == 4 else None)
                mover = review["steps"][ply]["turn"]
                nxt = analysed[ply]["best"] if ply < len(analysed) else None
                if mover != a["side"] and nxt and nxt != best:
                    assert seen[0] != nxt, "not the other side's best next action"
                note = driver.find_element("id", "review-note").text
                assert best in note and a["action"] in note
            # an action that is no mistake: the engine's best next action, for the next mover
            fine = next(a for a in analysed[:-1] if not a["mark"] and analysed[a["ply"]]["best"]
                        and not analysed[a["ply"]]["forced"])
            go_to(driver, fine["ply"])
            seen = js(driver, "const b = document.getElementById('board'); return ["
                              "b.getAttribute('data-best'), b.getAttribute('data-best-side'),"
                              "b.getAttribute('data-best-kind')]")
            nxt = analysed[fine["ply"]]
            assert seen == [nxt["best"], nxt["side"], "next"]
    finally:
        driver.quit()


def test_the_graph_has_axes_grows_while_analysed_and_counts_each_side_s_marks(
        screen: tuple[str, Any], journal: Journal) -> None:
    kind, driver = screen
    game = random_game(13 if kind == "phone" else 14)
    gid = store(journal, game)
    n = len(game.move_stack)
    with sim_table(review_budget=8.0) as sim:  # long enough to be seen growing
        sim.web.server.journal = journal
        driver.get(f"{sim.base}/#review={gid}")
        seen = _wait(lambda: js(driver, """
          const st = document.getElementById('review').getAttribute('data-status');
          const k = document.querySelectorAll('#eval-graph circle.point').length;
          return st === 'analysing' && k > 0 && k < arguments[0] ? k : 0;""", n), 90,
            "no point of the graph before the analysis ended")
        assert 0 < seen < n
        _wait(lambda: status_of(driver) == "done", 120, "the review was not analysed")
        answer = get_json(f"{sim.base}/api/review/{gid}")
        analysed = answer["analysis"]["actions"]
        graph = js(driver, """
          const g = document.getElementById('eval-graph'), r = g.getBoundingClientRect();
          const p = document.getElementById('review').getBoundingClientRect();
          const texts = sel => Array.from(g.querySelectorAll(sel)).map(e => e.textContent);
          return {w: r.width, h: r.height, panel: p.width, labels: texts('.axis-label'),
                  y: texts('.tick.y'), x: texts('.tick.x'),
                  points: g.querySelectorAll('circle.point').length};""")
        assert graph["points"] == n
        assert graph["labels"] == ["pieces", "action"]
        assert "0" in graph["y"] and any(v.startswith("+") for v in graph["y"])
        assert len(graph["x"]) >= 3 and all(v.isdigit() for v in graph["x"])
        assert graph["w"] >= 0.95 * graph["panel"] and graph["h"] >= 150, graph
        counts = js(driver, """
          return Array.from(document.querySelectorAll('#review-counts [data-side]')).map(s =>
            [s.getAttribute('data-side')].concat(Array.from(s.querySelectorAll('[data-mark]'))
              .map(c => [c.getAttribute('data-mark'), Number(c.getAttribute('data-count'))])));""")
        want = [[side, *([m, sum(a["side"] == side and a["mark"] == m for a in analysed)]
                         for m in ("?", "??"))] for side in ("w", "b")]
        assert counts == want
        assert driver.find_element("id", "review-counts").is_displayed()


# English words of the review's messages: none may be left on the German page
ENGLISH = set("""the vs wins tie White Black resigned abandoned unfinished on table Review
Back back start one action actions pieces ahead mistakes blunders analysing Evaluation when
is or more lost against best engine's choice too forced Best here cuts off Outlined better
for game over loading waiting engine arrow left right End Home evaluation after each
cannot be reviewed""".split())


def test_the_german_review_has_no_english_left(journal: Journal) -> None:
    games = [store(journal, random_game(seed), *names)
             for seed, names in ((11, ("Weiß", "Schwarz")), (3, ("Cy", "Di")))]
    driver = new_browser(1366, 768, lang="de")
    try:
        with sim_table(review_budget=BUDGET) as sim:
            sim.web.server.journal = journal
            driver.get(f"{sim.base}/")
            driver.find_element("id", "games-open").click()
            _wait(lambda: len(driver.find_elements("css selector", "#game-list li")) == 2, 30)
            rows = [li.text for li in driver.find_elements("css selector", "#game-list li")]
            words = {"white": "Weiß gewinnt", "black": "Schwarz gewinnt", "tie": "unentschieden"}
            for gid, row in zip(reversed(games), rows, strict=True):
                result = journal.game(gid).result
                assert words[result] in row, row
            assert not _english(driver, "#games"), _english(driver, "#games")
            review = open_review(driver, sim.base, games[0])
            result = journal.game(games[0]).result
            title = driver.find_element("id", "review-title").text
            assert title.endswith(" · " + words[result]) and " gegen " in title
            marked = next(a["ply"] for a in review["analysis"]["actions"] if a["mark"])
            for ply in (0, marked, marked + 1, len(review["actions"])):
                go_to(driver, ply)
                left = _english(driver, "#review")
                assert not left, f"English on the German review at step {ply}: {left}"
            labels = js(driver, "return Array.from(document.querySelectorAll("
                                "'#review [data-step]')).map(b => [b.title, "
                                "b.getAttribute('aria-label')])")
            assert all(t and t == a for t, a in labels), labels
            assert any("Anfang" in t or "Zug" in t for t, _ in labels), labels
    finally:
        driver.quit()


def _english(driver: Any, root: str) -> list[str]:
    """English words in the text nodes and the words of the attributes under ``root``."""
    texts = js(driver, """
      const root = document.querySelector(arguments[0]), out = [];
      const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) { out.push(walk.currentNode.textContent); }
      for (const e of [root, ...root.querySelectorAll('*')]) {
        for (const a of ['placeholder', 'title', 'aria-label', 'alt']) {
          if (e.getAttribute(a)) { out.push(e.getAttribute(a)); }
        }
      }
      return out;""", root)
    return [t for t in texts if set(re.findall(r"[A-Za-z']+", t)) & ENGLISH]
