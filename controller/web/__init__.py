"""The live web view: every phone at the table, spectators, and a virtual table.

- :mod:`controller.web.hub`: the latest state, fanned out to every open page (SSE).
- :mod:`controller.web.bridge`: states out of the controller's thread, commands into it.
- :mod:`controller.web.virtual`: the virtual table (the browser board is the table).
- :mod:`controller.web.server`: the HTTP routes (Starlette on uvicorn, in its own thread).
- :mod:`controller.web.transport`: connection caps per client address, header and idle
  timers (uvicorn's h11 protocol under them).
- :mod:`controller.web.page`: the page, with the board drawn from the geometry as SVG.
- :mod:`controller.web.app`: the pieces put together for ``play/demo --web`` and ``web``.
- ``static/``: the page's script and style (no build step, nothing from the internet).

Needs the ``web`` extra (starlette, uvicorn); nothing here imports them at module level.
"""
