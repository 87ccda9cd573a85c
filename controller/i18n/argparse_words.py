"""argparse's own words in the table's language: "usage:", "options", "the following arguments
are required", "invalid choice" and the rest.

argparse translates with the ``_`` and ``ngettext`` it imports from :mod:`gettext` into its own
module (``from gettext import gettext as _, ngettext``), looked up when a parser is built
(group titles, ``-h``'s help) and when it formats a usage or an error. :func:`install` points
those two names at the table's catalog (the current language, see
:func:`controller.i18n.set_language`), falling back to gettext's own for anything the catalog
lacks, so a parser built after :func:`controller.i18n.set_language` speaks that language.
The messages are CPython 3.11's; one that another version words differently stays English.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from controller.i18n import N_, Nn_, get_language, translation

#: argparse's messages a player can meet (marked for the catalog; argparse asks for them).
MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)
PLURALS = (Nn_("expected %s argument", "expected %s arguments"),)

_ORIGINAL: dict[str, Callable[..., str]] = {}


def _gettext(message: str) -> str:
    text = translation(get_language()).gettext(message)
    return text if text != message else _ORIGINAL["_"](message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    text = translation(get_language()).ngettext(singular, plural, n)
    if text in (singular, plural):
        return _ORIGINAL["ngettext"](singular, plural, n)
    return text


def install() -> None:
    """argparse asks the table's catalog from now on (idempotent)."""
    if _ORIGINAL:
        return
    _ORIGINAL["_"] = getattr(argparse, "_")  # noqa: B009 - argparse's private gettext name
    _ORIGINAL["ngettext"] = getattr(argparse, "ngettext")  # noqa: B009
    setattr(argparse, "_", _gettext)  # noqa: B010
    setattr(argparse, "ngettext", _ngettext)  # noqa: B010
