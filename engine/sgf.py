"""Smart Game Format (SGF) syntax: a game tree's main line as nodes of properties.

Only the syntax lives here (``(``, ``;``, ``NAME[value][value]``, ``)``, ``\\`` escapes);
what the properties mean is the reader's business (engine.boardspace). Variations are
allowed and skipped: the main line is the first variation at every branch. Reading is one
pass (linear in the input), and an error names the line and quotes at most EXCERPT characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.errors import RecordError
from engine.gamerecord import excerpt

_SPACE = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ESCAPE = re.compile(r"\\(\r\n|\n\r|\n|\r|.)", re.DOTALL)
_LINE_BREAKS = frozenset("\r\n")


@dataclass(frozen=True)
class Property:
    """One value of a property (a property with several values gives several of these)."""

    name: str
    value: str
    line: int


@dataclass
class Node:
    """A node of the main line: ``number`` counts from 0 (the root node)."""

    number: int
    line: int
    properties: list[Property] = field(default_factory=list)


def looks_like_sgf(text: str) -> bool:
    """True when ``text`` starts (after a byte order mark and white space) with ``(;``."""
    stripped = text.lstrip("\ufeff \t\r\n")
    return stripped.startswith("(") and stripped[1:].lstrip().startswith(";")


def _unescape(raw: str) -> str:
    """SGF text: ``\\`` escapes the next character; an escaped line break is removed."""
    if "\\" not in raw:
        return raw
    return _ESCAPE.sub(lambda m: "" if m.group(1)[0] in _LINE_BREAKS else m.group(1), raw)


#: Limits far beyond any game record (boardspace games have a few hundred nodes): input past
#: them is refused at once instead of filling the memory.
MAX_NODES, MAX_VALUES, MAX_DEPTH = 100_000, 200_000, 1_000
# One token after optional white space: a bracket, a semicolon, or a property name.
_TOKEN = re.compile(r"\s*(?:([();])|([A-Za-z][A-Za-z0-9]*)\s*)?")


class _Lines:
    """Line numbers of positions asked in increasing order (counted once: linear)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def at(self, pos: int) -> int:
        if pos > self.pos:
            self.line += self.text.count("\n", self.pos, pos)
            self.pos = pos
        return self.line


def _value_end(text: str, start: int, lines: _Lines) -> int:
    """The index of the ``]`` closing the value opened by the ``[`` at ``start``."""
    search = start + 1
    while True:
        end = text.find("]", search)
        if end < 0:
            raise RecordError(f"line {lines.at(start)}: '[' is never closed by ']' (the file "
                              "ends inside a property value: cut short?)")
        backslashes = 0
        while end - 1 - backslashes > start and text[end - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return end
        search = end + 1


def parse_sgf(text: str) -> list[Node]:
    """The nodes of the main line of the first game tree in ``text``.

    Raises RecordError naming the line: text that is not SGF, a value or a tree never
    closed (a cut-short file), a property with no value, text after the game, more than
    MAX_NODES nodes, MAX_VALUES values or MAX_DEPTH nested trees.
    """
    text = text.removeprefix("\ufeff")
    lines = _Lines(text)
    start = _TOKEN.match(text, 0)
    if start is None or start.group(1) != "(":
        first = len(text) - len(text.lstrip())
        raise RecordError(f"line {lines.at(first)}: not an SGF game: expected '(;' at the "
                          f"start, found {excerpt(text[first:first + 20])}")
    # One frame per open '(': [on the main line, child trees seen so far, its line].
    frames: list[list[int]] = []
    nodes: list[Node] = []
    current: Node | None = None
    values = 0
    pos = 0
    while True:
        found = _TOKEN.match(text, pos)
        assert found is not None  # white space matches anywhere
        char, name = found.group(1), found.group(2)
        pos = found.end()
        if char == "(":
            parent = frames[-1] if frames else None
            main = parent is None or (parent[0] == 1 and parent[1] == 0)
            if parent is not None:
                parent[1] += 1
            if len(frames) >= MAX_DEPTH:
                raise RecordError(f"line {lines.at(pos)}: game trees nested more than "
                                  f"{MAX_DEPTH} deep: not a game record")
            frames.append([int(main), 0, lines.at(pos)])
            current = None
        elif char == ")":
            frames.pop()
            current = None
            if not frames:
                break
        elif char == ";":
            if not frames[-1][1]:  # a node after a child tree would be malformed: skip it
                current = Node(len(nodes), lines.at(pos)) if frames[-1][0] else None
                if current is not None:
                    nodes.append(current)
                    if len(nodes) > MAX_NODES:
                        raise RecordError(f"line {lines.at(pos)}: more than {MAX_NODES} "
                                          "nodes: not a game record")
        elif name is not None:
            if current is None and frames[-1][0] and not frames[-1][1]:
                raise RecordError(f"line {lines.at(pos)}: property {excerpt(name)} outside "
                                  "a node (no ';' before it)")
            if not text.startswith("[", pos):
                raise RecordError(f"line {lines.at(pos)}: property {excerpt(name)} has no "
                                  "value (expected '[' after it)")
            while text.startswith("[", pos):
                end = _value_end(text, pos, lines)
                line = lines.at(pos)
                values += 1
                if values > MAX_VALUES:
                    raise RecordError(f"line {line}: more than {MAX_VALUES} property values: "
                                      "not a game record")
                if current is not None:
                    current.properties.append(Property(name, _unescape(text[pos + 1:end]),
                                                       line))
                pos = _SPACE.match(text, end + 1).end()  # type: ignore[union-attr]
        elif pos >= len(text):
            raise RecordError(f"line {lines.at(pos)}: the file ends inside the game: the '(' "
                              f"on line {frames[-1][2]} is never closed by ')' (cut short?)")
        else:
            raise RecordError(f"line {lines.at(pos)}: unexpected {excerpt(text[pos])} "
                              "(expected '(', ';', ')' or a property such as P0[...])")
    rest = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
    if rest < len(text):
        raise RecordError(f"line {lines.at(rest)}: text after the end of the game: "
                          f"{excerpt(text[rest:rest + 20])}")
    return nodes


def escape(value: str) -> str:
    """``value`` as SGF text between ``[`` and ``]``."""
    return value.replace("\\", "\\\\").replace("]", "\\]")
