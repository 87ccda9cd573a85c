"""boardspace.net SGF records (engine.boardspace, engine.sgf): real games kept in
tests/engine/data/boardspace (the whole shared corpus is replayed by tests/cli), the site's
steps one by one, dates, the writer read back, and broken records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dvonn_reference import random_moves
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.boardspace import export_boardspace, format_date, parse_boardspace, parse_date
from engine.errors import IllegalMoveError, RecordError
from engine.game import Game
from engine.gamerecord import FINISHED, RESIGNED, UNFINISHED
from engine.move import PASS, Move
from engine.records import decode_record, load_record_file
from engine.sgf import looks_like_sgf, parse_sgf

DATA = Path(__file__).parent / "data" / "boardspace"
INDEX = [json.loads(line) for line in (DATA / "index.jsonl").read_text().splitlines()]


def end_line(game: Game) -> str:
    """What ``replay`` ends a finished game with (and ../shared's index.jsonl gives)."""
    w, b = game.score()
    return f"over white={w} black={b}" if game.is_over() else f"{game.turn} to act"


def read(path: Path):  # type: ignore[no-untyped-def]
    return load_record_file(decode_record(path.read_bytes()), path.name)


@pytest.mark.parametrize("entry", INDEX, ids=[e["file"] for e in INDEX])
def test_kept_games_replay_to_their_line(entry: dict[str, object]) -> None:
    record = read(DATA / str(entry["file"]))
    game = record.game()
    assert record.format == "sgf" and record.status(game) == FINISHED
    assert (game.ply, end_line(game)) == (entry["plies"], entry["result"])
    assert record.white and record.black and record.tags["Site"] == "boardspace.net"
    stamp = str(entry["file"]).removesuffix(".sgf").split("-")[-4:]  # the UTC minute
    assert record.date.startswith(f"{stamp[0]}-{stamp[1]}-{stamp[2]}T{stamp[3][:2]}:"
                                  f"{stamp[3][2:]}"), record.date


def test_latin_1_names_and_parentheses_in_values() -> None:
    record = read(DATA / "DV-Dumbot-Gamely-2017-01-17-1422.sgf")
    assert record.tags["Result"] == "Partie gagnée par Dumbot"
    record = read(DATA / "DV-guest-BestBot-2015-05-24-1813.sgf")  # RE[... (...) ...], CRLF
    assert "(" in record.tags["Result"] and record.white == "guest"


# -- steps ------------------------------------------------------------------------------------

def sgf(*steps: str, root: str = 'GM[Dvonn]P0[id "Ann"]P1[id "Bob"]') -> str:
    """A record whose nodes are ``steps`` ('P0 dropb C 3'), numbered as the site does."""
    nodes = [f"; {s.split()[0]}[{n} {s.split(None, 1)[1]}]" for n, s in enumerate(steps, 1)]
    return f"(;{root}\n; P0[0 Start P0]\n" + "\n".join(nodes) + "\n)\n"


PLACEMENT = "G2 E3 A3 J3 H3 H2 D4 I4 K3 G3 C1 B2 C5 I1 J2 G4 D2 D1 G1 C4 E2 A1 I5 H1 B3 F1 " \
            "D3 K5 E1 E5 F3 B1 J4 F2 J5 K4 F5 I3 I2 C3 D5 H4 G5 H5 F4 C2 E4 A2 B4".split()


def placing_steps(cells: list[str] = PLACEMENT) -> list[str]:
    out = []
    for i, cell in enumerate(cells):
        player = "P0" if i % 2 == 0 else "P1"
        out += [f"{player} dropb {cell[0]} {cell[1]}", f"{player} done"]
    return out


def actions(text: str) -> list[str]:
    return [str(m) for m in parse_boardspace(text).moves]


def test_only_what_stands_at_done_counts() -> None:
    steps = ["P0 pick wr 2", "P0 dropb C 3", "P0 pickb C 3", "P0 dropb D 3", "P0 done",
             "P1 pick br 1", "P1 drop br 1", "P1 pick br 1", "P1 dropb E 3", "P1 reset",
             "P1 dropb F 3", "P1 done", "P0 dropb A 1", "P0 pickb A 1", "P0 pick wr 0",
             "P0 dropb B 1", "P0 done"]
    assert actions(sgf(*steps)) == ["D3", "F3", "B1"]


def test_moves_set_back_lifted_again_and_in_one_step() -> None:
    game = Game.from_moves(PLACEMENT)
    by_source: dict[str, list[str]] = {}
    for m in game.legal_moves():
        by_source.setdefault(str(m)[:2], []).append(str(m)[2:])
    a, (b, other) = next((s, t[:2]) for s, t in sorted(by_source.items()) if len(t) >= 2)
    game.push(Move.parse(a + b))
    c, d = str(game.legal_moves()[0])[:2], str(game.legal_moves()[0])[2:]
    steps = placing_steps() + [
        f"P0 pickb {a[0]} {a[1]}", f"P0 dropb {a[0]} {a[1]}",  # set back: nothing
        f"P0 pickb {a[0]} {a[1]}", f"P0 dropb {other[0]} {other[1]}",
        f"P0 pickb {other[0]} {other[1]}",  # lifted again from where it landed
        f"P0 dropb {b[0]} {b[1]}", "P0 done",
        f"P1 move {c[0]} {c[1]} {d[0]} {d[1]}", "P1 done"]
    assert actions(sgf(*steps)) == PLACEMENT + [a + b, c + d]


def test_a_pass_written_as_pass_as_an_empty_done_or_left_out() -> None:
    moves = next(m for seed in range(100) if PASS in (m := random_moves(seed)))
    text = export_boardspace(moves)
    lines = text.splitlines()
    passes = [i for i, line in enumerate(lines) if line.endswith(" pass]")]
    assert passes and all(lines[i + 1].endswith(" done]") for i in passes)
    empty = [line for i, line in enumerate(lines) if i not in passes]
    left_out = [line for i, line in enumerate(lines)
                if i not in passes and i - 1 not in passes]
    for form in (text, "\n".join(empty), "\n".join(left_out)):
        assert parse_boardspace(form).moves == moves


def test_resign_counts_at_done_and_a_second_resign_takes_it_back() -> None:
    steps = placing_steps()[:6]
    record = parse_boardspace(sgf(*steps, "P0 resign", "P0 done"))
    assert record.resigned == "w" and record.status() == RESIGNED
    record = parse_boardspace(sgf(*steps, "P0 resign", "P0 resign", "P0 dropb A 1", "P0 done"))
    assert record.resigned is None and [str(m) for m in record.moves][-1] == "A1"
    record = parse_boardspace(sgf(*steps, "P0 resign"))  # the file ends before 'done'
    assert record.resigned == "w"
    with pytest.raises(RecordError, match=r"node 10 .*after White resigned"):
        parse_boardspace(sgf(*steps, "P0 resign", "P0 done", "P1 dropb A 1"))


def test_an_unfinished_game_reads_and_says_so() -> None:
    record = parse_boardspace(sgf(*placing_steps()[:10], "P1 dropb A 1"))  # no 'done'
    assert len(record.moves) == 5 and record.status() == UNFINISHED


# -- dates ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("dt", "name", "iso"), [
    ("Mon Nov 03 00:21:29 CET 2008", "", "2008-11-02T23:21:29+00:00"),
    ("Mon Nov 03 00:21:29 GMT+01:00 2008", "", "2008-11-02T23:21:29+00:00"),
    # CST here is China (+8): the game's UTC stamp decides, DT adds the seconds.
    ("Thu Apr 01 23:49:35 CST 2010", "DV-BestBot-guest-2010-04-01-1549",
     "2010-04-01T15:49:35+00:00"),
    ("May 24, 2017", "DV-rafa2be-WeakBot-2017-05-24-1645.sgf", "2017-05-24T16:45:00+00:00"),
    ("2 février 2017", "", "2 février 2017"),
    ("Sun Nov 02 23:21:29 UTC 2008", "", "2008-11-02T23:21:29+00:00"),
])
def test_dates(dt: str, name: str, iso: str) -> None:
    assert parse_date(dt, name) == iso


def test_a_date_reads_back() -> None:
    for iso in ("2008-11-02T23:21:29+00:00", "2026-11-27T08:00:00+00:00", "not a date"):
        assert parse_date(format_date(iso)) == iso


# -- the writer -------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), cut=st.integers(0, 200), resign=st.booleans())
def test_written_records_read_back(seed: int, cut: int, resign: bool) -> None:
    moves = random_moves(seed)[:cut]
    game = Game.from_moves(moves)
    resigned = game.turn if resign and not game.is_over() else None
    text = export_boardspace(moves, white="Ann [A]", black="Bob\\", resigned=resigned,
                             date="2026-11-27T08:00:00+00:00", name="dvonn-board game 1")
    assert looks_like_sgf(text)
    record = load_record_file(text)
    assert record.moves == moves and record.resigned == resigned
    assert (record.white, record.black) == ("Ann [A]", "Bob\\")
    assert record.date == "2026-11-27T08:00:00+00:00"


# -- broken records ---------------------------------------------------------------------------

BAD = [
    ("(;GM[Dvonn]\n; P0[0 Start P0]\n; P0[1 dropb C", RecordError, r"line 3: '\[' is never closed"),
    ("(;GM[Dvonn]\n; P0[0 Start P0]\n; P0[1 dropb C 3]", RecordError,
     r"line 3: the file ends inside the game"),
    (sgf("P0 jump C 3"), RecordError, r"node 2 \(line 3\) 'P0\[1 jump C 3\]': unknown step"),
    (sgf("P0 dropb Z 9"), RecordError, r"node 2 .*'Z 9' is not a cell"),
    (sgf("P0 dropb C 3", "P0 done", "P1 dropb C 3"), IllegalMoveError,
     r"node 4 .*'C3' is illegal at ply 2 .*occupied"),
    (sgf("P0 move C 3 D 3"), RecordError, r"node 2 .*moved in the placing phase"),
    (sgf("P0 pickb C 3"), RecordError, r"node 2 .*no piece was placed this turn"),
    (sgf("P1 dropb C 3"), RecordError, r"node 2 .*P1 acts, but it is White's turn"),
    (sgf("P0 dropb C 3", "P1 done"), RecordError, r"node 3 .*P1 acts before P0's turn ended"),
    (sgf("P0 done"), RecordError, r"node 2 .*'done' with no action"),
    (sgf(*placing_steps(), "P0 pick wr 1"), RecordError, r"node 100 .*in the moving phase"),
    (sgf(*placing_steps(), "P0 pass"), RecordError, r"node 100 .*a pass, but White has 46"),
    (sgf(*placing_steps(), "P0 dropb C 3"), RecordError, r"node 100 .*none was lifted"),
    (sgf(*placing_steps(), "P0 pickb B 4", "P0 dropb B 2", "P0 done"), IllegalMoveError,
     r"node 101 .*'B4B2' is illegal at ply 50"),
    (sgf("P0 dropb C 3").replace("; P0[1", "; XX[1"), RecordError,
     r"node 2 .*unknown property 'XX' in a step node"),
    (sgf("P0 dropb C 3", root="GM[Dvonn]ZZ[1]"), RecordError,
     r"node 0 .*unknown property 'ZZ' in a root node"),
    (sgf("P0 dropb C 3", root="GM[Zertz]"), RecordError, r"node 0 .*not a DVONN game"),
    ("(;GM[Dvonn]) junk", RecordError, r"line 1: text after the end of the game: 'junk'"),
    ("(;GM[Dvonn]P0 ; P0[1 done])", RecordError, r"property 'P0' has no value"),
    ("(;GM[Dvonn]\n; P0[1 done] # )", RecordError, r"line 2: unexpected '#'"),
]


@pytest.mark.parametrize(("text", "error", "match"), BAD, ids=[m[:30] for _, _, m in BAD])
def test_broken_records_name_the_node_and_why(text: str, error: type[Exception],
                                              match: str) -> None:
    with pytest.raises(error, match=match) as caught:
        load_record_file(text)
    assert len(str(caught.value)) < 300 and "\n" not in str(caught.value)


def test_binary_and_foreign_text() -> None:
    with pytest.raises(RecordError, match=r"binary data.*byte offset 3"):
        decode_record(b"(;G\x00M[Dvonn])")
    with pytest.raises(RecordError, match=r"not UTF-8 text \(byte offset 0\)"):
        decode_record(b"\xff(;")  # not SGF: Latin-1 is only for boardspace files
    assert decode_record("(;GM[Dvonn]RE[gagn\xe9e])".encode("latin-1")).endswith("gagnée])")


def test_sgf_syntax_escapes_and_variations() -> None:
    nodes = parse_sgf("\ufeff (;C[a \\] b\\\\]P0[x]\n(;P0[1]\n;P0[2])(;P0[9]))")
    assert [n.number for n in nodes] == [0, 1, 2]  # the main line only
    assert nodes[0].properties[0].value == "a ] b\\"
    assert [p.value for n in nodes[1:] for p in n.properties] == ["1", "2"]
    assert nodes[2].properties[0].line == 3


def test_moves_in_a_record_are_the_projects_notation() -> None:
    record = parse_boardspace(sgf(*placing_steps()))
    assert record.moves == [Move.parse(c) for c in PLACEMENT]


@pytest.mark.parametrize(("text", "match"), [
    ("(;GM[Dvonn]" + ";" * 100_001 + ")", "more than 100000 nodes"),
    ("(;" + "C[x]" * 200_001 + ")", "more than 200000 property values"),
    ("(;" * 1_001, "nested more than 1000 deep"),
])
def test_input_far_beyond_a_game_is_refused_at_once(text: str, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        parse_sgf(text)
