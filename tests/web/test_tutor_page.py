"""The live tutor on the page (controller/web/static/tutor.js) of a phone (390x844), in English
and in German: a known blunder made at the table gets its mark after it in the page's list
(``H2H3??``) and the loss and the better action in the tutor's line and the message; a paired
phone turns the tutor off and on with its switch, asks to take the blunder back, and the
person opponent refuses it (the action stays) or allows it (the position before comes back).

The table is simulated (SimTable, occupancy sensors) and driven by a thread of the test; the
tutor judges in its worker process at a small node budget (no time cap: the same verdict
however loaded the machine); every wait polls with a generous timeout."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import moving_game, new_browser, pair_page, sim_table

from controller.players.judging import Judge
from controller.players.teaching import teach
from controller.players.tutor import Tutor
from engine.game import Game
from engine.move import Move
from engine.review import BLUNDER, judge
from engine.search import Limits

NODES = 4000  # the tutor's budget here: a blunder at this budget is one in the tests too

PAGE = """var items = document.getElementById("actions").children, out = [];
for (var i = 0; i < items.length; i++) {
  out.push(items[i].textContent + (items[i].getAttribute("data-mark") || "") + "|" +
    getComputedStyle(items[i], "::after").content);
}
function shown(id) { var e = document.getElementById(id); return !!e && !e.hidden &&
  e.getBoundingClientRect().width > 0; }
return {actions: out, line: document.getElementById("tutor-line").textContent,
  message: document.getElementById("message").textContent,
  takeback: shown("tutor-takeback"), allow: shown("tutor-allow"), refuse: shown("tutor-refuse"),
  switch: shown("tutor-switch") ? document.getElementById("tutor-switch").textContent : null,
  pressed: document.getElementById("tutor-switch").getAttribute("aria-pressed"),
  ply: document.body.getAttribute("data-ply"),
  wide: document.documentElement.scrollWidth <= window.innerWidth + 1};"""


def blunder() -> tuple[Game, Move, Move]:
    """White to act in the moving phase and an action that loses BLUNDER pieces or more at
    the tutor's budget here, cutting nothing off: the position, the blunder, the better one."""
    for seed in range(200):
        g = moving_game(seed, 16)
        if g.is_over() or g.turn != "w":
            continue
        for m in g.legal_moves():
            if m.is_pass or g.removal_if(m):
                continue
            r = judge(g, m, Limits(nodes=NODES))
            if r.mark == "??" and r.loss >= BLUNDER and r.best is not None:
                return g, m, r.best
    raise AssertionError("no blunder found")


@pytest.fixture(scope="module")
def known() -> tuple[Game, Move, Move]:
    return blunder()


class Tutored:
    """A SimTable with the live tutor, its loop run by a thread (the table's own)."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.judge = Judge(NODES, None)
        made = teach(sim.ctl, sim.runner.sources, tutor="better", learn=False, clock=sim.clock,
                     judge=self.judge)
        self.tutor: Tutor = made[0]
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                self.sim.step()
            time.sleep(0.01)

    def play(self, move: Move) -> None:
        """Carry ``move`` out on the table (occupancy: the landing stack is lifted and set
        back with the moved one on it, which says where it went)."""
        assert move.source is not None and move.target is not None
        table, ctl = self.sim.table, self.sim.ctl
        with self.lock:
            ply = ctl.game.ply
            stack = table.lift(move.source)
            self.sim.settle()
            below = table.lift(move.target)
            self.sim.settle()
            table.put(move.target, below + stack)
            self.sim.settle()
            assert ctl.game.ply == ply + 1 and ctl.game.move_stack[-1] == move, ctl.view().message

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.tutor.close()


@pytest.fixture
def tutored(known: tuple[Game, Move, Move]) -> Iterator[Tutored]:
    with sim_table(known[0].copy()) as sim:
        t = Tutored(sim)
        try:
            yield t
        finally:
            t.close()


def poll(driver: Any, cond: Any, what: str, timeout: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        last = driver.execute_script(PAGE)
        if cond(last):
            return last
        time.sleep(0.1)
    raise AssertionError(f"{what}: {last}")


def click(driver: Any, element_id: str) -> None:
    driver.find_element("id", element_id).click()


def marked(bad: Move, ply: int) -> Any:
    return lambda p: len(p["actions"]) > ply and p["actions"][ply].startswith(f"{bad}??|") \
        and "??" in p["actions"][ply].split("|")[1]


def test_a_phone_shows_the_mark_switches_the_tutor_and_refuses(
        known: tuple[Game, Move, Move], tutored: Tutored) -> None:
    game, bad, best = known
    ply = game.ply  # the blunder's index in the page's list
    driver = new_browser(390, 844)
    try:
        pair_page(driver, tutored.sim)
        first = poll(driver, lambda p: p["switch"] == "Tutor on", "the switch of a paired phone")
        assert first["pressed"] == "true" and not first["takeback"]
        tutored.play(bad)
        page = poll(driver, marked(bad, ply), "the mark after the blunder")
        loss = f"{tutored.tutor.judged[ply + 1].loss:g}"
        said = f"{bad}??: White loses {loss} pieces; better: {best}"
        assert page["line"] == said and said in page["message"]
        assert f"undo takes {bad} back" in page["message"]
        assert page["takeback"] and not page["allow"] and page["wide"]
        # the switch: off hides the marks and the offer, on shows them again
        click(driver, "tutor-switch")
        off = poll(driver, lambda p: p["switch"] == "Tutor off", "the tutor off")
        assert off["pressed"] == "false" and not off["takeback"] and off["line"] == ""
        assert "??" not in off["actions"][ply] and "??" not in off["message"]
        assert tutored.tutor.on is False
        click(driver, "tutor-switch")
        poll(driver, lambda p: p["switch"] == "Tutor on" and marked(bad, ply)(p) and
             p["takeback"], "the tutor on again")
        # White asks, Black (a person: this phone plays both) refuses: the action stays
        click(driver, "tutor-takeback")
        asked = poll(driver, lambda p: p["allow"] and p["refuse"], "the opponent is asked")
        assert "Black, allow or refuse on the page" in asked["message"]
        assert not asked["takeback"]
        click(driver, "tutor-refuse")
        done = poll(driver, lambda p: f"Black refused: {bad} stays" in p["message"],
                    "the refusal")
        assert not (done["allow"] or done["refuse"] or done["takeback"])
        assert tutored.sim.ctl.game.move_stack[-1] == bad
        assert marked(bad, ply)(done)  # the mark stays in the list
    finally:
        driver.quit()


def test_a_german_phone_allows_the_take_back(known: tuple[Game, Move, Move],
                                              tutored: Tutored) -> None:
    game, bad, best = known
    ply = game.ply
    driver = new_browser(390, 844, lang="de")
    try:
        pair_page(driver, tutored.sim)
        poll(driver, lambda p: p["switch"] == "Tutor an", "the switch, in German")
        tutored.play(bad)
        page = poll(driver, marked(bad, ply), "the mark after the blunder")
        loss = f"{tutored.tutor.judged[ply + 1].loss:g}"
        said = f"{bad}??: Weiß verliert {loss} Steine; besser: {best}"
        assert page["line"] == said and said in page["message"]
        assert f"undo nimmt {bad} zurück" in page["message"]
        button = driver.find_element("id", "tutor-takeback")
        assert button.text == "Zurücknehmen" and page["wide"]
        click(driver, "tutor-takeback")
        asked = poll(driver, lambda p: p["allow"] and p["refuse"], "the opponent is asked")
        assert f"Weiß bittet, {bad} zurückzunehmen" in asked["message"]
        assert driver.find_element("id", "tutor-allow").text == "Zurücknahme erlauben"
        click(driver, "tutor-allow")
        back = poll(driver, lambda p: p["ply"] == str(game.ply), "the take-back")
        assert tutored.sim.ctl.game.move_stack == game.move_stack
        assert len(back["actions"]) == ply and not back["takeback"]
        assert not (back["allow"] or back["refuse"])
    finally:
        driver.quit()
