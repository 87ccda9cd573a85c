"""Players: who chooses the actions of one side in a match or on the table.

A player spec is ``ai[:LEVEL]`` (the built-in engine), ``random``, ``greedy`` (the simple
players of engine.playout) or ``cmd:PROGRAM [ARGS]``, any program that speaks the CodeCup
protocol on stdin/stdout (one action a line; ``Start`` tells White to begin; ``Quit`` ends).
On the table ``human`` means the person plays that side (no Player object). In a ``cmd:``
line, ``{seed}`` becomes the game's seed, so one command gives varied games.

Every action an external program sends is checked by the engine: a crash, a hang past its
time or an illegal or unreadable action raises :class:`PlayerError` (a DvonnError) naming the
program, the action and the ply; it never decides the game by itself.
"""

from __future__ import annotations

import collections
import os
import queue
import random
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol

from controller.i18n import N_, Msg
from engine.ai import MAX_LEVEL, Engine
from engine.errors import DvonnError, InvalidMoveError
from engine.game import Game
from engine.move import Move
from engine.playout import greedy_move, random_move

Clock = Callable[[], float]
#: Seconds an external program gets beyond its game time before it counts as hung.
GRACE = 2.0


class PlayerError(DvonnError):
    """A player that cannot go on: bad spec, crash, hang, or an illegal action."""


class Player(Protocol):
    """One side's decision maker for one game at a time."""

    name: str

    def new_game(self, side: str) -> None:
        """A game starts with this player on ``side`` ('w' or 'b')."""

    def choose(self, game: Game) -> Move:
        """The action for the side to act in ``game`` (this player's side; not over)."""

    def observe(self, game: Game, move: Move) -> None:
        """The other side played ``move`` (``game`` is the position after it)."""

    def end_game(self, game: Game) -> None:
        """The game is over (or abandoned)."""

    def close(self) -> None:
        """Release what the player holds (processes); safe to call twice."""


class _Builtin:
    """Shared do-nothing parts of the in-process players."""

    name = ""

    def new_game(self, side: str) -> None:
        pass

    def observe(self, game: Game, move: Move) -> None:
        pass

    def end_game(self, game: Game) -> None:
        pass

    def close(self) -> None:
        pass


class RandomPlayer(_Builtin):
    """A uniformly random legal action (engine.playout.random_move)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, side: str) -> None:
        pass

    def choose(self, game: Game) -> Move:
        move = random_move(game, self.rng)
        if move is None:
            raise PlayerError(Msg("random: the game is over, there is no action to choose"))
        return move


class GreedyPlayer(RandomPlayer):
    """The action leaving the best score margin (engine.playout.greedy_move)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.name = "greedy"

    def choose(self, game: Game) -> Move:
        move = greedy_move(game, self.rng)
        if move is None:
            raise PlayerError(Msg("greedy: the game is over, there is no action to choose"))
        return move


class EnginePlayer(_Builtin):
    """The built-in engine at a level, with an optional game or move time budget."""

    def __init__(self, level: int = MAX_LEVEL, *, seed: int = 0, game_time: float | None = None,
                 move_time: float | None = None, clock: Clock = time.monotonic,
                 threads: int = 1) -> None:
        self.name = f"ai:{level}"
        self.engine = Engine(level, seed=seed, game_time=game_time, move_time=move_time,
                             clock=clock, threads=threads)

    def new_game(self, side: str) -> None:
        self.engine.new_game()

    def choose(self, game: Game) -> Move:
        return self.engine.choose(game)


class ExternalPlayer:
    """A program speaking the CodeCup protocol, started afresh for every game.

    ``game_time`` is the program's thinking budget for the whole game; it is hung when it has
    not answered ``GRACE`` seconds after that budget ran out (measured on ``clock``). Without
    a game budget, ``move_timeout`` seconds for any one action.
    """

    def __init__(self, argv: list[str], *, game_time: float | None = None,
                 grace: float = GRACE, clock: Clock = time.monotonic,
                 name: str | None = None, move_timeout: float = 60.0) -> None:
        if not argv:
            raise PlayerError(Msg("cmd: needs a program, e.g. cmd:/path/to/player --seed=1"))
        self.argv = argv
        self.name = name or "cmd:" + " ".join(argv)
        self.game_time = game_time
        self.move_timeout = move_timeout
        self.grace = grace
        self.clock = clock
        self.used = 0.0
        self.side = "w"
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=8)
        self._drainer: threading.Thread | None = None

    # ------------------------------------------------------------------ process
    def new_game(self, side: str) -> None:
        self.close()
        self.side = side
        self.used = 0.0
        self._lines = queue.Queue()
        self._stderr = collections.deque(maxlen=8)
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, bufsize=1,
                                    start_new_session=True)
        except OSError as exc:
            raise PlayerError(Msg("{name}: cannot start the program: {exc}",
                                  name=self.name, exc=exc)) from None
        self._proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        threading.Thread(target=self._pump, args=(proc.stdout, self._lines), daemon=True).start()
        self._drainer = threading.Thread(target=self._drain, args=(proc.stderr, self._stderr),
                                         daemon=True)
        self._drainer.start()
        if side == "w":
            self._send("Start", None)

    @staticmethod
    def _pump(stream: IO[str], out: queue.Queue[str | None]) -> None:
        try:
            for line in stream:
                out.put(line)
        except (OSError, ValueError):
            pass
        out.put(None)

    @staticmethod
    def _drain(stream: IO[str], tail: collections.deque[str]) -> None:
        try:
            for line in stream:
                tail.append(line.rstrip())
        except (OSError, ValueError):
            pass

    def _crashed(self, what: str, game: Game | None) -> PlayerError:
        code = self._proc.poll() if self._proc is not None else None
        if code is None and self._proc is not None:
            try:
                code = self._proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        status = Msg("exit code {code}", code=code) if code is not None else Msg("still running")
        if code is not None and self._drainer is not None:
            # an ended program's last words are still on their way through the pipe (a loaded
            # machine: CI read none of them)
            self._drainer.join(timeout=2.0)
        tail = " | ".join(list(self._stderr)[-3:])
        self.close()
        said = (Msg("{name}: {what} ({status})", name=self.name, what=Msg(what), status=status)
                if game is None else
                Msg("{name}: {what} at ply {ply} ({status})", name=self.name, what=Msg(what),
                    ply=game.ply + 1, status=status))
        return PlayerError(Msg("{error}; its last words: {tail}", error=said, tail=tail)
                           if tail else said)

    def _send(self, text: str, game: Game | None) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise PlayerError(Msg("{name}: the program is not running", name=self.name))
        try:
            proc.stdin.write(text + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._crashed(N_("the program stopped reading its input"), game) from None

    # ------------------------------------------------------------------ protocol
    def observe(self, game: Game, move: Move) -> None:
        self._send(str(move), game)

    def choose(self, game: Game) -> Move:
        if self._proc is None:
            raise PlayerError(Msg("{name}: the program is not running", name=self.name))
        timeout = self.move_timeout
        if self.game_time is not None:
            timeout = max(0.0, self.game_time - self.used) + self.grace
        start = self.clock()
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                self.used += self.clock() - start
                raise self._hung(game) from None
            if line is None:
                raise self._crashed(N_("the program ended without sending an action"), game)
            if line.strip():
                break
        self.used += self.clock() - start
        text = line.strip()
        try:
            move = Move.parse(text)
        except InvalidMoveError:
            self.close()
            raise PlayerError(Msg("{name} sent {value!r} at ply {value2}, which is not DVONN "
                                  "notation (expected e.g. C3, C3D3 or PASS)",
                                  name=self.name, value=text[:40], value2=game.ply + 1)) from None
        if move not in game.legal_moves():
            reason = game._illegal_reason(move)
            self.close()
            raise PlayerError(Msg("{name} sent an illegal action: {reason}",
                                  name=self.name, reason=reason))
        return move

    def _hung(self, game: Game) -> PlayerError:
        self.close()
        if self.game_time is None:
            return PlayerError(Msg("{name}: no action at ply {value} within {budget} s; "
                                   "{used:.2f} s used; stopped it", name=self.name,
                                   value=game.ply + 1, budget=f"{self.move_timeout:g}",
                                   used=self.used))
        return PlayerError(Msg("{name}: no action at ply {value} within {budget} s game time "
                               "(+{grace} s grace); {used:.2f} s used; stopped it",
                               name=self.name, value=game.ply + 1, budget=f"{self.game_time:g}",
                               grace=f"{self.grace:g}", used=self.used))

    def end_game(self, game: Game) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write("Quit\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            pass
        self.close()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                proc.kill()
        try:
            proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


def is_human(spec: str) -> bool:
    return spec.strip().lower() == "human"


def check_spec(spec: str) -> str:
    """The spec, normalised; PlayerError naming it when it is not a player."""
    text = spec.strip()
    low = text.lower()
    if low in ("human", "random", "greedy", "ai"):
        return low
    if low.startswith("ai:"):
        value = low[3:]
        if not value.isdigit() or not 1 <= int(value) <= MAX_LEVEL:
            raise PlayerError(Msg("player {spec!r}: the level must be 1..{MAX_LEVEL}, e.g. ai:4",
                                  spec=spec, MAX_LEVEL=MAX_LEVEL))
        return f"ai:{int(value)}"
    if low == "remote":
        return low
    if low.startswith("remote:"):
        from controller.remote.url import parse_url

        parse_url(text[7:], levels=(1, 1), what=f"player {text!r}:")
        return text
    if low.startswith("cmd:"):
        try:
            argv = shlex.split(text[4:])
        except ValueError as exc:
            raise PlayerError(Msg("player {spec!r}: {exc}", spec=spec, exc=exc)) from None
        if not argv:
            raise PlayerError(Msg("player {spec!r}: cmd: needs a program, e.g. cmd:./player",
                                  spec=spec))
        return text
    raise PlayerError(Msg("player {spec!r} is not one of human, ai[:LEVEL] (1..{MAX_LEVEL}), "
                          "random, greedy, cmd:PROGRAM [ARGS], remote, "
                          "remote:mqtt://HOST[:PORT]/MATCH",
                          spec=spec, MAX_LEVEL=MAX_LEVEL))


def make_player(spec: str, *, seed: int = 0, game_time: float | None = None,
                move_time: float | None = None, clock: Clock = time.monotonic,
                grace: float = GRACE, move_timeout: float = 60.0, threads: int = 1) -> Player:
    """The player a spec names (not ``human``: the table handles people); ``threads``: the
    built-in engine's search threads at full strength."""
    text = check_spec(spec)
    if text == "human" or text.startswith("remote"):
        raise PlayerError(Msg("{spec!r} plays on the table; a match needs ai, random, greedy "
                              "or cmd:", spec=text))
    if text == "random":
        return RandomPlayer(seed)
    if text == "greedy":
        return GreedyPlayer(seed)
    if text.startswith("ai"):
        lvl = int(text[3:]) if ":" in text else MAX_LEVEL
        return EnginePlayer(lvl, seed=seed, game_time=game_time, move_time=move_time,
                            clock=clock, threads=threads)
    # ``{seed}`` in a command line becomes the game's seed (varied games from one command).
    argv = [a.replace("{seed}", str(seed)) for a in shlex.split(text[4:])]
    return ExternalPlayer(argv, game_time=game_time, grace=grace, clock=clock,
                          move_timeout=move_timeout,
                          name=f"cmd:{Path(argv[0]).name} {' '.join(argv[1:])}".strip())


class GameResult:
    """A finished game between two players: its actions, final score and winner."""

    def __init__(self, game: Game, white: str, black: str) -> None:
        self.moves = list(game.move_stack)
        self.white = white
        self.black = black
        self.score = game.score()
        winner = game.winner()
        self.winner = winner if winner is not None else "tie"


def play_game(white: Player, black: Player) -> GameResult:
    """Play one game from the empty board; every action is checked before it is played.

    A PlayerError from either side ends the game unfinished (both players are told) and
    propagates: a broken player never loses (or wins) a game by itself.
    """
    game = Game()
    sides = {"w": white, "b": black}
    white.new_game("w")
    try:
        black.new_game("b")
        while not game.is_over():
            me = sides[game.turn]
            other = sides["b" if game.turn == "w" else "w"]
            move = me.choose(game)
            if move not in game.legal_moves():  # built-in players are checked too
                raise PlayerError(Msg("{name}: {value}",
                                      name=me.name, value=game._illegal_reason(move)))
            game.push_unchecked(move)
            other.observe(game, move)
    finally:
        for p in (white, black):
            try:
                p.end_game(game)
            except DvonnError:
                pass
    return GameResult(game, white.name, black.name)
