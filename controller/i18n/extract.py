"""Which messages the code uses: ``_()``, ``N_()``, ``Nn_()``, ``Msg()``, ``ngettext()`` and
``gettext_in(lang, ...)`` calls with literal text in the Python files (by ast), ``t("...")`` /
``tn("...", "...")`` in the page's scripts and ``data-i18n`` marks in its HTML (by pattern).

``python3 -m controller.i18n.extract`` lists what ``de.po`` lacks and holds beyond them;
``--update`` rewrites ``de.po`` in the code's order, keeping every translation it has and
adding the new messages untranslated (tests/controller/test_i18n.py fails until they are).
"""

from __future__ import annotations

import ast
import html
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from controller.i18n.msgfmt import Entry, parse_po

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("controller",)
SCRIPTS = ("controller/web/static/app.js", "controller/web/static/review.js",
           "controller/web/static/remote.js", "controller/web/static/broadcast.js",
           "controller/web/static/tutor.js")
_PY_CALLS = {"_": (0,), "N_": (0,), "Nn_": (0, 1), "Msg": (0,), "ngettext": (0, 1),
             "gettext_in": (1,)}
_JS_STR = r'"(?:[^"\\]|\\.)*"'
_JS_ARG = rf"({_JS_STR}(?:\s*\+\s*{_JS_STR})*)"
_JS_T = re.compile(rf"\bt\(\s*{_JS_ARG}")
_JS_TN = re.compile(rf"\btn\(\s*{_JS_ARG}\s*,\s*{_JS_ARG}")
_HTML = re.compile(r'\bdata-i18n(?:-[a-z-]+)?="([^"{}]*)"')
HEADER = ('msgid ""\nmsgstr ""\n"Project-Id-Version: dvonn-board\\n"\n'
          '"Language: de\\n"\n"MIME-Version: 1.0\\n"\n'
          '"Content-Type: text/plain; charset=UTF-8\\n"\n'
          '"Content-Transfer-Encoding: 8bit\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n')


@dataclass(frozen=True)
class Found:
    msgid: str
    plural: str
    where: str


def _js_text(arg: str) -> str:
    return "".join(json.loads(piece) for piece in re.findall(_JS_STR, arg))


def python_messages(path: Path) -> list[Found]:
    out: list[Found] = []
    rel = path.relative_to(ROOT).as_posix()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        slots = _PY_CALLS.get(name or "")
        if not slots or len(node.args) <= max(slots):
            continue
        texts = [node.args[i] for i in slots]
        if all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in texts):
            values = [str(a.value) for a in texts if isinstance(a, ast.Constant)]
            out.append(Found(values[0], values[1] if len(values) > 1 else "",
                             f"{rel}:{node.lineno}"))
    if path.name == "page.py":
        text = path.read_text(encoding="utf-8")
        for m in _HTML.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append(Found(html.unescape(m.group(1)), "", f"{rel}:{line}"))
    return out


def script_messages(path: Path) -> list[Found]:
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT).as_posix()
    out = []
    for m in _JS_T.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append(Found(_js_text(m.group(1)), "", f"{rel}:{line}"))
    for m in _JS_TN.finditer(text):
        out.append(Found(_js_text(m.group(1)), _js_text(m.group(2)),
                         f"{rel}:{text.count(chr(10), 0, m.start()) + 1}"))
    return out


def messages() -> dict[str, Found]:
    """Every message the code uses, first use first (msgid -> where it was found)."""
    found: dict[str, Found] = {}
    files = [p for folder in SOURCES for p in sorted((ROOT / folder).rglob("*.py"))]
    for item in [f for p in files for f in python_messages(p)] + [
            f for s in SCRIPTS for f in script_messages(ROOT / s)]:
        if item.msgid and item.msgid not in found:
            found[item.msgid] = item
    return found


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def update(po: Path) -> tuple[list[str], list[str]]:
    """Rewrite ``po`` for the code's messages; returns (added, dropped) msgids."""
    old = {e.msgid: e for e in parse_po(po.read_text(encoding="utf-8"))} if po.exists() else {}
    used = messages()
    blocks = [HEADER]
    for msgid, item in used.items():
        entry = old.get(msgid) or Entry(msgid=msgid, plural=item.plural,
                                        msgstr=["", ""] if item.plural else [""])
        lines = [f"#: {item.where}", f"msgid {_quote(msgid)}"]
        if item.plural:
            lines.append(f"msgid_plural {_quote(item.plural)}")
            strs = entry.msgstr if len(entry.msgstr) == 2 else ["", ""]
            lines += [f"msgstr[{i}] {_quote(s)}" for i, s in enumerate(strs)]
        else:
            lines.append(f"msgstr {_quote(entry.msgstr[0] if entry.msgstr else '')}")
        blocks.append("\n".join(lines) + "\n")
    po.write_text("\n".join(blocks), encoding="utf-8")
    return sorted(set(used) - set(old)), sorted(set(old) - set(used) - {""})


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    po = Path(__file__).resolve().parent / "de.po"
    if "--update" in args:
        added, dropped = update(po)
        print(f"{po.name}: {len(added)} new (untranslated), {len(dropped)} dropped")
        return 0
    have = {e.msgid: e for e in parse_po(po.read_text(encoding="utf-8"))}
    used = messages()
    missing = [m for m in used if not all((have.get(m) or Entry()).msgstr or [""])]
    extra = sorted(set(have) - set(used) - {""})
    for m in missing:
        print(f"untranslated: {m!r} ({used[m].where})")
    for m in extra:
        print(f"not in the code: {m!r}")
    return 1 if missing or extra else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
