"""What a camera sees that a hall board does not (controller.table.camera): the prompt
answered by a hand over the chosen stack, and a new piece the colour model cannot name yet."""

from __future__ import annotations

import pytest
from table_helpers import board
from test_catchup import _one_same_colour, at, first, same_colour_targets

from controller.table.camera import CameraEvidence
from controller.table.inference import LIFTED
from controller.table.session import TableController
from engine.game import Game
from engine.geometry import CELL_NAMES, NEIGHBOUR_MASKS, iter_cells, parse_cell, spread
from engine.move import Move
from hardware.events import SnapshotEvent


class Camera:
    """Readings at 5 frames a second (or every ``step`` seconds), as a camera gives them
    (``touched`` and ``glare`` included)."""

    def __init__(self, ctl: TableController, step: float = 0.2) -> None:
        self.ctl = ctl
        self.t = 0.0
        self.step = step

    def frames(self, cells: str, seconds: float, touched: int = 0,
               glare: int = 0) -> TableController:
        for _ in range(max(1, round(seconds / self.step))):
            self.ctl.handle(SnapshotEvent(self.t, cells, touched=touched, glare=glare))
            self.t += self.step
            self.ctl.advance(self.t)
        return self.ctl


def hide(cells: str, mask: int) -> str:
    return "".join("?" if (mask >> c) & 1 else ch for c, ch in enumerate(cells))


def _two_adjacent_same_colour(g: Game) -> tuple[int, list[int]] | None:
    for s in iter_cells(g.movable()):
        same = same_colour_targets(g, s)
        pairs = [(a, b) for a in same for b in same if a < b and (NEIGHBOUR_MASKS[a] >> b) & 1]
        if pairs:
            return s, list(pairs[0])
    return None


def prompted() -> tuple[Camera, int, list[int], str]:
    """A camera table prompting between two neighbouring destinations of a lifted stack's
    landing (each shows the mover's colour on top)."""
    g, found = first(_two_adjacent_same_colour)
    assert isinstance(found, tuple)
    s, pair = found
    cam = Camera(TableController(game=g, colours=True))
    cam.frames(board(g, True), 1.0)
    landed = at(board(g, True), s, ".")
    cam.frames(landed, 1.0)
    e = cam.ctl.explanation
    assert e.kind == LIFTED and set(pair) <= set(iter_cells(e.choice))
    return cam, s, pair, landed


def test_the_stack_the_hand_moved_is_the_answer() -> None:
    cam, s, (a, b), landed = prompted()
    before = list(cam.ctl.actions)
    cam.frames(hide(landed, (1 << a) | (1 << b)), 0.8)  # the hand over both
    assert cam.ctl.actions == before
    cam.frames(landed, 1.0, touched=1 << b)  # b came back moved: lifted and set back
    assert cam.ctl.actions == [*before, CELL_NAMES[s] + CELL_NAMES[b]]


def test_a_hand_over_one_prompted_cell_alone_answers() -> None:
    cam, s, (a, b), landed = prompted()
    before = list(cam.ctl.actions)
    cam.frames(hide(landed, 1 << a), 0.8)
    cam.frames(landed, 1.0)
    assert cam.ctl.actions == [*before, CELL_NAMES[s] + CELL_NAMES[a]]


@pytest.mark.parametrize("touched", ["none", "both"])
def test_a_hand_over_two_prompted_cells_that_does_not_tell_is_no_answer(touched: str) -> None:
    cam, s, (a, b), landed = prompted()
    before = list(cam.ctl.actions)
    cam.frames(hide(landed, (1 << a) | (1 << b)), 0.8)
    cam.frames(landed, 2.0, touched=0 if touched == "none" else (1 << a) | (1 << b))
    assert cam.ctl.actions == before  # never a guess
    assert cam.ctl.view().prompt == "choose-destination"


def test_a_prompted_cell_that_reads_empty_as_the_hand_goes_is_no_answer() -> None:
    """Room game 115: D1, one of the prompted cells, was cut off and taken away; the hand
    still over it as the prompt began came back with the camera marking D1 moved, and D1
    was taken for the answer (E2D1 for E2D2). A stack lifted and set back stands."""
    a, b = 10, 11
    watch = (1 << a) | (1 << b)
    board = at("w" * 30 + "." + "w" * 18, a, ".")  # a: its stack already gone
    ev = CameraEvidence()
    ev.observe(0, 0, 0, 0.0, board, board)
    for i in range(4):  # the hand over both, 0.8 s
        ev.observe(watch, watch, 0, 0.2 * (i + 1), hide(board, watch), board)
    ev.observe(watch, 0, 1 << a, 1.0, board, board)  # gone, and read as moved
    assert ev.answer == 0


def test_a_hand_passing_over_a_prompted_cell_is_no_answer() -> None:
    cam, s, (a, b), landed = prompted()
    before = list(cam.ctl.actions)
    cam.frames(hide(landed, 1 << a), 0.2)  # one frame: a hand on its way elsewhere
    cam.frames(landed, 2.0)
    assert cam.ctl.actions == before


def test_a_stack_the_camera_saw_moved_under_a_quick_hand_is_the_answer() -> None:
    """Lifted and set back within one frame of the hand (camera benchmark game 31: the
    players went on before a longer hold): the stack came back moved, and that is the
    answer; the same quick hand over a stack it did not move says nothing."""
    cam, s, (a, b), landed = prompted()
    before = list(cam.ctl.actions)
    cam.frames(hide(landed, (1 << a) | (1 << b)), 0.2)
    cam.frames(landed, 1.0, touched=1 << b)
    assert cam.ctl.actions == [*before, CELL_NAMES[s] + CELL_NAMES[b]]
    cam, s, (a, b), landed = prompted()
    cam.frames(hide(landed, 1 << a), 0.2)
    cam.frames(landed, 2.0, touched=1 << b)  # b moved, but the hand was never over it
    assert cam.ctl.actions == before


@pytest.mark.parametrize("lifted_since", [False, True])
def test_a_quick_hand_answers_only_on_the_board_the_prompt_began_with(lifted_since: bool) -> None:
    """A stack the next player lifted after the prompt began, carried and set down on a
    prompted cell, comes out from under a quick hand moved too (simulated camera session 4:
    B2A1 read as the answer A1): once the board changed since the prompt, a quick hand says
    nothing; the hand held ``hold`` seconds still does."""
    ev = CameraEvidence()
    watch = (1 << 10) | (1 << 11)
    before = "w" * 49
    now = before[:30] + "." + before[31:] if lifted_since else before
    ev.observe(watch, 0, 0, 0.0, before, before)  # the prompt begins
    ev.observe(watch, 1 << 10, 0, 1.0, hide(now, 1 << 10), now)  # a quick hand over one
    ev.observe(watch, 0, 1 << 10, 1.2, now, now)  # gone: that stack came back moved
    assert ev.answer == (0 if lifted_since else 1 << 10)


def test_camera_evidence_waits_for_the_hand_to_leave_every_watched_cell() -> None:
    ev = CameraEvidence()
    watch = (1 << 10) | (1 << 11)
    b = "w" * 49  # (a stack set back stands)
    ev.observe(watch, 1 << 10, 0, 0.0, b, b)
    ev.observe(watch, 1 << 10, 0, 0.6, b, b)  # still there
    ev.observe(0, 1 << 20, 0, 0.8, b, b)  # beside a watched cell: still near
    assert ev.answer == 0
    ev.observe(0, 0, 0, 1.0, b, b)  # gone (the prompt, briefly not shown, is the one it came to)
    assert ev.answer == 1 << 10
    ev.committed()
    assert ev.answer == 0  # it was about the action now committed


def test_a_hand_that_changed_the_board_did_not_answer() -> None:
    ev = CameraEvidence()
    before = "w" * 49
    after = before[:20] + "." + before[21:]  # a stack taken away under the same hand
    ev.observe((1 << 10) | (1 << 11), (1 << 10) | (1 << 20), 0, 0.0, before, before)
    ev.observe(0, 0, 1 << 10, 1.0, after, before)
    assert ev.answer == 0


def test_an_answer_keeps_the_explanations_where_that_action_lands_there() -> None:
    from controller.table.catchup import Hypothesis
    from engine.move import Move

    def hyp(*moves: str, back: int = 0) -> Hypothesis:
        return Hypothesis(back, tuple(Move.parse(m) for m in moves), None, (0, 0, 0, 0), True)

    options = [hyp("D5C4", "E3E5"), hyp("D5C5", "E3E5"), hyp("D5C4", "E3G3")]
    ev = CameraEvidence()
    ev.answer = 1 << parse_cell("C4")  # the first action landed on C4
    assert ev.keep(options) == [options[0], options[2]]
    ev.answer |= 1 << parse_cell("C5")  # two answers: none
    assert ev.keep(options) == options
    ev.answer = 1 << parse_cell("K5")  # no explanation fits: the board is misread
    assert ev.keep(options) == []


def test_a_sleeve_over_the_moved_stack_does_not_hide_it() -> None:
    """The stack lifted and set back reads its own colour under the sleeve while the blinking
    cell beside it reads '?': the camera saw the stack beside the hand moved."""
    cam, s, (a, b), landed = prompted()
    before = list(cam.ctl.actions)
    cam.frames(hide(landed, 1 << a), 0.8)  # b under a sleeve the colour of its top
    cam.frames(landed, 1.0, touched=1 << b)
    assert cam.ctl.actions == [*before, CELL_NAMES[s] + CELL_NAMES[b]]


def test_a_commit_waits_while_another_landing_cell_still_settles() -> None:
    """A hand leaves the source first: the commit waits until every other cell the stack
    could have landed on has settled (camera benchmark game 10: I1K3 for I1I3)."""
    from controller.table.decision import Decision
    from controller.table.doubts import unsettled
    from engine.move import Move

    g, found = first(_two_adjacent_same_colour)
    assert isinstance(found, tuple)
    s, (a, b) = found
    d = Decision("commit", moves=(Move.step(s, a),))
    assert unsettled(g, d, 1 << b)  # b, where it may have gone, reads something new
    far = next(c for c in range(49) if not (g.destinations(s) >> c) & 1 and c != s)
    assert not unsettled(g, d, 1 << far)
    assert not unsettled(g, Decision("wait"), 1 << b)


def test_a_rewrite_waits_while_its_landing_cell_flickers_empty() -> None:
    """A take-back and another move in its place wait while the new landing cell has read
    empty by turns: a vacated cell flickering a top is no landing (room game 123: C4, vacated,
    read 'w' by turns, and C5D5 was rewritten as C5C4)."""
    from controller.table.decision import Decision
    from controller.table.doubts import unsettled
    from engine.move import Move

    g, found = first(_two_adjacent_same_colour)
    assert isinstance(found, tuple)
    s, (a, _) = found
    rewrite = Decision("commit", back=1, moves=(Move.step(s, a),))
    assert unsettled(g, rewrite, 0, flickered=1 << a)
    assert not unsettled(g, rewrite, 0, flickered=1 << s)
    assert not unsettled(g, Decision("commit", moves=(Move.step(s, a),)), 0, flickered=1 << a)


def test_the_reader_is_given_the_cut_off_stacks_still_standing() -> None:
    """A move that cuts stacks off: until the camera sees them taken away they stand, and the
    reader is told their heights (given 0 it read them '.', cleared them as taken away, and
    when they read as pieces again the board "differed": camera benchmark game 1)."""
    from table_helpers import playouts

    for g in playouts(3):
        if g.placing or g.is_over():
            continue
        move = next((m for m in g.legal_moves() if not m.is_pass and g.removal_if(m)), None)
        if move is not None:
            break
    else:  # pragma: no cover - the playouts always reach a cut
        raise AssertionError("no move that cuts stacks off")
    before = [len(s) for s in g.stacks()]
    ctl = TableController(game=g, colours=True)
    ctl._commit(move)
    cut = g.removal_if(move)
    heights = ctl.heights()
    for c in iter_cells(cut):
        standing = before[c] + (before[move.source] if c == move.target else 0)
        assert heights[c] == standing
    assert sum(heights) == sum(before)  # nothing taken away yet


def test_a_top_read_on_an_empty_cell_in_the_moving_phase_is_unknown() -> None:
    """An empty cell never fills again: a top read there is a taller neighbour seen past it,
    a carried stack, a sleeve (camera benchmark game 13). A cut-off stack still standing and
    the source of a recent move (a take-back refills it) keep their readings, but a red top,
    which neither can show."""
    from table_helpers import playouts

    from controller.table.doubts import phantoms

    g = next(g for g in playouts(5) if not g.placing and len(g.move_stack) > 52
             and not g.move_stack[-1].is_pass)
    snap = board(g, True)
    empty = [c for c in range(49) if not g.stack(c)]
    source = g.move_stack[-1].source
    other = next(c for c in empty if c != source)
    assert phantoms(g, at(snap, other, "b"), {})[other] == "?"
    assert phantoms(g, at(snap, other, "b"), {other: "b"})[other] == "b"  # cut off, standing
    assert source is not None and not g.stack(source)  # a move empties its source
    assert phantoms(g, at(snap, source, "w"), {})[source] == "w"  # a take-back refills it
    # ... never with a red top, nor is a cut-off stack red (room game 116)
    assert phantoms(g, at(snap, source, "r"), {})[source] == "?"
    assert phantoms(g, at(snap, other, "r"), {other: "b"})[other] == "?"
    placing = Game.from_moves(["F3", "D3", "E3"])
    assert phantoms(placing, at(board(placing, True), other, "b"), {})[other] == "b"


def test_a_stack_seen_moved_that_reads_red_is_gone() -> None:
    """No move leaves a red top where the top was white or black: a stack the camera saw
    moved that now reads red is gone, its cell's print read red (room game 115: C2 and B1
    vacated on a salmon-filled print). Not seen moved, or red-topped, it reads as it reads."""
    from table_helpers import playouts

    from controller.table.doubts import phantoms

    g = next(g for g in playouts(5) if not g.placing and len(g.move_stack) > 52)
    snap = board(g, True)
    plain = next(c for c in iter_cells(g.occupied) if g.stack(c)[-1] != "r")
    moved = 1 << plain
    assert phantoms(g, at(snap, plain, "r"), {}, moved)[plain] == "."
    assert phantoms(g, at(snap, plain, "r"), {})[plain] == "r"  # not seen moved
    assert phantoms(g, at(snap, plain, "w"), {}, moved)[plain] == "w"
    red = next((c for c in iter_cells(g.occupied) if g.stack(c)[-1] == "r"), None)
    if red is not None:
        assert phantoms(g, snap, {}, 1 << red)[red] == "r"
    placing = Game.from_moves(["F3", "D3", "E3"])
    f3 = parse_cell("F3")
    assert phantoms(placing, at(board(placing, True), f3, "r"), {}, 1 << f3)[f3] == "r"


def test_a_vacated_cell_that_flickers_emptied_when_it_first_read_empty() -> None:
    """Camera benchmark game 24 (white paper, printed circles): the vacated G5 read '.' and
    'w' by turns for seconds, so it became stable empty only after two more moves had
    landed, and the catch-up put G5D2 last (F4G4 E2E1 G5D2, the same board). The cell
    emptied when it first read empty."""
    record = ("E1 D2 E4 A1 C4 K4 E5 G3 F5 G5 I3 C2 B4 D4 D3 B1 E3 C5 H5 J5 B2 I5 C3 E2 F1 I1 K3 "
              "C1 F4 J2 A3 F3 J3 B3 D1 H1 H3 J4 K5 D5 I2 G2 G1 H4 F2 I4 H2 G4 A2 D1E1 K4K3 "
              "A2A1 C1D2 H5G5 J4J5 F5G5 H4G4 B2B3 G3G2 J3J2 G2I4").split()
    then = ["G5D2", "E2E1", "F4G4"]
    g = Game.from_moves(record)
    cam = Camera(TableController(game=g, colours=True))
    cam.frames(board(g, True), 1.0)
    after = g.copy()
    g5 = parse_cell("G5")
    for move in then:
        after.push(Move.parse(move))
        landed = board(after, True)
        for i in range(6):  # G5 reads its printed circle as a white top every other frame
            cam.frames(landed if i % 2 else at(landed, g5, "w"), 0.2)
    cam.frames(board(after, True), 2.0)
    assert cam.ctl.actions == [*record, *then]


def test_the_landing_seen_moved_answers_the_prompt_as_it_begins() -> None:
    """A stack set down lands a few millimetres off: when exactly one of the blinking cells
    came out from under the hand moved since the last commit (and no other standing stack
    did), the stack landed there, with no gesture (players who answer early, late or never)."""
    watch = (1 << 10) | (1 << 11)
    board = "w" * 30 + "." + "w" * 18  # cell 30: the source, now empty
    ev = CameraEvidence()
    ev.alone = True  # the board shows the prompted move alone
    ev.observe(0, 0, 0, 0.0, board, board)
    ev.observe(0, 0, (1 << 11) | (1 << 30), 0.2, board, board)  # the hand left: 11 moved
    ev.observe(watch, 0, (1 << 11) | (1 << 30), 0.8, board, board)  # the prompt begins
    assert ev.answer == 1 << 11
    # another standing stack moved too (a shaken neighbour, a landing read wrong): no answer
    ev = CameraEvidence()
    ev.alone = True  # the board shows the prompted move alone
    ev.observe(0, 0, 0, 0.0, board, board)
    ev.observe(0, 0, (1 << 11) | (1 << 5), 0.2, board, board)
    ev.observe(watch, 0, (1 << 11) | (1 << 5), 0.8, board, board)
    assert ev.answer == 0
    # both blinking cells moved: the board cannot tell
    ev = CameraEvidence()
    ev.alone = True  # the board shows the prompted move alone
    ev.observe(0, 0, 0, 0.0, board, board)
    ev.observe(0, 0, watch, 0.2, board, board)
    ev.observe(watch, 0, watch, 0.8, board, board)
    assert ev.answer == 0
    # moved before the last commit: that was the action before
    ev = CameraEvidence()
    ev.alone = True  # the board shows the prompted move alone
    ev.observe(0, 0, 1 << 11, 0.2, board, board)
    ev.committed()
    ev.observe(watch, 0, 1 << 11, 0.8, board, board)
    assert ev.answer == 0
    # the board shows more than the prompted move (a later action): its landing is no answer
    ev = CameraEvidence()
    ev.observe(0, 0, 0, 0.0, board, board)
    ev.observe(0, 0, (1 << 11) | (1 << 30), 0.2, board, board)
    ev.observe(watch, 0, (1 << 11) | (1 << 30), 0.8, board, board)
    assert ev.answer == 0


def test_the_landing_seen_moved_after_the_prompt_began_answers_it() -> None:
    """Room game 108: the prompt began as a hand came back over the landing a frame, and the
    camera saw the landing moved only as that hand left (the vacated source read a top
    then). A blinking cell seen moved while the prompt is up answers it where a hand was
    over it since the prompt began (a stack the camera calls moved with no hand ever over
    it since is no answer) and no stack left since (simulated camera session 132: a later
    move, E3E2, landed on the blinking E2)."""
    watch = (1 << 10) | (1 << 11)
    board = "w" * 30 + "." + "w" * 18  # cell 30: the source, now empty
    for over, gone, want in ((1 << 11, 30, 1 << 11), (1 << 5, 30, 0), (1 << 11, 12, 0)):
        ev = CameraEvidence()
        ev.alone = True
        ev.observe(0, 0, 1 << 30, 0.0, board, board)  # the hand left the source
        ev.observe(watch, 0, 1 << 30, 0.2, board, board)  # the prompt begins: none moved
        assert ev.answer == 0
        ev.observe(watch, over, 1 << 30, 0.4, hide(board, over), board)  # a hand a frame
        # 11 seen moved as the hand leaves, and the vacated source read a top that frame (so
        # no gesture: the board differs from when the hand came), or another stack gone
        now = at(board, 30, "w") if gone == 30 else at(board, gone, ".")
        ev.observe(watch, 0, (1 << 11) | (1 << 30), 0.6, now, board)
        ev.observe(watch, 0, (1 << 11) | (1 << 30), 0.8, now if gone != 30 else board, board)
        assert ev.answer == want, (over, gone)


def test_a_take_back_waits_while_a_cell_round_it_wavers() -> None:
    """Room game 107: E1E2 seen land; F2's stack then landed on E2 and F2, vacated, read its
    old top by turns, so only taking E1E2 back explained the board a moment (and left a
    prompt nothing later could answer). A take-back waits while a reading round what it
    takes back still settles."""
    from controller.table.debounce import Debouncer
    from controller.table.decision import Decision

    g, found = first(_two_adjacent_same_colour)
    assert isinstance(found, tuple)
    s, (a, _) = found
    g.push(Move.step(s, a))
    full = board(g, True)
    near = next(c for c in iter_cells(NEIGHBOUR_MASKS[a] & g.occupied) if c != s)
    flicker = at(full, near, ".")
    readings = Debouncer()
    for i, cells in enumerate((full, full, full, flicker, full)):
        readings.feed(0.1 * i, cells)
    ev = CameraEvidence()
    back = Decision("commit", back=1)
    assert ev.held(g, back, readings, 0, 0, 0.4, 0, 0).kind == "wait"
    for i in range(5, 12):  # it settles
        readings.feed(0.1 * i, full)
    assert ev.held(g, back, readings, 0, 0, 1.1, 0, 0) is back


def test_a_stack_seen_moved_while_a_hand_is_over_the_board_is_no_landing() -> None:
    """An arm shades the stacks round it and moves the camera's exposure: a stack first seen
    moved while a hand is over the board may be the light, not the landing (room game 104:
    H1 read moved as the next player's hand came, 4 s after I2's stack landed on I3, and
    I2H1 was committed). A cell unreadable for seconds is misread, not a hand."""
    watch = (1 << 10) | (1 << 11)
    board = "w" * 30 + "." + "w" * 18  # cell 30: the source, now empty
    handed = board[:3] + "?" + board[4:]  # the next player's hand over cell 3
    ev = CameraEvidence()
    ev.alone = True
    ev.observe(0, 0, 0, 0.0, board, board)
    ev.observe(0, 1 << 3, 1 << 11, 0.2, handed, board)  # 11 read moved under another hand
    ev.observe(watch, 1 << 3, 1 << 11, 0.8, handed, board)  # the prompt begins
    assert ev.answer == 0
    # the same with cell 3 misread '?' for seconds (no hand): the landing answers
    ev = CameraEvidence()
    ev.alone = True
    for i in range(20):
        ev.observe(0, 1 << 3, 0, 0.2 * i, handed, board)
    ev.observe(0, 1 << 3, 1 << 11, 4.2, handed, board)
    ev.observe(watch, 1 << 3, 1 << 11, 4.8, handed, board)
    assert ev.answer == 1 << 11


def _held_aloft() -> tuple[Camera, Game, int, int, int, str]:
    """A camera table where a stack was lifted under a hand, and the hand left without
    setting it down anywhere the camera can see: its one same-colour destination ``d`` would
    look just so, ``o`` would show its top."""
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, o = found
    cam = Camera(TableController(game=g, colours=True))
    full = board(g, True)
    near = 1 << s | 1 << d | 1 << o
    elsewhere = next(c for c in iter_cells(g.occupied) if not (near | spread(near)) >> c & 1)
    cam.frames(full, 1.0, touched=1 << elsewhere)  # a camera that tells moved stacks
    cam.frames(hide(full, (1 << s) | NEIGHBOUR_MASKS[s]), 0.6)  # the hand lifts it
    lifted = at(full, s, ".")
    cam.frames(lifted, 1.6)  # the hand is gone, off the board with the stack
    return cam, g, s, d, o, lifted


def test_a_stack_that_may_still_be_in_the_air_is_not_committed_where_no_landing_shows() -> None:
    """A lifted stack held off the board: the board then reads as if it had landed on its
    one same-colour destination. The hand that lifted it left a moment ago and none came
    since: it waits; the hand comes back and sets it down elsewhere (room game 120: D2D1 was
    committed while D2's stack was held 1.9 s out of sight, then set down on C2)."""
    cam, g, s, d, o, lifted = _held_aloft()
    assert cam.ctl.game.ply == g.ply  # not committed: it may be in the air
    cam.frames(hide(lifted, (1 << o) | NEIGHBOUR_MASKS[o]), 0.4)  # the hand sets it on o
    cam.frames(at(lifted, o, g.turn), 1.0)
    assert cam.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[o]


def test_a_stack_unseen_landing_is_committed_once_the_hand_stays_away() -> None:
    """No hand for seconds after the lift, or the next player's stack lifted (the players do
    not wait: outside camera game lit-1): the stack came down where the camera cannot see it
    land."""
    cam, g, s, d, o, lifted = _held_aloft()
    cam.frames(lifted, 1.6)
    assert cam.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]
    cam, g, s, d, o, lifted = _held_aloft()
    after = g.copy()
    after.push(Move(s, d))
    near = 1 << s | 1 << d | 1 << o
    nxt = next(c for c in iter_cells(after.movable())
               if not (NEIGHBOUR_MASKS[c] | 1 << c) & (near | spread(near)))
    cam.frames(hide(lifted, (1 << nxt) | NEIGHBOUR_MASKS[nxt]), 0.4)  # the next player's hand
    cam.frames(at(lifted, nxt, "."), 1.0)
    assert cam.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[d]


def test_a_rewrite_onto_a_landing_nothing_was_seen_at_waits() -> None:
    """A move seen land on a cell whose top turned the mover's colour; later that cell reads
    its old top again (a later move's piece read on it, the next move's vacated source still
    read as a piece: room game 120). Only a take-back onto the one destination that already
    showed the mover's colour explains it: with a camera that tells moved stacks and saw none
    there, it waits; once that stack is seen moved, it is the players' correction."""
    g, found = first(_one_same_colour)
    assert isinstance(found, tuple)
    s, d, o = found
    full = board(g, True)
    near = 1 << s | 1 << d | 1 << o
    elsewhere = next(c for c in iter_cells(g.occupied) if not (near | spread(near)) >> c & 1)
    landed = at(at(full, s, "."), o, g.turn)
    for seen in (0, 1 << d):
        cam = Camera(TableController(game=g, colours=True))
        cam.frames(full, 1.0, touched=1 << elsewhere)  # a camera that tells moved stacks
        cam.frames(hide(full, (1 << s) | NEIGHBOUR_MASKS[s]), 0.6)
        cam.frames(hide(landed, (1 << o) | NEIGHBOUR_MASKS[o]), 0.4)
        cam.frames(landed, 1.0, touched=1 << o)
        assert cam.ctl.actions[-1] == CELL_NAMES[s] + CELL_NAMES[o]
        cam.frames(at(full, s, "."), 2.0, touched=1 << o | seen)
        want = CELL_NAMES[s] + CELL_NAMES[d if seen else o]
        assert cam.ctl.actions[-1] == want, seen


def test_a_prompted_stack_read_empty_only_between_unreadable_frames_was_not_lifted() -> None:
    """Room game 136: the hand answered on one prompted stack; its neighbour, also
    prompted and covered by the hand, read empty one frame in two. That is no lift and set
    back (it was taken for one, and the move recorded onto it), and where the camera saw
    no stack moved the prompt stays open."""
    cam, s, (a, b), landed = prompted()
    ply = cam.ctl.game.ply
    hand = hide(landed, (1 << a) | NEIGHBOUR_MASKS[a])
    flicker = at(hand, b, ".")
    for _ in range(4):  # 1.6 s: the neighbour reads empty in every other frame
        cam.frames(hand, 0.2)
        cam.frames(flicker, 0.2)
    ctl = cam.frames(landed, 1.5)
    assert ctl.game.ply == ply and ctl.explanation.kind == LIFTED


def _taller(touched_b: bool) -> tuple[list[str], list[str], str]:
    """A prompt, then b seen moved as an arm was over the board elsewhere (no answer by the
    touch cue alone: an arm shades stacks), then b seen taller by the moved stack's height."""
    cam, s, (a, b), landed = prompted()
    ctl = cam.ctl
    asked = ctl.height_question()
    assert asked is not None and asked[0] >> b & 1 and asked[1] == len(ctl.game.stack(s))
    far = [c for c in iter_cells(ctl.game.occupied)
           if not spread(NEIGHBOUR_MASKS[a] | NEIGHBOUR_MASKS[b] | (1 << s)) >> c & 1][:2]
    touched = 1 << b if touched_b else 0
    before = list(ctl.actions)
    cam.frames(hide(landed, sum(1 << c for c in far)), 0.2, touched=touched)
    cam.frames(landed, 1.0, touched=touched)
    assert ctl.actions == before  # seen moved under an arm: not enough
    for _ in range(3):
        ctl.handle(SnapshotEvent(cam.t, landed, touched=touched, grown=1 << b))
        cam.t += 0.2
        ctl.advance(cam.t)
    return before, list(ctl.actions), CELL_NAMES[s] + CELL_NAMES[b]


def test_the_prompted_cell_seen_moved_and_taller_is_the_answer() -> None:
    """A player who never answers: the camera saw the landing's stack moved (an arm over the
    board) and sees it taller by the moved stack's height (vision.cues.height)."""
    before, after, move = _taller(touched_b=True)
    assert after == [*before, move]


def test_a_prompted_cell_seen_taller_but_not_moved_is_no_answer() -> None:
    before, after, _ = _taller(touched_b=False)
    assert after == before


def test_a_cell_seen_taller_is_no_answer_once_the_board_shows_more_than_that_move() -> None:
    cam, s, (a, b), landed = prompted()
    ctl = cam.ctl
    other = next(c for c in iter_cells(ctl.game.movable())
                 if c not in (s, a, b) and not NEIGHBOUR_MASKS[c] & ((1 << a) | (1 << b)))
    later = at(landed, other, ".")  # a later stack lifted as well
    before = list(ctl.actions)
    for _ in range(5):
        ctl.handle(SnapshotEvent(cam.t, later, touched=1 << b, grown=1 << b))
        cam.t += 0.2
        ctl.advance(cam.t)
    assert ctl.actions == before
