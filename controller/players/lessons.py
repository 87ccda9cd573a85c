"""A first game (``play --learn``): the table walks two newcomers through the rules.

Each rule is said once, in plain words, the first time it matters in the game on the table,
with the cells it is about lit (the existing roles: a stack that cannot move blinks as
``source``, the stacks that surround it ``suggest``, the empty spaces at its height's distance
``destination``; never ``mismatch`` or ``remove``, which ask the players to act): the DVONN
pieces first, then the own pieces in turn, how a stack moves, why a stack cannot move
(surrounded on all 6 sides, or no occupied space at its height's distance), what a pass is,
what a cut-off is and why those stacks go, and how the game ends. The words follow the
publisher's rulebook (``../shared/RULES.md`` and its seeds): its terms in both languages
(DVONN piece / DVONN-Stein, stack / Stapel, surrounded / umgeben, space / Feld).

What is said goes to ``out`` (the terminal) at once and shows in the table's message (the
page, the terminal's caption) with its cells while the game stays at that action; the same
position saying several rules shows them together. ``said`` keeps (ply, rule) in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from controller.i18n import Msg, localize
from controller.i18n import side as side_name
from controller.players.overlay import install
from engine.game import Game
from engine.geometry import CELL_NAMES, NEIGHBOURS, iter_cells
from engine.move import Move

if TYPE_CHECKING:
    from controller.table.session import TableController

#: The rules, in the order a game meets them (a key each).
RULES = ("dvonn", "own", "moving", "surrounded", "too-far", "cut-off", "pass", "end")


def _empty(game: Game) -> int:
    return ((1 << 49) - 1) & ~game.occupied


def surrounded(game: Game) -> list[int]:
    """The side to act's stacks whose 6 neighbour spaces are all occupied."""
    own = game.white_stacks if game.turn == "w" else game.black_stacks
    return [c for c in iter_cells(own) if len(NEIGHBOURS[c]) == 6
            and all(game.stack(n) for n in NEIGHBOURS[c])]


def too_far(game: Game) -> list[int]:
    """The side to act's stacks that are not surrounded and still cannot move: every space
    their height away in a straight line is empty or off the board."""
    own = game.white_stacks if game.turn == "w" else game.black_stacks
    stuck = set(surrounded(game))
    return [c for c in iter_cells(own) if c not in stuck and not game.destinations(c)]


def _landings(cell: int, height: int) -> int:
    """The spaces ``height`` away from ``cell`` in a straight line (on the board)."""
    from engine.geometry import _step  # the board's own stepping (off-board: None)

    out = 0
    for direction in range(6):
        c = _step(cell, direction, height)
        if c is not None:
            out |= 1 << c
    return out


def cut_by_last(game: Game) -> int:
    """The stacks the last action (passes skipped) cut off."""
    g = game.copy()
    while g.move_stack and g.move_stack[-1].is_pass:
        g.pop()
    if not g.move_stack or g.move_stack[-1].source is None:
        return 0
    move: Move = g.move_stack[-1]
    g.pop()
    return g.removal_if(move)


class Lessons:
    """The first game's rules, each said once when it first matters (a layer over the
    table's guidance: :func:`controller.players.overlay.install`)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out
        self.said: list[tuple[int, str]] = []
        self.ctl: TableController | None = None
        self._now: list[tuple[Msg, dict[int, str]]] = []  # shown at ``_ply``
        self._ply = -1

    def attach(self, ctl: TableController) -> None:
        self.ctl = ctl
        install(ctl, self)
        ctl.listeners.append(self.update)
        self.update(ctl)

    def close(self) -> None:
        pass

    def poll(self, timeout: float = 0.0) -> list[object]:
        return []

    def _say(self, rule: str, text: Msg, cells: dict[int, str], ply: int) -> None:
        self.said.append((ply, rule))
        self._now.append((text, cells))
        if self.out is not None:
            print(localize(Msg("rule: {text}", text=text)), file=self.out, flush=True)

    def update(self, ctl: TableController) -> None:
        """A controller listener: say what the position on the table newly needs."""
        game = ctl.game
        if game.ply != self._ply:
            self._ply = game.ply
            self._now = []
        done = {rule for _, rule in self.said}
        ply = game.ply
        for rule, text, cells in self._due(game, done):
            self._say(rule, text, cells, ply)

    def _due(self, game: Game, done: set[str]) -> list[tuple[str, Msg, dict[int, str]]]:
        out: list[tuple[str, Msg, dict[int, str]]] = []
        empty = {c: "destination" for c in iter_cells(_empty(game))}
        if game.placing:
            if "dvonn" not in done and game.piece_to_place() == "r":
                out.append(("dvonn", Msg(
                    "Placing: first the 3 red DVONN pieces go on the board, one at a time: "
                    "White places one, Black the second, White the third, each on any empty "
                    "space."), empty))
            elif "own" not in done and game.piece_to_place() in ("w", "b"):
                out.append(("own", Msg(
                    "Now each places his own pieces, one at a time in turn, Black first, on "
                    "any empty space, until all spaces are occupied; White places the last "
                    "piece."), empty))
            return out
        moves = game.move_stack
        if "pass" not in done and moves and moves[-1].is_pass:
            out.append(("pass", Msg(
                "{side} cannot move and passes. A player may pass only when he cannot move; "
                "as soon as he can move again, he must.",
                side=side_name("b" if game.turn == "w" else "w")), {}))
        cut = cut_by_last(game)
        if "cut-off" not in done and cut:
            dvonn = {c: "suggest" for c in iter_cells(game.red_stacks)}  # (the table lights
            # the stacks to take away as ``remove`` itself, until they are gone)
            out.append(("cut-off", Msg(
                "Cut off: {cells} no longer have a link, directly or through a chain of other "
                "pieces, to a DVONN piece, so they are removed from the board at once, "
                "whoever moved. The DVONN pieces always stay.",
                cells=" ".join(CELL_NAMES[c] for c in iter_cells(cut))), dvonn))
        if game.is_over():
            if "end" not in done:
                out.append(("end", Msg(
                    "The game ends when neither player can move. Each counts the pieces in "
                    "the stacks he controls, of any colour; more pieces wins, equal is a "
                    "tie."), {}))
            return out
        if "moving" not in done:
            movable = {c: "movable" for c in iter_cells(game.movable())}
            out.append(("moving", Msg(
                "Moving: White moves first. Move one stack whose top piece is your colour: "
                "a stack moves as a whole exactly as many spaces as it has pieces, in a "
                "straight line, over empty spaces too, and must end on an occupied space "
                "(a piece or stack of any colour). A single DVONN piece may not be moved."),
                movable))
        if "surrounded" not in done:
            stuck = surrounded(game)
            if stuck:
                c = stuck[0]
                cells = {n: "suggest" for n in NEIGHBOURS[c]}
                cells[c] = "source"
                out.append(("surrounded", Msg(
                    "{cell} cannot move: it is surrounded on all 6 sides. A stack at the edge "
                    "of the board is never surrounded.", cell=CELL_NAMES[c]), cells))
        if "too-far" not in done:
            far = too_far(game)
            if far:
                c = far[0]
                height = len(game.stack(c))
                cells = {n: "destination" for n in iter_cells(_landings(c, height))}
                cells[c] = "source"
                out.append(("too-far", Msg(
                    "{cell} cannot move: a stack of {n} moves exactly {n} spaces, and no "
                    "space that far in a straight line is occupied (a move may never end on "
                    "an empty space or off the board).", cell=CELL_NAMES[c], n=height), cells))
        return out

    # ------------------------------------------------------------------ what it shows
    def roles(self, ctl: TableController, lifted: int | None,
              shown: dict[int, str]) -> tuple[dict[int, str], int]:
        """The cells of what was said at this action, while no stack is held."""
        if lifted is not None or ctl.game.ply != self._ply:
            return {}, 0
        roles: dict[int, str] = {}
        for _text, cells in self._now:
            roles.update({c: r for c, r in cells.items()
                          if shown.get(c) not in ("remove", "mismatch", "suggest")})
        blink = sum(1 << c for c, r in roles.items() if r == "source")
        return roles, blink

    def message(self, ctl: TableController) -> str:
        if ctl.game.ply != self._ply:
            return ""
        return Msg.joined(" | ", [text for text, _cells in self._now])
