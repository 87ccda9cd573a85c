"""A game played with a clock keeps its time in the records (``games export``): SGF TM/OT and
WL/BL, a loss on time as RE[B+T] / RE[W+T], the Little Golem ``Result`` tag and JSON's
``clock`` and ``timeout``; export -> import -> export gives the same record. A game without a
clock exports exactly as before (tests/controller/data/exports: the output before clocks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_games import play_random

from controller.cli import main
from controller.cli.games import FORMATS, export_game
from controller.journal.clocks import ClockStore
from controller.journal.db import GameInfo
from controller.journal.store import Journal
from controller.table.clock import parse_control
from controller.table.session import TableController
from controller.table.timer import ClockOptions, TableClock
from engine.boardspace import export_boardspace, parse_boardspace
from engine.game import Game
from engine.gamerecord import OUT_OF_TIME, GameTime
from engine.move import Move
from engine.records import game_from_json, game_to_json, load_record_file, parse_record
from hardware.clock import FakeClock
from hardware.events import SnapshotEvent

EXPORTS = Path(__file__).parent / "data" / "exports"




def _cases() -> dict[str, tuple[GameInfo, list[str]]]:
    whole = play_random(7)
    g = Game.from_moves(whole)
    w, b = g.score()
    winner = {"w": "white", "b": "black", "tie": "tie"}[str(g.winner())]
    return {
        "finished": (GameInfo(1, "Ann", "Bob", "2024-05-01T10:00:00+00:00",
                              "2024-05-01T10:30:00+00:00", winner, w, b, len(whole), "table"),
                     whole),
        "resigned": (GameInfo(2, "Cy", "Di", "2024-05-02T11:00:00+00:00",
                              "2024-05-02T11:20:00+00:00", "black resigns", 9, 7, 60, "table"),
                     play_random(8, 60)),
        "unfinished": (GameInfo(3, "White", "Black", "2024-05-03T12:00:00+00:00", None, None,
                                None, None, 5, "import:boardspace.net:DV-a-b-2024.sgf"),
                       play_random(9, 5)),
    }


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", ["finished", "resigned", "unfinished"])
def test_a_game_without_a_clock_exports_exactly_as_before(case: str, fmt: str) -> None:
    info, actions = _cases()[case]
    before = (EXPORTS / f"{case}.{fmt}").read_text()
    assert export_game(info, actions, fmt) == before


def test_sgf_writes_and_reads_tm_ot_wl_bl_and_a_win_on_time() -> None:
    moves = [Move.parse(a) for a in play_random(3, 53)]
    left = tuple(float(900 - i) if i % 5 else None for i in range(len(moves)))
    time = GameTime(limit=900.0, increment=10.0, left=left)
    text = export_boardspace(moves, white="Ann", black="Bob", time=time, timeout="b")
    assert "TM[900]OT[Fischer 10]" in text and "RE[W+T]" in text
    assert "; P0[2 done]\n" in text  # ply 0 has no reading
    assert "; P1[4 done]BL[899]" in text and "; P0[6 done]WL[898]" in text
    record = parse_boardspace(text)
    assert record.moves == moves and record.timeout == "b" and record.status() == OUT_OF_TIME
    assert record.time == time
    assert record.tags["Result"] == "W+T"
    assert export_boardspace(record.moves, white="Ann", black="Bob", time=record.time,
                             timeout=record.timeout) == text


def test_sgf_time_left_is_checked_and_standard_forms_are_read() -> None:
    text = "(;GM[Dvonn]TM[60]OT[fischer 2 s]RE[B+Time]; P0[1 dropb C 3]; P0[2 done]WL[58.25])"
    record = parse_boardspace(text)
    assert record.timeout == "w" and record.time == GameTime(60.0, 2.0, (58.25,))
    bad = text.replace("WL[58.25]", "WL[soon]")
    with pytest.raises(Exception, match=r"node 2 .*time left is not a number"):
        parse_boardspace(bad)


def test_json_and_little_golem_carry_a_loss_on_time() -> None:
    moves = [Move.parse(a) for a in play_random(5, 60)]
    time = GameTime(limit=300.0, increment=3.0, left=(299.5, None, 297.0))
    data = game_to_json(Game.from_moves(moves), white="A", black="B", time=time, timeout="w")
    assert data["timeout"] == "w" and data["clock"]["left"] == [299.5, None, 297.0]
    back = game_from_json(json.dumps(data))
    assert back.timeout == "w" and back.time == time and back.moves == moves
    from engine.records import export_littlegolem
    lg = export_littlegolem(moves, white="A", black="B", timeout="w")
    assert "Result [B+T]" in lg
    assert parse_record(lg).timeout == "w" and load_record_file(lg).moves == moves


class Table:
    """A camera table with a journal and a game clock, at a fake clock's time."""

    def __init__(self, journal: Journal, control: str) -> None:
        self.clock = FakeClock()
        self.ctl = TableController(colours=True, journal=journal)
        tc = parse_control(control)
        assert tc is not None
        TableClock(self.ctl, tc, self.clock, store=ClockStore(journal),
                   options=ClockOptions(control=tc))

    def wait(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.ctl.advance(self.clock.now())
        assert self.ctl.timer is not None
        self.ctl.timer.tick(self.clock.now())

    def play(self, action: str, think: float) -> None:
        self.wait(think)
        g = self.ctl.game.copy()
        g.push(Move.parse(action))
        self.ctl.handle(SnapshotEvent(self.clock.now(), g.snapshot(True)))
        self.wait(1.0)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_a_clocked_game_lost_on_time_round_trips_through_export_and_import(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as journal:
        t = Table(journal, "0.5+2")  # 30 s a side, 2 s after each action
        for i, action in enumerate(play_random(11, 6)):
            t.play(action, think=2.0 + i)
        t.wait(60.0)  # White (to act at ply 6) lets the flag fall
        game_id = t.ctl.game_id
        assert journal.game(game_id).result == "white out of time"
    sgf = _run(capsys, "games", "--journal", str(path), "export", str(game_id),
               "--format", "sgf")
    assert "TM[30]OT[Fischer 2]" in sgf and "RE[B+T]" in sgf
    assert "; P0[2 done]WL[" in sgf and "; P1[12 done]BL[" in sgf
    record = parse_boardspace(sgf)
    assert record.time is not None and len(record.time.left) == 6
    with Journal(path, readonly=True) as journal:  # each action's time left, as journaled
        kept = dict(ClockStore(journal).history(game_id))
    assert record.time.left == tuple(
        pytest.approx(float(kept[i + 1]["wb"[i % 2]]), abs=0.05) for i in range(6))
    assert all(0 < left <= 32 for left in record.time.left if left is not None)
    sgf_file = tmp_path / "clocked.sgf"
    sgf_file.write_text(sgf)
    out = _run(capsys, "games", "--journal", str(tmp_path / "other.sqlite3"), "import",
               str(sgf_file))
    assert "White's time ran out, Black wins on time" in out
    with Journal(tmp_path / "other.sqlite3", readonly=True) as other:
        (info,) = other.games()
        assert info.result == "white out of time" and info.actions == 6
    again = _run(capsys, "games", "--journal", str(tmp_path / "other.sqlite3"), "export",
                 str(info.id), "--format", "sgf")
    strip = [line for line in sgf.splitlines() if not line.startswith(("GN[", "DT["))]
    assert [line for line in again.splitlines() if not line.startswith(("GN[", "DT["))] == strip
    for fmt, mark in (("json", '"timeout": "w"'), ("lg", "Result [B+T]")):
        text = _run(capsys, "games", "--journal", str(path), "export", str(game_id),
                    "--format", fmt)
        assert mark in text
        back = load_record_file(text)
        assert back.timeout == "w" and [str(m) for m in back.moves] == play_random(11, 6)
    replay = _run(capsys, "replay", str(sgf_file))
    assert "Result: White's time ran out, Black wins on time" in replay
