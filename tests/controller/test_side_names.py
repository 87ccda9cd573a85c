"""A side is named by what plays it (issue 42, point 8): "random-7 wins" said nothing; "AI
level 2 wins" does, and two sides of one kind carry their colours so that a result and a
club's standings tell them apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.i18n import get_language, set_language
from controller.players.names import demo_names, player_name, side_names


@pytest.mark.parametrize(("spec", "name"), [
    ("random", "random"), ("greedy", "greedy"), ("ai:2", "AI level 2"), ("ai", "AI level 7"),
    ("remote", "remote player"), ("remote:mqtt://h/m", "remote table"),
    ("cmd:/usr/local/bin/dvonn-bot --fast", "dvonn-bot")])
def test_a_player_is_named_by_what_plays(spec: str, name: str) -> None:
    assert player_name(spec) == name


def test_two_sides_of_one_name_carry_their_colours() -> None:
    assert side_names("Ann", "Bob") == ("Ann", "Bob")
    assert side_names("random", "random") == ("random (White)", "random (Black)")
    assert demo_names("random", "human", "human") == ("random (White)", "random (Black)")
    assert demo_names("greedy", "ai:2", "human") == ("AI level 2", "greedy")
    assert demo_names("random", "ai:2", "greedy") == ("AI level 2", "greedy")
    assert demo_names("random", "ai:3", "ai:3") == ("AI level 3 (White)", "AI level 3 (Black)")


def test_names_in_german() -> None:
    before = get_language()
    set_language("de")
    try:
        assert demo_names("random", "ai:2", "ai:2") == ("KI Stufe 2 (Weiß)",
                                                        "KI Stufe 2 (Schwarz)")
    finally:
        set_language(before)


def test_demo_players_ai2_greedy_are_journaled_and_exported_by_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.sqlite3"
    assert main(["demo", "--fast", "--direct", "--no-noise", "--seed", "3", "--players",
                 "ai:2,greedy", "--journal", str(path)]) == 0
    capsys.readouterr()
    assert main(["games", "--journal", str(path)]) == 0
    listed = capsys.readouterr().out
    assert "AI level 2 vs greedy" in listed, listed
    assert main(["games", "export", "1", "--journal", str(path)]) == 0
    record = capsys.readouterr().out
    assert "White [AI level 2] Black [greedy]" in record, record
