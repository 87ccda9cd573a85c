"""The table controller: the game on a real table, from sensor readings to LEDs and on.

Its parts, each a folder, from the bottom up (a part imports only parts below it):

- :mod:`controller.table`: the table's reasoning: debounce, action inference and catch-up
  search, the position the board should show, the BoardView and the LED renderer.
- :mod:`controller.journal`: durable game storage (SQLite), its lock and recovery.
- :mod:`controller.players`: who chooses a side's actions, and the computer on the table.
- :mod:`controller.config`: the TOML configuration and its documented example.
- :mod:`controller.sensorlog`, :mod:`controller.runner`, :mod:`controller.publish`: the
  sensor log, the event loop, and the table's state as data (the seams to the outside).
- :mod:`controller.sim`: the simulated table (hands, the demo, a mean session generator)
  and the scoring of replayed sessions.
- :mod:`controller.web`: the live web view and the virtual table.
- :mod:`controller.cli`: the ``dvonn-board`` command.
"""
