"""Runs a scenario's ``test_*`` functions on MicroPython, one result line each.

``main(name)`` imports the scenario module and calls every ``test_*`` function in it (by name
order; the names in ``sys.argv[1:]``, when there are any, are the ones to run; arguments of
the form ``key=value`` are options a scenario reads with ``option``). Each result is printed as one
line ``@@ {json}`` with the test's name, ``ok``, the milliseconds it took on this interpreter
and, on failure, the traceback; tests/firmware/test_on_micropython.py reads those lines. A
scenario may print anything else around them.

Small helpers for the scenarios (MicroPython has no pytest): ``raises``, ``vectors``,
``option``.
"""

import io
import json
import sys
import time

MARK = "@@ "


def raises(exc_type, func, *args, **kwargs):
    """The ``exc_type`` exception ``func(*args)`` raises; AssertionError if it raises none."""
    try:
        func(*args, **kwargs)
    except exc_type as exc:
        return exc
    raise AssertionError(f"{func} did not raise {exc_type.__name__}")


_vectors = None


def vectors():
    """firmware/test_vectors.json, as copied next to the firmware by run.mjs."""
    global _vectors
    if _vectors is None:
        with open("test_vectors.json") as f:
            _vectors = json.load(f)
    return _vectors


def option(key, default):
    """The value of ``key=value`` among the arguments, as the type of ``default``."""
    for arg in sys.argv[1:]:
        if arg.startswith(key + "="):
            return type(default)(arg[len(key) + 1:])
    return default


def main(name):
    module = __import__(name)
    wanted = [a for a in sys.argv[1:] if "=" not in a]
    tests = sorted(n for n in dir(module) if n.startswith("test_"))
    for test in tests:
        if wanted and test not in wanted:
            continue
        start = time.ticks_ms()
        error = None
        try:
            getattr(module, test)()
        except Exception as exc:  # every failure is reported, not raised
            buf = io.StringIO()
            sys.print_exception(exc, buf)
            error = buf.getvalue()
        took = time.ticks_diff(time.ticks_ms(), start)
        print(MARK + json.dumps({"test": test, "ok": error is None, "ms": took,
                                 "error": error}))
