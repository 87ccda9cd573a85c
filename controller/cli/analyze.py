"""``dvonn-board analyze GAME [--time S] [--json]``: the engine reviews a whole game.

GAME is a journal id (``games`` lists them) or a record file in any form ``replay`` reads
(boardspace.net SGF, Little Golem, move list, JSON; ``-`` for stdin). For every action: the
engine's score before and after it (pieces, + when White is ahead), its best action there and
what that would have cut off, the mover's loss against it and a mark: ``?`` for a loss of 2
pieces or more, ``??`` for 5 or more (engine.review). ``--time`` is the budget for the whole
game; a progress line goes to stderr; Ctrl-C prints what is done and exits 130.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from controller.cli.games import journal_path, open_journal
from controller.cli.numbers import seconds
from controller.cli.recordfile import load_record_path
from controller.cli.rules import result_line
from controller.i18n import Msg, _
from controller.journal.store import JournalError
from engine.game import Game
from engine.move import Move
from engine.review import BLUNDER, DEFAULT_TIME, MISTAKE, ActionReview, Review, review

#: Seconds between progress lines when stderr is not a terminal.
PROGRESS_EVERY = 5.0
SIDE = {"w": "W", "b": "B"}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "analyze", help=_("the engine's review of a game: scores, best actions, mistakes"),
        description=_("For every action of a game: the engine's score before and after it "
                      "(in pieces, + when White is ahead; 'after' is the action played, searched "
                      "as deep as the best), its best action there and what that would have cut "
                      "off, the mover's loss against the best, and a mark: '?' for a loss of "
                      "{mistake} pieces or more, '??' for {blunder} or more (never for the "
                      "engine's own best or a forced action). The time is for the whole game; "
                      "a progress line goes to stderr; Ctrl-C prints what is done (exit 130).")
        .format(mistake=f"{MISTAKE:g}", blunder=f"{BLUNDER:g}"))
    p.add_argument("game", metavar="GAME",
                   help=_("a journal game id, or a record file (boardspace.net SGF, Little "
                          "Golem, move list, JSON; '-' for stdin)"))
    p.add_argument("--time", type=seconds(above=True), default=DEFAULT_TIME, metavar="S",
                   help=_("seconds for the whole game (default {default})").format(
                       default=f"{DEFAULT_TIME:g}"))
    p.add_argument("--json", action="store_true", help=_("one JSON object on stdout"))
    p.add_argument("--journal", metavar="PATH", help=_("the games database for a game id"))
    p.add_argument("--config", metavar="FILE", help=_("config file whose [journal] path to use"))
    p.set_defaults(func=cmd_analyze)


def load_game(args: argparse.Namespace) -> tuple[list[Move], dict[str, str], str | None]:
    """The actions, the facts to print (white, black, source) and the resigned side."""
    target = args.game
    if target == "-" or not target.isdigit() or Path(target).exists():
        record, game = load_record_path(target)
        facts = {"white": record.white, "black": record.black, "source": target,
                 "date": record.date}
        return list(game.move_stack), facts, record.resigned
    path, named = journal_path(args)
    if not named and not path.exists():
        raise JournalError(Msg("no game with id {target} (no journal at {path}) and no file named "
                               "{target!r}",
                               target=target, path=path))
    with open_journal(args) as journal:
        info = journal.game(int(target))
        actions = journal.actions(info.id)
    resigned = {"white resigns": "w", "black resigns": "b"}.get(info.result or "")
    facts = {"white": info.white, "black": info.black, "source": f"journal game {info.id}",
             "date": info.started}
    return [Move.parse(a) for a in actions], facts, resigned


class _Progress:
    """One line on stderr: rewritten on a terminal, else every PROGRESS_EVERY seconds."""

    def __init__(self, err: TextIO, actions: int, budget: float) -> None:
        self.err = err
        self.tty = bool(getattr(err, "isatty", lambda: False)())
        self.last = -PROGRESS_EVERY
        self.budget = budget
        self.say(f"analyze: {actions} actions, budget {budget:g} s (Ctrl-C stops and prints "
                 "what is done)", final=not self.tty)

    def say(self, line: str, final: bool = False) -> None:
        if self.tty and not final:
            self.err.write(f"\r{line}\x1b[K")
        else:
            self.err.write(("\r\x1b[K" if self.tty else "") + line + "\n")
        self.err.flush()

    def __call__(self, done: int, total: int, elapsed: float) -> None:
        now = time.monotonic()
        if not self.tty and now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        self.say(f"analyze: position {done} of {total}, {elapsed:.1f} of {self.budget:g} s")

    def end(self, result: Review) -> None:
        word = "interrupted" if result.interrupted else "done"
        self.say(f"analyze: {word}: {len(result.actions)} of {result.total} actions in "
                 f"{result.elapsed:.1f} s", final=True)


def cmd_analyze(args: argparse.Namespace) -> int:
    moves, facts, resigned = load_game(args)
    progress = _Progress(sys.stderr, len(moves), args.time)
    result = review(moves, budget=args.time, progress=progress)
    progress.end(result)
    game = Game.from_moves(moves)
    if args.json:
        print(json.dumps(to_json(result, facts, game, resigned), indent=1))
    else:
        print(to_text(result, facts, game, resigned))
    sys.stdout.flush()
    if result.interrupted:
        raise KeyboardInterrupt  # the dispatcher says so on stderr and exits 130
    return 0


def _pieces(value: float) -> str:
    return f"{value:+.2f}"


def to_text(result: Review, facts: dict[str, str], game: Game, resigned: str | None) -> str:
    """A table: one row per action, a header and a summary."""
    lines = [f"{facts['white'] or '?'} (White) vs {facts['black'] or '?'} (Black): "
             f"{game.ply} actions, {result_line(game, resigned).removeprefix('Result: ')}",
             f"Scores in pieces, + when White is ahead; loss: what the mover gave away "
             f"against the best; ? a loss of {MISTAKE:g} or more, ?? {BLUNDER:g} or more.",
             f"{'ply':>4}  {'':1}  {'action':<6} {'before':>7} {'after':>7}  {'best':<6} "
             f"{'loss':>5} {'mark':<4} cuts off (best)"]
    for a in result.actions:
        best = str(a.best) if a.best is not None else "-"
        cut = ", ".join(f"{c.name} ({c.stack})" for c in a.best_cuts)
        loss = f"{a.loss:.2f}" if a.loss else ""
        lines.append(f"{a.ply:>4}  {SIDE[a.side]}  {str(a.move):<6} {_pieces(a.before):>7} "
                     f"{_pieces(a.after):>7}  {best:<6} {loss:>5} {a.mark:<4} {cut}".rstrip())
    lines.append(summary(result))
    return "\n".join(lines)


def summary(result: Review) -> str:
    """'Analysed 82 of 82 actions in 29.1 s (budget 30 s); White: 1 ?, 0 ??; Black: ...'"""
    counts = []
    for side, name in (("w", "White"), ("b", "Black")):
        marks = [a.mark for a in result.actions if a.side == side]
        counts.append(f"{name} {marks.count('?')} ?, {marks.count('??')} ??")
    word = "interrupted after" if result.interrupted else "analysed"
    return (f"{word.capitalize()} {len(result.actions)} of {result.total} actions in "
            f"{result.elapsed:.1f} s (budget {result.budget:g} s); {'; '.join(counts)}")


def action_json(a: ActionReview) -> dict[str, Any]:
    return {
        "ply": a.ply, "side": a.side, "action": str(a.move),
        "before": round(a.before, 2), "after": round(a.after, 2),
        "best": str(a.best) if a.best is not None else None,
        "best_cuts": [{"cell": c.name, "stack": c.stack} for c in a.best_cuts],
        "loss": a.loss, "mark": a.mark, "depth": a.depth, "exact": a.exact,
        "forced": a.forced,
    }


def to_json(result: Review, facts: dict[str, str], game: Game,
            resigned: str | None) -> dict[str, Any]:
    w, b = game.score()
    return {
        "format": "dvonn-board/analysis", "version": 1,
        "white": facts["white"], "black": facts["black"], "date": facts["date"],
        "source": facts["source"],
        "result": result_line(game, resigned).removeprefix("Result: "),
        "score": {"white": w, "black": b},
        "budget": result.budget, "elapsed": round(result.elapsed, 3),
        "complete": result.complete, "interrupted": result.interrupted,
        "marks": {"?": MISTAKE, "??": BLUNDER},
        "total": result.total,
        "actions": [action_json(a) for a in result.actions],
    }
