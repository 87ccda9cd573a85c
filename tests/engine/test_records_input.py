"""Records from the outside world: byte order marks, comments, empty files, unknown JSON
versions, truncated JSON, and inputs built to hang a parser or flood an error line."""

from __future__ import annotations

import json
import re

import pytest
from dvonn_reference import RULES_PLACEMENT, random_moves
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import RecordError
from engine.game import Game
from engine.records import (
    EXCERPT,
    export_littlegolem,
    game_from_json,
    game_to_json,
    load_record_file,
    parse_record,
    position_from_json,
)

PASS_GAME = random_moves(1)


def test_a_byte_order_mark_is_accepted() -> None:
    """Windows editors start UTF-8 files with U+FEFF; it used to make the first action
    'not DVONN notation'."""
    assert [str(m) for m in load_record_file("\ufeffc3 d3 e3").moves] == ["C3", "D3", "E3"]
    text = "\ufeff" + export_littlegolem(PASS_GAME, white="Ann", black="Bob")
    record = load_record_file(text)
    assert record.moves == PASS_GAME and record.white == "Ann"
    data = "\ufeff" + json.dumps(game_to_json(Game.from_moves(PASS_GAME)))
    assert load_record_file(data).moves == PASS_GAME


def test_comment_lines_are_accepted() -> None:
    text = "# my game against Bob\nc3 d3\n   # the opening\n\te3 # not a comment start\n"
    with pytest.raises(RecordError, match="token 4 '#'"):
        load_record_file(text)  # '#' only starts a comment at the start of a line
    text = "# my game against Bob\nc3 d3\n   # the opening [with brackets\ne3\n#"
    assert [str(m) for m in load_record_file(text).moves] == ["C3", "D3", "E3"]


def test_line_numbers_survive_comments_and_tags() -> None:
    text = "# comment\nWhite [Ann]\nBlack [Bob\n  Smith]\nc3 d3\nzz"
    with pytest.raises(RecordError, match=r"^line 6, token 3 'zz'"):
        load_record_file(text)


@pytest.mark.parametrize("text", ["", "   \n\t\n", "\ufeff", "# only a comment\n", "1. 2. 3."])
def test_an_empty_record_is_an_error(text: str) -> None:
    """It used to replay as the empty board, exit 0."""
    with pytest.raises(RecordError, match="empty record"):
        load_record_file(text)


def test_tags_without_actions_are_a_record_of_an_unstarted_game() -> None:
    record = load_record_file(export_littlegolem([], white="Ann", black="Bob"))
    assert record.moves == [] and record.white == "Ann"


@pytest.mark.parametrize(("obj", "words"), [
    ({"format": "dvonn-board/game", "version": 2, "moves": []}, "version 2"),
    ({"format": "dvonn-board/game", "version": "1", "moves": []}, "version '1'"),
    ({"format": "dvonn-board/game", "version": True, "moves": []}, "version True"),
    ({"format": "chess/pgn", "version": 1, "moves": []}, "'format' is 'chess/pgn'"),
])
def test_unknown_json_version_or_format_is_refused(obj: dict[str, object], words: str) -> None:
    with pytest.raises(RecordError, match=re.escape(words)):
        load_record_file(json.dumps(obj))


def test_json_of_this_version_and_without_one_still_reads() -> None:
    data = game_to_json(Game.from_moves(PASS_GAME))
    assert game_from_json(data).moves == PASS_GAME
    del data["version"], data["format"]
    assert game_from_json(data).moves == PASS_GAME


@pytest.mark.parametrize("text", ['{"moves": ["C3", "D', '{"moves": ["C3"', '{"mo', "{"])
def test_truncated_json_says_where_in_plain_words(text: str) -> None:
    with pytest.raises(RecordError) as info:
        load_record_file(text)
    message = str(info.value)
    assert "at at" not in message and " at (" not in message
    assert re.search(r" at line 1, column \d+$", message), message
    with pytest.raises(RecordError) as info:
        position_from_json(text)
    assert "at at" not in str(info.value)


def test_deep_json_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="nested too deeply"):
        load_record_file('{"moves": ' + "[" * 100_000)


@pytest.mark.parametrize("text", [
    "a" * 50_000,  # one long word: the tag pattern backtracked over it (quadratic)
    "a[" * 25_000,  # many opening brackets, none closed
    "Q9 " + "x" * 50_000,
    '{"moves": ["' + "Q" * 50_000 + '"]}',
    '{"moves": [], "version": "' + "9" * 50_000 + '"}',
])
def test_an_error_quotes_a_capped_excerpt(text: str) -> None:
    """A bad 200 KB input used to be quoted twice, whole, in one line."""
    with pytest.raises(RecordError) as info:
        load_record_file(text)
    message = str(info.value)
    assert len(message) < 3 * EXCERPT + 150, message
    assert "\n" not in message


def test_a_long_valid_record_followed_by_junk_names_the_token() -> None:
    body = " ".join(a.lower() for a in RULES_PLACEMENT)
    with pytest.raises(RecordError, match=r"token 50 'junk"):
        parse_record(body + " " + "junk" * 10_000)


# The tag pattern the parser used before it became a one-pass scanner: on inputs it handled
# in reasonable time, the new scanner must find the same tags and the same actions.
_OLD_TAG = re.compile(r"([A-Za-z]+)\s*\[([^\]]*)\]")

_pieces = st.sampled_from(["c3", "d3", "e3", "1.", "2.", " ", "  ", "\n", "White", "Black",
                           "Event", "[", "]", "[Ann]", "[ Bob ]", "[x y]", "Site", "resign",
                           ",", ";", "*", "q9", "\t"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=25))
def test_the_scanner_agrees_with_the_old_pattern(pieces: list[str]) -> None:
    text = "".join(pieces)
    try:
        old = ({m.group(1): m.group(2).strip() for m in _OLD_TAG.finditer(text)},
               _OLD_TAG.sub(" ", text).replace(",", " ").replace(";", " ").split())
    except RecursionError:  # pragma: no cover
        return
    try:
        record = parse_record(text)
    except RecordError as exc:
        # The new parser may refuse where the old one would refuse too (an unclosed '['
        # left a token that is not notation), or find an empty record the old one accepted.
        message = str(exc)
        assert "never closed" in message or "not a DVONN" in message or "empty record" in \
            message or "resign" in message
        return
    except Exception:  # illegal actions: both read the same tokens, the engine refuses
        return
    assert record.tags == old[0]
