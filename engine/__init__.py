"""The DVONN rules engine: pure Python, standard library only."""

from engine.errors import (
    ConfigError,
    DvonnError,
    IllegalMoveError,
    InvalidMoveError,
    RecordError,
)
from engine.geometry import CELL_NAMES, NUM_CELLS, cell_name, parse_cell
from engine.move import PASS, Move

__all__ = [
    "CELL_NAMES",
    "NUM_CELLS",
    "PASS",
    "ConfigError",
    "DvonnError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "RecordError",
    "cell_name",
    "parse_cell",
]
