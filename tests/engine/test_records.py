"""Game records: the Little Golem form of RULES.md, plain move lists, JSON games and positions."""

from __future__ import annotations

import json
import re

import pytest
from dvonn_reference import RULES_PLACEMENT, random_moves

from engine.errors import DvonnError, IllegalMoveError, RecordError
from engine.game import Game
from engine.geometry import parse_cell
from engine.move import PASS, Move
from engine.records import (
    export_littlegolem,
    export_moves,
    game_from_json,
    game_to_json,
    load_record_file,
    parse_record,
    position_from_json,
    position_to_json,
)

#: A random game (seed 1) that ends with a pass, 82 actions.
PASS_GAME = random_moves(1)


def test_pass_game_fixture_has_a_pass() -> None:
    assert PASS in PASS_GAME and len(PASS_GAME) > 60


def test_export_matches_the_little_golem_form() -> None:
    text = export_littlegolem(PASS_GAME, white="Ann", black="Bob", event="Club")
    assert text.startswith("Event [Club] Site [www.littlegolem.net] White [Ann] Black [Bob] 1. ")
    body = text.split("Black [Bob] ", 1)[1]
    tokens = body.split()
    numbers = [t for t in tokens if re.fullmatch(r"\d+\.", t)]
    assert numbers == [f"{i}." for i in range(1, len(numbers) + 1)]
    actions = [t for t in tokens if t not in numbers]
    assert actions == [a.lower() for a in actions]
    # the forced 49th placement is left out: 48 placements, then White's first move as 25.
    assert [len(a) for a in actions[:48]] == [2] * 48
    assert len(actions[48]) == 4
    assert f"25. {actions[48]} {actions[49]}" in body
    assert "pass" in actions and "PASS" not in text
    assert len(actions) == len(PASS_GAME) - 1
    assert str(PASS_GAME[48]).lower() not in actions


def test_export_with_resign_and_a_plain_move_list() -> None:
    moves = PASS_GAME[:60]
    game = Game.from_moves(moves)
    assert game.turn == "b"
    text = export_littlegolem(moves, resigned="b")
    assert text.endswith(" resign")
    assert re.search(r"30\. \w+ resign$", text)  # Black's half of pair 30
    record = parse_record(text)
    assert record.resigned == "b" and record.moves == moves
    assert export_moves(moves[:3]) == " ".join(str(m) for m in moves[:3])


def test_import_inserts_the_forced_placement() -> None:
    # the last placement of RULES_PLACEMENT is B4; the record leaves it out
    rest = [a.lower() for a in RULES_PLACEMENT[:48]]
    pairs = [f"{i // 2 + 1}. " + " ".join(rest[i:i + 2]) for i in range(0, 48, 2)]
    text = ("Event [Test] Site [www.littlegolem.net] White [w player] Black [b player] "
            + " ".join(pairs) + " 25. k3k4 i1h1")
    record = parse_record(text)
    assert [str(m) for m in record.moves[:49]] == RULES_PLACEMENT
    assert [str(m) for m in record.moves[49:]] == ["K3K4", "I1H1"]
    assert record.tags["Event"] == "Test" and record.tags["Site"] == "www.littlegolem.net"
    assert record.white == "w player" and record.black == "b player"
    assert record.resigned is None
    assert record.game().ply == 51
    # an explicit 49th placement is accepted too
    assert parse_record(" ".join(RULES_PLACEMENT) + " K3K4").moves == record.moves[:50]


def test_import_pass_resign_and_any_case() -> None:
    text = export_littlegolem(PASS_GAME)
    shouted = text.upper().replace("SITE", "Site")
    assert parse_record(shouted).moves == PASS_GAME
    with_resign = export_littlegolem(PASS_GAME[:81], resigned="w").replace("resign", "Resign")
    record = parse_record(with_resign)
    assert record.moves == PASS_GAME[:81] and record.resigned == "w"
    assert parse_record("1. c3 d3 2. RESIGN").resigned == "w"
    assert parse_record("resign").resigned == "w" and parse_record("resign").moves == []


def test_import_skips_results_and_numbers() -> None:
    record = parse_record("1. c3 d3 2... e3 1-0")
    assert [str(m) for m in record.moves] == ["C3", "D3", "E3"]


def test_bad_token_names_the_token() -> None:
    with pytest.raises(RecordError, match=r"token 3 'zz9'") as info:
        parse_record("1. c3 zz9")
    assert isinstance(info.value, DvonnError) and isinstance(info.value, ValueError)


def test_illegal_action_names_the_ply() -> None:
    with pytest.raises(IllegalMoveError) as info:
        parse_record("1. c3 d3 2. c3")
    assert info.value.ply == 3 and info.value.move == "C3" and info.value.side == "w"
    assert "token 5" in str(info.value) and "ply 3" in str(info.value)


def test_nothing_may_follow_resign() -> None:
    with pytest.raises(RecordError, match="token 3 'e3'.*resign"):
        parse_record("c3 resign e3")


def test_load_record_file_reads_every_form() -> None:
    moves = PASS_GAME[:70]
    game = Game.from_moves(moves)
    assert load_record_file(export_littlegolem(moves)).moves == moves
    assert load_record_file(export_moves(moves) + "\n").moves == moves
    assert load_record_file("\n  " + json.dumps(game_to_json(game))).moves == moves


def test_game_to_json_fields() -> None:
    game = Game.from_moves(PASS_GAME)
    data = game_to_json(game, white="Ann", black="Bob")
    assert data["format"] == "dvonn-board/game" and data["version"] == 1
    assert data["moves"] == [str(m) for m in PASS_GAME]
    assert data["result"] == game.winner() == "w"
    assert data["score"] == {"white": 16, "black": 4}
    assert data["position"]["phase"] == "moving"
    json.dumps(data)  # serialisable


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{", "game JSON"),
        ('{"moves": 3}', "'moves' list"),
        ("[]", "'moves' list"),
        ('{"moves": ["C3", 4]}', r"moves\[1\]"),
        ('{"moves": ["C3", "Q9"]}', r"moves\[1\]"),
        ('{"moves": [], "resigned": "x"}', "resigned"),
    ],
)
def test_game_from_json_errors(text: str, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        game_from_json(text)


def test_game_from_json_illegal_move() -> None:
    with pytest.raises(IllegalMoveError, match="ply 2"):
        game_from_json({"moves": ["C3", "C3"]})


def test_position_json() -> None:
    game = Game.from_moves(RULES_PLACEMENT + ["K3K4"])
    data = position_to_json(game)
    assert data["ply"] == 50 and data["turn"] == "b" and data["phase"] == "moving"
    assert data["stacks"]["K4"] == game.stack(parse_cell("K4")) == "bw"
    assert "K3" not in data["stacks"]
    assert position_from_json(json.dumps(data)) == \
        {c: s for c, s in enumerate(game.stacks()) if s}
    assert position_from_json({"stacks": {"c3": "rw"}}) == {21: "rw"}
    for bad, match in (("{", "position JSON"), ("[]", "'stacks'"),
                       ('{"stacks": {"Z9": "w"}}', "'Z9' is not a cell"),
                       ('{"stacks": {"C3": "wx"}}', "stack at C3")):
        with pytest.raises(RecordError, match=match):
            position_from_json(bad)


def test_little_golem_round_trip_right_after_the_last_placement() -> None:
    """A game of exactly 49 actions keeps its 49th placement in the export (nothing follows it
    to imply it), so it reads back exactly; one more action and the placement is left out."""
    moves = [Move.parse(a) for a in RULES_PLACEMENT]
    text = export_littlegolem(moves)
    assert text.split()[-1] == RULES_PLACEMENT[-1].lower()
    record = parse_record(text)
    assert record.moves == moves
    assert not record.game().placing
    first_move = Game.from_moves(moves).legal_moves()[0]
    longer = [*moves, first_move]
    text = export_littlegolem(longer)
    assert RULES_PLACEMENT[-1].lower() not in text.split()
    assert parse_record(text).moves == longer


def test_little_golem_resign_right_after_placing_inserts_the_forced_placement() -> None:
    body = " ".join(a.lower() for a in RULES_PLACEMENT[:-1])
    record = parse_record(f"White [a] Black [b] {body} resign")
    assert [str(m) for m in record.moves] == RULES_PLACEMENT
    assert record.resigned == "w"
    text = export_littlegolem(record.moves, resigned="w")
    assert parse_record(text).moves == record.moves


def test_plain_list_of_48_placements_stays_48() -> None:
    moves = [Move.parse(a) for a in RULES_PLACEMENT[:-1]]
    assert parse_record(export_littlegolem(moves)).moves == moves
