"""The English of the layers below the controller, in the player's language at the boundary.

The engine stays pure (the standard library only, no catalogs) and says its errors in
English; the hardware and the operating system do too. Where such a text reaches a player
(the CLI's one error line, a message on the table), :func:`translate` puts the phrases it
knows into the player's language: :data:`PHRASES` are the engine's (and the system's)
message templates, each an ordinary catalog message (``de.po``), found in the text by pattern
(``{name}`` matches what :data:`FIELDS` says, by default anything short of a colon) and
replaced by its translation, the values kept (a side name translated). Phrases are tried in
order, the longer before the shorter they contain; text no phrase matches stays as it is, and
English stays byte for byte English (the engine's ``str()`` of an error never changes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

_QUOTED = (r"(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
           r"(?:\.\.\. \(\d+ characters\))?")
#: What a ``{name}`` in a phrase matches (any other name: some text without a colon).
FIELDS = {
    "ply": r"\d+", "n": r"\d+", "line": r"\d+", "offset": r"\d+", "height": r"\d+",
    "side": r"White|Black", "cell": r"[A-K][1-5]", "player": r"P[01]", "byte": r"0x[0-9a-f]+",
    "token": _QUOTED, "name": _QUOTED, "cells": _QUOTED, "found": _QUOTED,
    "choices": r"[^()]+?", "versions": r"[\d, ]+", "version": r"\S+", "value": r"\S+",
    "range": r"\S+", "port": r"[^\s:]+",
}
_SIDES = ("White", "Black")


def N_(message: str) -> str:  # noqa: N802 - gettext's name (controller.i18n's, for extract)
    return message


#: The engine's message templates (engine/game.py, move.py, geometry.py, records.py, sgf.py,
#: boardspace.py) and the system's error texts (strerror), the longer before the shorter.
PHRASES = (
    # where an action is illegal, and why (engine.game: "'C3' is illegal at ply 2 (Black
    # to act): C3 is occupied")
    N_("{token} is illegal at ply {ply} ({side} to act)"),
    N_("the placing phase needs a cell, e.g. C3"),
    N_("{cell} is empty (a stack lands on a stack)"),
    N_("all pieces are placed; move a stack, e.g. C3D3"),
    N_("{side} has a move and must play it"),
    N_("the stack on {cell} is not {side}'s"),
    N_("the stack on {cell} is surrounded"),
    N_("the stack on {cell} has height {height} and must move exactly that far in a straight "
       "line"),
    N_("the game is over (no one can move)"),
    N_("the game is over"),
    N_("{cell} is occupied"),
    N_("{cell} is empty"),
    # notation (engine.move, engine.geometry, engine.records)
    N_("{token} is not DVONN notation: source and target are equal"),
    N_("{token} is not DVONN notation"),
    N_("{token} is not a DVONN action"),
    N_("(expected e.g. C3, C3D3 or PASS)"),
    N_("{token} is not a cell of the DVONN board"),
    N_("{token} is not a cell of the board (A-K and 1-5)"),
    N_("record line {line}, token {n}"),
    N_("line {line}, token {n}"),
    N_("nothing may follow 'resign'"),
    N_("empty record: no actions (expected a Little Golem record, a move list, a "
       "boardspace.net SGF file or a JSON game)"),
    N_("not UTF-8 text (byte offset {offset})"),
    N_("binary data, not a game record (byte {byte} at byte offset {offset})"),
    N_("game JSON: version {version} is not one this program reads ({versions}); update "
       "dvonn-board"),
    N_("game JSON: expected an object with a 'moves' list"),
    N_("game JSON"),
    N_("nested too deeply to be a record"),
    # boardspace.net SGF files (engine.sgf, engine.boardspace)
    N_("'[' is never closed by ']' (the file ends inside a property value: cut short?)"),
    N_("the file ends inside the game: the '(' on line {line} is never closed by ')' "
       "(cut short?)"),
    N_("not an SGF game: expected '(;' at the start, found {found}"),
    N_("text after the end of the game: {found}"),
    N_("node {n} (line {line})"),
    N_("at line {line}, column {n}"),
    N_("unknown step {token} (expected one of {choices})"),
    N_("unknown property {token} in a step node (expected {choices})"),
    N_("unknown property {token} in a root node (expected {choices})"),
    N_("{player} acts, but it is {side}'s turn (ply {ply})"),
    N_("{player} acts before {player2}'s turn ended with 'done'"),
    N_("not a DVONN game"),
    N_("a stack moved in the placing phase (expected 'dropb')"),
    N_("expected two cells, e.g. 'move F 1 F 2'"),
    N_("a move onto its own cell"),
    N_("a piece put into the reserve in the moving phase"),
    N_("a piece taken from the reserve in the moving phase (all pieces are placed)"),
    N_("a stack set down, but none was lifted (expected 'pickb' before it)"),
    # the devices' and the camera tools' words (hardware/, vision/: no catalogs there either)
    N_("cannot open sensor board port {name}"),
    N_("could not open port {port}"),
    N_("cannot read calibration file {name}"),
    N_("calibration file {name}"),
    N_("not JSON at line {line} column {n}"),
    N_("expected a JSON object"),
    N_("key {name} must be {found}, got {token}"),
    N_("sheet file {name}: use a .png or .svg name"),
    N_("dpi {value} out of range {range}"),
    N_("config key {name}"),
    N_("must be a number {range}, got {value}"),
    N_("sensor log"),
    # the operating system's words (strerror, as Python gives them: English)
    N_("No such file or directory"),
    N_("Permission denied"),
    N_("Is a directory"),
    N_("Not a directory"),
    N_("File exists"),
    N_("Read-only file system"),
    N_("No space left on device"),
    N_("Device or resource busy"),
    N_("line {line}"),  # last: the longer phrases with a line in them first
)
_EXTRA = {"player2": FIELDS["player"]}


def _pattern(phrase: str) -> re.Pattern[str]:
    out, seen, pos = [], set(), 0
    for m in re.finditer(r"\{(\w+)\}", phrase):
        out.append(re.escape(phrase[pos:m.start()]))
        name = m.group(1)
        if name in seen:
            out.append(f"(?P={name})")
        else:
            seen.add(name)
            out.append(f"(?P<{name}>{FIELDS.get(name) or _EXTRA.get(name) or '[^:]+?'})")
        pos = m.end()
    out.append(re.escape(phrase[pos:]))
    body = "".join(out)
    # a phrase that starts or ends with a word matches whole words only
    start = r"(?<![\w'])" if re.match(r"\w", phrase) else ""
    end = r"(?![\w])" if re.search(r"\w$", phrase) else ""
    return re.compile(start + body + end)


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((phrase, _pattern(phrase)) for phrase in PHRASES)


def _replacer(phrase: str, gettext: Callable[[str], str]) -> Callable[[re.Match[str]], str]:
    said = gettext(phrase)

    def replace(m: re.Match[str]) -> str:
        values = {k: gettext(v) if v in _SIDES else v for k, v in m.groupdict().items()}
        return said.format(**values)

    return replace


def translate(text: str, gettext: Callable[[str], str]) -> str:
    """``text`` with the engine's and the system's phrases put through ``gettext`` (a
    language's catalog: :func:`controller.i18n.below` passes it)."""
    for phrase, pattern in _patterns():
        head = phrase.split("{")[0][:6]
        if head and head not in text:
            continue  # a cheap test before the pattern
        text = pattern.sub(_replacer(phrase, gettext), text)
    return text
