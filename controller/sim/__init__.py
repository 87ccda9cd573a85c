"""The simulated table, and the scoring of replayed table sessions.

- :mod:`controller.sim.hands`: simulated hands that play both sides as a person would.
- :mod:`controller.sim.demo`: ``dvonn-board demo``: the hands on an emulated sensor board.
- :mod:`controller.sim.physical`: a mean generator of physical sessions with their truth.
- :mod:`controller.sim.answers`, :mod:`controller.sim.timed`: answers timed from ranges, real
  games' actions, and the LEDs a lit table shows for the true game.
- :mod:`controller.sim.scoring`: replay a session's log and score it against its truth.
"""
