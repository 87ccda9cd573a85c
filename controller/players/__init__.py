"""Players: who chooses a side's actions.

- :mod:`controller.players.player`: the built-in players, CodeCup programs, player specs
  (``human``, ``ai[:LEVEL]``, ``random``, ``greedy``, ``cmd:PROGRAM``) and a match game.
- :mod:`controller.players.opponent`: the computer on the real table: it chooses, the LEDs
  show it, a person carries it out; and the hints.
"""
