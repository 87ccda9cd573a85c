"""A commit waits for the readings near it to settle, and a rewrite of the record (a
take-back and another action) also for the cells near it to be seen: a sleeve or a hand over
a cell can read like a piece for a moment."""

from __future__ import annotations

from pathlib import Path

from table_helpers import replay_from

from controller.sim.physical import Meanness, generate
from controller.sim.scoring import replay_events, same
from controller.table.decision import Decision, touches
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


def test_touches_names_the_cells_a_commit_changes_and_their_neighbours() -> None:
    """C1D2 for C1C2 changes D2 and C2; D2C2 changes D2 and C2."""
    _, position, _ = replay_from(DATA / "sleeve_rewrite.jsonl", colours=True)
    game = Game.from_moves(position + ["C1C2"])
    rewrite = Decision("commit", back=1, moves=(Move.parse("C1D2"),))
    assert touches(game, rewrite, mask_of(["C2"]))
    assert touches(game, rewrite, mask_of(["E2"]))  # next to D2
    assert not touches(game, rewrite, mask_of(["K5"]))  # far away
    assert not touches(game, rewrite, 0)
    forward = Decision("commit", moves=(Move.parse("D2C2"),))
    assert touches(game, forward, mask_of(["B2"]))  # next to C2
    assert not touches(game, forward, mask_of(["H3"]))
    assert not touches(game, Decision("wait"), mask_of(["C2"]))  # not a commit


def test_sleeves_read_as_pieces_do_not_lose_the_game() -> None:
    """Simulated camera tables where a covered cell now and then reads a piece's colour for
    as long as the hand is there (``Meanness.sleeve``, here four times the default): camera
    seeds 20 and 25 were lost (seed 25: a cut-off stack's cell read ``b`` under the hand that
    took it away, and G2G3 was rewritten as G2G1, whose own cut-off stack that ``b`` was);
    with only rewrites held back, seed 59 placed a piece on a sleeve's cell while the hand
    was over the next one (a commit now waits while a hand is next to it)."""
    for seed in (20, 25, 59):
        session = generate(seed, "camera", Meanness(sleeve=0.2))
        assert session.stats.get("sleeve", 0) > 0
        assert same(replay_events(session.events).lines, session.expected), seed
