"""The broadcast page in headless Chromium: eight demo tables publish through a real Mosquitto
to one page, which shows every board live, the results, the standings and the records."""

from __future__ import annotations

import io
import json
import threading
import time
import urllib.request
from typing import Any

from controller.remote.publisher import StatePublisher
from controller.remote.url import parse_url
from controller.sim.demo import DemoOptions, DemoResult, run_demo
from controller.web.broadcast import BroadcastServer
from engine.geometry import CELL_NAMES
from engine.records import parse_record
from hardware.leds.base import NullStrip
from tests.remote.broker import Broker

TABLES = 8
WAIT = 60.0  # seconds: eight games in one process on a slow machine (never a timing check)


def page_tables(browser: Any) -> dict[str, dict[str, Any]]:
    """What the page shows of each table: status, phase, result, stacks by cell."""
    data = browser.execute_script("""
        var out = {};
        document.querySelectorAll("article[data-table]").forEach(function (a) {
          var stacks = {};
          a.querySelectorAll("[data-cell]").forEach(function (g) {
            var s = g.getAttribute("data-stack");
            if (s) { stacks[g.getAttribute("data-cell")] = s; }
          });
          out[a.getAttribute("data-table")] = {status: a.getAttribute("data-status"),
            phase: a.getAttribute("data-phase"), stacks: stacks,
            result: a.querySelector(".result").hidden ? "" :
              a.querySelector(".result").textContent,
            score: [a.querySelector(".w .score").textContent,
              a.querySelector(".b .score").textContent],
            record: a.querySelector(".record").getAttribute("href")};
        });
        return JSON.stringify(out);""")
    return dict(json.loads(data))


def wait_page(browser: Any, check: Any, what: str) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + WAIT
    shown: dict[str, dict[str, Any]] = {}
    while time.monotonic() < deadline:
        shown = page_tables(browser)
        if check(shown):
            return shown
        time.sleep(0.1)
    raise AssertionError(f"the page never showed {what}: {shown}")


def test_eight_demo_tables_on_one_broadcast_page(browser: Any, broker: Broker) -> None:
    server = BroadcastServer(parse_url(broker.url("club"), levels=(1, 1)), host="127.0.0.1",
                             port=0)
    server.start()
    publishers = [StatePublisher(parse_url(broker.url(f"club/table{i + 1}")))
                  for i in range(TABLES)]
    results: dict[str, DemoResult] = {}
    errors: list[BaseException] = []
    try:
        base = f"http://127.0.0.1:{server.port}/"
        browser.get(base)
        wait_page(browser, lambda s: browser.execute_script(
            "return document.body.getAttribute('data-live')") == "1", "the live stream")
        assert page_tables(browser) == {}  # nothing yet: every board below arrives live

        def play(i: int) -> None:
            try:
                results[f"table{i + 1}"] = run_demo(DemoOptions(
                    fast=True, direct=True, seed=100 + i, quiet=True, strip=NullStrip(),
                    noise=False, publish=publishers[i]), io.StringIO())
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=play, args=(i,)) for i in range(TABLES)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
        assert not errors and len(results) == TABLES, errors

        def all_over(shown: dict[str, dict[str, Any]]) -> bool:
            return len(shown) == TABLES and all(
                t["phase"] == "over" and t["result"] for t in shown.values())

        shown = wait_page(browser, all_over, "eight finished games")
        for name, result in results.items():
            game = result.controller.game
            want = {n: game.stack(i) for i, n in enumerate(CELL_NAMES) if game.stack(i)}
            assert shown[name]["stacks"] == want, name
            assert shown[name]["score"] == [str(result.score[0]), str(result.score[1])]
            assert shown[name]["status"] == "online"
        for pub in publishers:
            pub.close()  # the tables go home: the page shows them as left, games kept
        wait_page(browser, lambda s: all(t["status"] == "left" for t in s.values())
                  and len(s) == TABLES, "eight tables that left")
        rows = json.loads(browser.execute_script("""return JSON.stringify(Array.prototype.map.call(
            document.querySelectorAll('#standings tbody tr'), function (tr) {
              return [tr.children[1].textContent, tr.children[2].textContent]; }))"""))
        games = browser.execute_script("return document.querySelectorAll('#games li').length")
        # each demo: random against random, a side each (named by what plays it, and colour)
        assert sorted(rows) == [["random (Black)", str(TABLES)], ["random (White)", str(TABLES)]]
        assert games == TABLES
        record = urllib.request.urlopen(base + shown["table1"]["record"].lstrip("/"),
                                        timeout=WAIT).read().decode()
        assert parse_record(record).game().move_stack == \
            results["table1"].controller.game.move_stack
        tables = json.loads(urllib.request.urlopen(base + "api/tables", timeout=WAIT).read())
        assert [t["name"] for t in tables] == [f"table{i + 1}" for i in range(TABLES)]
    finally:
        for pub in publishers:
            pub.close()
        server.stop()

