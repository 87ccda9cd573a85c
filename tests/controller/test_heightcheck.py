"""A board that fits nothing is read again with each move's heights (the camera's parallax:
a stack that grew lies over the cells behind it until the reader knows it is taller)."""

from __future__ import annotations

from collections.abc import Sequence

from table_helpers import PLACEMENT, Feeder, board, edit

from controller.runner import PlacementTeacher
from controller.table.heightcheck import fits, heights_after
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import CELL_NAMES
from engine.move import Move
from hardware.events import SnapshotEvent


def moving_table() -> tuple[Feeder, Game]:
    feeder = Feeder(colours=True)
    game = Game()
    for name in PLACEMENT:
        game.push(Move.parse(name))
        feeder.read(board(game, colours=True))
    assert feeder.ctl.actions == PLACEMENT
    return feeder, game


class Camera:
    """A camera whose frame reads ``seen`` with the committed heights, and ``truth`` when read
    again with the heights in ``shows`` (a list of height lists)."""

    def __init__(self, ctl: TableController, seen: str, truth: str,
                 shows: list[list[int]]) -> None:
        self.ctl, self.seen, self.truth, self.shows = ctl, seen, truth, shows
        self.t = 0.0
        self.rereads = 0

    def poll(self, timeout: float = 0.0) -> list[SnapshotEvent]:
        heights = self.ctl.heights()
        return [SnapshotEvent(self.t, self.truth if heights in self.shows else self.seen)]

    def reread(self, heights: Sequence[int]) -> tuple[str, int] | None:
        self.rereads += 1
        return (self.truth if list(heights) in self.shows else self.seen), 0

    def learn(self, cell: int, colour: str) -> bool:
        return True

    def close(self) -> None:
        pass


def run(feeder: Feeder, camera: Camera, seconds: float) -> None:
    teacher = PlacementTeacher(camera, feeder.ctl)
    end = feeder.t + seconds
    while feeder.t < end:
        camera.t = feeder.t
        for event in teacher.poll():
            feeder.ctl.handle(event)
        feeder.t += 0.1
        feeder.ctl.advance(feeder.t)


def parallax(game: Game, move: Move) -> tuple[str, str]:
    """The board after ``move`` and what the frame reads with the old heights: the vacated
    source shows the grown destination's side wall (white)."""
    after = game.copy()
    after.push(move)
    truth = board(after, colours=True)
    assert move.source is not None
    return truth, edit(truth, **{CELL_NAMES[move.source]: "w"})


def first_move(game: Game, feeder: Feeder) -> Move:
    for move in game.legal_moves():
        truth, seen = parallax(game, move)
        if not game.copy().push(move) and seen != truth:
            return move
    raise AssertionError("no move")


def test_the_one_move_whose_heights_explain_the_frame_is_committed() -> None:
    feeder, game = moving_table()
    move = first_move(game, feeder)
    truth, seen = parallax(game, move)
    assert fits(feeder.ctl, truth, move) and not fits(feeder.ctl, seen, move)
    camera = Camera(feeder.ctl, seen, truth, [heights_after(feeder.ctl, move)])
    run(feeder, camera, 5.0)
    assert feeder.ctl.actions == PLACEMENT + [str(move)]
    # only the moves from or onto a cell that does not read as it stands are read again for
    assert 0 < camera.rereads < len(game.legal_moves())


def test_without_the_second_reading_the_table_waits() -> None:
    feeder, game = moving_table()
    move = first_move(game, feeder)
    truth, seen = parallax(game, move)
    camera = Camera(feeder.ctl, seen, truth, [])
    run(feeder, camera, 5.0)
    assert feeder.ctl.actions == PLACEMENT
    assert feeder.ctl.explanation.kind in ("mismatch", "wait")


def test_two_moves_that_both_explain_the_frame_decide_nothing() -> None:
    """Two stacks that may land on the same cell: read again with either's heights, the
    frame reads as that move. The table does not choose; it waits."""
    feeder, game = moving_table()
    move, other = next((a, b) for a in game.legal_moves() for b in game.legal_moves()
                       if a.target == b.target and a.source != b.source
                       and not a.is_pass and not b.is_pass)
    truth, seen = parallax(game, move)
    camera = Camera(feeder.ctl, seen, truth,
                    [heights_after(feeder.ctl, move), heights_after(feeder.ctl, other)])
    camera.reread = lambda heights: (  # type: ignore[method-assign]
        fake_truth(game, feeder.ctl, heights, move, other, seen), 0)
    assert fits(feeder.ctl, parallax(game, other)[0], other)
    run(feeder, camera, 5.0)
    assert feeder.ctl.actions == PLACEMENT


def fake_truth(game: Game, ctl: TableController, heights: Sequence[int], a: Move, b: Move,
               seen: str) -> str:
    for move in (a, b):
        if list(heights) == heights_after(ctl, move):
            return parallax(game, move)[0]
    return seen


def test_a_cell_the_grown_stack_hides_reads_as_it_stands() -> None:
    """Read again with the move's heights, a neighbour behind the grown destination reads '?'
    "hidden by a stack" (camera game 7: J5 behind I4 after K4I4). Nothing but a hand changes a
    cell, so it reads as it stands; a '?' for another reason (a hand) stays '?'."""
    from controller.table.heightcheck import HeightCheck
    from engine.geometry import NEIGHBOURS

    feeder, game = moving_table()
    move = first_move(game, feeder)
    truth, seen = parallax(game, move)
    assert move.target is not None and move.source is not None
    behind = next(c for c in NEIGHBOURS[move.target] if c != move.source and truth[c] != ".")
    veiled = edit(truth, **{CELL_NAMES[behind]: "?"})
    after = heights_after(feeder.ctl, move)
    check = HeightCheck(feeder.ctl)
    for mask, want in ((1 << behind, truth), (0, veiled)):
        def reread(heights: Sequence[int], mask: int = mask) -> tuple[str, int]:
            return (veiled, mask) if list(heights) == after else (seen, 0)

        assert check._read((move,), reread) == want
    camera = Camera(feeder.ctl, seen, truth, [after])
    camera.reread = lambda heights: (  # type: ignore[method-assign]
        (veiled, 1 << behind) if list(heights) == after else (seen, 0))
    run(feeder, camera, 5.0)
    assert feeder.ctl.actions == PLACEMENT + [str(move)]


class Flicker(Camera):
    """Frame k reads the vacated source '?' every other frame (a tall stack's old place that
    never settles), and read again with the move's heights, '?' every third frame."""

    def __init__(self, *args: object, source: int) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.source, self.frame = source, 0

    def _veil(self, cells: str, every: int) -> str:
        if self.frame % every:
            return cells
        return cells[:self.source] + "?" + cells[self.source + 1:]

    def poll(self, timeout: float = 0.0) -> list[SnapshotEvent]:
        self.frame += 1
        heights = self.ctl.heights()
        cells = self.truth if heights in self.shows else self._veil(self.seen, 2)
        return [SnapshotEvent(self.t, cells)]

    def reread(self, heights: Sequence[int]) -> tuple[str, int] | None:
        self.rereads += 1
        if list(heights) in self.shows:
            return self._veil(self.truth, 3), 0
        return self._veil(self.seen, 2), 0


def test_a_source_that_flickers_between_a_piece_and_unknown_still_gets_the_move() -> None:
    """Camera game 20: E4, vacated by a stack of three, read '?' and '.' by turns, so no two
    frames read the same; and read again with the move's heights it still flickered, which
    dropped the move before the controller could commit it. A '?' shows nothing: the wait
    counts from the last frame that showed something new, and the move is kept while the
    frames do not contradict it."""
    feeder, game = moving_table()
    move = first_move(game, feeder)
    assert move.source is not None
    truth, seen = parallax(game, move)
    camera = Flicker(feeder.ctl, seen, truth, [heights_after(feeder.ctl, move)],
                     source=move.source)
    run(feeder, camera, 6.0)
    assert feeder.ctl.actions == PLACEMENT + [str(move)]


def test_a_frame_with_a_hand_over_the_board_is_not_read_again() -> None:
    """Cells under a hand read '?' and fit anything: a frame with many of them is no evidence
    for one move over another, so the check waits for a frame without the hand."""
    from controller.table.heightcheck import MAX_UNKNOWN

    feeder, game = moving_table()
    move = first_move(game, feeder)
    truth, seen = parallax(game, move)
    hand = [c for c in range(49) if seen[c] != "." and c not in (move.source, move.target)]
    covered = "".join("?" if c in hand[:MAX_UNKNOWN + 1] else ch for c, ch in enumerate(seen))
    camera = Camera(feeder.ctl, covered, truth, [heights_after(feeder.ctl, move)])
    run(feeder, camera, 5.0)
    assert camera.rereads == 0 and feeder.ctl.actions == PLACEMENT


def test_a_cell_counts_as_emptied_from_the_frame_it_first_read_empty() -> None:
    """The order the cells emptied in decides between explanations that end on the same
    board (camera game 4: F2E2, pass, G3G2 recorded as G3G2, pass, F2E2 when both cells
    settled in one snapshot). A cell counts from the frame it first read empty, not from
    when a flicker let it settle."""
    feeder, game = moving_table()
    move = next(m for m in game.legal_moves() if not m.is_pass)
    assert move.source is not None
    name = CELL_NAMES[move.source]
    start = board(game, colours=True)
    first = feeder.t
    feeder.read(edit(start, **{name: "."}), hold=0.3)
    feeder.read(edit(start, **{name: "?"}), hold=0.3)
    feeder.read(edit(start, **{name: "."}), hold=1.0)
    assert feeder.ctl._since[move.source] == first


def test_a_source_read_again_as_empty_dates_from_the_frame_its_reading_changed() -> None:
    """The second reading finds the move a second or more after the stack left; the source
    has read the grown stack's side since the frame the stack left it, so that is when it
    emptied for the controller (the order cells emptied in decides between explanations that
    end on the same board)."""
    feeder, game = moving_table()
    move = first_move(game, feeder)
    assert move.source is not None
    truth = parallax(game, move)[0]
    # the grown stack's side over the vacated cell reads as the colour the stack did not have
    seen = edit(truth, **{CELL_NAMES[move.source]: "b"})
    camera = Camera(feeder.ctl, seen, truth, [heights_after(feeder.ctl, move)])
    left = feeder.t
    run(feeder, camera, 5.0)
    assert feeder.ctl.actions == PLACEMENT + [str(move)]
    assert feeder.ctl._since[move.source] == left  # not the second reading's time (>= 1 s on)
