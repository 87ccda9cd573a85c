"""The message catalogs (controller/i18n): the German catalog is complete for the messages the
code uses and holds no others, with the same placeholders; the pure-Python msgfmt gives what
gettext reads; the language comes from the environment as gettext finds it, from the config
and from Accept-Language; messages made now are shown later in any language."""

from __future__ import annotations

import gettext
import io
import pickle
import re

import pytest

from controller.config.settings import parse_config
from controller.i18n import (
    Msg,
    catalog,
    from_accept_language,
    language_from_env,
    localize,
    po_path,
    translation,
)
from controller.i18n.extract import messages
from controller.i18n.msgfmt import compile_po, parse_po
from engine.errors import ConfigError

PLACEHOLDER = re.compile(r"\{(\w*(?:![rsa])?(?::[^{}]*)?)\}")  # name, !r, :spec
#: argparse's %-style placeholders (its messages and help texts are %-formatted)
PERCENT = re.compile(r"%(?:\((\w+)\))?[a-z%]")
ENTRIES = {e.msgid: e for e in parse_po(po_path("de").read_text(encoding="utf-8")) if e.msgid}


def test_every_message_the_code_uses_has_a_german_translation() -> None:
    used = messages()
    assert len(used) > 100
    missing = sorted(m for m in used if m not in ENTRIES or not all(ENTRIES[m].msgstr))
    assert not missing, f"run python3 -m controller.i18n.extract --update and translate {missing}"


def test_the_catalog_holds_no_message_the_code_no_longer_has() -> None:
    extra = sorted(set(ENTRIES) - set(messages()))
    assert not extra, f"not in the code (python3 -m controller.i18n.extract --update): {extra}"


@pytest.mark.parametrize("msgid", sorted(ENTRIES))
def test_placeholders_are_the_same_in_both_languages(msgid: str) -> None:
    entry = ENTRIES[msgid]
    want = sorted(PLACEHOLDER.findall(msgid))
    plural = sorted(PLACEHOLDER.findall(entry.plural)) if entry.plural else want
    assert want == plural
    for text in entry.msgstr:
        assert sorted(set(PLACEHOLDER.findall(text))) == sorted(set(want)), (msgid, text)


def test_the_extractor_finds_python_scripts_and_the_page() -> None:
    used = messages()
    assert used["White to move"].where.startswith("controller/table/guide.py")
    assert used["Share hints with spectators"].where.startswith("controller/web/static/app.js")
    assert used["Review a game"].where.startswith("controller/web/page.py")
    assert used["{n} action"].plural == "{n} actions"  # tn() in review.js
    assert "Evaluation in pieces, + when White is ahead; ? lost {mistake} or more, ?? " \
           "{blunder} or more" in used  # a string joined with + in JavaScript


def test_the_pure_python_msgfmt_gives_what_gettext_reads() -> None:
    mo = compile_po(po_path("de").read_text(encoding="utf-8"))
    tr = gettext.GNUTranslations(io.BytesIO(mo))
    for msgid, entry in ENTRIES.items():
        if entry.plural:
            assert tr.ngettext(msgid, entry.plural, 1) == entry.msgstr[0]
            assert tr.ngettext(msgid, entry.plural, 5) == entry.msgstr[1]
        else:
            assert tr.gettext(msgid) == entry.msgstr[0]
    assert tr.info()["language"] == "de"
    assert tr.gettext("no such message") == "no such message"
    assert compile_po('msgid ""\nmsgstr ""\n\n#, fuzzy\nmsgid "a"\nmsgstr "b"\n') == compile_po(
        'msgid ""\nmsgstr ""\n')  # a fuzzy entry is left out, as msgfmt does


def test_the_rulebook_words() -> None:
    de = catalog("de")
    assert de["White"] == "Weiß" and de["Black"] == "Schwarz"
    assert de["White to place a DVONN piece"] == "Weiß setzt einen DVONN-Stein"
    assert "Spielstein" in de["Black to place a piece"]
    assert "vom Spielplan" in de["remove the cut-off stacks"]
    assert "Stapel" in de["press next/confirm on the cell the stack came from"]
    assert "passen" in de["White cannot move: PASS"]
    assert catalog("en") == {}
    assert translation("de").gettext("White to move") == "Weiß ist am Zug"


@pytest.mark.parametrize(("env", "lang"), [
    ({}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LC_ALL": "de_AT.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "de_DE.UTF-8"}, "en"),
    ({"LC_MESSAGES": "de_CH", "LANG": "en_GB"}, "de"),
    ({"LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"}, "de"),  # a list, tried in order
    ({"LANGUAGE": "en:de", "LANG": "de_DE.UTF-8"}, "en"),
    ({"LANGUAGE": "", "LANG": "de_DE"}, "de"),  # empty counts as unset
    ({"LANG": "POSIX"}, "en"),
])
def test_the_language_comes_from_the_environment_as_gettext_finds_it(
        env: dict[str, str], lang: str) -> None:
    assert language_from_env(env) == lang


@pytest.mark.parametrize(("header", "lang"), [
    (None, "en"), ("", "en"), ("de-DE,de;q=0.9,en;q=0.8", "de"), ("en-US,en;q=0.9,de;q=0.8", "en"),
    ("fr-FR,de;q=0.5", "de"), ("fr,es", "en"), ("de;q=0,en", "en"), ("en;q=0.4,de;q=0.6", "de"),
    ("de;q=abc", "en"), ("*", "en"),
])
def test_the_page_language_from_accept_language(header: str | None, lang: str) -> None:
    assert from_accept_language(header) == lang


def test_the_config_names_the_language() -> None:
    assert parse_config("").display.language == "auto"
    assert parse_config('[display]\nlanguage = "de"\n').display.language == "de"
    for bad in ('[display]\nlanguage = "fr"\n', "[display]\nlanguage = 1\n",
                '[display]\nlang = "de"\n'):
        with pytest.raises(ConfigError, match=r"display\.lang"):
            parse_config(bad)


def test_a_message_is_english_text_that_shows_in_german_later() -> None:
    msg = Msg("{side} (computer) plays {action}", side=Msg("White"), action="C3D4")
    assert msg == "White (computer) plays C3D4" and isinstance(msg, str)
    assert localize(msg, "de") == "Weiß (Computer) spielt C3D4"
    assert localize(msg, "en") == msg
    joined = Msg.joined(" | ", ["ply 3", Msg("White to move")])
    assert joined == "ply 3 | White to move"
    assert localize(joined, "de") == "ply 3 | Weiß ist am Zug"  # plain text stays as it is
    assert localize("taken back", "de") == "zurückgenommen"  # a fixed message, looked up whole
    copy = pickle.loads(pickle.dumps(msg))
    assert copy == msg and type(copy) is str


@pytest.mark.parametrize("msgid", sorted(ENTRIES))
def test_percent_placeholders_are_the_same_in_both_languages(msgid: str) -> None:
    """argparse %-formats its messages and every help text: a German text keeps them all and
    adds no stray '%'."""
    want = sorted(PERCENT.findall(msgid) + ["%"] * msgid.count("%"))
    for text in ENTRIES[msgid].msgstr:
        assert sorted(PERCENT.findall(text) + ["%"] * text.count("%")) == want, (msgid, text)


def test_config_errors_keep_the_english_text_and_show_in_german() -> None:
    from controller.i18n import error_text

    with pytest.raises(ConfigError) as caught:
        parse_config('[display]\nlanguage = "fr"\n')
    english = str(caught.value)
    assert english.startswith("config key 'display.language': ")
    assert error_text(caught.value, "en") == english
    german = error_text(caught.value, "de")
    assert german.startswith("Konfigurationsschlüssel 'display.language': ") and "'fr'" in german
    with pytest.raises(ConfigError) as caught:
        parse_config("[nonsense]\n")
    assert str(caught.value) == ("config key 'nonsense': unknown section; allowed: "
                                 + str(caught.value).split("allowed: ")[1])
    assert "unbekannter Abschnitt; erlaubt: " in error_text(caught.value, "de")
    assert error_text(ValueError("plain"), "de") == "plain"  # not a Msg: as it is
