"""A committed action is rewritten (taken back and replaced) only on a settled board: not
while a hand is over the cells the rewrite touches, nor before their readings have settled
after it left. A sleeve over an empty cell can read like a piece for a moment."""

from __future__ import annotations

from pathlib import Path

from table_helpers import replay_from

from controller.catchup import Decision, rewrites_near
from engine.game import Game
from engine.geometry import mask_of
from engine.move import Move

DATA = Path(__file__).parent / "data" / "catchup"


def test_a_sleeve_read_as_a_piece_does_not_rewrite_the_last_move() -> None:
    """Camera game 3 of benchmarks/camera_games.py (wood board, white sleeve): after C1C2 was
    committed, Black's hand moved D2 onto C2. Under the hand D2 read ``w`` (the sleeve) long
    enough to settle, and as the hand left, with D2 and C2 not yet settled on ``.`` and
    ``b``, "C1D2 instead of C1C2" explained the board: it was committed, and no later board
    could be explained (a take-back is followed by one action at most). The rewrite now
    waits for a settled board, which shows D2C2."""
    ctl, position, then = replay_from(DATA / "sleeve_rewrite.jsonl", colours=True)
    assert ctl.actions == position + then


def test_rewrites_near_names_only_take_backs_touching_unsettled_cells() -> None:
    """Only a take-back counts, and only where a changed stack is at or next to a cell not
    settled (C1D2 for C1C2 changes D2 and C2)."""
    _, position, _ = replay_from(DATA / "sleeve_rewrite.jsonl", colours=True)
    game = Game.from_moves(position + ["C1C2"])
    rewrite = Decision("commit", back=1, moves=(Move.parse("C1D2"),))
    assert rewrites_near(game, rewrite, mask_of(["C2"]))  # C2 is next to D2 and C2
    assert rewrites_near(game, rewrite, mask_of(["E2"]))  # next to D2
    assert not rewrites_near(game, rewrite, mask_of(["K5"]))  # far away
    assert not rewrites_near(game, rewrite, 0)
    forward = Decision("commit", moves=(Move.parse("D2C2"),))
    assert not rewrites_near(game, forward, mask_of(["C2"]))  # not a take-back
