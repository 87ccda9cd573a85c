"""The engine commands: ``moves``, ``perft`` and ``replay`` (their output is a contract)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from dvonn_reference import RULES_PLACEMENT, Reference, random_moves

from controller.cli import main
from engine.game import Game
from engine.records import export_littlegolem, game_to_json

PASS_GAME = random_moves(1)  # ends 16-4 for White, with a pass


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_in_the_rules_md_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", *RULES_PLACEMENT)
    assert code == 0 and err == ""
    line = out.rstrip("\n")
    assert "\n" not in line
    side, count, *listed = line.split(" ")
    assert side == "W" and count == "46" and len(listed) == 46
    assert listed == sorted(listed)
    expected = sorted(Reference.from_game(Game.from_moves(RULES_PLACEMENT)).legal())
    assert line == "W 46 " + " ".join(expected)


def test_moves_accepts_lower_case(capsys: pytest.CaptureFixture[str]) -> None:
    _, upper, _ = run(capsys, "moves", *RULES_PLACEMENT, "K3K4")
    code, lower, _ = run(capsys, "moves", *(a.lower() for a in RULES_PLACEMENT), "k3k4")
    assert code == 0 and lower == upper and upper.startswith("B ")


def test_moves_from_the_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves")
    assert code == 0 and out.startswith("W 49 A1 A2 A3 B1 ")


def test_moves_each_ply(capsys: pytest.CaptureFixture[str]) -> None:
    actions = RULES_PLACEMENT + ["K3K4", "I1H1"]
    code, out, _ = run(capsys, "moves", "--each-ply", *actions)
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(actions) + 1
    assert lines[0].startswith("W 49 ") and lines[1].startswith("B 48 ")
    assert lines[49].startswith("W 46 ")
    assert lines[50].startswith("B ") and lines[-1].startswith("W ")


def test_illegal_move_exits_2_naming_ply_and_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", *RULES_PLACEMENT, "I1H1")
    assert code == 2 and out == ""
    assert "ply 50" in err and "'I1H1'" in err and "White" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_notation_exits_2_naming_the_ply(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "moves", "C3", "Q7")
    assert code == 2 and "ply 2" in err and "'Q7'" in err


def test_finished_game_prints_over(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves", *(str(m) for m in PASS_GAME))
    assert code == 0 and out == "over white=16 black=4\n"


def test_perft_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "perft", "2", *RULES_PLACEMENT) == (0, "1968\n", "")
    assert run(capsys, "perft", "0") == (0, "1\n", "")
    code, out, _ = run(capsys, "perft", "1", *RULES_PLACEMENT, "--divide")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 47 and lines[-1] == "46"
    assert all(line.endswith(" 1") for line in lines[:-1])
    first = [line.split()[0] for line in lines[:-1]]
    assert first == sorted(first)


def test_perft_negative_depth_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "perft", "-1")
    assert code == 2 and "depth" in err


def check_replay_output(out: str) -> None:
    lines = out.splitlines()
    rows = [line for line in lines if line[:2] in {"5 ", "4 ", "3 ", "2 ", "1 "}]
    assert [r[0] for r in rows] == ["5", "4", "3", "2", "1"]
    assert rows[0].endswith("C5-K5") and rows[-1].endswith("A1-I1")
    assert "Score: white=16 black=4" in lines
    assert f"Actions: {len(PASS_GAME)}" in lines


def test_replay_a_little_golem_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.txt"
    path.write_text(export_littlegolem(PASS_GAME, white="Ann", black="Bob"))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "White: Ann  Black: Bob"
    check_replay_output(out)
    # A finished game ends with the line ../shared/games/boardspace/index.jsonl gives.
    assert out.splitlines()[-2:] == ["Result: White wins 16-4", "over white=16 black=4"]


def test_replay_a_json_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_to_json(Game.from_moves(PASS_GAME))))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    check_replay_output(out)


def test_replay_stdin_with_resignation(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    moves = PASS_GAME[:60]
    game = Game.from_moves(moves)
    w, b = game.score()
    monkeypatch.setattr("sys.stdin", io.StringIO(export_littlegolem(moves, resigned="b")))
    code, out, _ = run(capsys, "replay", "-")
    assert code == 0
    assert f"Score: white={w} black={b}" in out
    assert out.splitlines()[-1] == \
        f"Result: Black resigned, White wins (pieces on the board {w}-{b})"


def test_replay_unfinished_game(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("c3 d3 e3"))
    code, out, _ = run(capsys, "replay", "-")
    assert code == 0
    assert out.splitlines()[-1] == "Result: not finished (placing, Black to act, ply 4)"


def test_replay_unreadable_files_exit_2(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.txt"
    code, out, err = run(capsys, "replay", str(missing))
    assert code == 2 and out == ""
    assert "cannot read" in err and "nope.txt" in err and "Traceback" not in err
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 2 and "cannot read" in err
    binary = tmp_path / "game.bin"
    binary.write_bytes(b"c3 \xff\xfe")
    code, _, err = run(capsys, "replay", str(binary))
    assert code == 2 and "not UTF-8" in err and "byte offset 3" in err


def test_replay_bad_records_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("1. c3 c3")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "bad.txt" in err and "ply 2" in err and "'C3'" in err
    path.write_text("1. c3 zz")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "'zz'" in err
    path.write_text("{not json")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "JSON" in err and "Traceback" not in err
