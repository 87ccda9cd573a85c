"""The project's exceptions. Every error the program raises on purpose derives from DvonnError."""

from __future__ import annotations


class DvonnError(Exception):
    """Root of every error this project raises on purpose."""


class InvalidMoveError(DvonnError, ValueError):
    """Text that is not a placement, move or pass in DVONN notation."""


class IllegalMoveError(DvonnError, ValueError):
    """A well-formed move that the rules do not allow in the position at hand."""

    def __init__(self, message: str, *, move: str = "", ply: int = 0, side: str = "") -> None:
        super().__init__(message)
        self.move = move
        self.ply = ply
        self.side = side


class RecordError(DvonnError, ValueError):
    """A game record or position file that cannot be read; the message says where."""


class ConfigError(DvonnError, ValueError):
    """A configuration key or value that is wrong; ``key`` names it (dotted path)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"config key {key!r}: {message}")
        self.key = key
