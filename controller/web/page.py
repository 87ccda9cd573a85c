"""The page (``GET /``): HTML with the board as SVG drawn from the engine's geometry.

Each of the 49 spaces is a ``<g>`` carrying ``data-cell`` (its name), ``data-stack`` (its
pieces bottom->top as ``w``/``b``/``r``, empty when empty) and ``data-role`` (its LED role
from the state, or empty); the action list is ``<ol id="actions">``, one ``<li>`` an action.
The server fills them from the current state, so the page is right before its script runs;
``static/app.js`` then keeps them in step with the event stream and draws the stacks;
``static/review.js`` is the review mode (``#review``: any journaled game, or the live one,
step by step with the engine's evaluation graph; reviews.py serves the data). No build step,
nothing fetched from outside the table's own server.
"""

from __future__ import annotations

import html
import json
import math
import re
from typing import Any

from controller.i18n import LANGUAGES, NAMES, catalog, gettext_in
from controller.table.renderer import DEFAULT_PALETTE
from engine.geometry import CELL_NAMES, NUM_CELLS, cell_xy

PITCH = 60.0  # SVG units between adjacent centres
RADIUS = PITCH / math.sqrt(3)  # centre to corner of a hexagon that touches its neighbours


def cell_positions() -> list[tuple[str, float, float]]:
    """(name, x, y) of every cell in SVG units, row 1 at the bottom (nearest White)."""
    out = []
    for c in range(NUM_CELLS):
        x, y = cell_xy(c, PITCH)
        out.append((CELL_NAMES[c], round(x, 2), round(-y, 2)))
    return out


def hexagon(pointy: bool = True, scale: float = 0.97) -> str:
    """The points of a hexagon around (0, 0): pointy-top when rows run left to right."""
    r = RADIUS * scale
    start = 30 if pointy else 0
    pts = []
    for k in range(6):
        a = math.radians(start + 60 * k)
        pts.append(f"{r * math.cos(a):.2f},{r * math.sin(a):.2f}")
    return " ".join(pts)


#: What the page's inline JSON must not contain literally: ``<`` (``</script>``,
#: ``<!--<script>`` would end or hide the script element), ``>`` and ``&``.
_SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def _json_for_script(data: Any) -> str:
    """JSON for a ``<script type="application/json">`` element: ``<``, ``>`` and ``&`` as
    ``\\u003c``, ``\\u003e``, ``\\u0026`` (the same data for JSON.parse)."""
    return json.dumps(data, separators=(",", ":")).translate(_SCRIPT_ESCAPES)


def _board_svg(state: dict[str, Any] | None) -> str:
    stacks = (state or {}).get("stacks") or {}
    roles = (state or {}).get("roles") or {}
    positions = cell_positions()
    xs = [x for _, x, _ in positions]
    ys = [y for _, _, y in positions]
    pad = RADIUS + 4
    view = (f"{min(xs) - pad:.1f} {min(ys) - pad:.1f} "
            f"{max(xs) - min(xs) + 2 * pad:.1f} {max(ys) - min(ys) + 2 * pad:.1f}")
    hexpts = hexagon(True)
    cells = []
    for name, x, y in positions:
        stack = stacks.get(name, "")
        role = roles.get(name, "")
        cells.append(
            f'<g class="cell" data-cell="{name}" data-stack="{html.escape(stack)}" '
            f'data-role="{html.escape(role)}" transform="translate({x} {y})" '
            f'role="button" aria-label="{name}">'
            f'<polygon class="hex" points="{hexpts}"/>'
            f'<polygon class="glow" points="{hexpts}"/>'
            f'<text class="name" y="{RADIUS * 0.74:.1f}">{name}</text>'
            f'<g class="pile"></g></g>')
    return (f'<svg id="board" viewBox="{view}" xmlns="http://www.w3.org/2000/svg" '
            f'preserveAspectRatio="xMidYMid meet">'
            f'<g id="cells">{"".join(cells)}</g><g id="marks"></g></svg>')


_MARKED = re.compile(r'(\bdata-i18n="([^"]*)"[^>]*>)([^<]*)')
#: an attribute and its mark, on one line or on the next (the template breaks long tags)
_MARKED_ATTR = re.compile(
    r'\b(title|placeholder|aria-label|alt)="([^"]*)"(\s+data-i18n-\1="[^"]*")')


def translate_html(text: str, lang: str) -> str:
    """The page's marked words in ``lang``: the text of each element marked ``data-i18n`` (its
    value is the msgid) and each attribute followed by ``data-i18n-`` + its name (app.js does
    the same when the switch changes the language)."""
    if lang == LANGUAGES[0]:
        return text

    def word(msgid: str) -> str:
        return html.escape(gettext_in(lang, html.unescape(msgid)), quote=True)

    text = _MARKED.sub(lambda m: m.group(1) + word(m.group(2)), text)
    return _MARKED_ATTR.sub(lambda m: f'{m.group(1)}="{word(m.group(2))}"{m.group(3)}', text)


def render_page(state_json: str | None, *, info: dict[str, Any],
                palette: dict[str, tuple[int, int, int]] | None = None,
                title: str = "dvonn-board", notice: str = "", lang: str = "en") -> str:
    """The whole page for the current state (JSON text as published, or None), in ``lang``
    (its catalog goes along for app.js)."""
    state = json.loads(state_json) if state_json else None
    colours = dict(DEFAULT_PALETTE)
    colours.update(palette or {})
    css_vars = "".join(f"--role-{k}:rgb({r},{g},{b});" for k, (r, g, b) in colours.items())
    config = {"info": info, "cells": cell_positions(), "radius": RADIUS,
              "hex": {"pointy": hexagon(True), "flat": hexagon(False)}, "state": state,
              "lang": lang, "catalog": catalog(lang)}
    actions = "".join(f"<li>{html.escape(a)}</li>" for a in (state or {}).get("actions", []))
    shown = (state or {}).get("messages", {}).get(lang) or (state or {}).get("message")
    message = html.escape(shown or gettext_in(lang, "waiting for the table…"))
    languages = "".join(f'<option value="{code}"{" selected" if code == lang else ""}>'
                        f"{NAMES[code]}</option>" for code in LANGUAGES)
    mode = "remote" if info.get("remote") else "virtual" if info.get("virtual") else "table"
    who = ("paired" if info.get("paired") else
           "seated" if (info.get("remote") or {}).get("side") else "spectator")
    return translate_html(_TEMPLATE, lang).format(
        title=html.escape(title), css_vars=css_vars, board=_board_svg(state), actions=actions,
        message=message, config=_json_for_script(config), mode=mode, who=who,
        notice=html.escape(notice), notice_hidden="" if notice else " hidden",
        pair_code=html.escape(str(info.get("pair_code") or "")), lang=lang,
        remote_script='<script src="/static/remote.js"></script>\n'
        if info.get("remote") or info.get("invitations") else "",
        languages=languages)


_TEMPLATE = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/style.css">
<style>:root{{{css_vars}}}</style>
</head>
<body class="{mode} {who}">
<header>
  <span class="brand">DVONN</span>
  <span id="turn" class="turn"></span>
  <select id="lang" class="lang" aria-label="Language / Sprache">{languages}</select>
  <span id="live" class="live" title="live updates" data-i18n-title="live updates">●</span>
</header>
<main>
  <section class="board-wrap">{board}</section>
  <section class="panel">
    <p id="notice" class="notice"{notice_hidden}>{notice}</p>
    <div id="live-panel">
    <div id="main-items" class="main-items">
    <p id="message" class="message">{message}</p>
    <p id="result" class="result" hidden></p>
    <button type="button" id="review-this" class="review-this" hidden
      data-i18n="Review this game">Review this game</button>
    <div id="clocks" class="clocks" hidden>
      <span class="clock w" data-side="w"><b data-i18n="White">White</b>
        <span id="clock-w" class="time">0:00</span></span>
      <span class="clock b" data-side="b"><b data-i18n="Black">Black</b>
        <span id="clock-b" class="time">0:00</span></span>
    </div>
    <div id="score" class="score">
      <span class="side w"><i></i><b id="name-w"
        data-i18n="White">White</b> <span id="score-w">0</span></span>
      <span class="side b"><i></i><b id="name-b"
        data-i18n="Black">Black</b> <span id="score-b">0</span></span>
    </div>
    <div id="tutor" class="tutor" hidden>
      <p id="tutor-line" class="tutor-line" aria-live="polite"></p>
      <button type="button" id="tutor-takeback" hidden data-i18n="Take it back"
        >Take it back</button>
      <button type="button" id="tutor-allow" hidden data-i18n="Allow the take-back"
        >Allow the take-back</button>
      <button type="button" id="tutor-refuse" hidden data-i18n="Refuse">Refuse</button>
      <button type="button" id="tutor-switch" hidden aria-pressed="true"
        data-i18n="Tutor on">Tutor on</button>
    </div>
    <div id="controls" class="controls" hidden>
      <label id="seat-label" hidden><span data-i18n="I play">I play</span>
        <select id="seat"><option value="" data-i18n="both">both</option>
        <option value="w" data-i18n="White">White</option>
        <option value="b" data-i18n="Black">Black</option></select></label>
      <button type="button" id="clock-press" class="clock-press" data-control="clock" hidden
        data-i18n="Press the clock">Press the clock</button>
      <button type="button" data-control="confirm" data-i18n="Confirm">Confirm</button>
      <button type="button" data-control="next" data-i18n="Next">Next</button>
      <button type="button" data-control="undo" data-i18n="Undo">Undo</button>
      <button type="button" data-control="hint" aria-pressed="false" data-i18n="Hint"
        >Hint</button>
      <button type="button" data-control="new" data-i18n="New game">New game</button>
      <button type="button" id="share" data-control="share">Share hints</button>
    </div>
    <p id="spectator" class="spectator" hidden
      data-i18n="Spectator view: read-only.">Spectator view: read-only.</p>
    <ul id="legend" class="legend" aria-label="what the colours mean"
      data-i18n-aria-label="what the colours mean"></ul>
    </div>
    <form id="pair" class="pair" hidden>
      <h2 data-i18n="Pair this device">Pair this device</h2>
      <label><span data-i18n="Code">Code</span> <input id="pair-code" name="code"
        inputmode="numeric" pattern="[0-9]*" maxlength="6" autocomplete="one-time-code"
        value="{pair_code}" required></label>
      <label><span data-i18n="I play">I play</span> <select id="pair-seat" name="seat">
        <option value="both" data-i18n="both sides">both sides</option>
        <option value="white" data-i18n="White">White</option>
        <option value="black" data-i18n="Black">Black</option></select></label>
      <label><span data-i18n="Name">Name</span> <input id="pair-name" name="name" maxlength="40"
        placeholder="this device's name (optional)"
        data-i18n-placeholder="this device's name (optional)"></label>
      <button type="submit" data-i18n="Pair">Pair</button>
      <button type="button" id="pair-request"
        data-i18n="Show a new code on the table">Show a new code on the table</button>
    </form>
    <section id="devices" class="devices" hidden>
      <h2 data-i18n="Paired devices">Paired devices</h2>
      <ul id="device-list"></ul>
      <button type="button" id="pair-another" hidden
        data-i18n="A code for another phone">A code for another phone</button>
      <p id="pair-another-code" class="code" hidden></p>
    </section>
    <figure id="camera-box" hidden><img id="camera" alt="the camera's view"
      data-i18n-alt="the camera's view"></figure>
    <div id="moves" class="moves">
    <h2 data-i18n="Actions">Actions</h2>
    <ol id="actions" class="actions">{actions}</ol>
    </div>
    <section id="games" class="games">
      <button type="button" id="games-open" data-i18n="Review a game">Review a game</button>
      <p id="games-note" class="review-note" hidden></p>
      <ul id="game-list" class="game-list" hidden></ul>
    </section>
    </div>
    <section id="review" class="review" hidden>
      <div class="review-head"><h2 id="review-title" data-i18n="Review">Review</h2>
        <button type="button" id="review-close" data-i18n="Back to the table"
          >Back to the table</button></div>
      <p id="review-status" class="review-status"></p>
      <svg id="eval-graph" class="graph" viewBox="0 0 320 120" preserveAspectRatio="none"
        xmlns="http://www.w3.org/2000/svg" role="img"
        aria-label="the engine's evaluation after each action"
        data-i18n-aria-label="the engine's evaluation after each action"></svg>
      <div class="controls review-nav">
        <button type="button" data-step="first" title="the start (Home)"
          data-i18n-title="the start (Home)">&#x25C0;&#x25C0;</button>
        <button type="button" data-step="prev" title="back one action (left arrow)"
          data-i18n-title="back one action (left arrow)"
          >&#x25C0;</button>
        <span id="review-ply" class="review-ply"></span>
        <button type="button" data-step="next" title="one action on (right arrow)"
          data-i18n-title="one action on (right arrow)"
          >&#x25B6;</button>
        <button type="button" data-step="last" title="the end (End)"
          data-i18n-title="the end (End)">&#x25B6;&#x25B6;</button>
      </div>
      <p id="review-note" class="review-note"></p>
      <ol id="review-actions" class="actions review-actions"></ol>
    </section>
  </section>
</main>
<script id="config" type="application/json">{config}</script>
<script src="/static/app.js"></script>
<script src="/static/review.js"></script>
<script src="/static/clock.js"></script>
<script src="/static/tutor.js"></script>
{remote_script}</body>
</html>
"""
