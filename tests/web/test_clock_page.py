"""The game clock on the page (controller/web/static/clock.js): a phone (390x844) shows both
sides' clocks, big, and the running one counts down between the table's updates; with
``switch = "button"`` a paired phone has a ``clock`` button that hands the clock over."""

from __future__ import annotations

import re
import time
from typing import Any

from web_helpers import click, get_json, new_browser, pair_page, virtual_server

from controller.table.clock import parse_control
from controller.table.timer import ClockOptions

CLOCKS = """var out = {};
["w", "b"].forEach(function (s) {
  var el = document.getElementById("clock-" + s), r = el.getBoundingClientRect();
  out[s] = {text: el.textContent, running: el.parentNode.classList.contains("running"),
            height: r.height, width: r.width, visible: !document.getElementById("clocks").hidden};
});
return out;"""


def _poll(driver: Any, cond: Any, what: str, timeout: float = 45.0) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = driver.execute_script(CLOCKS)
        if cond(last):
            return last
        time.sleep(0.1)
    raise AssertionError(f"{what}: {last}")


def test_a_phone_shows_both_clocks_running() -> None:
    options = ClockOptions(control=parse_control("5+3"))
    with virtual_server(clock=options) as server:
        driver = new_browser(390, 844)
        try:
            driver.get(server.base + "/")
            first = _poll(driver, lambda c: c["w"]["visible"] and c["w"]["running"],
                          "White's clock runs from the start")
            assert re.fullmatch(r"\d:\d\d", first["w"]["text"]) and first["b"]["text"] == "5:00"
            assert first["w"]["height"] >= 30 and first["w"]["width"] > 0  # big
            # it counts down on the page between updates (no new state needed)
            _poll(driver, lambda c: c["w"]["text"] != first["w"]["text"],
                  "White's clock counts down", timeout=30)
            status, _ = click(server, "C3")  # White places its first DVONN piece
            assert status == 200
            after = _poll(driver, lambda c: c["b"]["running"] and not c["w"]["running"],
                          "the clock passed to Black")
            _poll(driver, lambda c: c["b"]["text"] != "5:00" and c["b"]["running"],
                  "Black's clock runs", timeout=30)
            assert after["b"]["visible"]
        finally:
            driver.quit()


PRESS = """var b = document.getElementById("clock-press"), r = b.getBoundingClientRect();
return {shown: !!b.offsetParent && !b.hidden, text: b.textContent.trim(), width: r.width,
        height: r.height, owed: b.getAttribute("data-owed") || ""};"""


def test_a_paired_phone_presses_the_clock_button_to_hand_the_clock_over() -> None:
    options = ClockOptions(control=parse_control("5+0"), switch="button")
    with virtual_server(clock=options) as server:
        driver = new_browser(390, 844, lang="de")
        try:
            driver.get(server.base + "/")
            _poll(driver, lambda c: c["w"]["running"], "White's clock runs")
            assert not driver.execute_script(PRESS)["shown"]  # not paired: no button
            pair_page(driver, server)
            status, _ = click(server, "C3")  # White places; its clock runs on (button mode)
            assert status == 200
            deadline = time.monotonic() + 45
            press = driver.execute_script(PRESS)
            while not (press["shown"] and press["owed"] == "w") and time.monotonic() < deadline:
                time.sleep(0.1)
                press = driver.execute_script(PRESS)
            assert press["shown"] and press["owed"] == "w", press
            assert press["text"] == "Uhr drücken"  # the page speaks German
            assert press["width"] >= 44 and press["height"] >= 44
            state = get_json(server.base + "/api/state")
            assert state["ply"] == 1 and state["clock"]["running"] == "w"
            driver.find_element("id", "clock-press").click()
            _poll(driver, lambda c: c["b"]["running"] and not c["w"]["running"],
                  "the button handed the clock to Black")
            assert get_json(server.base + "/api/state")["clock"]["owed"] is None
        finally:
            driver.quit()
