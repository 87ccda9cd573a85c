"""The sentences the table speaks, as :class:`~controller.i18n.Msg` (rendered in the table's
language by the announcer): each action in words a listener can follow ("White moves C3 to
D4, cutting off E5 and F5."), the score, the result, prompts and mismatches.

Cells keep their names (C3); the speech engine spells them letter by digit. Everything said
here is one sentence a line: the ``--speak-to`` index keeps one line per utterance.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.i18n import Msg, side
from engine.geometry import CELL_NAMES, iter_cells
from engine.move import Move

#: What the table may speak (the ``[speech] say`` list): each action (placements, moves,
#: passes, take-backs), the stacks an action cut off, prompts (a choice the table asks for, the
#: computer's action to carry out, whose turn at the start), mismatches (after they held
#: ``mismatch_delay`` seconds), the score after each move, and the result.
CATEGORIES = ("actions", "cutoffs", "prompts", "mismatches", "score", "result")


def cell_list(cells: Sequence[str]) -> str:
    """'E5', 'E5 and F5', 'E5, F5 and G5' (the 'and' in the table's language later)."""
    if len(cells) <= 1:
        return "".join(cells)
    return Msg("{cells} and {last}", cells=", ".join(cells[:-1]), last=cells[-1])


def mask_list(mask: int) -> str:
    """:func:`cell_list` of a set of cells (a 49-bit mask), in the canonical order."""
    return cell_list([CELL_NAMES[c] for c in iter_cells(mask)])


def action(turn: str, move: Move, piece: str | None, removed: int = 0,
           cutoffs: bool = True) -> Msg:
    """One action of ``turn`` ('w', 'b') as a sentence: a placement (``piece``: 'r' for a
    DVONN piece), a move (with the stacks it cut off when ``cutoffs``) or a pass."""
    who = side(turn)
    if move.is_pass:
        return Msg("{side} cannot move and passes.", side=who)
    assert move.target is not None
    target = CELL_NAMES[move.target]
    if move.source is None:
        if piece == "r":
            return Msg("{side} places a DVONN piece on {cell}.", side=who, cell=target)
        return Msg("{side} places a piece on {cell}.", side=who, cell=target)
    source = CELL_NAMES[move.source]
    if removed and cutoffs:
        return Msg("{side} moves {source} to {target}, cutting off {cells}.", side=who,
                   source=source, target=target, cells=mask_list(removed))
    return Msg("{side} moves {source} to {target}.", side=who, source=source, target=target)


def taken_back(said: str) -> Msg:
    """The action ``said`` (:func:`action`'s sentence) was taken back."""
    return Msg("Taken back: {action}", action=said)


def taken_back_to(ply: int) -> Msg:
    """Several actions were taken back: the game is at ``ply`` again."""
    return Msg("Taken back to ply {ply}.", ply=ply)


def new_game() -> Msg:
    return Msg("New game: clear the board.")


def cut_off(cells: int) -> Msg:
    """The stacks an action cut off (said alone when actions are not)."""
    return Msg("Cut off: {cells}.", cells=mask_list(cells))


def score(white: int, black: int) -> Msg:
    return Msg("White {w}, black {b}.", w=white, b=black)


def result(white: int, black: int, winner: str | None) -> Msg:
    """The end of the game: the score and who won."""
    if winner == "w":
        return Msg("Game over: white {w}, black {b}. White wins.", w=white, b=black)
    if winner == "b":
        return Msg("Game over: white {w}, black {b}. Black wins.", w=white, b=black)
    return Msg("Game over: white {w}, black {b}. A tie.", w=white, b=black)


def to_act(turn: str, placing: bool, piece: str | None) -> Msg:
    """Whose turn (said at the start, and after a take-back)."""
    who = side(turn)
    if not placing:
        return Msg("{side} to move.", side=who)
    if piece == "r":
        return Msg("{side} to place a DVONN piece.", side=who)
    return Msg("{side} to place a piece.", side=who)


def choose(cells: int, by_source: bool) -> Msg:
    """The table's prompt: which of ``cells`` the stack landed on (or came from)."""
    if by_source:
        return Msg("Which stack moved: {cells}? Press next and confirm on it.",
                   cells=or_list(cells))
    return Msg("Where did the stack land: {cells}? Lift it and set it back, or press next and "
               "confirm.", cells=or_list(cells))


def or_list(mask: int) -> str:
    """'D4 or E5', 'C3, D4 or E5': the cells of a choice."""
    names = [CELL_NAMES[c] for c in iter_cells(mask)]
    if len(names) <= 1:
        return "".join(names)
    return Msg("{cells} or {last}", cells=", ".join(names[:-1]), last=names[-1])


def mismatch(cells: int) -> Msg:
    """The board differs from the game at ``cells`` (said once it held)."""
    return Msg("The board differs at {cells}: restore the position.", cells=mask_list(cells))


def removals(cells: int) -> Msg:
    """Cut-off stacks still on the board (said once they stayed)."""
    return Msg("Take off the cut-off stacks at {cells}.", cells=mask_list(cells))
