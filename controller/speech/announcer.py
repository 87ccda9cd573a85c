"""The announcer: listens to a TableController and says what changed on the table.

It keeps its own copy of the game and compares it with the controller's after every event
the controller handled (a controller listener) and once every round of the table's loop (a
Runner source whose ``poll`` reports no events: actions committed by the debouncer's timer
are heard too). New actions are said one utterance each (with the stacks they cut off and
the score), take-backs, the result, the table's prompts, the computer's actions to carry out,
and mismatches and cut-off stacks left on the board once they lasted ``delay`` seconds of the
injected clock (a hand passing over the board is not a mismatch worth saying).

The words are rendered in ``lang`` here; the speaker (a queue and a worker thread) says them,
so nothing here waits for a voice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from controller.i18n import Msg, get_language, localize
from controller.speech import words
from controller.table.guide import prompting
from controller.table.inference import MISMATCH
from controller.table.session import TableController
from engine.game import Game


class Voice(Protocol):
    """What the announcer speaks through (a :class:`~controller.speech.speaker.Speaker`)."""

    def say(self, text: str) -> None: ...

    def close(self) -> None: ...


class Announcer:
    """Says the table's news through ``voice``; ``say``: the categories to speak
    (words.CATEGORIES); ``now``: the clock for ``delay`` (None: mismatches are said at once)."""

    def __init__(self, voice: Voice, *, say: Iterable[str] = words.CATEGORIES,
                 lang: str | None = None, delay: float = 2.0,
                 now: Callable[[], float] | None = None) -> None:
        self.voice = voice
        self.categories = frozenset(say)
        unknown = self.categories - set(words.CATEGORIES)
        if unknown:
            raise ValueError(f"unknown speech categories {sorted(unknown)}; allowed: "
                             f"{', '.join(words.CATEGORIES)}")
        self.lang = lang or get_language()
        self.delay = delay
        self.now = now
        self.ctl: TableController | None = None
        self._game = Game()
        self._sentences: list[Msg] = []  # what each action of self._game was said as
        self._over = False
        self._ended = False  # the game ended before the rules end it (a flag fell)
        self._prompt: tuple[int, bool] = (0, False)
        self._note = ""
        #: the mismatch (then the cut-off stacks left) held: its cells, since when, said yet
        self._held: dict[str, tuple[int, float, bool]] = {}

    # ----------------------------------------------------------------- wiring
    def attach(self, ctl: TableController, clock: Any = None) -> Announcer:
        """Listen to ``ctl`` (``clock``: its clock, for the delay); says whose turn it is."""
        if clock is not None and self.now is None:
            self.now = clock.now
        self.ctl = ctl
        self._game = ctl.game.copy()
        self._sentences = []
        history = [self._game.pop() for _ in range(len(self._game.move_stack))][::-1]
        for move in history:  # what each action before was (a take-back names it)
            turn, piece = self._game.turn, self._game.piece_to_place()
            removed = self._game.push(move)
            self._sentences.append(words.action(turn, move, piece, removed,
                                                cutoffs="cutoffs" in self.categories))
        self._over = self._game.is_over()
        self._ended = bool(getattr(ctl, "finished", False)) and not self._over
        if self.update not in ctl.listeners:
            ctl.listeners.append(self.update)
        if not self._over:
            self._say("prompts", words.to_act(self._game.turn, self._game.placing,
                                              self._game.piece_to_place()))
        return self

    def poll(self, timeout: float = 0.0) -> list[Any]:
        """A Runner source: looks at the table once a round; reports no events."""
        if self.ctl is not None:
            self.update(self.ctl)
        return []

    def close(self) -> None:
        """Stop listening; the voice says what is queued, then stops (safe twice)."""
        if self.ctl is not None and self.update in self.ctl.listeners:
            self.ctl.listeners.remove(self.update)
        self.voice.close()

    def __enter__(self) -> Announcer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- listening
    def update(self, ctl: TableController) -> None:
        """Say what changed since the last call (a controller listener)."""
        self._actions(ctl.game)
        game = self._game
        if game.is_over() != self._over:
            self._over = game.is_over()
            if self._over:
                w, b = game.score()
                self._say("result", words.result(w, b, game.winner()))
        ended = bool(getattr(ctl, "finished", False)) and not game.is_over()
        if ended != self._ended:  # a flag fell (controller.table.timer): its message
            self._ended = ended
            if ended and ctl.message:
                self._say("result", ctl.message)
        e = ctl.explanation
        choice = prompting(ctl)
        prompt = (choice, e.by_source)
        if prompt != self._prompt:
            self._prompt = prompt
            if choice:
                self._say("prompts", words.choose(choice, e.by_source))
        opponent = ctl.opponent
        note = opponent.message(ctl) if opponent is not None and not game.is_over() else ""
        if note != self._note:
            self._note = note
            if note:
                self._say("prompts", note)
        self._hold("mismatches", e.mismatch if e.kind == MISMATCH else 0, words.mismatch)
        removals = sum(1 << c for c in ctl.removals) if e.kind != MISMATCH else 0
        self._hold("cutoffs", removals, words.removals)

    def _actions(self, game: Game) -> None:
        stack, mine = game.move_stack, self._game.move_stack
        if len(stack) == len(mine) and (not stack or stack[-1] == mine[-1]):
            return
        common = 0
        for a, b in zip(stack, mine, strict=False):
            if a != b:
                break
            common += 1
        if common < len(mine):
            self._take_back(game, common)
        last_step = max((i for i in range(common, len(stack)) if not stack[i].is_pass),
                        default=len(stack) - 1)
        for i in range(common, len(stack)):
            move = stack[i]
            turn, piece = self._game.turn, self._game.piece_to_place()
            removed = self._game.push(move)
            sentence = words.action(turn, move, piece, removed,
                                    cutoffs="cutoffs" in self.categories)
            self._sentences.append(sentence)
            parts: list[str] = []
            if "actions" in self.categories:
                parts.append(localize(sentence, self.lang))
            elif removed and "cutoffs" in self.categories:
                parts.append(localize(words.cut_off(removed), self.lang))
            if i == last_step and "score" in self.categories and move.is_step:
                parts.append(localize(words.score(*self._game.score()), self.lang))
            if parts:
                self.voice.say(" ".join(parts))

    def _take_back(self, game: Game, common: int) -> None:
        undone = []
        while len(self._game.move_stack) > common:
            move = self._game.pop()
            sentence = self._sentences.pop()
            if not move.is_pass:
                undone.append(sentence)
        if game.ply == 0 and len(undone) > 1:
            self._say("actions", words.new_game())
        elif len(undone) == 1 and undone[0]:
            self._say("actions", words.taken_back(undone[0]))
        else:
            self._say("actions", words.taken_back_to(common))

    def _hold(self, what: str, cells: int, sentence: Callable[[int], Msg]) -> None:
        """Say ``sentence(cells)`` once the same cells lasted ``delay`` seconds."""
        held = self._held.get(what)
        if not cells:
            self._held.pop(what, None)
            return
        now = self.now() if self.now is not None else 0.0
        if held is None or held[0] != cells:
            held = (cells, now, False)
        if not held[2] and (self.now is None or now - held[1] >= self.delay):
            self._say(what, sentence(cells))
            held = (cells, held[1], True)
        self._held[what] = held

    def _say(self, category: str, message: str) -> None:
        if category in self.categories:
            self.voice.say(spoken_marks(localize(message, self.lang), self.lang))


#: An action with the review's mark, as the tutor writes it (``C3D4?: ...``, ``C3D4??: ...``).
_MARKED = re.compile(r"\b((?:[A-K][1-5]){1,2})(\?\??)(?=:)")


def spoken_marks(text: str, lang: str) -> str:
    """``text`` with each marked action said in words: a voice skips question marks, and a
    player who plays by ear must hear that the tutor marked a mistake."""
    def said(m: re.Match[str]) -> str:
        word = (Msg("{action}, a blunder", action=m.group(1)) if m.group(2) == "??"
                else Msg("{action}, a mistake", action=m.group(1)))
        return localize(word, lang)
    return _MARKED.sub(said, text)
