"""The live page reads at a glance (issue 42), in Chromium at a phone's size (390x844) and a
laptop's (1366x768): the last move tints its spaces and covers no piece or height, a
spectator's text is upright, every control is 44x44 CSS px at least, the Hint switch shows
that it is on (and shows the best placement), the end has a legend and no Confirm/Next/
Undo/Hint, the action list says what an action cut off, the laptop's board uses most of the
height, and the virtual table says "not yours" for the opponent's stack."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.game import Game
from tests.web.web_helpers import (
    click,
    get_json,
    moving_game,
    new_browser,
    pair_page,
    sim_table,
    virtual_server,
    wait_state,
)

PHONE = (390, 844)
LAPTOP = (1366, 768)
SIZES = [pytest.param(PHONE, id="phone"), pytest.param(LAPTOP, id="laptop")]


def _browser(size: tuple[int, int], dark: bool = False) -> Any:
    """Chromium showing a viewport of exactly ``size`` (a phone: mobile, touch, no hover)."""
    width, height = size
    browser = new_browser(max(width, 500), height)
    phone = width < 500
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone})
    if phone:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    if dark:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark"}]})
    return browser


@pytest.fixture
def browsers() -> Iterator[list[Any]]:
    """Browsers a test opens (quit at the end, however it ends)."""
    opened: list[Any] = []
    yield opened
    for b in opened:
        b.quit()


def _open(browsers: list[Any], size: tuple[int, int], dark: bool = False) -> Any:
    browsers.append(_browser(size, dark))
    return browsers[-1]


def _until(browser: Any, script: str, what: str, timeout: float = 45.0) -> Any:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout, poll_frequency=0.05,
                         ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(script), message=what)


def _loaded(browser: Any) -> None:
    _until(browser, "return !!(window.dvonn && window.dvonn.state)", "the page's first state")


def cutting_game(seed: int = 3) -> Game:
    """A random game whose last action (in the moving phase) cut stacks off, the second
    such action of the game: the action list then has two actions with cut-offs."""
    rng = random.Random(seed)
    game = Game()
    cuts = 0
    while not game.is_over():
        cut = game.push(rng.choice(game.legal_moves()))
        if cut and not game.placing:
            cuts += 1
            if cuts >= 2 and len(game.legal_moves()) > 1:
                return game
    raise AssertionError(f"seed {seed}: no game with two cut-offs")


def finished_game(seed: int = 5) -> Game:
    rng = random.Random(seed)
    game = Game()
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    return game


def _boxes(browser: Any, selector: str) -> list[dict[str, float]]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => {"
        "const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, "
        "h: r.height, cell: (e.closest('[data-cell]') || {}).getAttribute ? "
        "e.closest('[data-cell]').getAttribute('data-cell') : ''}; })", selector)


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def _small_controls(browser: Any) -> list[str]:
    """Visible buttons, selects, links and inputs under 44x44 CSS px (id or text, size)."""
    return browser.execute_script("""
      return Array.from(document.querySelectorAll('button, select, a, input')).filter(e => {
        const r = e.getBoundingClientRect(), s = getComputedStyle(e);
        return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' &&
          (r.width < 43.5 || r.height < 43.5);
      }).map(e => (e.id || e.getAttribute('data-control') || e.textContent.trim()) +
        ' ' + Math.round(e.getBoundingClientRect().width) + 'x' +
        Math.round(e.getBoundingClientRect().height));""")


# ---------------------------------------------------------------------------------- 1
@pytest.mark.parametrize("size", SIZES)
def test_the_last_move_tints_its_spaces_and_covers_no_piece_or_height(
        browsers: list[Any], size: tuple[int, int]) -> None:
    game = cutting_game()
    last = game.move_stack[-1]
    with sim_table(game) as sim:
        b = _open(browsers, size)
        b.get(f"{sim.base}/")
        _loaded(b)
        state = get_json(f"{sim.base}/api/state")
        src, dst = state["last_move"]["from"], state["last_move"]["to"]
        assert f"{src}{dst}" == str(last)
        tinted = b.execute_script(
            "return [Array.from(document.querySelectorAll('.cell.last-from')).map(e => "
            "e.getAttribute('data-cell')), Array.from(document.querySelectorAll("
            "'.cell.last-to')).map(e => e.getAttribute('data-cell')), getComputedStyle("
            "document.querySelector('.cell.last-to .hex')).fill, getComputedStyle("
            "document.querySelector('[data-cell=\"A3\"]:not(.last-to):not(.last-from) .hex, "
            "[data-cell=\"K3\"]:not(.last-to):not(.last-from) .hex')).fill]")
        assert tinted[0] == [src] and tinted[1] == [dst]
        assert tinted[2] != tinted[3], "the last move's spaces are tinted"
        # nothing of the marks layer lies over a stack's height number or a piece
        heights = _boxes(b, ".cell .height") + _boxes(b, ".cell .piece")
        assert heights, "the position has stacks"
        marks = _boxes(b, "#marks *")
        for m in marks:
            for h in heights:
                assert not _overlap(m, h), f"a mark covers {h['cell']}: {m} over {h}"
        # and the tint is under the pile: the pile is drawn after the hex in the same cell
        assert b.execute_script(
            "const g = document.querySelector('.cell.last-to'); const kids = Array.from("
            "g.children); return kids.indexOf(g.querySelector('.hex')) < "
            "kids.indexOf(g.querySelector('.pile'))")


def test_the_virtual_table_marks_the_last_move_the_same_way(browsers: list[Any]) -> None:
    with virtual_server() as server:
        b = _open(browsers, PHONE)
        pair_page(b, server)
        assert click(server, "C3")[0] == 200
        wait_state(server.base, lambda s: s["ply"] == 1, "the first placement")
        _until(b, "return !!document.querySelector('[data-cell=\"C3\"].last-to')",
               "C3 tinted as the last move")
        assert b.execute_script("return document.querySelectorAll('#marks *').length") == 0


# ---------------------------------------------------------------------------------- 2
@pytest.mark.parametrize("size", SIZES)
def test_a_spectators_page_is_upright_and_only_its_note_is_muted(
        browsers: list[Any], size: tuple[int, int]) -> None:
    with sim_table(moving_game(9, 8)) as sim:
        b = _open(browsers, size)
        b.get(f"{sim.base}/")
        _loaded(b)
        assert b.execute_script("return document.body.classList.contains('spectator')")
        styles = b.execute_script(
            "return ['body', '#score', '#score-w', '#message', '#actions', '#pair h2']"
            ".map(s => getComputedStyle(document.querySelector(s)).fontStyle)")
        assert styles == ["normal"] * 6
        assert b.execute_script(
            "return getComputedStyle(document.getElementById('spectator')).fontStyle"
        ) == "italic"


# ---------------------------------------------------------------------------------- 11
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("who", ["paired", "spectator"])
def test_every_control_is_44_px_at_least(browsers: list[Any], size: tuple[int, int],
                                         who: str) -> None:
    with virtual_server() as server:
        b = _open(browsers, size)
        if who == "paired":
            pair_page(b, server)
            _until(b, "return document.querySelectorAll('#device-list li').length > 0",
                   "the devices panel")
        else:
            b.get(f"{server.base}/")
            _loaded(b)
        assert _small_controls(b) == []


@pytest.mark.parametrize("size", SIZES)
def test_the_turn_line_stays_on_one_line(browsers: list[Any], size: tuple[int, int]) -> None:
    with virtual_server() as server:
        b = _open(browsers, size)
        b.get(f"{server.base}/")
        _loaded(b)
        for lang in ("en", "de"):
            b.execute_script("window.dvonn.setLanguage(arguments[0])", lang)
            _until(b, f"return document.documentElement.lang === '{lang}'", "the language")
            height, line = b.execute_script(
                "const e = document.getElementById('turn'); const s = getComputedStyle(e); "
                "return [e.getBoundingClientRect().height, parseFloat(s.lineHeight) || "
                "parseFloat(s.fontSize) * 1.3]")
            assert height < 1.6 * line, f"{lang}: the turn line wraps ({height} px)"


def test_the_laptop_board_uses_most_of_the_height_and_the_main_items_show(
        browsers: list[Any]) -> None:
    with sim_table(cutting_game()) as sim:
        b = _open(browsers, LAPTOP)
        pair_page(b, sim)
        board, inner = b.execute_script(
            "return [document.getElementById('board').getBoundingClientRect().height, "
            "window.innerHeight]")
        assert board >= 0.6 * inner, f"the board is {board} of {inner} px high"
        # the message, the score, the controls and the legend are in the first screen
        for sel in ("#message", "#score", "#controls [data-control=confirm]",
                    "#controls [data-control=new]", "#legend li"):
            bottom = b.execute_script(
                "return document.querySelector(arguments[0]).getBoundingClientRect().bottom",
                sel)
            assert bottom <= inner, f"{sel} is below the first screen ({bottom} > {inner})"


def test_dark_mode_black_pieces_and_labels_stand_out(browsers: list[Any]) -> None:
    with sim_table(moving_game(9, 8)) as sim:
        b = _open(browsers, PHONE, dark=True)
        b.get(f"{sim.base}/")
        _loaded(b)

        def lum(css: str) -> float:
            nums = [float(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
            return sum(nums) / 3

        stroke, hexfill = b.execute_script(
            "const p = document.querySelector('.cell .piece.b'); return [getComputedStyle(p)"
            ".stroke, getComputedStyle(p.closest('.cell').querySelector('.hex')).fill]")
        assert lum(stroke) - lum(hexfill) > 60, (stroke, hexfill)


def test_labels_are_light_on_blue_landing_spaces_and_taps_leave_no_outline(
        browsers: list[Any]) -> None:
    with virtual_server() as server:
        b = _open(browsers, PHONE)
        pair_page(b, server)
        game = Game()
        rng = random.Random(1)
        while game.placing:
            move = rng.choice(game.legal_moves())
            assert click(server, str(move))[0] == 200
            game.push(move)
            wait_state(server.base, lambda s, p=game.ply: s["ply"] == p, f"ply {game.ply}")
        source = next(m.source for m in game.legal_moves() if m.source is not None)
        from engine.geometry import CELL_NAMES

        name = CELL_NAMES[source]
        b.find_element("css selector", f'[data-cell="{name}"]').click()  # a tap
        _until(b, "return !!document.querySelector('[data-role=destination]')",
               "landing spaces lit")
        fill = b.execute_script("return getComputedStyle(document.querySelector("
                                "'[data-role=destination] .name')).fill")
        assert fill in ("rgb(255, 255, 255)", "#fff", "#ffffff"), fill
        stroke = b.execute_script(
            "return getComputedStyle(document.querySelector(arguments[0])).strokeWidth",
            f'[data-cell="{name}"] .hex')
        assert stroke in ("1.5px", "1.5"), f"the tapped space keeps an outline: {stroke}"


# ---------------------------------------------------------------------------------- 6
def test_hint_is_a_switch_that_shows_the_best_placement_in_a_human_game(
        browsers: list[Any]) -> None:
    with virtual_server() as server:
        b = _open(browsers, LAPTOP)
        pair_page(b, server)
        hint = b.find_element("css selector", "#controls [data-control=hint]")
        assert hint.get_attribute("aria-pressed") == "false"
        off = b.execute_script("return getComputedStyle(arguments[0]).backgroundColor", hint)
        hint.click()
        _until(b, "return window.dvonn.state.hints && !!window.dvonn.state.analysis",
               "the hint is on and analysed")
        _until(b, "return document.querySelector('#controls [data-control=hint]')"
               ".getAttribute('aria-pressed') === 'true'", "the switch shows it is on")
        on = b.execute_script("return getComputedStyle(arguments[0]).backgroundColor", hint)
        assert on != off
        best = b.execute_script("return window.dvonn.state.analysis.best")
        _until(b, f"return document.querySelector('[data-cell=\"{best}\"]')"
               ".getAttribute('data-role') === 'suggest'", "the best placement lit")
        assert "hint: " + best in b.find_element("id", "message").text
        assert b.execute_script("return Array.from(document.querySelectorAll('#legend li'))"
                                ".map(e => e.getAttribute('data-legend'))") == ["suggest"]
        # the switch stays on: the next placement gets its best placement too
        assert click(server, best)[0] == 200
        _until(b, "const s = window.dvonn.state; return s.ply === 1 && !!s.analysis && "
               "s.hints", "a hint for the next placement (the switch stays on)")
        state = b.execute_script("return window.dvonn.state")
        assert state["analysis"]["best"] != best
        hint.click()
        _until(b, "return !window.dvonn.state.hints && !window.dvonn.state.analysis && "
               "document.querySelector('#controls [data-control=hint]')"
               ".getAttribute('aria-pressed') === 'false'", "the hint switched off")


def test_movable_stacks_have_a_legend_word(browsers: list[Any]) -> None:
    with sim_table(moving_game(9, 8), hints=True) as sim:
        b = _open(browsers, PHONE)
        pair_page(b, sim)
        _until(b, "return !!document.querySelector('#legend [data-legend=movable]')",
               "the legend names the green stacks")
        assert b.find_element("css selector", "#legend [data-legend=movable]").text == "can move"
        b.execute_script("window.dvonn.setLanguage('de')")
        _until(b, "return document.querySelector('#legend [data-legend=movable]')"
               ".textContent === 'kann ziehen'", "the legend in German")


# ---------------------------------------------------------------------------------- 7
@pytest.mark.parametrize("size", SIZES)
def test_the_end_has_a_legend_and_offers_no_confirm_next_undo_hint(
        browsers: list[Any], size: tuple[int, int]) -> None:
    game = finished_game()
    winner = game.winner()
    assert winner in ("w", "b")
    with sim_table(game) as sim:
        b = _open(browsers, size)
        pair_page(b, sim)
        _until(b, "return !document.getElementById('result').hidden", "the result")
        shown = b.execute_script(
            "return Array.from(document.querySelectorAll('#controls button')).filter(e => "
            "e.getBoundingClientRect().width > 0).map(e => e.getAttribute('data-control'))")
        assert not {"confirm", "next", "undo", "hint"} & set(shown), shown
        assert "new" in shown
        legend = b.execute_script("return Array.from(document.querySelectorAll('#legend li'))"
                                  ".map(e => [e.getAttribute('data-legend'), e.textContent])")
        kinds = [k for k, _ in legend]
        loser = "own-black" if winner == "w" else "own-white"
        assert "winner" in kinds and loser in kinds
        assert any("winner" in text for k, text in legend if k == "winner")
        # the loser's colour is not the last move's
        colours = b.execute_script(
            "const sw = k => getComputedStyle(document.querySelector('#legend .sw.' + k))"
            ".backgroundColor; return [sw(arguments[0]), sw('last'), sw('winner')]", loser)
        assert len(set(colours)) == 3, colours


def test_the_action_list_says_what_each_action_cut_off(browsers: list[Any]) -> None:
    game = cutting_game()
    with sim_table(game) as sim:
        state = get_json(f"{sim.base}/api/state")
        cut = state["cut_off"]
        assert len(cut) >= 2
        b = _open(browsers, LAPTOP)
        b.get(f"{sim.base}/")
        _loaded(b)
        for index, cells in cut.items():
            n = sum(len(p) for p in cells.values())
            note, title, text = b.execute_script(
                "const li = document.querySelectorAll('#actions li')[arguments[0]];"
                "return [li.getAttribute('data-cut'), li.title, li.textContent]", int(index))
            assert text == state["actions"][int(index)]  # the item is the action
            assert note.split() == [f"×{n}", *sorted(cells)]
            assert title.startswith(f"cut off {n} piece")
            shown = b.execute_script(
                "return getComputedStyle(document.querySelectorAll('#actions li')[arguments[0]],"
                " '::after').content", int(index))
            assert f"×{n}" in shown
        b.execute_script("window.dvonn.setLanguage('de')")
        first = next(iter(cut))
        _until(b, "return document.querySelectorAll('#actions li')[arguments[0]].title"
               ".indexOf('abgeschnitten') >= 0".replace("arguments[0]", first),
               "the cut-off note in German")


# ---------------------------------------------------------------------------------- 11
def test_the_opponents_stack_is_not_yours(browsers: list[Any]) -> None:
    with virtual_server() as server:
        b = _open(browsers, PHONE)
        pair_page(b, server)
        game = Game()
        rng = random.Random(2)
        while game.placing:
            move = rng.choice(game.legal_moves())
            assert click(server, str(move))[0] == 200
            game.push(move)
        wait_state(server.base, lambda s: s["phase"] == "moving", "the moving phase")
        from engine.geometry import CELL_NAMES, iter_cells

        other = "b" if game.turn == "w" else "w"
        theirs = next(CELL_NAMES[c] for c in iter_cells(game.occupied)
                      if game.owner(c) == other)
        b.find_element("css selector", f'[data-cell="{theirs}"]').click()
        _until(b, "return !document.getElementById('notice').hidden", "a notice")
        assert "not yours" in b.find_element("id", "notice").text
        b.execute_script("window.dvonn.setLanguage('de')")
        _until(b, "return document.documentElement.lang === 'de'", "German")
        b.find_element("css selector", f'[data-cell="{theirs}"]').click()
        _until(b, "return document.getElementById('notice').textContent"
               ".indexOf('gehört nicht dir') >= 0", "'not yours' in German")


def test_the_devices_panel_says_this_device(browsers: list[Any]) -> None:
    with virtual_server() as server:
        b = _open(browsers, LAPTOP)
        pair_page(b, server, name="Laptop")
        _until(b, "return document.querySelectorAll('#device-list li').length === 1",
               "the devices panel")
        text = b.find_element("css selector", "#device-list li").text
        assert "(this device)" in text and "phone)" not in text


def test_the_prompt_says_which_space_confirm_picks(browsers: list[Any]) -> None:
    """A lifted stack set down where occupancy cannot see it (on another stack): the page
    says what Next and Confirm do, and, once Next marked a space, which one Confirm picks."""
    from engine.geometry import CELL_NAMES, iter_cells

    with sim_table(moving_game(9, 8)) as sim:
        b = _open(browsers, LAPTOP)
        pair_page(b, sim)
        game = sim.ctl.game
        move = next(m for m in game.legal_moves() if m.source is not None
                    and len(list(iter_cells(game.destinations(m.source)))) >= 2)
        assert move.source is not None and move.target is not None
        stack = sim.table.lift(move.source)
        sim.settle()
        sim.table.put(move.target, sim.table.get(move.target) + stack)
        sim.settle()
        assert sim.ctl.view().prompt == "choose-destination"
        _until(b, "return document.body.getAttribute('data-prompt') === 'choose-destination'",
               "the prompt on the page")
        assert "Next marks a space, then Confirm" in b.find_element("id", "message").text
        status, _ = sim.post_while_stepping("/api/control/next", sim.web.token)
        assert status == 200
        picked = CELL_NAMES[sim.ctl.suggested] if sim.ctl.suggested is not None else ""
        assert picked
        _until(b, "return document.getElementById('message').textContent.indexOf("
               f"'Confirm: it landed on {picked}') >= 0", "which space Confirm picks")
