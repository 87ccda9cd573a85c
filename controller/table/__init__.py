"""The table's reasoning: sensor readings in, committed actions and a BoardView out.

- :mod:`controller.table.debounce`: raw snapshots into stable ones, cell by cell.
- :mod:`controller.table.expected`: the board the table should show (position + removals).
- :mod:`controller.table.catchup`: the short action sequences that explain a snapshot.
- :mod:`controller.table.inference`: which action explains a stable snapshot.
- :mod:`controller.table.session`: TableController, the game driven by sensor events.
- :mod:`controller.table.view`, :mod:`controller.table.guide`: the BoardView (a role per
  cell) and how it is composed from the controller's state.
- :mod:`controller.table.trace`: the ``--trace`` records of the roles, prompts, mismatches.
- :mod:`controller.table.renderer`: roles + time -> LED colours (palette, animation).

Pure Python over the engine and the event types of :mod:`hardware.events`; no device, no
file, no clock of its own (time comes with the events).
"""
