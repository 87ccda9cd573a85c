"""German for what the layers below the controller say in English (issue 28): the engine's
errors, the system's, the devices' status; the virtual table's and the computer players'
messages; the terminal's status bar label. English stays byte for byte as it was."""

from __future__ import annotations

import io
from concurrent.futures import Future

import pytest

from controller.i18n import Msg, error_text, localize
from controller.i18n import below as translate
from controller.players.player import PlayerError
from controller.table.session import TableController
from controller.web.bridge import Inbox
from controller.web.virtual import VirtualTable
from engine.errors import IllegalMoveError, InvalidMoveError
from engine.game import Game
from engine.move import Move
from hardware.clock import FakeClock
from hardware.events import StatusEvent
from hardware.leds import TerminalStrip
from hardware.leds.layout import LedLayout


def _illegal(*actions: str) -> IllegalMoveError:
    game = Game.from_moves(list(actions[:-1]))
    with pytest.raises(IllegalMoveError) as info:
        game.push(Move.parse(actions[-1]))
    return info.value


@pytest.mark.parametrize(("actions", "german"), [
    (["C3", "C3"], "'C3' ist im Halbzug 2 nicht erlaubt (Schwarz ist am Zug): C3 ist besetzt"),
    (["C3", "C3D3"], "'C3D3' ist im Halbzug 2 nicht erlaubt (Schwarz ist am Zug): beim Setzen "
                     "braucht es ein Feld, z. B. C3"),
])
def test_an_engine_error_in_german_its_english_unchanged(actions: list[str], german: str) -> None:
    exc = _illegal(*actions)
    english = str(exc)
    assert error_text(exc, "en") == english and english.startswith(f"'{actions[-1]}' is illegal")
    assert error_text(exc, "de") == german


def test_phrases_inside_a_message_and_values_kept() -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse("Z9")
    msg = Msg("ply {ply}: {exc}", ply=1, exc=info.value)
    assert localize(msg, "en") == str(msg)
    assert localize(msg, "de") == ("Halbzug 1: 'Z9' ist keine DVONN-Notation "
                                   "(erwartet z. B. C3, C3D3 oder PASS)")
    # the system's words; text no phrase knows stays as it is
    assert translate("x.txt: No such file or directory", "de") == (
        "x.txt: Datei oder Verzeichnis nicht gefunden")
    assert translate("something else entirely", "de") == "something else entirely"
    assert translate("'C3' is illegal at ply 2 (White to act)", "en") == (
        "'C3' is illegal at ply 2 (White to act)")
    # a player called White keeps the name; only a phrase's side value is translated
    assert translate("White", "de") == "White"


def test_a_computer_players_crash_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    said = Msg("{error}; its last words: {tail}", tail="boom", error=Msg(
        "{name}: {what} at ply {ply} ({status})", name="cmd:x", ply=3,
        what=Msg("the program ended without sending an action"),
        status=Msg("exit code {code}", code=1)))
    assert str(said) == ("cmd:x: the program ended without sending an action at ply 3 "
                         "(exit code 1); its last words: boom")
    assert localize(said, "de") == ("cmd:x: das Programm endete, ohne einen Zug zu senden in "
                                    "Halbzug 3 (Exit-Code 1); seine letzten Worte: boom")
    assert error_text(PlayerError(said), "de") == localize(said, "de")


def _virtual() -> VirtualTable:
    return VirtualTable(TableController(colours=False), Inbox(), FakeClock())


def test_the_virtual_tables_words_reach_the_page_in_every_language() -> None:
    table = _virtual()
    table._thinking = Future()  # a computer player still thinking
    out = table.overlay({"message": "White to place a DVONN piece"})
    assert out["message"] == "White (computer) is thinking"
    assert out["messages"] == {"en": "White (computer) is thinking",
                               "de": "Weiß (Computer) denkt nach"}
    table._thinking = None
    table.picked = 22  # a stack picked up in the page
    out = table.overlay({"message": "", "roles": {}})
    cell = out["message"].split()[2].rstrip(":")
    assert out["message"] == (f"White holds {cell}: click where it lands, or {cell} to put "
                              "it back")
    assert out["messages"]["de"] == (f"Weiß hält {cell}: klick auf das Ziel-Feld, oder auf "
                                     f"{cell}, um ihn zurückzusetzen")


def test_a_status_event_is_named_in_the_players_language() -> None:
    ctl = TableController(colours=False)
    detail = Msg("{side} (computer) failed: {error}", side=Msg("Black"), error="no idea")
    ctl.handle(StatusEvent(1.0, "computer", detail))
    assert ctl.status == "computer: Black (computer) failed: no idea"
    assert localize(ctl.status, "de") == "Computer: Schwarz (Computer) ist ausgefallen: no idea"
    ctl.handle(StatusEvent(2.0, "disconnected", "sensor board on /dev/x: gone"))
    assert localize(ctl.status, "de") == "getrennt: sensor board on /dev/x: gone"


def test_the_terminal_status_bar_label_comes_from_the_controller() -> None:
    out = io.StringIO()
    strip = TerminalStrip(LedLayout(status_leds=2), stream=out, colour=False)
    strip.set_status([(255, 255, 255), (0, 0, 0)])
    assert strip.render_text().splitlines()[-1] == "status # ."  # the default: English
    strip.status_label = "Status"
    assert strip.render_text().splitlines()[-1] == "Status # ."
