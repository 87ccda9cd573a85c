"""Players, the CodeCup protocol (engine command as a subprocess), match, broken programs."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli.ai import run_engine, run_match, wilson
from controller.players.player import (
    EnginePlayer,
    ExternalPlayer,
    GreedyPlayer,
    PlayerError,
    RandomPlayer,
    check_spec,
    make_player,
    play_game,
)
from engine.errors import DvonnError
from engine.game import Game
from engine.move import Move
from engine.records import parse_record

ENGINE = [sys.executable, "-m", "controller.cli", "engine"]


def _script(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return [sys.executable, str(path)]


def test_specs_are_checked() -> None:
    assert check_spec(" AI:3 ") == "ai:3"
    assert check_spec("greedy") == "greedy"
    assert check_spec("cmd:./player --seed=1") == "cmd:./player --seed=1"
    for bad, words in [("ai:9", "level must be"), ("ai:x", "level must be"),
                       ("cmd:", "needs a program"), ("chess", "is not one of"),
                       ("cmd:'open", "quotation")]:
        with pytest.raises(PlayerError, match=words):
            check_spec(bad)
    with pytest.raises(PlayerError, match="plays on the table"):
        make_player("human")
    assert isinstance(PlayerError("x"), DvonnError)


def test_builtin_players_play_whole_games() -> None:
    result = play_game(EnginePlayer(1, seed=1), RandomPlayer(2))
    game = Game.from_moves(result.moves)
    assert game.is_over() and game.score() == result.score
    assert result.winner in ("w", "b", "tie")
    result = play_game(GreedyPlayer(3), EnginePlayer(2, seed=4))
    assert Game.from_moves(result.moves).is_over()


def test_engine_command_round_trips_with_a_subprocess() -> None:
    """The engine command as Black (first line is White's action) and as White ('Start'),
    each against the in-process greedy player through the real protocol."""
    for side in ("w", "b"):
        engine = ExternalPlayer(ENGINE + ["--level", "2", "--game-time", "20", "--seed", "3"],
                                game_time=20)
        other = GreedyPlayer(5)
        white, black = (engine, other) if side == "w" else (other, engine)
        result = play_game(white, black)
        assert Game.from_moves(result.moves).is_over()
        assert len(result.moves) >= 49 + 2


def test_engine_protocol_quit_and_bad_input() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_engine(io.StringIO("Quit\n"), out, err, level=1) == 0
    assert out.getvalue() == ""
    # Black: White's first action, then Quit while it would wait for White's second.
    out = io.StringIO()
    assert run_engine(io.StringIO("F3\nQuit\n"), out, err, level=1) == 0
    reply = out.getvalue().split()
    assert len(reply) == 1 and Move.parse(reply[0]).is_placement and reply[0] != "F3"
    # An illegal action from the other side: a clear line on stderr, exit 2, nothing on stdout.
    out, err = io.StringIO(), io.StringIO()
    assert run_engine(io.StringIO("A1B1\n"), out, err, level=1) == 2
    assert out.getvalue() == "" and "A1B1" in err.getvalue()
    # Input ends mid-game.
    out, err = io.StringIO(), io.StringIO()
    assert run_engine(io.StringIO("Start\n"), out, err, level=1, quiet=True) == 1
    assert len(out.getvalue().split()) == 1 and err.getvalue() == ""


def test_engine_at_full_strength_keeps_to_its_game_time() -> None:
    """A whole game over the protocol at full strength with a 3 s budget: it sends all its
    placements and passes, and its thinking (start-up included) stays within the budget."""
    engine = ExternalPlayer(ENGINE + ["--game-time", "3", "--seed", "1"], game_time=3)
    result = play_game(engine, RandomPlayer(9))
    assert engine.used <= 3 + 1.0  # wall clock around the pipe, with a little slack
    assert Game.from_moves(result.moves).is_over()


def test_crashing_program_is_a_clear_error(tmp_path: Path) -> None:
    argv = _script(tmp_path, "crash.py", """
        import sys
        print("boom", file=sys.stderr)
        sys.exit(3)
    """)
    with pytest.raises(PlayerError, match=r"ended without sending an action at ply 1 "
                                          r"\(exit code 3\); its last words: boom"):
        play_game(ExternalPlayer(argv, game_time=5), RandomPlayer(1))


def test_hanging_program_is_a_clear_error(tmp_path: Path) -> None:
    argv = _script(tmp_path, "hang.py", """
        import sys, time
        for line in sys.stdin:
            time.sleep(60)
    """)
    player = ExternalPlayer(argv, game_time=0.2, grace=0.3)
    with pytest.raises(PlayerError, match="no action at ply 1 within 0.2 s game time"):
        play_game(player, RandomPlayer(1))
    assert player._proc is None  # stopped


def test_illegal_and_garbled_actions_are_clear_errors(tmp_path: Path) -> None:
    illegal = _script(tmp_path, "illegal.py", """
        import sys
        sys.stdin.readline()
        print("A1B1", flush=True)
        sys.stdin.readline()
    """)
    with pytest.raises(PlayerError, match="illegal action: 'A1B1' is illegal at ply 1"):
        play_game(ExternalPlayer(illegal, game_time=5), RandomPlayer(1))
    garbled = _script(tmp_path, "garbled.py", """
        import sys
        sys.stdin.readline()
        print("hello", flush=True)
        sys.stdin.readline()
    """)
    with pytest.raises(PlayerError, match="sent 'hello' at ply 1, which is not DVONN notation"):
        play_game(ExternalPlayer(garbled, game_time=5), RandomPlayer(1))
    with pytest.raises(PlayerError, match="cannot start the program"):
        play_game(ExternalPlayer([str(tmp_path / "missing")]), RandomPlayer(1))


def test_black_program_gets_whites_action_first(tmp_path: Path) -> None:
    """A program playing Black receives no Start: its first line is White's placement; it
    answers with the first empty cell it knows of, which the arbiter checks."""
    log = tmp_path / "seen.txt"
    argv = _script(tmp_path, "echo.py", f"""
        import sys
        first = sys.stdin.readline().strip()
        open({str(log)!r}, "w").write(first)
        print("A1" if first != "A1" else "B1", flush=True)
        sys.stdin.readline()
        sys.exit(1)
    """)
    with pytest.raises(PlayerError, match="ended without sending an action at ply 4"):
        play_game(RandomPlayer(2), ExternalPlayer(argv, game_time=5))
    assert Move.parse(log.read_text()).is_placement


def test_match_prints_games_and_a_confidence_interval(tmp_path: Path) -> None:
    out = io.StringIO()
    summary = run_match("ai:2", "random", games=2, seed=1, save=tmp_path, out=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and lines[0].startswith("game 1: ai:2 (White)")
    assert "random (White)" in lines[1]
    assert lines[2].startswith("total: ai:2 ") and "95 % CI" in lines[2]
    assert summary.games == 2 and summary.wins + summary.ties + summary.losses == 2
    records = sorted(tmp_path.glob("game-*.txt"))
    assert len(records) == 2
    assert parse_record(records[0].read_text()).game().is_over()
    lo, hi = wilson(40, 40)
    assert hi == 1.0 and 0.9 < lo < 0.92
    assert wilson(0, 0) == (0.0, 1.0)


def test_match_cli_rejects_bad_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "ai", "chess"]) == 2
    assert "player 'chess' is not one of" in capsys.readouterr().err
    assert main(["match", "ai", "random", "--games", "0"]) == 2
    assert main(["match", "ai", "random", "--game-time", "-1"]) == 2
    assert "must be more than 0 seconds" in capsys.readouterr().err


def test_engine_cli_help_and_level_check(capsys: pytest.CaptureFixture[str]) -> None:
    proc = subprocess.run(ENGINE + ["--level", "0"], input="", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "--level 0" in proc.stderr and proc.stdout == ""


def test_quick_start_entry_speaks_the_same_protocol() -> None:
    quick = [sys.executable, "-m", "controller.cli.ai", "engine", "--level", "1", "--quiet"]
    result = play_game(GreedyPlayer(2), ExternalPlayer(quick, game_time=20))
    assert Game.from_moves(result.moves).is_over()
    proc = subprocess.run(quick[:4] + ["--level", "9"], input="", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "--level 9" in proc.stderr
