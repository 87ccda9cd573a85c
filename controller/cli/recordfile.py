"""Reading a game record file for ``replay``, ``games import`` and ``analyze``.

Every form engine.records reads (JSON game, boardspace.net SGF, Little Golem record, move
list), from a path or ``-`` (standard input). Whatever is wrong becomes one error naming the
file: cannot be read (missing, a folder), not text, not a record, an illegal action.
"""

from __future__ import annotations

import sys
from pathlib import Path

from controller.i18n import Msg
from engine.errors import IllegalMoveError, RecordError
from engine.game import Game
from engine.gamerecord import GameRecord
from engine.records import decode_record, load_record_file

STDIN = "-"


def display_name(path: str) -> str:
    return "standard input" if path == STDIN else path


def read_record_text(path: str) -> str:
    """The text of the record at ``path`` (``-``: standard input); RecordError names it."""
    if path == STDIN:
        data: bytes | str = sys.stdin.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise RecordError(Msg("cannot read {path!r}: {strerror}",
                                  path=path, strerror=exc.strerror)) from None
    try:
        return decode_record(data)
    except RecordError as exc:
        raise RecordError(f"{display_name(path)!r}: {exc}" if path != STDIN else
                          f"standard input: {exc}") from None


def load_record_path(path: str) -> tuple[GameRecord, Game]:
    """The record at ``path`` and its game replayed; an error names the file (and, from the
    readers, the line, token, node or ply)."""
    text = read_record_text(path)
    name = display_name(path)
    try:
        record = load_record_file(text, "" if path == STDIN else Path(path).name)
        game = record.game()
    except IllegalMoveError as exc:
        raise IllegalMoveError(Msg("{name}: {exc}", name=name, exc=exc), move=exc.move, ply=exc.ply,
                               side=exc.side) from None
    except RecordError as exc:
        raise RecordError(Msg("{name}: {exc}", name=name, exc=exc)) from None
    return record, game
