"""The review routes (issue 26): the journal's games and the engine's review of one.

- ``GET /api/games``: the journal's games, newest first (at most GAMES_LISTED):
  ``{"journal": true, "games": [{"id", "white", "black", "started", "finished", "result",
  "score": {"white", "black"} | null, "actions", "source", "live"}]}``; ``"journal": false``
  and no games when the table keeps none.
- ``GET /api/review/ID``: one game to step through; ID is a journal game id, or ``live`` (the
  game on the table now, from its published state: it needs no journal). ``{"id", "white",
  "black", "result", "live", "actions": [...], "steps": [...], "status", "progress": {"done",
  "total"}, "analysis", "detail"}`` (and ``"details": {"en", "de"}``, the detail in each
  language, when there is one). ``steps[i]`` is the board after ``i`` actions
  (``stacks`` cell -> pieces bottom->top, ``last_move`` and ``removed`` as in the table state,
  ``score``, ``turn``, ``phase``). ``analysis`` is null until the engine's review is done
  (``status`` ``analysing``: ask again; ``queued`` when others wait before it; ``done``;
  ``hidden``, ``failed``), then ``{"budget", "elapsed", "complete", "marks": {"?": 2, "??":
  5}, "actions": [{"ply", "side", "action", "before", "after", "best", "best_cuts", "loss",
  "mark", "forced"}]}`` (scores in pieces, + when White is ahead; engine.review).
  ``partial`` lists the actions reviewed so far (as in ``analysis``) while it is
  ``analysing``, so that the page draws the graph as it grows; empty otherwise.

The review runs in one worker thread (never on the server's loop), within ``budget`` seconds a
game, one game at a time, and is cached by the game's actions (the CACHE_SIZE latest). Who sees
what: the positions of any game are public (like the live board); the engine's review of the
game still being played is a hint, so spectators get it only when the players share hints
(``status`` ``hidden`` otherwise); finished and imported games are reviewed for everyone.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from controller.i18n import Msg, error_message, in_every_language
from controller.publish import last_step
from engine.errors import DvonnError
from engine.game import Game
from engine.geometry import CELL_NAMES, NUM_CELLS
from engine.move import Move

#: Seconds of engine time for one game's review (engine.review.DEFAULT_TIME is the CLI's).
REVIEW_BUDGET = 30.0
CACHE_SIZE = 16  # reviews kept (by the games' actions)
MAX_WAITING = 8  # reviews queued behind the running one; more are answered "busy"
GAMES_LISTED = 500
IMPORTED = "import:"  # the source of an imported game (controller.journal.store.IMPORTED)


@dataclass
class Job:
    """One game's review: its state for the page (``status``, ``done`` of ``total``)."""

    total: int
    status: str = "queued"
    done: int = 0
    analysis: dict[str, Any] | None = None
    partial: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    at: float = field(default_factory=time.monotonic)


class Reviews:
    """The worker and the cache of the engine's reviews (see the module docstring)."""

    def __init__(self, budget: float = REVIEW_BUDGET, size: int = CACHE_SIZE) -> None:
        self.budget = budget
        self.size = size
        self._jobs: OrderedDict[tuple[str, ...], Job] = OrderedDict()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._stopping = False

    def job(self, actions: tuple[str, ...]) -> Job | None:
        """The review of the game of ``actions``, started if need be; None when too many wait."""
        with self._lock:
            job = self._jobs.get(actions)
            if job is not None:
                self._jobs.move_to_end(actions)
                return job
            waiting = sum(j.status == "queued" for j in self._jobs.values())
            if waiting >= MAX_WAITING or self._stopping:
                return None
            job = Job(total=len(actions))
            self._jobs[actions] = job
            while len(self._jobs) > self.size:  # the oldest finished reviews go first
                old = next((k for k, j in self._jobs.items()
                            if j.status in ("done", "failed")), None)
                if old is None:
                    break
                del self._jobs[old]
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dvonn-review")
            self._pool.submit(self._run, job, actions)
            return job

    def _run(self, job: Job, actions: tuple[str, ...]) -> None:
        from engine.review import BLUNDER, MISTAKE, review
        from engine.search import Searcher

        told = False

        def stop() -> None:
            """Once, when the server stops: engine.review keeps what is done."""
            nonlocal told
            if self._stopping and not told:
                told = True
                raise KeyboardInterrupt

        def progress(done: int, total: int, elapsed: float) -> None:
            job.done = min(done, job.total)
            stop()

        # A clock in Python: the compiled search calls it now and then, and the server's
        # loop gets the interpreter back there (a C function would keep it for the search).
        # A server that stops ends the search there too: the process exits only once this
        # thread has, and one position's share of the budget may be many seconds.
        def clock() -> float:
            stop()
            return time.monotonic()

        job.status = "analysing"
        with contextlib.suppress(OSError, AttributeError):  # Linux: this thread only
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)  # the table first
        try:
            moves = [Move.parse(a) for a in actions]
            result = review(moves, budget=self.budget, clock=clock, progress=progress,
                            searcher=Searcher(seed=0, clock=clock),
                            reviewed=lambda a: job.partial.append(_reviewed(a)))
        except KeyboardInterrupt:  # the server stopped before the review began
            job.error = "stopped"
            job.status = "failed"
            return
        except (DvonnError, ValueError, MemoryError) as exc:
            job.error = error_message(exc)
            job.status = "failed"
            return
        job.analysis = {
            "budget": result.budget, "elapsed": round(result.elapsed, 3),
            "complete": result.complete, "marks": {"?": MISTAKE, "??": BLUNDER},
            "actions": [_reviewed(a) for a in result.actions]}
        job.done = job.total
        job.status = "done"
        job.partial = []

    def close(self) -> None:
        """Stop the running review (it keeps what is done) and drop the queued ones."""
        self._stopping = True
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _reviewed(a: Any) -> dict[str, Any]:
    """One engine.review.ActionReview as the page gets it."""
    return {"ply": a.ply, "side": a.side, "action": str(a.move),
            "before": round(a.before, 2), "after": round(a.after, 2),
            "best": str(a.best) if a.best is not None else None,
            "best_cuts": [c.name for c in a.best_cuts], "loss": a.loss, "mark": a.mark,
            "forced": a.forced}


def steps(actions: list[str]) -> list[dict[str, Any]]:
    """The board after each number of actions (0 to all); DvonnError at an illegal one."""
    game = Game()
    out = [_step(game)]
    for i, text in enumerate(actions):
        try:
            game.push(Move.parse(text))
        except DvonnError as exc:
            raise DvonnError(Msg("action {value} ({text}): {exc}",
                                 value=i + 1, text=text, exc=exc)) from None
        out.append(_step(game))
    return out


def _step(game: Game) -> dict[str, Any]:
    last, removed = last_step(game)
    if game.move_stack and game.move_stack[-1].is_pass:
        last, removed = {"action": "PASS", "from": None, "to": None}, {}
    white, black = game.score()
    return {"ply": game.ply,
            "stacks": {CELL_NAMES[c]: game.stack(c) for c in range(NUM_CELLS) if game.stack(c)},
            "last_move": last, "removed": removed, "score": {"white": white, "black": black},
            "turn": game.turn,
            "phase": "over" if game.is_over() else "placing" if game.placing else "moving"}


def _info(g: Any, live_id: Any) -> dict[str, Any]:
    score = None if g.white_score is None else {"white": g.white_score, "black": g.black_score}
    return {"id": g.id, "white": g.white, "black": g.black, "started": g.started,
            "finished": g.finished, "result": g.result, "score": score,
            "actions": g.actions, "source": g.source, "live": g.id == live_id}


def review_routes(reviews: Reviews, journal: Callable[[], Any], state: Callable[[], Any],
                  paired: Callable[[Any], bool], shared: Callable[[], bool]) -> list[Any]:
    """The routes of the module docstring. ``journal()``: the table's Journal or None;
    ``state()``: the latest published table state (players' variant) or None;
    ``paired(request)``: whether a paired device or script asks; ``shared()``: whether the
    players share hints with spectators."""
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response

    headers = {"Cache-Control": "no-store"}

    def refuse(status: int, detail: str) -> Response:
        return JSONResponse({"ok": False, "detail": detail,
                             "details": in_every_language(detail)}, status_code=status,
                            headers=headers)

    def with_details(out: dict[str, Any]) -> dict[str, Any]:
        """``out`` with its ``detail`` in every language (``details``) when it has one."""
        detail = out.get("detail")
        return dict(out, details=in_every_language(detail)) if detail else out

    def live_id() -> Any:
        s = state()
        return None if s is None else s.get("game_id")

    async def games(request: Request) -> Response:
        store = journal()
        if store is None or not hasattr(store, "games"):
            return JSONResponse({"journal": False, "games": []}, headers=headers)
        try:
            found = await run_in_threadpool(store.games)
        except DvonnError as exc:
            return refuse(503, Msg("the journal cannot be read ({name})",
                                   name=type(exc).__name__))
        current = live_id()
        listed = [_info(g, current) for g in reversed(found[-GAMES_LISTED:])]
        return JSONResponse({"journal": True, "games": listed}, headers=headers)

    def load(game_id: str) -> dict[str, Any]:
        """The game's facts and actions (runs in a worker thread: the journal is a file)."""
        s = state()
        if game_id == "live":
            if s is None:
                raise LookupError(Msg("no game on the table yet"))
            players = s.get("players") or {}
            return {"id": s.get("game_id"), "white": players.get("white", "White"),
                    "black": players.get("black", "Black"), "result": None, "live": True,
                    "playing": s.get("phase") != "over",
                    "actions": [str(a) for a in s.get("actions") or []]}
        store = journal()
        if store is None or not hasattr(store, "game"):
            raise LookupError(Msg("this table keeps no journal: only the live game can be "
                                  "reviewed"))
        info = store.game(int(game_id))
        actions = store.actions(info.id)
        live = info.id == (s or {}).get("game_id")
        playing = info.finished is None and not str(info.source).startswith(IMPORTED)
        return {"id": info.id, "white": info.white, "black": info.black,
                "result": info.result, "live": live, "playing": playing, "actions": actions,
                "source": info.source}

    async def review(request: Request) -> Response:
        game_id = request.path_params["game"]
        if game_id != "live" and not (game_id.isdigit() and len(game_id) < 12):
            return refuse(404, Msg("no game {game_id!r}: a journal game id or 'live'",
                                   game_id=game_id))
        try:
            facts = await run_in_threadpool(load, game_id)
        except LookupError as exc:
            return refuse(404, error_message(exc) if exc.args else Msg("no such game"))
        except DvonnError as exc:  # (its text names the journal's path: not for the page)
            if "no game with id" in str(exc):
                return refuse(404, Msg("no game {game_id} in the journal", game_id=game_id))
            return refuse(503, Msg("the journal cannot be read (the table's log says why)"))
        try:
            board = await run_in_threadpool(steps, facts["actions"])
        except DvonnError as exc:
            return refuse(422, Msg("game {game_id} cannot be replayed: {why}", game_id=game_id,
                                   why=error_message(exc)))
        playing = facts.pop("playing")
        out = dict(facts, steps=board, analysis=None, detail="", partial=[],
                   progress={"done": 0, "total": len(facts["actions"])})
        if playing and not paired(request) and not shared():
            out.update(status="hidden", detail=Msg(
                "the game is still being played: its review shows to spectators once it is "
                "over (or when the players share hints)"))
            return JSONResponse(with_details(out), headers=headers)
        job = reviews.job(tuple(facts["actions"]))
        if job is None:
            out.update(status="busy", detail=Msg("the engine is busy with other reviews: try "
                                                 "again"))
            return JSONResponse(with_details(out), headers={**headers, "Retry-After": "5"})
        out.update(status=job.status, analysis=job.analysis, detail=job.error,
                   progress={"done": job.done, "total": job.total},
                   partial=list(job.partial) if job.analysis is None else [])
        return JSONResponse(with_details(out), headers=headers)

    from starlette.routing import Route

    return [Route("/api/games", games, methods=["GET"]),
            Route("/api/review/{game}", review, methods=["GET"])]
