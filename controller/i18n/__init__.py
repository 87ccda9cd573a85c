"""What the table says, in English (the source language) or German: gettext message catalogs.

The German catalog is ``de.po`` beside this file; it is compiled to gettext's binary form in
memory when first used (:mod:`controller.i18n.msgfmt`, pure Python), so an install needs no
gettext tools. ``_()`` translates into the current language (English until
:func:`set_language`); ``N_()`` only marks a message for the catalog.

:class:`Msg` is a message whose words wait for the display: a ``str`` holding the English text
(so logs, traces and JSON stay English in every language) that remembers its message id and
its values; :func:`localize` renders it in a language. Machine-readable output (action lists,
``over white=N black=M``, JSON, the sensor log, the CodeCup protocol) never goes through here.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterable, Mapping
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any

from controller.i18n.msgfmt import compile_po, parse_po
from engine.errors import ConfigError

HERE = Path(__file__).resolve().parent
#: The languages the table speaks; the first is the source language (no catalog).
LANGUAGES = ("en", "de")
#: What each language is called in itself (the page's switch).
NAMES = {"en": "English", "de": "Deutsch"}
_ENV_ORDER = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_current = "en"


def po_path(lang: str) -> Path:
    return HERE / f"{lang}.po"


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang`` (English and unknown languages: the identity)."""
    if lang == LANGUAGES[0] or lang not in LANGUAGES:
        return gettext.NullTranslations()
    return gettext.GNUTranslations(BytesIO(compile_po(po_path(lang).read_text("utf-8"))))


def catalog(lang: str) -> dict[str, Any]:
    """``lang``'s messages as JSON-ready data for the page: msgid -> msgstr (plural
    messages: msgid -> [singular, plural])."""
    if lang not in LANGUAGES:
        raise KeyError(lang)
    if lang == LANGUAGES[0]:
        return {}
    out: dict[str, Any] = {}
    for entry in parse_po(po_path(lang).read_text("utf-8")):
        if not entry.msgid or not all(entry.msgstr):
            continue
        out[entry.msgid] = list(entry.msgstr) if entry.plural else entry.msgstr[0]
    return out


def set_language(lang: str) -> str:
    """Make ``lang`` ('en', 'de') the process's language; returns it. ValueError otherwise."""
    global _current
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; allowed: {', '.join(LANGUAGES)}")
    _current = lang
    return lang


def get_language() -> str:
    return _current


def normalize(tag: str) -> str | None:
    """'de_DE.UTF-8', 'de-AT', 'DE' -> 'de'; 'C', 'POSIX', '' and unknown ones -> None."""
    base = tag.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return base if base in LANGUAGES else None


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language as Python's gettext finds it: the first of LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG that is set, a list ('fr:de') tried in order up to 'C'/'POSIX'; nothing known:
    English."""
    env = os.environ if environ is None else environ
    value = next((env[name] for name in _ENV_ORDER if env.get(name)), "")
    for tag in value.split(":"):
        if tag in ("C", "POSIX") or tag.startswith("C."):
            break
        found = normalize(tag)
        if found:
            return found
    return LANGUAGES[0]


def from_accept_language(header: str | None) -> str:
    """The best of LANGUAGES for an HTTP Accept-Language header (English when none fits)."""
    best, best_q = LANGUAGES[0], -1.0
    for index, item in enumerate((header or "").split(",")[:20]):
        tag, _sep, params = item.strip().partition(";")
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                continue
        lang = normalize(tag)
        if lang and q > 0 and q - index * 1e-6 > best_q:
            best, best_q = lang, q - index * 1e-6
    return best


def choose(setting: str = "auto", environ: Mapping[str, str] | None = None) -> str:
    """The configured language, or the environment's when ``setting`` is 'auto'."""
    return language_from_env(environ) if setting == "auto" else set_check(setting)


def set_check(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; allowed: {', '.join(LANGUAGES)}, auto")
    return lang


def _(message: str) -> str:
    """``message`` in the current language."""
    return translation(_current).gettext(message)


def N_(message: str) -> str:  # noqa: N802 - gettext's name
    """Marks ``message`` for the catalog; translated later (by :func:`localize`)."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 - as N_
    """Marks a plural message (``singular``, ``plural``) for the catalog; ngettext later."""
    return singular, plural


def ngettext(singular: str, plural: str, n: int) -> str:
    return translation(_current).ngettext(singular, plural, n)


def gettext_in(lang: str, message: str) -> str:
    return translation(lang).gettext(message)


class Msg(str):
    """A message in English that can be shown in another language later.

    ``Msg("{side} to move", side=Msg("White"))`` equals the English text ``White to move``;
    ``localize(msg, "de")`` gives ``Weiß ist am Zug``. Values that are Msg are localized too.
    ``Msg.joined(" | ", parts)`` keeps the parts. Pickles and copies as plain English text.
    """

    msgid: str
    params: dict[str, Any]
    parts: tuple[str, ...]
    sep: str

    def __new__(cls, msgid: str, **params: Any) -> Msg:
        text = msgid.format(**params) if params else msgid
        self = super().__new__(cls, text)
        self.msgid, self.params, self.parts, self.sep = msgid, params, (), ""
        return self

    @classmethod
    def joined(cls, sep: str, parts: Iterable[str]) -> Msg:
        items = tuple(parts)
        self = str.__new__(cls, sep.join(items))
        self.msgid, self.params, self.parts, self.sep = "", {}, items, sep
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))


def side(code: str) -> Msg:
    """'w' -> White, 'b' -> Black (Weiß, Schwarz), to show later in any language."""
    return Msg("White") if code == "w" else Msg("Black")


def localize(text: str, lang: str | None = None) -> str:
    """``text`` in ``lang`` (default: the current language): a Msg is rendered from its parts;
    a plain string is looked up whole (a fixed message), else left as it is."""
    lang = lang or _current
    if lang == LANGUAGES[0]:
        return str(text)
    if isinstance(text, Msg):
        if text.parts:
            return text.sep.join(localize(part, lang) for part in text.parts)
        params = {k: localize(v, lang) if isinstance(v, Msg) else below(v, lang)
                  for k, v in text.params.items()}
        return gettext_in(lang, text.msgid).format(**params)
    return gettext_in(lang, str(text)) if text else ""


def below(value: Any, lang: str) -> Any:
    """A value from below the controller (an engine error's text, a system error's) with the
    phrases :mod:`controller.i18n.engine_words` knows in ``lang`` (an exception: its message,
    so); anything else as it is."""
    if lang == LANGUAGES[0]:
        return value
    if isinstance(value, BaseException):
        return error_text(value, lang)
    if not isinstance(value, str) or " " not in value:
        return value
    from controller.i18n.engine_words import translate

    return translate(value, translation(lang).gettext) if lang in LANGUAGES else value


def config_error(key: str, message: str) -> ConfigError:
    """engine's ConfigError (``config key 'KEY': MESSAGE``, the same English text) that the
    player sees in their language (the engine stays free of the catalogs)."""
    exc = ConfigError(key, message)
    exc.args = (Msg("config key {key!r}: {message}", key=key, message=message),)
    return exc


#: StatusEvent kinds shown by name in the player's language (the devices say them in English;
#: 'computer' and 'virtual table' are the web table's).
STATUS_KINDS = (N_("disconnected"), N_("silent"), N_("board-error"), N_("computer"),
                N_("virtual table"))


def status_line(kind: str, detail: str) -> str:
    """A device's (or the virtual table's) news, ``KIND: DETAIL``, to show in any language."""
    name = Msg(kind) if kind in STATUS_KINDS else kind
    return Msg("{kind}: {detail}", kind=name, detail=detail) if detail else name


def in_every_language(text: str) -> dict[str, str]:
    """``text`` in each of :data:`LANGUAGES` (``{"en": ..., "de": ...}``): what the web
    server sends beside an English ``detail`` (``details``) or message (``messages``)."""
    return {lang: localize(text, lang) for lang in LANGUAGES}


def error_message(exc: BaseException) -> str:
    """An exception's message as a Msg when it is one (to localize later), else its text."""
    message = exc.args[0] if len(exc.args) == 1 else None
    return message if isinstance(message, Msg) else str(exc)


def error_text(exc: BaseException, lang: str | None = None) -> str:
    """An exception's message for a player in ``lang`` (default: the current language): a
    Msg message localized, anything else (the engine's errors, the system's) with the
    phrases :mod:`controller.i18n.engine_words` knows translated (English: ``str(exc)``)."""
    lang = lang or _current
    message = exc.args[0] if len(exc.args) == 1 else None
    return localize(message, lang) if isinstance(message, Msg) else below(str(exc), lang)


__all__ = ["LANGUAGES", "NAMES", "Msg", "N_", "Nn_", "_", "catalog", "choose", "config_error",
           "below", "error_message", "error_text", "from_accept_language", "get_language",
           "in_every_language", "language_from_env", "localize",
           "ngettext", "set_language", "side", "status_line"]
