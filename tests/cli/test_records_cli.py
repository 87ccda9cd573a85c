"""Issue 26 through the command line: ``games import`` (players, date, source, result kept;
resigned and unfinished games say so; a bad file names its node and step and writes
nothing), ``games export --format sgf`` read back by ``replay`` and ``games import``, and
``analyze`` (per action scores, best actions, marks; a budget, progress, Ctrl-C)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import snapshot

import controller.cli.analyze as cli_analyze
from controller.cli import main
from controller.journal.store import Journal
from engine.game import Game
from engine.move import Move
from engine.records import export_littlegolem, game_to_json
from engine.review import BLUNDER, MISTAKE

REPO = Path(__file__).resolve().parents[2]
KEPT = REPO / "tests" / "engine" / "data" / "boardspace"
GAME = KEPT / "DV-Aeacus-Dumbot-2008-11-02-2321.sgf"  # White wins 21-0 in 82 actions
BATTERY: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "bad_inputs.json").read_text(encoding="utf-8"))
SAYS = {name: spec for name, spec in BATTERY["files"].items() if "says" in spec}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def random_game(seed: int) -> list[str]:
    import random

    rng = random.Random(seed)
    game = Game()
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    return [str(m) for m in game.move_stack]


# -- bad files --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SAYS))
@pytest.mark.parametrize("command", ["replay", "games import", "analyze"])
def test_a_bad_file_names_the_file_the_node_and_why(
        world: Path, capsys: pytest.CaptureFixture[str], name: str, command: str) -> None:
    spec = SAYS[name]
    path = world / spec["path"]
    if "hex" in spec:
        path.write_bytes(bytes.fromhex(spec["hex"]))
    else:
        path.write_bytes(spec["text"].encode("utf-8"))
    journal = world / "games.db"
    argv = [*command.split(), spec["path"]] + (["--journal", str(journal)]
                                                if command != "replay" else [])
    before = snapshot(world)
    code, out, err = run(capsys, *argv)
    (line,) = err.splitlines()
    assert code == 2 and out == "" and spec["path"] in line and spec["says"] in line, line
    assert snapshot(world) == before and not journal.exists()


def test_a_bad_file_among_good_ones_writes_nothing(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = world / "games.db"
    assert run(capsys, "games", "import", str(GAME), "--journal", str(journal))[0] == 0
    before = snapshot(world)
    bad = world / "bad.sgf"
    bad.write_text(GAME.read_text(encoding="latin-1").replace("dropb E 4]", "dropb E 9]", 1),
                   encoding="latin-1")
    before = snapshot(world)
    code, out, err = run(capsys, "games", "import", str(GAME), str(bad), str(GAME),
                         "--journal", str(journal))
    assert code == 2 and out == "" and "bad.sgf: node " in err and "'E 9' is not a cell" in err
    assert snapshot(world) == before
    with Journal(journal, readonly=True) as j:
        assert len(j.games()) == 1


# -- import -----------------------------------------------------------------------------------

def test_import_keeps_players_date_source_and_result(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = world / "games.db"
    files = sorted(KEPT.glob("*.sgf"))
    code, out, err = run(capsys, "games", "import", *map(str, files), "--journal", str(journal))
    assert code == 0 and err == ""
    assert out.splitlines()[0] == (f"imported game 1 from {files[0]}: Aeacus vs Dumbot, "
                                   "82 actions, White wins 21-0")
    with Journal(journal, readonly=True) as j:
        first = j.games()[0]
        assert (first.white, first.black, first.result, first.white_score,
                first.black_score) == ("Aeacus", "Dumbot", "white", 21, 0)
        assert first.started == "2008-11-02T23:21:29+00:00"
        assert first.source == "import:boardspace.net:DV-Aeacus-Dumbot-2008-11-02-2321.sgf"
        assert len(j.games()) == len(files)
    code, out, _ = run(capsys, "games", "--journal", str(journal))
    assert "Aeacus vs Dumbot" in out and "white 21-0" in out


def test_resigned_and_unfinished_games_import_and_say_so(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = random_game(3)
    resigned = world / "resigned.txt"
    resigned.write_text(export_littlegolem([Move.parse(m) for m in moves[:60]], white="Ann",
                                           black="Bob", resigned="b"))
    unfinished = world / "unfinished.sgf"
    text = GAME.read_text(encoding="latin-1")
    unfinished.write_text(text[:text.index("; P0[99 pickb")] + ")\n", encoding="latin-1")
    journal = world / "games.db"
    code, out, err = run(capsys, "games", "import", str(resigned), str(unfinished),
                         "--journal", str(journal))
    lines = out.splitlines()
    assert code == 0 and err == "" and len(lines) == 2
    assert "60 actions, Black resigned, White wins (pieces on the board" in lines[0]
    assert lines[1].endswith("49 actions, not finished (moving, White to act, ply 50)")
    with Journal(journal, readonly=True) as j:
        one, two = j.games()
        assert one.result == "black resigns"
        assert one.source == "import:www.littlegolem.net:resigned.txt"
        assert two.result is None and not two.is_finished
        assert j.unfinished() is None  # the table does not resume an imported game
    code, out, _ = run(capsys, "games", "--journal", str(journal))
    assert "black resigns" in out and "unfinished" in out


# -- export as SGF, read back -----------------------------------------------------------------

@pytest.mark.parametrize(("seed", "cut", "resign"), [(1, None, None), (2, 70, "w"),
                                                     (4, 30, None), (5, 49, "b"), (7, 0, None)])
def test_sgf_export_reads_back_to_the_same_game(
        world: Path, capsys: pytest.CaptureFixture[str], seed: int, cut: int | None,
        resign: str | None) -> None:
    moves = random_game(seed)[:cut]
    game = Game.from_moves(moves)
    if resign is not None and game.turn != resign:
        moves = moves[:-1]
        game = Game.from_moves(moves)
    source = world / "game.json"
    data = game_to_json(game, white="Ann", black="Bob", resigned=resign)
    data["journal"] = {"started": "2026-11-27T08:00:00+00:00"}
    source.write_text(json.dumps(data))
    journal = world / "games.db"
    assert run(capsys, "games", "import", str(source), "--journal", str(journal))[0] == 0
    exported = world / "game.sgf"
    code, _, err = run(capsys, "games", "export", "1", "--format", "sgf", "--journal",
                       str(journal), "--out", str(exported))
    assert code == 0 and exported.read_text().startswith("(;\nGM[Dvonn]VV[1]\nAP[dvonn-board]")
    code, replayed, _ = run(capsys, "replay", str(exported))
    code, original, _ = run(capsys, "replay", str(source))
    assert code == 0 and replayed == original
    assert run(capsys, "games", "import", str(exported), "--journal", str(journal))[0] == 0
    with Journal(journal, readonly=True) as j:
        a, b = j.games()
        assert j.actions(a.id) == j.actions(b.id) == moves
        assert (a.white, a.black, a.started, a.result, a.white_score, a.black_score) == \
            (b.white, b.black, b.started, b.result, b.white_score, b.black_score)
        assert b.source == "import:game.sgf"


# -- analyze ----------------------------------------------------------------------------------

def check_marks(actions: list[dict[str, Any]]) -> None:
    for a in actions:
        assert a["mark"] in ("", "?", "??")
        if a["mark"]:
            assert a["best"] != a["action"] and not a["forced"]
            assert a["loss"] >= (BLUNDER if a["mark"] == "??" else MISTAKE)
            assert a["mark"] == "??" or a["loss"] < BLUNDER
        sign = 1 if a["side"] == "w" else -1
        assert a["loss"] == pytest.approx(max(0.0, sign * (a["before"] - a["after"])), abs=0.02)


def test_analyze_a_file_as_json_within_its_budget(
        world: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "analyze", str(GAME), "--time", "3", "--json")
    data = json.loads(out)
    assert code == 0 and data["format"] == "dvonn-board/analysis" and data["complete"]
    assert (data["white"], data["black"], data["result"]) == ("Aeacus", "Dumbot",
                                                              "White wins 21-0")
    assert [a["ply"] for a in data["actions"]] == list(range(1, 83))
    assert data["elapsed"] <= 3 + 1.0 and data["marks"] == {"?": 2.0, "??": 5.0}
    check_marks(data["actions"])
    last = data["actions"][-1]
    assert last["after"] == 21.0 and last["exact"]  # the end is searched to the end
    assert all(isinstance(a["best_cuts"], list) for a in data["actions"])
    assert err.splitlines()[0].startswith("analyze: 82 actions, budget 3 s")
    assert err.splitlines()[-1].startswith("analyze: done: 82 of 82 actions in")


def test_analyze_a_journal_game_as_text(world: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    journal = world / "games.db"
    assert run(capsys, "games", "import", str(GAME), "--journal", str(journal))[0] == 0
    code, out, err = run(capsys, "analyze", "1", "--journal", str(journal), "--time", "2")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "Aeacus (White) vs Dumbot (Black): 82 actions, White wins 21-0"
    assert "? a loss of 2 or more, ?? 5 or more" in lines[1]
    rows = lines[3:-1]
    assert len(rows) == 82 and rows[0].split()[:3] == ["1", "W", "B4"]
    assert rows[-1].split()[:3] == ["82", "W", "C2C4"]
    assert lines[-1].startswith("Analysed 82 of 82 actions in")


def test_ctrl_c_prints_what_is_done_and_exits_130(
        world: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = cli_analyze._Progress.__call__

    def interrupt_at_ten(self: Any, done: int, total: int, elapsed: float) -> None:
        real(self, done, total, elapsed)
        if done == 10:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli_analyze._Progress, "__call__", interrupt_at_ten)
    code, out, err = run(capsys, "analyze", str(GAME), "--time", "30", "--json")
    data = json.loads(out)
    assert code == 130 and data["interrupted"] and not data["complete"]
    assert [a["ply"] for a in data["actions"]] == list(range(1, 11))
    assert err.splitlines()[-2].startswith("analyze: interrupted: 10 of 82 actions in ")
    assert err.splitlines()[-1] == "dvonn-board analyze: interrupted"


def test_ctrl_c_on_a_real_process(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-m", "controller.cli", "analyze", str(GAME),
                              "--time", "120"], cwd=tmp_path,
                             env=dict(os.environ, PYTHONPATH=str(REPO)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stderr is not None
    try:
        line = child.stderr.readline().decode()
        assert line.startswith("analyze: 82 actions, budget 120 s") and "Ctrl-C" in line
        child.stderr.readline()  # the first position is done
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130
    assert out.decode().splitlines()[-1].startswith("Interrupted after ")
    assert err.decode().splitlines()[-1] == "dvonn-board analyze: interrupted"
