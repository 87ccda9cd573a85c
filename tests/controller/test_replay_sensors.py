"""``dvonn-board replay-sensors``: output, trace, journal, colours and errors, on sample logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.journal.store import Journal
from engine.game import Game

DATA = Path(__file__).parent / "data"
LOGS = sorted(DATA.glob("*.jsonl"))
E = "." * 49


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay-sensors", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_sample_logs_replay_to_a_finished_legal_game(
        log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(log))
    lines = out.splitlines()
    assert code == 0 and lines[-1].startswith("over ")
    game = Game.from_moves(lines[:-1])
    assert game.is_over()
    w, b = game.score()
    assert lines[-1] == f"over white={w} black={b}"


def test_unreadable_cells_change_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    _, clean, _ = run(capsys, str(DATA / "board-seed4.jsonl"))
    _, foggy, _ = run(capsys, str(DATA / "board-seed4-unreadable.jsonl"))
    assert clean == foggy


def test_trace_lines_are_json_with_roles_prompts_and_times(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, str(DATA / "board-seed3.jsonl"), "--trace")
    records = [json.loads(line) for line in err.splitlines()]
    assert records and all(isinstance(r["t"], float) for r in records)
    assert [r["t"] for r in records] == sorted(r["t"] for r in records)
    kinds = {next(k for k in r if k != "t") for r in records}
    assert {"roles", "prompt"} <= kinds
    prompt = next(r for r in records if "prompt" in r)
    assert prompt["prompt"] == "choose-destination" and len(prompt["cells"]) >= 2
    roles = {v for r in records if "roles" in r for v in r["roles"].values()}
    assert {"source", "destination", "last", "remove", "winner"} <= roles
    assert all(k == k.upper() for r in records if "roles" in r for k in r["roles"])


def test_journal_keeps_the_replayed_game(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.sqlite3"
    _, out, _ = run(capsys, str(DATA / "board-seed3.jsonl"), "--journal", str(path))
    with Journal(path) as j:
        (info,) = j.games()
        assert j.actions(info.id) == out.splitlines()[:-1]
        assert info.is_finished and f"white={info.white_score}" in out


def test_taken_back_actions_are_not_printed(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "l.jsonl"
    c3 = E[:21] + "x" + E[22:]
    c3d3 = c3[:22] + "x" + c3[23:]
    lines = [(0, E), (1, c3), (2, c3d3), (3, c3), (4, c3d3[:22] + "." + "x" + c3d3[24:])]
    log.write_text("".join(json.dumps({"t": t, "cells": s}) + "\n" for t, s in lines))
    code, out, _ = run(capsys, str(log))
    assert code == 0 and out.split() == ["C3", "E3"]


def test_colours_auto_on_off(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "l.jsonl"
    log.write_text(json.dumps({"t": 0, "cells": E}) + "\n"
                   + json.dumps({"t": 1, "cells": "w" + E[1:]}) + "\n")
    assert run(capsys, str(log))[1] == ""  # a white piece where red must go
    assert run(capsys, str(log), "--colours", "off")[1].split() == ["A1"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (f'{{"t": 0, "cells": "{E}"}}\n{{"t": 1, "cells": ".."}}\n', "line 2"),
        (f'{{"t": 1, "cells": "{E}"}}\n{{"t": 0, "cells": "{E}"}}\n', "line 2"),
        ("not json\n", "line 1"),
        ('{"t": 0}\n', "line 1"),
        (f'{{"t": 1{"0" * 400}, "cells": "{E}"}}\n', "line 1: missing or bad 't'"),
        ("[" * 100_000 + "\n", "line 1: bad JSON"),
        ("", "holds no events"),
    ],
)
def test_bad_logs_exit_2_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         content: str, words: str) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(content)
    code, out, err = run(capsys, str(log))
    assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("flag", ["on", "off"])
def test_colours_flag_skips_the_log_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch, flag: str) -> None:
    import controller.cli.table

    def scan(events: object) -> bool:
        raise AssertionError("log_colours called although --colours was given")

    monkeypatch.setattr(controller.cli.table, "log_colours", scan)
    log = tmp_path / "one.jsonl"
    log.write_text(f'{{"t": 0, "cells": "{E}"}}\n')
    code, out, err = run(capsys, str(log), "--colours", flag)
    assert code == 0 and out == "" and err == ""
