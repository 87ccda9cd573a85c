"""The broadcast page read at a glance (issue 42, points 8-10), in headless Chromium at a
phone's size (390x844) and a laptop's (1366x768): height numbers big enough to read, live
tables first and the finished ones after them at full strength, the count of tables still
playing, a grid of boards across a laptop's width, controls a finger can hit, German with
its plurals and no English left, and sides named by what plays them, kept apart in the
standings."""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import new_browser

from controller.remote.publisher import StatePublisher
from controller.remote.url import parse_url
from controller.sim.demo import DemoOptions, run_demo
from controller.web.broadcast import BroadcastServer
from hardware.leds.base import NullStrip
from tests.remote.broker import Broker
from tests.remote.test_publish import random_game, state_of

WAIT = 60.0  # seconds: a loaded machine (never a timing check)
PHONE, LAPTOP = (390, 844), (1366, 768)
#: The scene: (table, plies, White, Black); 400 plies: played to the end.
LIVE = (("t3", 24, "Anna", "Ben"), ("t4", 60, "Carla", "Dirk"), ("t5", 6, "Eva", "Fritz"))
OVER = (("t1", 400, "Gerd", "Hanna"), ("t2", 400, "Ines", "Jan"))


def poll(check: Any, what: str, timeout: float = WAIT) -> Any:
    """``check()``'s first true value, polled; AssertionError naming ``what`` after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # the page may be between two drawings
            value = check()
            if value:
                return value
        time.sleep(0.1)
    raise AssertionError(f"never: {what} (last: {value!r})")


@contextlib.contextmanager
def club(broker: Broker, tables: tuple[tuple[str, int, str, str], ...] = LIVE + OVER,
         *, leave: tuple[str, ...] = ("t1", "t2"), language: str = "auto"
         ) -> Iterator[BroadcastServer]:
    """A broadcast server of ``tables`` published through ``broker``; the tables of
    ``leave`` go home (their games over) before the page is looked at."""
    server = BroadcastServer(parse_url(broker.url("club"), levels=(1, 1)), host="127.0.0.1",
                             port=0, language=language)
    server.start()
    pubs: dict[str, StatePublisher] = {}
    try:
        for name, plies, white, black in tables:
            pub = pubs[name] = StatePublisher(parse_url(broker.url(f"club/{name}")))
            pub.publish_state(state_of(random_game(int(name[1:]) * 7 + plies, plies=plies),
                                       (white, black)))
            pub.flush()
        poll(lambda: len(server.club.entries()) == len(tables), "every table joined")
        for name in leave:
            pubs[name].close()
        poll(lambda: all(e["status"] == "left" for e in server.club.entries()
                         if e["name"] in leave), "the tables that left")
        yield server
    finally:
        for pub in pubs.values():
            pub.close()
        server.stop()


@pytest.fixture(scope="module", params=[PHONE, LAPTOP], ids=["phone", "laptop"])
def sized(request: pytest.FixtureRequest) -> Iterator[tuple[Any, tuple[int, int]]]:
    """A headless Chromium whose page is exactly a phone's or a laptop's size."""
    driver = sized_browser(request.param)
    try:
        yield driver, request.param
    finally:
        driver.quit()


def sized_browser(size: tuple[int, int], lang: str = "") -> Any:
    driver = new_browser(*size, lang=lang)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})
    return driver


def open_page(browser: Any, server: BroadcastServer, count: int) -> None:
    browser.get(f"http://127.0.0.1:{server.port}/")
    poll(lambda: browser.execute_script(
        "return document.querySelectorAll('article[data-table][data-phase]').length") == count
        and browser.execute_script(
            "return document.querySelectorAll('#standings tbody tr').length") > 0,
         "the tables and standings on the page")


def layout(browser: Any) -> dict[str, Any]:
    """Where the page puts each table and how big its height numbers are drawn."""
    return dict(json.loads(browser.execute_script("""
        var out = {tables: [], heights: [], small: [], viewport: [innerWidth, innerHeight],
          scroll: document.documentElement.scrollWidth};
        document.querySelectorAll("article[data-table]").forEach(function (a) {
          var r = a.getBoundingClientRect();
          out.tables.push({name: a.getAttribute("data-table"), phase: a.getAttribute("data-phase"),
            status: a.getAttribute("data-status"), top: r.top + scrollY, left: r.left,
            width: r.width, height: r.height,
            opacity: parseFloat(getComputedStyle(a).opacity)});
          a.querySelectorAll("text.height").forEach(function (t) {
            out.heights.push(t.getBoundingClientRect().height);
          });
        });
        document.querySelectorAll("a, button, select, input, [tabindex]").forEach(function (e) {
          var r = e.getBoundingClientRect();
          if (r.width && r.height && (r.width < 44 || r.height < 44)) {
            out.small.push((e.id || e.className || e.tagName) + " " +
              Math.round(r.width) + "x" + Math.round(r.height));
          }
        });
        return JSON.stringify(out);""")))


def font_sizes(browser: Any) -> list[float]:
    """The rendered font size (CSS px) of every height number: its SVG font size times the
    board's scale."""
    return list(browser.execute_script("""
        var out = [];
        document.querySelectorAll("svg.board").forEach(function (svg) {
          var scale = svg.getScreenCTM().a;
          svg.querySelectorAll("text.height").forEach(function (t) {
            out.push(parseFloat(getComputedStyle(t).fontSize) * scale);
          });
        });
        return out;"""))


def test_the_page_at_a_glance(broker: Broker, sized: tuple[Any, tuple[int, int]]) -> None:
    browser, (width, height) = sized
    with club(broker) as server:
        open_page(browser, server, len(LIVE + OVER))
        sizes = font_sizes(browser)
        assert sizes and min(sizes) >= 11.0, sizes  # was 6.6 px
        shown = layout(browser)
        order = [t["name"] for t in shown["tables"]]
        assert order == ["t3", "t4", "t5", "t1", "t2"], order  # live first, by name
        assert [t["phase"] for t in shown["tables"]][3:] == ["over", "over"]
        first = shown["tables"][0]
        assert first["top"] < height * 0.5  # the first live board starts on the first screen
        assert all(t["opacity"] >= 0.85 for t in shown["tables"]), shown["tables"]
        assert shown["scroll"] <= width  # nothing sideways
        assert not shown["small"], shown["small"]  # every control at least 44x44
        marks = browser.execute_script("""return [
            document.querySelectorAll("svg.board line, svg.board path, svg.board polyline")
              .length,
            document.querySelectorAll("article[data-table=t4] .cell.last").length,
            getComputedStyle(document.querySelector("article[data-table=t4] .cell.last .hex"))
              .fill]""")
        assert marks[0] == 0 and marks[1] == 2, marks  # the last move: two tinted spaces, no line
        assert marks[2] != browser.execute_script("""return getComputedStyle(
            document.querySelector("article[data-table=t4] .cell:not(.last) .hex")).fill""")
        count = browser.find_element("id", "count").text
        assert count == "3 of 5 tables playing", count
        if width >= 1000:  # a laptop: boards side by side across the width
            tops = sorted({round(t["top"]) for t in shown["tables"]})
            assert len(tops) <= 2, shown["tables"]
            right = max(t["left"] + t["width"] for t in shown["tables"])
            assert right > width * 0.6, shown["tables"]
        else:  # a phone: one column, every board as wide as the screen allows
            assert all(t["width"] >= width * 0.85 for t in shown["tables"]), shown["tables"]


def test_the_count_is_0_when_every_game_is_over(broker: Broker,
                                                sized: tuple[Any, tuple[int, int]]) -> None:
    browser = sized[0]
    with club(broker, OVER + (("t9", 400, "Kai", "Lea"),), leave=("t1",)) as server:
        open_page(browser, server, 3)
        poll(lambda: browser.find_element("id", "count").text == "0 of 3 tables playing",
             "no table playing")


def texts(browser: Any) -> list[str]:
    """Every text node and every attribute a person may see or hear (titles, labels,
    placeholders, alt texts, option labels) of the page."""
    return list(browser.execute_script("""
        var out = [];
        var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) {
          var n = walk.currentNode;
          if (n.parentElement.closest("script, style, [hidden]")) { continue; }
          if (n.textContent.trim()) { out.push(n.textContent.trim()); }
        }
        document.querySelectorAll("*").forEach(function (e) {
          ["title", "aria-label", "placeholder", "alt", "label"].forEach(function (k) {
            var v = e.getAttribute(k);
            if (v && v.trim()) { out.push(v.trim()); }
          });
        });
        out.push(document.title);
        return out;"""))


#: English words the broadcast's English page uses that must not be on the German page.
ENGLISH = {"of", "tables", "table", "playing", "plays", "left", "wins", "to", "move", "place",
           "Standings", "Player", "Games", "Points", "Pieces", "Finished", "games", "Download",
           "record", "Game", "over", "ply", "White", "Black", "Tie", "win", "point", "live",
           "updates", "no", "longer", "connected", "Language", "the", "a", "is", "and"}


def test_german_plurals_and_no_english(broker: Broker) -> None:
    browser = sized_browser(PHONE, lang="de-DE")
    try:
        for tables, count in (((LIVE[0],) + OVER, "1 von 3 Tischen spielt"),
                              (LIVE + OVER, "3 von 5 Tischen spielen")):
            with club(broker, tables) as server:
                open_page(browser, server, len(tables))
                poll(lambda want=count: browser.find_element("id", "count").text == want,
                     count)
                seen = texts(browser)
                assert "nicht mehr verbunden" in seen
                joined = " ".join(seen)
                assert "gegangen" not in joined
                english = sorted({w for text in seen for w in text.replace(",", " ").replace(
                    ".", " ").replace(":", " ").split() if w in ENGLISH}
                    - {"English"})
                assert not english, (english, seen)
    finally:
        browser.quit()


def test_demo_sides_are_named_by_what_plays_them_and_kept_apart(broker: Broker) -> None:
    server = BroadcastServer(parse_url(broker.url("club"), levels=(1, 1)), host="127.0.0.1",
                             port=0)
    server.start()
    pubs = [StatePublisher(parse_url(broker.url(f"club/demo{i}"))) for i in range(2)]
    try:
        ai = run_demo(DemoOptions(fast=True, direct=True, seed=5, quiet=True, strip=NullStrip(),
                                  noise=False, white="ai:2", black="greedy",
                                  publish=pubs[0]), io.StringIO())
        assert ai.controller.players == ("AI level 2", "greedy")
        same = run_demo(DemoOptions(fast=True, direct=True, seed=6, quiet=True,
                                    strip=NullStrip(), noise=False, publish=pubs[1]),
                        io.StringIO())
        assert same.controller.players == ("random (White)", "random (Black)")
        for pub in pubs:
            pub.flush()
        rows = poll(lambda: {r["player"]: r for r in server.club.standings()}
                    if len(server.club.standings()) == 4 else None, "four players")
        assert set(rows) == {"AI level 2", "greedy", "random (White)", "random (Black)"}
        assert all(r["games"] == 1 for r in rows.values())
        for result in (ai, same):
            w, b = result.score
            names = result.controller.players
            if w != b:
                winner = names[0] if w > b else names[1]
                assert rows[winner]["points"] == 1.0
    finally:
        for pub in pubs:
            pub.close()
        server.stop()


def test_standings_keep_two_sides_of_the_same_name_apart() -> None:
    from controller.web.club import Club
    from tests.remote.test_broadcast import finished, result_of

    c = Club("club")
    game = next(g for g in (finished(s) for s in range(40)) if g.winner() in ("w", "b"))
    c.apply("club/t1/result/r1", result_of(game, "random-7", "random-7"))
    rows = c.standings()
    loser = "b" if game.winner() == "w" else "w"
    assert [(r["player"], r["side"], r["points"]) for r in rows] == [
        ("random-7", game.winner(), 1.0), ("random-7", loser, 0.0)]


def test_the_page_shows_two_sides_of_one_name_with_their_colours(
        broker: Broker, sized: tuple[Any, tuple[int, int]]) -> None:
    browser = sized[0]
    with club(broker, (("t1", 400, "random-7", "random-7"),), leave=()) as server:
        open_page(browser, server, 1)
        rows = poll(lambda: browser.execute_script("""return Array.prototype.map.call(
            document.querySelectorAll('#standings tbody tr'),
            function (tr) { return tr.children[1].textContent; })""") or None, "standings")
        assert sorted(rows) == ["random-7 (Black)", "random-7 (White)"]
        names = [browser.find_element("css selector", f"article .{s} .pname").text
                 for s in ("w", "b")]
        assert names == ["random-7 (White)", "random-7 (Black)"]
        result = browser.find_element("css selector", "article .result").text
        assert "(White) wins" in result or "(Black) wins" in result or "Tie" in result
