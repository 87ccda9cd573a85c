"""One test per rule of RULES.md, each from a hand-built position or a placement sequence."""

from __future__ import annotations

import pytest
from dvonn_reference import RULES_PLACEMENT, Reference, names

from engine.errors import DvonnError, IllegalMoveError, InvalidMoveError
from engine.game import Game
from engine.geometry import CELL_NAMES, EDGE_MASK, mask_of, parse_cell
from engine.move import PASS, Move


def moves(game: Game) -> list[str]:
    return sorted(str(m) for m in game.legal_moves())


def play(game: Game, *actions: str) -> int:
    removed = 0
    for a in actions:
        removed = game.push(Move.parse(a))
    return removed


# --------------------------------------------------------------------------- phase 1
def test_placement_order_red_red_red_then_black_white() -> None:
    game = Game()
    sides, pieces = [], []
    for cell in range(49):
        sides.append(game.turn)
        pieces.append(game.piece_to_place())
        game.push(Move.place(cell))
    assert sides == ["w", "b"] * 24 + ["w"]  # White places first and also the 49th piece
    assert pieces[:5] == ["r", "r", "r", "b", "w"]
    assert pieces[3:] == ["b", "w"] * 23
    assert [game.stack(c) for c in range(49)] == pieces
    assert "".join(pieces).count("w") == 23 and "".join(pieces).count("b") == 23
    # after the 49th placement White moves first
    assert not game.placing
    assert game.turn == "w"
    assert game.piece_to_place() is None
    assert game.ply == 49


def test_placement_on_any_empty_space_and_never_on_an_occupied_one() -> None:
    game = Game.from_moves(["K5", "A1", "F3"])
    assert len(game.legal_moves()) == 46
    assert {str(m) for m in game.legal_moves()}.isdisjoint({"K5", "A1", "F3"})
    with pytest.raises(IllegalMoveError, match="'F3'.*ply 4.*Black.*occupied"):
        game.push(Move.parse("F3"))
    with pytest.raises(IllegalMoveError, match="placing phase"):
        game.push(Move.parse("A1B1"))
    with pytest.raises(IllegalMoveError):
        game.push(PASS)


def test_placement_is_illegal_in_the_moving_phase(rules_game: Game) -> None:
    with pytest.raises(IllegalMoveError, match="'C3'.*ply 50.*all pieces are placed"):
        rules_game.push(Move.parse("C3"))


def test_at_the_start_only_edge_stacks_can_move(rules_game: Game) -> None:
    assert rules_game.movable() == rules_game.white_stacks & EDGE_MASK
    assert len(rules_game.legal_moves()) == 46


# --------------------------------------------------------------------------- phase 2 moves
def test_a_stack_moves_exactly_its_height() -> None:
    game = Game.setup({"A1": "bw", "B1": "b", "C1": "b", "D1": "r", "A2": "b", "A3": "b",
                       "B2": "b", "C3": "b", "B3": "b"})
    # height 2: C1 (east), A3 (north), C3 (northeast); B1, A2, B2, B3, D1 are not 2 away
    assert moves(game) == ["A1A3", "A1C1", "A1C3"]
    assert names(game.destinations(parse_cell("A1"))) == {"C1", "A3", "C3"}
    with pytest.raises(IllegalMoveError, match="height 2 and must move exactly"):
        game.push(Move.parse("A1B1"))
    with pytest.raises(IllegalMoveError, match="'A1D1'"):
        game.push(Move.parse("A1D1"))


def test_a_stack_lands_on_any_colour() -> None:
    position = {"A1": "w", "B1": "bw", "A2": "b", "B2": "r"}  # B1 (height 2) has no move
    game = Game.setup(position)
    assert moves(game) == ["A1A2", "A1B1", "A1B2"]
    for target, expected in (("B1", "bww"), ("A2", "bw"), ("B2", "rw")):
        g = Game.setup(position)
        play(g, "A1" + target)
        assert g.stack(parse_cell(target)) == expected
        assert g.owner(parse_cell(target)) == "w"
        assert g.stack(parse_cell("A1")) == ""


def test_a_stack_never_lands_on_an_empty_space() -> None:
    game = Game.setup({"A1": "w", "A2": "b", "C2": "r"})
    assert moves(game) == ["A1A2"]
    with pytest.raises(IllegalMoveError, match="B1 is empty"):
        game.push(Move.parse("A1B1"))


def test_a_stack_jumps_over_empty_spaces() -> None:
    game = Game.setup({"A3": "bww", "D3": "r", "A2": "b"})  # B3 and C3 are empty
    assert moves(game) == ["A3D3"]
    play(game, "A3D3")
    assert game.stack(parse_cell("D3")) == "rbww"


def test_a_surrounded_stack_cannot_move() -> None:
    ring = {"E3": "b", "G3": "b", "F4": "b", "E2": "b", "G4": "r", "F2": "b"}
    game = Game.setup({"F3": "w", **ring, "H3": "b"})
    assert "F3" not in {str(m)[:2] for m in game.legal_moves()}
    assert game.movable() == 0
    with pytest.raises(IllegalMoveError, match="F3 is surrounded|on F3 is surrounded"):
        game.push(Move.parse("F3G3"))
    # one neighbour gone: it moves
    open_ring = dict(ring)
    del open_ring["E2"]
    game = Game.setup({"F3": "w", **open_ring})
    assert moves(game) == ["F3E3", "F3F2", "F3F4", "F3G3", "F3G4"]


def test_off_board_counts_as_open_so_an_edge_stack_is_never_surrounded() -> None:
    # A1 has only three neighbours, all occupied
    game = Game.setup({"A1": "w", "B1": "b", "A2": "b", "B2": "r"})
    assert moves(game) == ["A1A2", "A1B1", "A1B2"]
    # K3 likewise
    game = Game.setup({"K3": "w", "J3": "b", "K4": "b", "J2": "r"})
    assert moves(game) == ["K3J2", "K3J3", "K3K4"]


def test_a_lone_dvonn_piece_never_moves() -> None:
    game = Game.setup({"A1": "r", "B1": "b"}, turn="w")
    assert game.owner(parse_cell("A1")) is None
    assert game.legal_moves() == [PASS]  # White has no stack; Black has B1A1
    game = Game.setup({"A1": "r", "B1": "b"}, turn="b")
    assert moves(game) == ["B1A1"]


def test_a_stack_containing_a_dvonn_piece_moves_with_its_owner() -> None:
    position = {"A1": "rw", "C1": "b", "B1": "b", "E1": "rb", "C3": "w"}
    game = Game.setup(position, turn="w")
    assert "A1C1" in moves(game)
    assert "E1C1" not in moves(game)
    play(game, "A1C1")
    assert game.stack(parse_cell("C1")) == "brw"
    assert names(game.red_stacks) == {"C1", "E1"}
    game = Game.setup(position, turn="b")
    assert "E1C1" in moves(game)
    assert not any(str(m).startswith("A1") for m in game.legal_moves())


def test_a_stack_taller_than_ten_never_moves_and_a_stack_of_ten_does() -> None:
    ten = "wwwwwbbbbw"
    game = Game.setup({"A3": ten, "K3": "r", "J3": "b"})
    assert moves(game) == ["A3K3"]
    assert play(game, "A3K3") == 0
    assert game.stack(parse_cell("K3")) == "r" + ten
    eleven = "wwwwwbbbbbw"
    game = Game.setup({"A3": eleven, "K3": "r", "J3": "b"})
    assert len(eleven) == 11
    assert game.legal_moves() == [PASS]  # Black still has J3K3
    assert game.movable() == 0


# --------------------------------------------------------------------------- isolation
def test_isolated_stacks_are_removed_and_reported_as_a_mask() -> None:
    game = Game.setup({"A1": "r", "B1": "w", "C1": "b", "D1": "w", "E1": "b", "A2": "b"})
    move = Move.parse("B1C1")
    assert names(game.removal_if(move)) == {"C1", "D1", "E1"}
    assert game.ply == 49 and game.stack(parse_cell("B1")) == "w"  # removal_if changed nothing
    removed = game.push(move)
    assert names(removed) == {"C1", "D1", "E1"}
    assert game.last_removed == removed
    assert {CELL_NAMES[c]: game.stack(c) for c in range(49) if game.stack(c)} == \
        {"A1": "r", "A2": "b"}
    assert names(game.occupied) == {"A1", "A2"}
    assert game.white_stacks == 0 and names(game.black_stacks) == {"A2"}
    game.pop()
    assert game.stack(parse_cell("D1")) == "w" and game.last_removed == 0


def test_a_move_that_cuts_nothing_returns_zero() -> None:
    game = Game.setup({"A1": "r", "B1": "w", "C1": "b"})
    assert names(play(game, "B1A1")) == {"C1"}  # B1 was C1's only link to A1
    game = Game.setup({"A1": "r", "B1": "w", "C1": "b", "C2": "b", "B2": "b"})
    assert play(game, "B1C1") == 0  # C1 still touches C2, which touches B2, which touches A1
    assert game.last_removed == 0


def test_dvonn_pieces_are_never_removed() -> None:
    # B1C1 leaves the lone DVONN piece on A1 with no neighbour at all: it stays. C1 'bw'
    # touches neither A1 nor the group of E1: it goes. E1's group is linked to a DVONN piece.
    position = {"A1": "r", "B1": "w", "C1": "b", "E1": "r", "F1": "w", "G1": "b", "H1": "b"}
    game = Game.setup(position)
    removed = play(game, "B1C1")
    assert names(removed) == {"C1"}
    assert game.stack(parse_cell("A1")) == "r"
    assert names(game.red_stacks) == {"A1", "E1"}
    assert names(game.occupied) == {"A1", "E1", "F1", "G1", "H1"}
    assert Reference.from_game(Game.setup(position)).apply("B1C1") == {"C1"}


def test_removal_happens_whoever_moved() -> None:
    # Black's own move cuts off Black's own stacks
    game = Game.setup({"A1": "r", "B1": "b", "C1": "w", "D1": "b", "A2": "w"}, turn="b")
    removed = play(game, "B1C1")
    assert names(removed) == {"C1", "D1"}
    assert game.score() == (1, 0)
    # and White's move cuts off White's
    game = Game.setup({"A1": "r", "B1": "w", "C1": "b", "D1": "w", "A2": "b"}, turn="w")
    assert names(play(game, "B1C1")) == {"C1", "D1"}
    assert game.score() == (0, 1)


def test_a_moving_dvonn_stack_can_cut_off_what_it_leaves() -> None:
    game = Game.setup({"A1": "w", "B1": "rw", "C1": "b", "D1": "b", "B2": "b"}, turn="w")
    # B1 (height 2) jumps to D1; A1 and B2 lose their only DVONN link
    removed = play(game, "B1D1")
    assert names(removed) == {"A1", "B2"}
    assert game.stack(parse_cell("D1")) == "brw"


# --------------------------------------------------------------------------- passing and the end
def test_pass_only_when_forced() -> None:
    game = Game.setup({"A1": "r", "B1": "w", "C1": "b"}, turn="w")
    assert PASS not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match="'PASS'.*White has a move and must play it"):
        game.push(PASS)


def test_play_continues_while_either_side_can_move_and_a_passer_moves_again() -> None:
    ring = {"E3": "r", "G3": "b", "F4": "b", "E2": "b", "G4": "b", "F2": "b"}
    game = Game.setup({"F3": "w", **ring, "H3": "b", "I3": "r"}, turn="w")
    assert game.legal_moves() == [PASS]  # White's only stack is surrounded
    assert not game.is_over()
    play(game, "PASS")
    assert game.turn == "b"
    play(game, "G3H3")  # Black opens G3
    assert game.turn == "w"
    assert PASS not in game.legal_moves()
    assert moves(game) == ["F3E2", "F3E3", "F3F2", "F3F4", "F3G4"]
    with pytest.raises(IllegalMoveError, match="must play it"):
        game.push(PASS)


def test_a_side_keeps_moving_while_the_other_passes() -> None:
    game = Game.setup({"A1": "r", "B1": "w", "C1": "w", "D1": "w"}, turn="b")
    assert game.legal_moves() == [PASS]  # Black has no stack at all
    play(game, "PASS", "D1C1")
    assert game.legal_moves() == [PASS]
    play(game, "PASS")
    assert moves(game) == ["B1A1", "B1C1", "C1A1"]
    play(game, "C1A1", "PASS")
    assert moves(game) == ["B1A1"]  # A1 (height 3) reaches nothing
    play(game, "B1A1")
    assert game.legal_moves() == []
    assert game.is_over()
    assert game.stack(parse_cell("A1")) == "rwww" and game.winner() == "w"


def test_game_end_score_and_winner() -> None:
    game = Game.setup({"A1": "r", "B1": "w"}, turn="w")
    assert not game.is_over() and game.winner() is None
    play(game, "B1A1")
    assert game.is_over()
    assert game.legal_moves() == []
    assert game.score() == (2, 0)  # the DVONN piece counts for whoever controls its stack
    assert game.winner() == "w"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.push(PASS)


def test_score_counts_all_pieces_in_controlled_stacks() -> None:
    # neither stack reaches an occupied space: the game is over
    game = Game.setup({"A1": "rbw", "F1": "wwb", "K5": "r"})
    assert game.is_over()
    assert game.score() == (3, 3)
    assert game.winner() == "tie"
    game = Game.setup({"A1": "rbw", "F1": "wb", "K5": "r", "I5": "bbbb"})
    assert game.is_over()
    assert game.score() == (3, 6)
    assert game.winner() == "b"
    game = Game.setup({"A1": "rbbbw", "G1": "wwb", "K5": "r"})
    assert game.is_over() and game.score() == (5, 3) and game.winner() == "w"


def test_winner_is_none_while_placing() -> None:
    game = Game.from_moves(RULES_PLACEMENT[:10])
    assert game.winner() is None and not game.is_over()
    assert game.score() == (sum(s == "w" for s in game.stacks()),
                            sum(s == "b" for s in game.stacks()))


# --------------------------------------------------------------------------- errors
def test_illegal_move_error_names_move_ply_and_side(rules_game: Game) -> None:
    with pytest.raises(IllegalMoveError) as info:
        rules_game.push(Move.parse("I1H1"))  # I1 is a black piece, White to move
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, DvonnError)
    assert err.move == "I1H1" and err.ply == 50 and err.side == "w"
    text = str(err)
    assert "'I1H1'" in text and "ply 50" in text and "White" in text
    assert "not White's" in text
    rules_game.push(Move.parse("K3K4"))
    with pytest.raises(IllegalMoveError) as info:
        rules_game.push(Move.parse("K3J3"))  # K3 is empty now, Black to move
    assert info.value.ply == 51 and info.value.side == "b"
    assert "Black" in str(info.value) and "K3 is empty" in str(info.value)


def test_illegal_placement_names_ply_and_side() -> None:
    with pytest.raises(IllegalMoveError) as info:
        Game.from_moves(["C3", "D3", "C3"])
    assert (info.value.move, info.value.ply, info.value.side) == ("C3", 3, "w")
    assert "ply 3" in str(info.value) and "White" in str(info.value)


@pytest.mark.parametrize("text", ["Z9", "C3C3", "C3D", "", "A5", "A1K1", "pas", "C3 D3", "33"])
def test_invalid_notation_raises_invalid_move_error(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert isinstance(info.value, ValueError) and isinstance(info.value, DvonnError)
    assert repr(text) in str(info.value)


def test_from_moves_rejects_bad_notation() -> None:
    with pytest.raises(InvalidMoveError, match="'X1'"):
        Game.from_moves(["C3", "X1"])


def test_notation_is_case_insensitive_and_printed_upper_case() -> None:
    assert Move.parse("c3d3") == Move.parse("C3D3") == Move.step(21, 22)
    assert str(Move.parse("c3d3")) == "C3D3"
    assert Move.parse("pass") is PASS and str(PASS) == "PASS"
    assert Move.parse(" k5 ") == Move.place(48) and Move.place(48).is_placement
    assert Move.parse("C3D3").is_step and PASS.is_pass
    assert eval(repr(Move.parse("C3D3"))) == Move.parse("C3D3")


# --------------------------------------------------------------------------- helpers of Game
def test_setup_validates_its_input() -> None:
    with pytest.raises(ValueError, match="stack"):
        Game.setup({"A1": "x"})
    with pytest.raises(ValueError, match="stack"):
        Game.setup({"A1": ""})
    with pytest.raises(ValueError, match="not a cell"):
        Game.setup({"A5": "w"})
    with pytest.raises(ValueError, match="pieces"):
        Game.setup({"A1": "rrrr"})
    with pytest.raises(ValueError, match="turn"):
        Game.setup({"A1": "w"}, turn="x")  # type: ignore[arg-type]


def test_snapshot_owner_copy_and_pop(rules_game: Game) -> None:
    assert rules_game.snapshot() == "x" * 49
    snap = rules_game.snapshot(colours=True)
    assert snap.count("w") == 23 and snap.count("b") == 23 and snap.count("r") == 3
    assert snap[parse_cell("G2")] == "r"
    copy = rules_game.copy()
    copy.push(Move.parse("K3K4"))
    assert rules_game.ply == 49 and copy.ply == 50
    assert copy.snapshot()[parse_cell("K3")] == "."
    assert copy.owner(parse_cell("K4")) == "w"
    assert copy.pop() == Move.parse("K3K4")
    assert copy == rules_game and copy.zobrist == rules_game.zobrist
    with pytest.raises(IndexError):
        Game().pop()


def test_repr_pastes_back_as_code(rules_game: Game) -> None:
    rules_game.push(Move.parse("K3K4"))
    again = eval(repr(rules_game), {"Game": Game})
    assert again == rules_game and again.move_stack == rules_game.move_stack


def test_mask_helpers_used_in_rule_tests_agree() -> None:
    assert names(mask_of(["A1", "K5"])) == {"A1", "K5"}
