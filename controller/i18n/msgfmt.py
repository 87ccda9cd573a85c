"""A small pure-Python msgfmt: reads a .po catalog and writes gettext's .mo form, so the
German catalog needs no gettext tools to install (``python3 -m controller.i18n.msgfmt de.po``
writes ``de.mo``; the package compiles in memory and never needs the file).

Handles what the project's catalogs use: ``msgctxt``-free entries, ``msgid_plural`` with
``msgstr[N]``, multi-line strings, the usual C escapes, ``#, fuzzy`` (left out, as msgfmt
does) and comments.
"""

from __future__ import annotations

import ast
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Entry:
    """One message: id, plural id ('' when none), the translations, flags and line."""

    msgid: str = ""
    plural: str = ""
    msgstr: list[str] = field(default_factory=list)
    fuzzy: bool = False
    line: int = 0


class PoError(ValueError):
    """A .po file msgfmt cannot read (the message names the line)."""


def _unquote(text: str, line: int) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PoError(f"line {line}: expected a quoted string, got {text!r}")
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError) as exc:
        raise PoError(f"line {line}: bad string {text!r}") from exc
    assert isinstance(value, str)
    return value


def parse_po(text: str) -> list[Entry]:
    """The entries of a .po text in file order (the header is the entry with msgid '')."""
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int] | None = None  # ('msgid'|'plural'|'msgstr', index)
    fuzzy = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        keyword, _sep, rest = line.partition(" ")
        if line.startswith('"'):
            if entry is None or target is None:
                raise PoError(f"line {number}: a string continues nothing")
            value = _unquote(line, number)
            kind, index = target
            if kind == "msgid":
                entry.msgid += value
            elif kind == "plural":
                entry.plural += value
            else:
                entry.msgstr[index] += value
            continue
        if keyword == "msgid":
            if entry is not None and target is not None and target[0] != "msgstr":
                raise PoError(f"line {number}: msgid without msgstr before it")
            entry = Entry(msgid=_unquote(rest, number), fuzzy=fuzzy, line=number)
            entries.append(entry)
            fuzzy = False
            target = ("msgid", 0)
        elif entry is None:
            raise PoError(f"line {number}: {keyword} before any msgid")
        elif keyword == "msgid_plural":
            entry.plural = _unquote(rest, number)
            target = ("plural", 0)
        elif keyword == "msgstr":
            entry.msgstr = [_unquote(rest, number)]
            target = ("msgstr", 0)
        elif keyword.startswith("msgstr[") and keyword.endswith("]"):
            index = int(keyword[7:-1])
            if index != len(entry.msgstr):
                raise PoError(f"line {number}: msgstr[{index}] out of order")
            entry.msgstr.append(_unquote(rest, number))
            target = ("msgstr", index)
        else:
            raise PoError(f"line {number}: unknown keyword {keyword!r}")
    for e in entries:
        if not e.msgstr:
            raise PoError(f"line {e.line}: msgid {e.msgid!r} has no msgstr")
    return entries


def compile_po(text: str) -> bytes:
    """The .mo bytes of a .po text (untranslated and fuzzy entries left out, as msgfmt)."""
    pairs: dict[bytes, bytes] = {}
    for e in parse_po(text):
        if e.fuzzy and e.msgid:
            continue
        if e.msgid and not all(e.msgstr):
            continue
        key = e.msgid + ("\0" + e.plural if e.plural else "")
        pairs[key.encode("utf-8")] = "\0".join(e.msgstr).encode("utf-8")
    keys = sorted(pairs)
    ids = b"".join(k + b"\0" for k in keys)
    strs = b"".join(pairs[k] + b"\0" for k in keys)
    header = 7 * 4
    key_start = header + len(keys) * 16
    id_offsets: list[int] = []
    str_offsets: list[int] = []
    pos = 0
    for k in keys:
        id_offsets += [len(k), key_start + pos]
        pos += len(k) + 1
    value_start = key_start + len(ids)
    pos = 0
    for k in keys:
        str_offsets += [len(pairs[k]), value_start + pos]
        pos += len(pairs[k]) + 1
    out = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), header, header + len(keys) * 8, 0, 0)
    out += struct.pack(f"{len(id_offsets)}i", *id_offsets)
    out += struct.pack(f"{len(str_offsets)}i", *str_offsets)
    return out + ids + strs


def main(argv: list[str] | None = None) -> int:
    for name in argv if argv is not None else sys.argv[1:]:
        po = Path(name)
        po.with_suffix(".mo").write_bytes(compile_po(po.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
