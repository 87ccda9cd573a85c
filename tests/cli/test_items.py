"""Issue #10 item by item, through the command line: each test reproduces what went wrong
(lost or corrupted games, hangs, silent acceptance, broken one-line errors)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import snapshot

import controller.cli.table as cli_table
from controller.cli import main
from controller.journal.store import Journal

REPO = Path(__file__).resolve().parents[2]
LOG = REPO / "tests" / "controller" / "data" / "board-seed3.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cli(*argv: str, cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "controller.cli", *argv], cwd=cwd,
                            env=dict(os.environ, PYTHONPATH=str(REPO)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


# -- data -----------------------------------------------------------------------------------

def test_two_processes_on_one_journal(world: Path) -> None:
    """The second demo on a journal refuses at once naming it and the holder's pid (it used to
    resume the same game and both appended to it); the first's game replays, and finishes
    when the next demo resumes it."""
    path = world / "games.sqlite3"
    first = cli("demo", "--seed", "5", "--journal", str(path), cwd=world)  # real time
    try:
        deadline = time.monotonic() + 90
        actions = 0
        while actions < 2 and time.monotonic() < deadline and first.poll() is None:
            if path.exists():
                try:
                    with Journal(path, readonly=True) as j:
                        actions = sum(g.actions for g in j.games())
                except Exception:  # being created right now
                    actions = 0
            time.sleep(0.05)
        assert actions >= 2 and first.poll() is None, "the first demo did not get going"
        second = cli("demo", "--fast", "--seed", "6", "--journal", str(path), cwd=world)
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2 and out == b""
        (line,) = err.decode().splitlines()
        assert str(path) in line and f"process {first.pid}" in line
    finally:
        first.terminate()
        first.communicate(timeout=60)
    with Journal(path, readonly=True) as j:
        (info,) = j.games()
        assert not info.is_finished
    third = cli("demo", "--fast", "--seed", "7", "--journal", str(path), cwd=world)
    _, err = third.communicate(timeout=120)
    assert third.returncode == 0, err.decode()
    exported = world / "game.txt"
    assert main(["games", "export", str(info.id), "--journal", str(path), "--format", "moves",
                 "--out", str(exported)]) == 0
    assert main(["replay", str(exported)]) == 0


def test_a_damaged_journal_is_set_aside_and_the_demo_starts(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """'database disk image is malformed' used to stop the table for good."""
    path = world / "games.sqlite3"
    Journal(path).close()
    conn = sqlite3.connect(path)
    with conn:
        for g in range(40):
            gid = conn.execute("INSERT INTO games (white, black, source, started) VALUES "
                               "(?, 'b', 'test', '2026-01-01')", (f"w{g}",)).lastrowid
            conn.executemany("INSERT INTO actions VALUES (?, ?, ?, '2026-01-01')",
                             [(gid, i, c) for i, c in enumerate(("A1", "B1", "C1", "D1"))])
    conn.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big")
    data[size * 2: size * 3] = b"\x00\xff" * (size // 2)
    path.write_bytes(bytes(data))
    code, _, err = run(capsys, "games", "list", "--journal", str(path))
    assert code == 2 and "damaged" in err and len(err.splitlines()) == 1  # reading: no change
    assert path.read_bytes() == data
    code, out, err = run(capsys, "demo", "--fast", "--seed", "3", "--direct", "--journal",
                         str(path))
    assert code == 0, err
    (note,) = [line for line in err.splitlines() if "kept it as" in line]
    (aside,) = [p for p in world.iterdir() if ".damaged-" in p.name and
                not p.name.endswith(("-shm", "-wal"))]
    assert aside.read_bytes() == data and str(aside) in note
    with Journal(path, readonly=True) as j:
        assert j.games()[-1].is_finished and j.check() == []


def test_demo_record_refuses_to_overwrite_unless_forced(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = world / "session.jsonl"
    log.write_text("my only recording\n")
    code, out, err = run(capsys, "demo", "--fast", "--seed", "2", "--record", str(log))
    assert code == 2 and out == "" and "--force" in err and len(err.splitlines()) == 1
    assert log.read_text() == "my only recording\n"
    code, _, _ = run(capsys, "demo", "--fast", "--seed", "2", "--direct", "--record", str(log),
                         "--force")
    assert code == 0 and log.read_text().startswith('{"t": 0')


@pytest.mark.parametrize(("target", "words"), [
    (".", "is a folder"),
    ("no/such/folder/log.jsonl", "does not exist"),
    ("/sys/dvonn-board-test.jsonl", "cannot create a file in /sys"),
])
def test_demo_record_onto_a_bad_place_is_one_line(
        world: Path, capsys: pytest.CaptureFixture[str], target: str, words: str) -> None:
    before = snapshot(world)
    code, out, err = run(capsys, "demo", "--fast", "--seed", "2", "--record", target)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert words in err and target in err and "unexpected" not in err
    assert snapshot(world) == before


# -- input that hangs or is accepted silently ------------------------------------------------

def test_replay_of_a_long_word_is_quick_and_quoted_briefly(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """100 KB took 165 s and the error line quoted it twice, whole."""
    path = world / "word.txt"
    path.write_text("x" * 200_000)
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and len(err) < 300 and "200000 characters" in err


def test_perft_of_an_absurd_depth_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "perft", "99999999999999999999")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert "99999999999999999999" in line and "--max-time" in line


def test_a_long_perft_shows_progress_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    child = cli("perft", "7", "--max-time", "0", cwd=tmp_path)
    assert child.stderr is not None
    try:
        line = child.stderr.readline().decode()  # the first progress line, after 2 s
        assert line.startswith("perft 7: 0 of 49 first actions counted") and "Ctrl-C" in line
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130 and out == b""
    assert err.decode().splitlines()[-1] == "dvonn-board perft: interrupted"


@pytest.mark.parametrize(("text", "words"), [
    ("", "empty record"),
    ("\n\n# nothing but a comment\n", "empty record"),
    ('{"format": "dvonn-board/game", "version": 2, "moves": []}', "version 2"),
])
def test_replay_refuses_what_used_to_be_an_empty_board(
        world: Path, capsys: pytest.CaptureFixture[str], text: str, words: str) -> None:
    path = world / "game.txt"
    path.write_text(text)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == "" and words in err and str(path) in err


def test_replay_accepts_a_byte_order_mark_and_comment_lines(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = world / "game.txt"
    path.write_bytes(b"\xef\xbb\xbf# a game from my notebook\r\nc3 d3\r\n  # more\r\ne3\r\n")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and out.splitlines()[-1] == \
        "Result: not finished (placing, Black to act, ply 4)"


def test_truncated_json_reads_in_plain_words(world: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = world / "game.json"
    path.write_text('{"moves": ["C3", "D')
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "at at" not in err and "starting at line 1, column 18" in err
    log = world / "log.jsonl"
    log.write_text('{"t": 0, "cells": "....')
    code, _, err = run(capsys, "replay-sensors", str(log))
    assert code == 2 and "at at" not in err and str(log) in err


def test_a_log_cut_mid_game_says_so_on_stderr_only(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = LOG.read_text().splitlines()
    cut = world / "cut.jsonl"
    cut.write_text("\n".join(lines[:100]) + "\n")
    code, out, err = run(capsys, "replay-sensors", str(cut))
    assert code == 0
    actions = out.splitlines()
    assert actions and not actions[-1].startswith("over")
    (note,) = err.splitlines()
    assert str(cut) in note and "unfinished" in note and f"ply {len(actions) + 1}" in note
    full_code, full_out, full_err = run(capsys, "replay-sensors", str(LOG))
    assert full_code == 0 and full_err == "" and full_out.splitlines()[-1].startswith("over")
    assert full_out.splitlines()[: len(actions)] == actions  # the same game, stdout unchanged


def test_play_without_a_port_names_the_config_key(
        world: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """It said 'pass --port', an option play does not have."""
    import hardware.sensorboard.client as client

    monkeypatch.setattr(client, "find_board_port", lambda: None)
    config = world / "table.toml"
    config.write_text('[sensor]\nbackend = "sensor-board"\n')
    before = snapshot(world)
    code, _, err = run(capsys, "play", "--config", str(config))
    assert code == 2 and len(err.splitlines()) == 1
    assert "sensor.port" in err and str(config) in err and "--port" not in err
    assert snapshot(world) == before  # not even the journal was created
    assert cli_table  # the module whose play is under test


def test_argparse_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["perft"], ["perft", "x"], ["games", "export"], ["nonsense"], ["leds"],
                 ["vision"], ["replay", "a", "b"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (argv, err)
        assert "usage:" not in err


# -- vision ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def board_with_pieces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic photo of the table in play (small, to render quickly)."""
    import cv2

    from vision.synthetic.render import random_position, random_scene, render

    rng = np.random.default_rng(1)
    frame, _ = render(random_scene(rng, random_position(rng, 3), size=(800, 600)))
    path = tmp_path_factory.mktemp("photos") / "full.png"
    cv2.imwrite(str(path), frame)
    return path


def test_calibrating_on_a_board_with_pieces_is_refused(
        world: Path, capsys: pytest.CaptureFixture[str], board_with_pieces: Path) -> None:
    """It wrote an 'empty board' calibration from a board full of pieces."""
    code, out, err = run(capsys, "vision", "calibrate", "--images", str(board_with_pieces),
                         "--out", "cal.json")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "not a view of the empty board" in err and str(board_with_pieces) in err
    assert not (world / "cal.json").exists()


@pytest.mark.parametrize(("argv", "words"), [
    (["vision", "render", "--moves", "-5", "--out", "x.png"], "--moves: '-5'"),
    (["vision", "render", "--out", "x.txt"], "x.txt"),
    (["vision", "read", "."], "is a folder"),
    (["vision", "read", "x.png", "--calibration", "calibration.bin"], "not UTF-8"),
])
def test_vision_arguments_are_one_line_exit_2(
        world: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    (world / "calibration.bin").write_bytes(bytes(range(256)) * 4)
    before = snapshot(world)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert words in err and "unexpected" not in err
    assert snapshot(world) == before


def test_games_and_replay_of_good_input_are_unchanged(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The formats others compare: list, export and replay of a journaled game."""
    path = world / "games.sqlite3"
    assert main(["demo", "--fast", "--seed", "11", "--direct", "--journal", str(path)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "games", "--journal", str(path))
    header, row = out.splitlines()
    assert header.split() == ["ID", "STARTED", "PLAYERS", "ACTIONS", "RESULT"]
    assert row.split()[0] == "1" and "random (White) vs random (Black)" in row
    code, lg, _ = run(capsys, "games", "export", "1", "--journal", str(path))
    assert code == 0 and lg.startswith(
        "Event [] Site [www.littlegolem.net] White [random (White)] Black [random (Black)]")
    code, data, _ = run(capsys, "games", "export", "1", "--journal", str(path), "--format",
                        "json")
    game = json.loads(data)
    assert game["version"] == 1 and game["journal"]["id"] == 1
    for text in (lg, data):
        (world / "g.txt").write_text(text)
        code, out, err = run(capsys, "replay", str(world / "g.txt"))
        assert code == 0 and err == ""
        # A finished game ends with the line ../shared/games/boardspace/index.jsonl gives
        # (issue 26); the actions, score and result come before it as they did.
        score = game["score"]
        assert out.splitlines()[-4] == f"Actions: {len(game['moves'])}"
        assert out.splitlines()[-1] == f"over white={score['white']} black={score['black']}"
