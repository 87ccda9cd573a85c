"""``dvonn-board games``: list, export and delete the games in the journal.

    dvonn-board games [--journal PATH] [--config FILE]
    dvonn-board games export ID [--format lg|moves|json|sgf] [--out FILE]
    dvonn-board games import FILE...
    dvonn-board games delete ID

The journal is ``--journal``, else ``[journal] path`` of the config file, else the default
(controller.journal.store.default_journal_path). An unknown id is a JournalError: exit code 2.
``list`` and ``export`` only read: they open the journal read-only, need no writer lock, and
never create a file or folder (a missing default journal lists as no games; a missing named
one is an error). ``delete`` and ``import`` take the writer lock, as ``play`` does.

``import`` reads every file first (any record form ``replay`` reads: boardspace.net SGF,
Little Golem, move list, JSON) and stores the games in one transaction, so a bad file (one
line naming it and what is wrong, exit 2) leaves the journal as it was. An imported game
keeps its players, date and source (``import:SITE:FILE``), and its result: finished, resigned,
lost on time or unfinished (never resumed at the table), and its clock when the record has one
(SGF ``TM``/``OT``/``WL``/``BL``, JSON ``clock``; controller.cli.timerecord). ``export`` writes
a game played with a clock with its time where the format has a place for it (README, *Clocks*).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.cli.recordfile import display_name, load_record_path
from controller.cli.rules import result_line
from controller.cli.timerecord import clock_states, record_time, timeout_of
from controller.config.settings import load_config
from controller.files import write_atomically
from controller.i18n import Msg, _
from controller.journal.db import utc_now
from controller.journal.store import (
    IMPORTED,
    GameInfo,
    Journal,
    JournalError,
    NewGame,
    default_journal_path,
)
from engine.boardspace import export_boardspace
from engine.errors import DvonnError
from engine.game import Game
from engine.gamerecord import GameRecord, GameTime
from engine.move import Move
from engine.records import export_littlegolem, export_moves, game_to_json

FORMATS = ("lg", "moves", "json", "sgf")
RESIGNED_SIDE = {"white resigns": "w", "black resigns": "b"}
WINNER = {"w": "white", "b": "black", "tie": "tie"}


def register(sub: Any) -> None:
    """Add ``games`` and its sub-commands to the dispatcher's subparsers."""
    p = sub.add_parser("games", help=_("list, export or delete saved games"),
                       description=_("List the saved games, or export or delete one."))
    _journal_options(p)
    p.set_defaults(func=cmd_list, journal=None, config=None)
    actions = p.add_subparsers(dest="games_command", metavar="ACTION")

    q = actions.add_parser("list", help=_("list the saved games (the default)"))
    _journal_options(q)
    q.set_defaults(func=cmd_list)

    q = actions.add_parser("export", help=_("write one game as a record"))
    _journal_options(q)
    q.add_argument("id", type=_game_id, metavar="ID")
    q.add_argument("--format", choices=FORMATS, default="lg",
                   help=_("lg: Little Golem record (default); moves: plain move list; json; "
                          "sgf: boardspace.net SGF"))
    q.add_argument("--out", metavar="FILE", help=_("write to FILE instead of standard output"))
    q.set_defaults(func=cmd_export)

    q = actions.add_parser("import", help=_("store games from record files (boardspace.net "
                             "SGF, Little Golem, move list, JSON)"))
    _journal_options(q)
    q.add_argument("files", nargs="+", metavar="FILE", help=_("record files ('-' for stdin)"))
    q.set_defaults(func=cmd_import)

    q = actions.add_parser("delete", help=_("delete one game for good"))
    _journal_options(q)
    q.add_argument("id", type=_game_id, metavar="ID")
    q.set_defaults(func=cmd_delete)


def _game_id(text: str) -> int:
    """An argparse type: a whole number (the journal says when no game has that id)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a game id (a whole number)").format(text=text)) from None


def _journal_options(parser: argparse.ArgumentParser) -> None:
    # Sub-commands take the options too; SUPPRESS keeps a value given before the action.
    parser.add_argument("--journal", metavar="PATH", default=argparse.SUPPRESS,
                        help=_("the games database (default: from the config, else the data dir)"))
    parser.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help=_("config file whose [journal] path to use"))


def journal_path(args: argparse.Namespace) -> tuple[Path, bool]:
    """The journal named by --journal, the config, or the default; and whether it was named."""
    path: str | None = getattr(args, "journal", None)
    if path is None:
        path = load_config(getattr(args, "config", None)).journal.path
    if path is None:
        return default_journal_path(), False
    return Path(path).expanduser(), True


def open_journal(args: argparse.Namespace, *, write: bool = False) -> Journal:
    """The journal, read-only (or as the lock-holding writer when ``write``)."""
    path, _kind = journal_path(args)
    if write:
        return Journal(path, writer=True)
    return Journal(path, readonly=True)


def cmd_list(args: argparse.Namespace) -> int:
    path, named = journal_path(args)
    if not named and not path.exists():
        print(f"no games in {path}")
        return 0
    with open_journal(args) as journal:
        games = journal.games()
        if not games:
            print(f"no games in {journal.path}")
            return 0
        print(format_table(games))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from controller.journal.clocks import ClockStore

    with open_journal(args) as journal:
        info = journal.game(args.id)
        actions = journal.actions(args.id)
        history = ClockStore(journal).history(args.id)
    time = record_time(history, [Move.parse(a) for a in actions]) if history else None
    text = export_game(info, actions, args.format, time=time)
    if args.out:
        save_text(Path(args.out), text)
        print(f"game {info.id} written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    records = [(file, *load_record_path(file)) for file in args.files]  # all read first
    target, _kind = journal_path(args)
    if target.is_file() and target.stat().st_size == 0:
        raise JournalError(Msg("journal {target} is an empty file, not a dvonn-board journal",
                               target=target))
    games = [imported_game(file, record, game) for file, record, game in records]
    with open_journal(args, write=True) as journal:
        ids = journal.import_games(games)
        from controller.journal.clocks import ClockStore

        clocks = ClockStore(journal)
        for game_id, (_name, record, game) in zip(ids, records, strict=True):
            for ply, state in clock_states(record.time, game.move_stack):
                clocks.save(game_id, ply, state)
    for game_id, (name, record, game) in zip(ids, records, strict=True):
        print(f"imported game {game_id} from {display_name(name)}: {record.white or '?'} vs "
              f"{record.black or '?'}, {game.ply} actions, "
              f"{result_line(game, record.resigned, record.timeout).removeprefix('Result: ')}")
    return 0


def imported_game(path: str, record: GameRecord, game: Game) -> NewGame:
    """The journal's row for an imported record: players, date (else now), source, result."""
    file = "standard input" if path == "-" else Path(path).name
    site = record.tags.get("Site", "")
    source = f"{IMPORTED}{site}:{file}" if site else f"{IMPORTED}{file}"
    started = record.date or utc_now()
    w, b = game.score()
    if record.resigned is not None:
        result: str | None = f"{WINNER[record.resigned]} resigns"
    elif record.timeout is not None:
        result = f"{WINNER[record.timeout]} out of time"
    else:
        outcome = game.winner()
        result = WINNER[outcome] if outcome is not None else None
    finished = started if result is not None else None
    scores = (w, b) if result is not None else (None, None)
    return NewGame(record.white or "White", record.black or "Black", source, started,
                   tuple(str(m) for m in game.move_stack), finished, result, *scores)


def cmd_delete(args: argparse.Namespace) -> int:
    path, _kind = journal_path(args)
    if not path.exists():  # deleting from nothing must not create a journal first
        raise JournalError(Msg("no journal at {path} (no games were stored there)", path=path))
    if path.is_file() and path.stat().st_size == 0:
        raise JournalError(Msg("journal {path} is an empty file, not a dvonn-board journal",
                               path=path))
    with open_journal(args, write=True) as journal:
        info = journal.game(args.id)
        journal.delete(args.id)
    print(f"deleted game {info.id} ({info.white} vs {info.black}, {info.actions} actions)")
    return 0


# -- formatting ---------------------------------------------------------------------------

def result_text(info: GameInfo) -> str:
    """'unfinished', 'abandoned', 'white 25-20', 'tie 20-20', 'black resigns 12-9'."""
    if info.result is None:
        return "unfinished"
    if info.white_score is None or info.black_score is None:
        return info.result
    return f"{info.result} {info.white_score}-{info.black_score}"


def local_time(iso: str) -> str:
    """An ISO time stamp as local 'YYYY-MM-DD HH:MM' (unchanged if it cannot be read)."""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def format_table(games: list[GameInfo]) -> str:
    """One line per game under a header: id, start, players, actions, result."""
    rows = [("ID", "STARTED", "PLAYERS", "ACTIONS", "RESULT")]
    for g in games:
        rows.append((str(g.id), local_time(g.started), f"{g.white} vs {g.black}",
                     str(g.actions), result_text(g)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for r in rows:
        lines.append(f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
                     f"{r[3]:>{widths[3]}}  {r[4]}")
    return "\n".join(lines)


def export_game(info: GameInfo, actions: list[str], fmt: str,
                time: GameTime | None = None) -> str:
    """The game as text in ``fmt`` (one of FORMATS), ending in a newline.

    ``json`` replays the actions (IllegalMoveError names a bad ply), adds the final position
    and score, and the journal's facts under ``"journal"``; it reads back with
    ``dvonn-board replay``. ``time``: the game's clock (controller.cli.timerecord); a loss on
    time (the journal's result) reaches lg, sgf and json.
    """
    resigned = RESIGNED_SIDE.get(info.result or "")
    timeout = timeout_of(info.result)
    moves = [Move.parse(a) for a in actions]
    if fmt == "moves":
        return export_moves(moves) + "\n"
    if fmt == "lg":
        return export_littlegolem(moves, white=info.white, black=info.black,
                                  resigned=resigned, timeout=timeout) + "\n"
    if fmt == "sgf":
        name = Path(info.source.rpartition(":")[2]).stem if info.source.startswith(
            IMPORTED) else f"dvonn-board game {info.id}"
        return export_boardspace(moves, white=info.white, black=info.black, date=info.started,
                                 resigned=resigned, name=name, time=time, timeout=timeout)
    if fmt == "json":
        data = game_to_json(Game.from_moves(moves), white=info.white, black=info.black,
                            resigned=resigned, time=time, timeout=timeout)
        data["journal"] = {
            "id": info.id,
            "started": info.started,
            "finished": info.finished,
            "result": info.result,
            "source": info.source,
        }
        return json.dumps(data, indent=2) + "\n"
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


def save_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file, so a crash never leaves half a file.

    A path that cannot be written (no such folder, a folder, no permission) is a DvonnError.
    """
    path = path.expanduser()
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise DvonnError(Msg("cannot write {path}: {value}",
                             path=path, value=exc.strerror or exc)) from exc

